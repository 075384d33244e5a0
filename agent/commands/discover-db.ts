import type { DiscoverDbResult } from '../../core/agent-protocol/wire.ts';
import { discovered, driverFor, errorText } from '../../core/engine/index.ts';
import { providerDeps, type CommandContext, type CommandOutcome } from './command-types.ts';

/**
 * `discover_db {type, config, password?}`: the databases a host serves, as this node sees it,
 * through the same driver plugin the master would use. The password arrives with the claim only.
 */
export async function discoverDbCommand(
  payload: Record<string, unknown>,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  const type = typeof payload.type === 'string' ? payload.type : '';
  const driver = driverFor(ctx.registries.databaseDrivers.list(), type);
  if (!driver) return { success: false, error: `database type "${type}" is not installed on this node` };
  const config = {
    ...(payload.config && typeof payload.config === 'object' ? payload.config : {}),
    ...(typeof payload.password === 'string' ? { password: payload.password } : {}),
  };
  try {
    const instance = await driver.create(
      config,
      providerDeps(ctx, (level, message) =>
        ctx.log[level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'info']({ type }, message),
      ),
    );
    const found = await instance.discover();
    const result: DiscoverDbResult = { databases: found.map(discovered) };
    return { success: true, result };
  } catch (err) {
    return { success: false, error: errorText(err).slice(0, 2000) };
  }
}
