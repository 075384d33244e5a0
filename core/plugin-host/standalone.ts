import Fastify from 'fastify';
import type { DatabaseDriverType, NotifierType, StorageType } from '@backplane/plugin-api';
import { discoverPlugins } from './discover.ts';
import { importPlugins, registerPlugins } from './load.ts';
import { type Registries, ProviderRegistry } from '../engine/index.ts';

export interface StandaloneOptions {
  /** Root of the installation: where `plugins/` and the root package.json live. */
  projectRoot: string;
  /** Extra plugins (paths or package names), as BACKPLANE_PLUGINS is for the master. */
  plugins: string[];
  /** Plugins not to load, as BACKPLANE_PLUGINS_DISABLED is for the master. */
  disabled?: string[];
  /** Working directory for relative plugin paths. */
  cwd?: string;
  /** Where plugins' `app.log` lines go; silent when absent. */
  logger?: { level: string } | false;
}

/**
 * The provider registries without a server: the agent runs the same storage and database
 * providers as the master. Plugins register on a bare Fastify instance that never listens;
 * they only use it for `app.log` and their extension points.
 */
export interface StandaloneRegistries extends Registries {
  /** Runs the plugins' onClose hooks; call once the providers are no longer needed. */
  close(): Promise<void>;
}

export async function loadStandaloneRegistries(options: StandaloneOptions): Promise<StandaloneRegistries> {
  const plugins = await importPlugins(
    await discoverPlugins({ projectRoot: options.projectRoot, configured: options.plugins, cwd: options.cwd }),
    options.disabled,
  );
  const registries: Registries = {
    storageTypes: new ProviderRegistry<StorageType>('storage'),
    notifierTypes: new ProviderRegistry<NotifierType>('notifier'),
    databaseDrivers: new ProviderRegistry<DatabaseDriverType>('database'),
  };
  const app = Fastify({ logger: options.logger ?? false });
  try {
    await registerPlugins(app, plugins, registries);
    await app.ready();
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
  return { ...registries, close: () => app.close() };
}
