import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { ExtensionPoints, ProviderDeps, StorageType } from '@backplane/plugin-api';
import { ProviderRegistry } from '../../core/engine/host/provider-registry.ts';
import plugin from '../../plugins/storage-rclone/index.ts';

/** The storage-rclone plugin registered as core registers it, for the plugin's test files. */

export const quietLog = { info() {}, warn() {}, error() {} };
export function deps(env?: Record<string, string | undefined>): ProviderDeps {
  return { tempDir: tmpdir(), log: quietLog, ...(env ? { env } : {}) };
}

/** Registers the plugin as core does (`register(app, { ext })`), into a real storage registry. */
export async function registerInto(registry: ProviderRegistry<StorageType>, binary?: string): Promise<void> {
  const saved = process.env.BACKPLANE_RCLONE_BINARY;
  if (binary !== undefined) process.env.BACKPLANE_RCLONE_BINARY = binary;
  try {
    const refuse = () => {
      throw new Error('storage-rclone registers storage types only');
    };
    const ext: ExtensionPoints = {
      storage: { addType: (type) => registry.add(type, 'storage-rclone'), has: (name) => registry.has(name) },
      notifiers: { addType: refuse, has: () => false },
      databases: { addType: refuse, has: () => false },
    };
    await plugin.register({ log: quietLog } as unknown as FastifyInstance, { ext });
  } finally {
    if (saved === undefined) delete process.env.BACKPLANE_RCLONE_BINARY;
    else process.env.BACKPLANE_RCLONE_BINARY = saved;
  }
}

export async function registeredTypes(binary?: string): Promise<Map<string, StorageType>> {
  const registry = new ProviderRegistry<StorageType>('storage');
  await registerInto(registry, binary);
  return new Map(registry.list().map((t) => [t.type, t]));
}

let installed: Promise<Map<string, StorageType>> | undefined;
/** BackupX's vendor types, served by rclone's s3 backend. */
export const BACKUPX_VENDORS = ['aliyun_oss', 'tencent_cos', 'qiniu_kodo'];

/** The types of the installed rclone (registered once for this file). */
export async function rcloneType(name: string): Promise<StorageType> {
  installed ??= registeredTypes();
  const type = (await installed).get(name);
  assert.ok(type, `storage type ${name} is registered`);
  return type;
}
