import type { paths } from './schema';

/**
 * Request and response types by route, from the generated description (`paths`), e.g.
 * `RequestBody<'/api/backup/tasks', 'post'>` or `ResponseData<'/api/backup/tasks/{id}', 'get'>`.
 */
type Op<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];

export type RequestBody<P extends keyof paths, M extends keyof paths[P]> =
  Op<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export type ResponseData<P extends keyof paths, M extends keyof paths[P]> =
  Op<P, M> extends { responses: { 200: { content: { 'application/json': { data: infer D } } } } } ? D : never;

export type QueryParams<P extends keyof paths, M extends keyof paths[P]> =
  Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
