import type { ProviderDeps } from '@backplane/plugin-api';
import type { Registries } from '../../core/engine/index.ts';
import type { AgentLogger } from '../logger.ts';
import type { MasterClient } from '../master-client.ts';
import type { LogLevel } from '../update-reporter.ts';
import type { CommandOutcome } from '../../core/agent-protocol/wire.ts';

export type { ClaimedCommand, CommandOutcome } from '../../core/agent-protocol/wire.ts';

export interface CommandContext {
  client: MasterClient;
  registries: Registries;
  /** Provider scratch space; spools go in its `spool/` folder. */
  tempDir: string;
  log: AgentLogger;
  /** Aborted when the agent stops and the grace period is over (reason: "the agent was stopped"). */
  signal: AbortSignal;
}

/** A positive integer from a payload, or an error naming the field. */
export function payloadId(payload: Record<string, unknown>, field: string): number {
  const value = payload[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new Error(`the command payload has no valid "${field}"`);
  return value;
}

/** Providers' log lines go into the record's (or restore's) log, where the user sees them. */
export function providerDeps(
  ctx: Pick<CommandContext, 'tempDir'>,
  log: (level: LogLevel, message: string) => void,
): ProviderDeps {
  return {
    tempDir: ctx.tempDir,
    env: process.env,
    log: { info: (m) => log('info', m), warn: (m) => log('warn', m), error: (m) => log('error', m) },
  };
}
