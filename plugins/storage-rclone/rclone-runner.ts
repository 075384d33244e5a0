import { ProviderError, type ProviderDeps } from '@backplane/plugin-api';
import { notInstalled, rcloneFailure } from './errors.ts';
import { buildArgv, buildEnv, type Operation, type Profile } from './invocation.ts';
import { RcloneChild, runRclone, type ChildExit, type RunResult, type SpawnOptions } from './rclone-process.ts';
import { resolveRemote, type RemoteDefinition } from './remote-definition.ts';

/**
 * One remote's rclone invocations: the child environment (prepared once per instance), the
 * argv of each operation, and the one reading of a finished child as success or a
 * ProviderError. Every operation module (upload, download, listing, ...) goes through it.
 */

/** Short commands (stat, delete, about) get this long before they count as hung. */
export const COMMAND_DEADLINE_MS = 120_000;

export interface Ready {
  env: Record<string, string>;
  secrets: string[];
}

export interface Call {
  profile: Profile;
  signal?: AbortSignal;
}

export const STANDARD: Call = { profile: 'standard' };

export function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

export class RcloneRunner {
  readonly binary: string;
  readonly def: RemoteDefinition;
  readonly log: ProviderDeps['log'] | undefined;
  readonly #baseEnv: Record<string, string | undefined>;
  #ready: Promise<Ready> | undefined;

  constructor(
    binary: string,
    baseEnv: Record<string, string | undefined>,
    def: RemoteDefinition,
    log: ProviderDeps['log'] | undefined,
  ) {
    this.binary = binary;
    this.#baseEnv = baseEnv;
    this.def = def;
    this.log = log;
  }

  /** The child environment (password options obscured once per instance) and the values to redact. */
  prepare(): Promise<Ready> {
    this.#ready ??= resolveRemote(this.def, this.binary, this.#baseEnv).then(({ spec, secrets }) => ({
      env: buildEnv(this.#baseEnv, spec),
      secrets,
    }));
    return this.#ready;
  }

  spawn(ready: Ready, operation: Operation, call: Call, options: SpawnOptions = {}): RcloneChild {
    return new RcloneChild(
      { binary: this.binary, argv: buildArgv(operation, this.def.root, call.profile), env: ready.env },
      { signal: call.signal, ...options },
    );
  }

  run(
    ready: Ready,
    operation: Operation,
    call: Call,
    options: { deadlineMs?: number; maxStdout?: number } = {},
  ): Promise<RunResult> {
    return runRclone(
      { binary: this.binary, argv: buildArgv(operation, this.def.root, call.profile), env: ready.env },
      { signal: call.signal, ...options },
    );
  }

  /** Turns a finished child into an error (or undefined when it succeeded). */
  failure(action: string, exit: ChildExit, ready: Ready, call: Call, deadlineMs?: number): unknown {
    if (exit.spawnError)
      return notInstalled(this.binary, exit.spawnError.code === 'ENOENT' ? 'not found' : exit.spawnError.message);
    if (exit.killedBy === 'abort') return abortReason(call.signal);
    if (exit.killedBy === 'deadline')
      return new ProviderError(
        'transient',
        `rclone ${action}: no answer within ${Math.round((deadlineMs ?? 0) / 1000)} s`,
      );
    if (exit.code === 0) return undefined;
    // Killed by someone else (the OOM killer, an operator): nothing wrong with the request itself.
    if (exit.signal) return new ProviderError('transient', `rclone ${action}: rclone was killed by ${exit.signal}`);
    return rcloneFailure(action, exit, ready.secrets);
  }
}
