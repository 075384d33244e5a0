import type { Readable } from 'node:stream';
import type { StorageInstance } from '@backplane/plugin-api';

/**
 * The shapes of restic's REST backend protocol as the bridge speaks it, free of any HTTP
 * framework: a request in, an answer out (docs/repositories.md).
 */

/** Media types of the protocol's two versions; restic 0.14 asks for v2 and reads v1 too. */
export const RESTIC_REST_V1 = 'application/vnd.x.restic.rest.v1';
export const RESTIC_REST_V2 = 'application/vnd.x.restic.rest.v2';

export type ResticHeaderValue = string | readonly string[] | undefined;

export interface ResticRequest {
  method: string;
  /** The path below the bridge's base, exactly as sent: `/`, `/config`, `/data/`, `/data/<id>`. */
  path: string;
  query: Readonly<Record<string, ResticHeaderValue>>;
  /** Header names in lower case, as node:http gives them. */
  headers: Readonly<Record<string, ResticHeaderValue>>;
  /** The request body; read only by uploads. */
  body: Readable;
}

export interface ResticResponse {
  status: number;
  /** Lower-case names; a Readable body's length is in `content-length` when it is known. */
  headers: Record<string, string>;
  body?: Readable | Buffer | string;
}

export interface ResticBridgeOptions {
  storage: StorageInstance;
  /** The repository's folder key on the storage (`repositories/task-3`; '' is the storage's root). */
  prefix: string;
  /** rest-server's --append-only: nothing is deleted but locks. */
  appendOnly: boolean;
  /** Aborts the storage operations of a request (its client went away, the bridge is closing). */
  signal?: AbortSignal;
  /** Told of every failure answered with a 500, whose text names only the error's kind. */
  onError?: (error: unknown) => void;
}
