import type { Readable } from 'node:stream';

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

export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  constructor(kind: ProviderErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

export interface ProviderDeps {
  /** Scratch space the provider may use (agent or master data dir). */
  tempDir: string;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
}

export interface TestResult { success: boolean; message: string }

// ---- storage ---------------------------------------------------------------------------
export interface ObjectInfo { key: string; size: number; modifiedAt?: Date }
export interface StorageCapabilities { range: boolean; usage: boolean; oauth: boolean }

export interface StorageInstance {
  /** Stores the stream under key; resolves once the object is complete and durable. */
  put(key: string, body: Readable, meta: { size?: number; contentType?: string }): Promise<{ size: number }>;
  /** Opens the object; `range` is inclusive byte offsets. Missing objects reject with kind `not_found`. */
  get(key: string, range?: { start: number; end?: number }): Promise<Readable>;
  list(prefix: string): AsyncIterable<ObjectInfo>;
  stat(key: string): Promise<ObjectInfo | undefined>;
  /** Idempotent: deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
  usage?(): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }>;
  testConnection(): Promise<TestResult>;
  close?(): Promise<void>;
}

export interface StorageType extends ProviderManifest {
  capabilities: StorageCapabilities;
  create(config: Record<string, unknown>, deps: ProviderDeps): StorageInstance | Promise<StorageInstance>;
}

// ---- notifications ---------------------------------------------------------------------
export interface NotificationMessage { event: string; title: string; body: string; fields: Record<string, string | number | boolean | null> }
export interface NotifierInstance {
  send(message: NotificationMessage): Promise<void>;
  testConnection(): Promise<TestResult>;
}
export interface NotifierType extends ProviderManifest {
  create(config: Record<string, unknown>, deps: ProviderDeps): NotifierInstance | Promise<NotifierInstance>;
}

// ---- database drivers ------------------------------------------------------------------
export interface DiscoveredDatabase { name: string; sizeBytes?: number }
export interface DatabaseDriverInstance {
  discover(): Promise<DiscoveredDatabase[]>;
  dump(options: { databases: string[] }): Promise<{ stream: Readable; done: Promise<void> }>;
  restore(stream: Readable, options: { database: string }): Promise<void>;
  testConnection(): Promise<TestResult>;
}
export interface DatabaseDriverType extends ProviderManifest {
  /** Task types this driver serves, e.g. `['postgresql', 'pgsql']`. */
  aliases?: string[];
  create(config: Record<string, unknown>, deps: ProviderDeps): DatabaseDriverInstance | Promise<DatabaseDriverInstance>;
}
