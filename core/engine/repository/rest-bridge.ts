import { providerErrorKind } from '@backplane/plugin-api';
import { deleteFile, readFile, saveFile } from './file-requests.ts';
import { listFiles } from './list-request.ts';
import { repositoryPrefix } from './restic-layout.ts';
import { firstValue, textResponse } from './answers.ts';
import type { ResticBridgeOptions, ResticRequest, ResticResponse } from './restic-http.ts';
import { resticRoute } from './restic-route.ts';

/**
 * restic's REST backend protocol (v1 and v2) onto a Backplane storage instance: restic talks
 * HTTP to the bridge, the bridge keeps the repository's files on the storage in restic's default
 * layout (restic-layout.ts). Framework-free: the caller turns its HTTP request into a
 * ResticRequest and sends the ResticResponse back (loopback-bridge.ts does it with node:http).
 */
export async function handleResticRequest(
  request: ResticRequest,
  options: ResticBridgeOptions,
): Promise<ResticResponse> {
  const route = resticRoute(request.path);
  if (route.kind === 'unknown') return textResponse(404, 'Not Found');
  if (route.kind === 'bad-name') return textResponse(400, 'Bad Request: restic names files by 64 lowercase hex digits');
  let prefix: string;
  try {
    prefix = repositoryPrefix(options.prefix);
  } catch (err) {
    options.onError?.(err);
    return textResponse(500, 'Internal Server Error: invalid repository prefix');
  }
  const { method } = request;
  try {
    switch (route.kind) {
      case 'repository':
        // Creating a repository makes no folders: object stores have none, and the local disk
        // makes them as files arrive (restic's own local backend copes with missing ones).
        if (method !== 'POST') return notAllowed('POST');
        return firstValue(request.query.create) === 'true'
          ? textResponse(200, '')
          : textResponse(400, 'Bad Request: POST / takes ?create=true');
      case 'list':
        return method === 'GET' ? await listFiles(request, options, prefix, route.type) : notAllowed('GET');
      case 'file':
        if (method === 'HEAD' || method === 'GET') return await readFile(request, options, prefix, route.file);
        if (method === 'POST') return await saveFile(request, options, prefix, route.file);
        if (method === 'DELETE') return await deleteFile(options, prefix, route.file);
        return notAllowed('HEAD, GET, POST, DELETE');
    }
  } catch (err) {
    return storageFailure(err, options);
  }
}

function notAllowed(allow: string): ResticResponse {
  return textResponse(405, 'Method Not Allowed', { allow });
}

/** not_found is a missing file (404); anything else a server error, named only by its kind. */
function storageFailure(err: unknown, options: ResticBridgeOptions): ResticResponse {
  const kind = providerErrorKind(err);
  if (kind === 'not_found') return textResponse(404, 'Not Found');
  options.onError?.(err);
  return textResponse(500, `Internal Server Error: storage failed (${kind ?? 'error'})`);
}
