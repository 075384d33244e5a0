import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { AppError } from '../../http/app-error.ts';
import { DEFAULT_CONSOLE_DIR, readConsoleBuild, type ConsoleBuild } from './console-dir.ts';
import { isConsolePath, isPageRequest, wantsJsonOnly } from './page-requests.ts';
import { ASSET_CACHE_CONTROL, INDEX_CACHE_CONTROL, setPageHeaders } from './page-headers.ts';
import { BUILD_COMMAND, NOT_BUILT_PAGE } from './not-built-page.ts';

const PUBLIC = { access: 'public' } as const;
/** The console's files are not API: left out of the OpenAPI description. */
const HIDDEN = { hide: true } as const;

/** A path below /assets/ as the router decoded it: plain segments only, so nothing outside the folder is named. */
function isPlainAssetPath(path: string): boolean {
  return path.length > 0 && !/[\\\0]/.test(path) && path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** Files of the build outside assets/ get a route each; names a route pattern could misread are left out. */
const ROUTABLE_FILE = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/**
 * The web console at `/`: index.html, the hashed assets under /assets/, the other files of the
 * build, and index.html again for any other page address a browser asks for (the console routes
 * in the browser). Registered after every API route; it claims no wildcard outside /assets/, so
 * unknown API addresses keep their JSON 404 (core/http/error-handler.ts asks the page fallback
 * first, and the fallback leaves API prefixes, writes and non-browser clients alone).
 */
export async function consolePlugin(app: FastifyInstance): Promise<void> {
  const { config } = app.diContainer.cradle;
  if (!config.console) return;
  const dir = config.consoleDir ?? DEFAULT_CONSOLE_DIR;
  const build = await readConsoleBuild(dir);
  if (!build) {
    app.log.warn(
      { dir },
      `the web console is not built: / answers 503 until it is (${BUILD_COMMAND}, then restart); the API is not affected`,
    );
    serveNotBuilt(app);
    return;
  }
  await serveBuild(app, build);
}

async function serveBuild(app: FastifyInstance, build: ConsoleBuild): Promise<void> {
  // Only for reply.sendFile (ranges, ETag, Last-Modified, content types): its own routes carry no
  // access label, which the guard requires, and its wildcard would claim every unknown address.
  await app.register(fastifyStatic, {
    root: build.dir,
    serve: false,
    index: false,
    dotfiles: 'ignore',
    // Set below per file, on success only: a 404 must not be cached for a year.
    cacheControl: false,
    setHeaders(reply, path) {
      reply.header('cache-control', path.startsWith(build.assetsDir) ? ASSET_CACHE_CONTROL : INDEX_CACHE_CONTROL);
    },
  });

  const sendIndex = async (reply: FastifyReply): Promise<FastifyReply> => {
    // Read on every request: a rebuild while the master runs is served at once (the file is small).
    const html = await readFile(build.indexFile);
    return setPageHeaders(reply.code(200)).header('cache-control', INDEX_CACHE_CONTROL).send(html);
  };

  app.get('/', { config: PUBLIC, schema: HIDDEN }, (_request, reply) => sendIndex(reply));

  app.get<{ Params: { '*': string } }>('/assets/*', { config: PUBLIC, schema: HIDDEN }, (request, reply) => {
    const path = request.params['*'];
    if (!isPlainAssetPath(path)) return reply.callNotFound();
    return reply.sendFile(path, build.assetsDir);
  });

  for (const file of build.otherFiles) {
    if (!ROUTABLE_FILE.test(file) || !isConsolePath(`/${file}`)) {
      app.log.warn(
        { file },
        'a file of the web console build is not served: its name is not a plain path or lies under an API prefix',
      );
      continue;
    }
    app.get(`/${file}`, { config: PUBLIC, schema: HIDDEN }, (_request, reply) => reply.sendFile(file));
  }

  app.notFoundFallbacks.push((request, reply) => {
    if (!isPageRequest(request)) return false;
    sendIndex(reply).catch((err: unknown) => reply.send(err));
    return true;
  });
}

function serveNotBuilt(app: FastifyInstance): void {
  const sendPage = (reply: FastifyReply): FastifyReply =>
    // no-store: once the console is built, the browser must not keep showing this.
    setPageHeaders(reply.code(503)).header('cache-control', 'no-store').send(NOT_BUILT_PAGE);

  app.get('/', { config: PUBLIC, schema: HIDDEN }, async (request: FastifyRequest, reply) => {
    if (wantsJsonOnly(request)) throw new AppError('CONSOLE_NOT_BUILT');
    return sendPage(reply);
  });

  app.notFoundFallbacks.push((request, reply) => {
    if (!isPageRequest(request)) return false;
    sendPage(reply);
    return true;
  });
}
