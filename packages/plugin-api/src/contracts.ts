import type { Readable } from 'node:stream';
import type { ConfigAliases } from './config-aliases.ts';

/**
 * Provider contracts: what a plugin supplies and what core calls. Provider code imports
 * neither Fastify nor awilix, so the agent loads the very same providers.
 */

/** A JSON Schema (draft-07 subset as Ajv understands it) describing a provider's settings. */
export type JsonSchema = Record<string, unknown>;

export interface ProviderManifest {
  /** Unique within its kind: `local_disk`, `s3`, `email`, `postgresql`... */
  type: string;
  displayName: string;
  description?: string;
  configSchema: JsonSchema;
  /** Fields of the config that are secrets: sealed at rest, masked in responses, left out of exports. */
  secretFields: string[];
}

/** Why a provider operation failed; core retries `transient` and reports the rest. */
export type ProviderErrorKind = 'not_found' | 'auth' | 'quota' | 'unsupported' | 'transient' | 'permanent';

/**
 * A provider failure with its kind. A third-party plugin has its own installed copy of this
 * package, so its errors are instances of another copy of the class: core therefore recognises
 * any error named `ProviderError` with a valid `kind` (`providerErrorKind`), and
 * `Object.assign(new Error(msg), { name: 'ProviderError', kind: 'not_found' })` is equivalent.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  constructor(kind: ProviderErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

export interface ProviderDeps {
  /** Scratch space the provider may use (under the agent's or master's data dir). */
  tempDir: string;
  /** Environment for external programs (e.g. BACKPLANE_RCLONE_BINARY); defaults to process.env. */
  env?: Record<string, string | undefined>;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
}

export interface TestResult {
  success: boolean;
  message: string;
}

const KINDS: readonly ProviderErrorKind[] = ['not_found', 'auth', 'quota', 'unsupported', 'transient', 'permanent'];

/** The kind of a provider error, from this class or any error shaped like it; undefined otherwise. */
export function providerErrorKind(err: unknown): ProviderErrorKind | undefined {
  if (!(err instanceof Error) || err.name !== 'ProviderError') return undefined;
  const kind = (err as { kind?: unknown }).kind;
  return KINDS.includes(kind as ProviderErrorKind) ? (kind as ProviderErrorKind) : undefined;
}

// ---- storage ---------------------------------------------------------------------------
export interface ObjectInfo {
  key: string;
  size: number;
  modifiedAt?: Date;
}

export interface StorageCapabilities {
  /** get() honours byte ranges natively (otherwise core skips bytes itself). */
  range: boolean;
  /** usage() reports the backend's own capacity. */
  usage: boolean;
  /** The type is authorised through an OAuth flow (see StorageType.oauth). */
  oauth: boolean;
}

/** Documentation of one config field, for catalogues and forms (derived from the schema where possible). */
export interface OptionDoc {
  name: string;
  help: string;
  required: boolean;
  secret: boolean;
  default?: string;
  advanced?: boolean;
  examples?: string[];
}

/**
 * One saved target, bound to its settings. Keys are `/`-separated paths relative to the
 * target's root; providers must refuse keys that would escape it.
 */
export interface StorageInstance {
  /**
   * Stores the stream under `key`. Resolves once the object is complete and durable. If the
   * stream errors or is cut short, nothing must be left under `key` (write to a temporary
   * name and rename, or use the backend's atomic upload), and the promise rejects.
   * `meta.size`, when given, is the exact length; a stream of another length is an error.
   */
  put(
    key: string,
    body: Readable,
    meta?: { size?: number; contentType?: string; signal?: AbortSignal },
  ): Promise<{ size: number }>;
  /**
   * Opens the object for reading; `range` is inclusive byte offsets (`end` absent = to the end).
   * A missing object rejects with ProviderError kind `not_found`. `signal` (optional to honour)
   * aborts the opening and the read: a reader being cancelled must not wait for a storage
   * server that stopped answering.
   */
  get(key: string, range?: { start: number; end?: number }, options?: { signal?: AbortSignal }): Promise<Readable>;
  /** Objects whose key starts with `prefix` (a folder-like prefix such as `task/2026/`), any order. */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  /** Size and time of one object, or undefined when it does not exist. */
  stat(key: string): Promise<ObjectInfo | undefined>;
  /** Idempotent: deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
  /** The backend's own capacity, where it reports one. */
  usage?(): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }>;
  /** Checks that the target is reachable and writable with these settings; never throws. */
  testConnection(): Promise<TestResult>;
  close?(): Promise<void>;
  /**
   * Optional, for providers that stage uploads under temporary names: removes every temporary
   * object an upload to `key` may have left (a process killed between the first byte and the
   * rename cannot clean up after itself). Never touches `key` itself or another key's
   * temporaries; idempotent; resolves with how many it removed. Core calls it only for keys
   * with no upload in progress (a run that crashed or was given up).
   */
  removeTemporaries?(key: string): Promise<number>;
  /**
   * Optional, with removeTemporaries: removes temporary objects anywhere on the target last
   * modified before `olderThan`, except those belonging to a key in `keep` (uploads in progress).
   * Temporaries without a known time are kept. Resolves with how many it removed.
   */
  removeStaleTemporaries?(olderThan: Date, keep?: Iterable<string>): Promise<number>;
}

/** OAuth-authorised types (Google Drive): core runs the flow, the type knows the provider. */
export interface StorageOAuth {
  /** The URL the user's browser opens; `state` must be passed through unchanged. */
  authUrl(config: Record<string, unknown>, params: { state: string; redirectUri: string }, deps?: ProviderDeps): string;
  /** Exchanges the authorisation code; returns secret fields to store (e.g. `refreshToken`). */
  exchange(
    config: Record<string, unknown>,
    params: { code: string; redirectUri: string },
    deps: ProviderDeps,
  ): Promise<Record<string, string>>;
  /** The connected account. */
  profile?(
    config: Record<string, unknown>,
    deps: ProviderDeps,
  ): Promise<{ email: string; name: string; picture: string }>;
}

export interface StorageType extends ProviderManifest {
  capabilities: StorageCapabilities;
  /** Groups related types for catalogues: every rclone backend has family `rclone`. */
  family?: string;
  /** Field documentation; when absent, core derives it from `configSchema`. */
  options?: OptionDoc[];
  oauth?: StorageOAuth;
  /** Other names clients use for config fields (config-aliases.ts); core translates them. */
  configAliases?: ConfigAliases;
  /** `config` holds the non-secret and the (decrypted) secret fields together. */
  create(config: Record<string, unknown>, deps: ProviderDeps): StorageInstance | Promise<StorageInstance>;
}

// ---- notifications ---------------------------------------------------------------------
/** How bad the news is; notifiers may colour or prioritise by it. */
export type NotificationSeverity = 'info' | 'success' | 'warning' | 'error';

/** One message for one channel. Core renders it; a notifier only puts it into its service's shape. */
export interface NotificationMessage {
  /** The stable event type (`backup_failed`, `storage_unhealthy`, `test`...). */
  event: string;
  severity: NotificationSeverity;
  /** One line, no line breaks. */
  title: string;
  /** Plain text, may span lines. */
  body: string;
  /** The event's fields (`taskName`, `recordId`...), for services that show key/value pairs or JSON. */
  fields: Record<string, string | number | boolean | null>;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  /** A link to the subject in Backplane (record, task, target), when the master knows its external URL. */
  link?: string;
  /**
   * The same for every attempt of this event to this channel, different otherwise: a receiver
   * deduplicates with it (core retries a delivery whose outcome it did not learn, so a message
   * may arrive twice). Notifiers pass it on where their service has a place for it.
   */
  idempotencyKey: string;
}

/** An address a message is sent to instead of the channel's configured recipients. */
export interface NotificationAddress {
  kind: 'email' | 'phone';
  value: string;
}

export interface SendOptions {
  /**
   * Aborts the delivery (core's timeout): a notifier passes it to its HTTP or SMTP client and
   * rejects with ProviderError kind `transient` when it fires.
   */
  signal?: AbortSignal;
  /**
   * Deliver to this address instead of the configured recipients (one-time login codes). Core
   * only passes a kind the type lists in `addressKinds`.
   */
  address?: NotificationAddress;
}

/**
 * A channel bound to its settings. `send` resolves once the service accepted the message and
 * rejects with a ProviderError otherwise:
 * - `auth`: the service refused the credential (HTTP 401/403, SMTP 535): retrying will not help;
 * - `transient`: unreachable, timed out, aborted, rate-limited (429) or a server error (5xx): core retries with back-off;
 * - `permanent`: the service refused the message or the settings (other 4xx, a refused recipient).
 * Error messages never contain a secret (a token in a URL path included).
 */
export interface NotifierInstance {
  send(message: NotificationMessage, options?: SendOptions): Promise<void>;
  close?(): Promise<void>;
}

export interface NotifierType extends ProviderManifest {
  /** Field documentation for catalogues and forms; when absent, core derives it from `configSchema`. */
  options?: OptionDoc[];
  /** Other names clients use for config fields (config-aliases.ts); core translates them. */
  configAliases?: ConfigAliases;
  /** Kinds of address `send` can deliver to instead of the configured recipients (`SendOptions.address`). */
  addressKinds?: NotificationAddress['kind'][];
  /** `config` holds the non-secret and the (decrypted) secret fields together. */
  create(config: Record<string, unknown>, deps: ProviderDeps): NotifierInstance | Promise<NotifierInstance>;
}

// ---- database drivers ------------------------------------------------------------------
export interface DiscoveredDatabase {
  name: string;
  sizeBytes?: number;
  /** The server's own database (`postgres`, `template1`, `mysql`, `sys`...): listed, but not a default backup choice. */
  system?: boolean;
}
/** A program that compresses its stdin to its stdout, which core offers to a dump. */
export interface DumpCompressor {
  command: string;
  args: string[];
  /** The uncompressed byte count, read off the program's stderr once it exited; undefined when it does not say. */
  rawBytes?(stderr: string): number | undefined;
}
export interface DumpOptions {
  databases: string[];
  /**
   * Offered by core when it would compress the dump with a program anyway: the dump tool's
   * stdout then goes straight into this program (an OS pipe, the bytes never enter Node) and
   * the stream carries its output. Honouring it is optional.
   */
  compressor?: DumpCompressor;
}
export interface DumpStream {
  stream: Readable;
  done: Promise<void>;
  /** True when `stream` is the output of `options.compressor`. */
  compressed?: boolean;
  /** With `compressed`: the dump's uncompressed size once `done` resolved (undefined before, or when the compressor did not say). */
  rawBytes?: () => number | undefined;
}
export interface DatabaseDriverInstance {
  discover(): Promise<DiscoveredDatabase[]>;
  /**
   * Streams a dump. `done` settles when the producer exits: it rejects (and the stream errors
   * rather than ending) when the dump failed, so a failed dump never looks like a short artifact.
   * A driver whose dump is a program may honour `options.compressor` (pass it to `runDump`);
   * one that ignores it returns the plain dump and core compresses it.
   */
  dump(options: DumpOptions): Promise<DumpStream>;
  restore(stream: Readable, options: { database: string }): Promise<void>;
  testConnection(): Promise<TestResult>;
  /**
   * Creates the database when it does not exist; resolves `true` when it created it. Used to
   * restore into a new name and to build verification sandboxes. Absent: core cannot create
   * databases with this driver (SQLite files need none).
   */
  ensureDatabase?(name: string): Promise<boolean>;
  /** Drops the database (idempotent: a missing one is fine). */
  dropDatabase?(name: string): Promise<void>;
  /**
   * Atomically makes `source` take the place of `target` (which may exist: it is dropped),
   * after disconnecting its sessions. Lets core restore into a scratch database first and swap
   * only once the restore succeeded.
   */
  replaceDatabase?(target: string, source: string): Promise<void>;
  /** Row count per table (`schema.table` where the engine has schemas), for verification. */
  tableStats?(database: string): Promise<Record<string, number>>;
}
export interface DatabaseDriverType extends ProviderManifest {
  /** Task types this driver serves, e.g. `['postgresql', 'pgsql']`. */
  aliases?: string[];
  /**
   * Whether a task names the databases to dump (`dbName`): `required` (the default, database
   * servers) or `none` (the config already names the one thing to dump, as SQLite's `path`
   * does). A task may name several; core then calls `dump` once per database, each with one name.
   */
  databaseNames?: 'required' | 'none';
  /**
   * A restore that fails part-way leaves the target unchanged (one transaction, or a file
   * replaced by rename). Core then restores in a single pass, checking the artifact as it
   * streams; otherwise it reads and checks the whole artifact before touching the target.
   */
  atomicRestore?: boolean;
  /**
   * Checks the start and end (up to 64 KiB each) of a decoded dump: the header the tool writes
   * and the trailer that proves the dump ran to completion. Returns a problem, or undefined.
   */
  checkDump?(head: Buffer, tail: Buffer): string | undefined;
  /** The raw dump's file extension, before compression and encryption (default `sql`). */
  artifactExtension?: string;
  create(config: Record<string, unknown>, deps: ProviderDeps): DatabaseDriverInstance | Promise<DatabaseDriverInstance>;
}
