import type { ResticHeaderValue, ResticResponse } from './restic-http.ts';

/** Small pieces every request handler of the bridge uses. */

/** The first value of a header or query parameter. */
export function firstValue(value: ResticHeaderValue): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}

/** A short plain-text answer; the text is for people reading logs, restic reads the status. */
export function textResponse(status: number, text: string, headers: Record<string, string> = {}): ResticResponse {
  const body = text === '' ? '' : `${text}\n`;
  return {
    status,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      ...headers,
    },
    body,
  };
}
