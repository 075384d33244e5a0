import { errorText, hostInfo, VERSION, type Registries } from '../core/engine/index.ts';
import type { HeartbeatInput, HeartbeatReply, PollReply } from '../core/agent-protocol/wire.ts';
import { Backoff, retryWithBackoff, sleep } from './backoff.ts';
import { executeCommand } from './commands/dispatch.ts';
import type { ClaimedCommand, CommandOutcome } from './commands/command-types.ts';
import type { AgentLogger } from './logger.ts';
import { isRetryable, MasterError, type MasterClient } from './master-client.ts';
import { resetSpools } from './spool.ts';

export interface AgentOptions {
  client: MasterClient;
  registries: Registries;
  log: AgentLogger;
  tempDir: string;
  heartbeatSeconds: number;
  pollSeconds: number;
  stopGraceSeconds: number;
}

interface Running {
  command: ClaimedCommand;
  abort: AbortController;
  done: Promise<void>;
}

/** How long a command's result is retried while the master is away. */
const RESULT_RETRY_MS = 10 * 60_000;
export const STOPPED_MESSAGE = 'the agent was stopped';

/**
 * The agent's life: a first heartbeat that settles whatever a predecessor held (`inFlight: []`),
 * then heartbeats and polls until `stop()`; a stop lets running commands finish within the
 * grace period, aborts the rest, and resolves `run()` once every result is sent.
 */
export class Agent {
  readonly #o: AgentOptions;
  readonly #running = new Map<number, Running>();
  /** Aborted by stop(): ends polling, heartbeat waits and backoffs (never the commands themselves). */
  readonly #stopping = new AbortController();
  #maxConcurrent = 1;
  #lastError = '';
  /** Wakes the poll loop when a slot frees up. */
  #slotFreed: (() => void) | undefined;

  constructor(options: AgentOptions) {
    this.#o = options;
  }

  get inFlight(): number[] {
    return [...this.#running.keys()];
  }

  get stopping(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** Begins a graceful stop; `run()` resolves once it is complete. Calling it again is harmless. */
  stop(): void {
    if (!this.stopping) {
      this.#o.log.info({ running: this.#running.size }, 'stopping: no new commands are claimed');
      this.#stopping.abort(new Error(STOPPED_MESSAGE));
    }
  }

  async run(): Promise<void> {
    const { log } = this.#o;
    await resetSpools(this.#o.tempDir);
    const stopSignal = this.#stopping.signal;
    let first: HeartbeatReply;
    try {
      first = await retryWithBackoff(() => this.#heartbeat([], true), {
        retryable: (err) => !(err instanceof MasterError && err.status === 401),
        signal: stopSignal,
        onRetry: (err, attempt) =>
          log.warn({ attempt }, `the master did not answer the first heartbeat: ${errorText(err)}`),
      });
    } catch (err) {
      if (stopSignal.aborted) return;
      throw err;
    }
    log.info({ nodeId: first.nodeId, node: first.name, maxConcurrent: first.maxConcurrent }, 'connected to the master');

    const heartbeats = this.#heartbeatLoop();
    await this.#pollLoop();
    await this.#drain();
    this.#stopHeartbeats?.();
    await heartbeats;
    log.info('stopped');
  }

  /** `starting`: this process holds nothing yet, so whatever the node had claimed before is settled. */
  async #heartbeat(inFlight: number[], starting = false): Promise<HeartbeatReply> {
    const body: HeartbeatInput = {
      ...hostInfo(),
      agentVersion: VERSION,
      running: inFlight.length,
      inFlight,
      ...(starting ? { starting: true } : {}),
      ...(this.#lastError ? { lastError: this.#lastError.slice(0, 4000) } : {}),
    };
    const reply = await this.#o.client.post<HeartbeatReply>('/api/agent/heartbeat', body);
    if (Number.isInteger(reply?.maxConcurrent) && reply.maxConcurrent >= 0) {
      // 0 is unlimited (the node's setting): claim while there is work.
      const slots = reply.maxConcurrent === 0 ? Infinity : reply.maxConcurrent;
      if (slots !== this.#maxConcurrent) this.#wake();
      this.#maxConcurrent = slots;
    }
    return reply;
  }

  #stopHeartbeats: (() => void) | undefined;

  /** Heartbeats go on while stopping: they renew the leases of the commands still finishing. */
  async #heartbeatLoop(): Promise<void> {
    const ended = new AbortController();
    this.#stopHeartbeats = () => ended.abort();
    for (;;) {
      try {
        await sleep(this.#o.heartbeatSeconds * 1000, ended.signal);
      } catch {
        return;
      }
      try {
        await this.#heartbeat(this.inFlight);
      } catch (err) {
        this.#o.log.warn(`heartbeat failed: ${errorText(err)}`);
      }
    }
  }

  #wake(): void {
    const w = this.#slotFreed;
    this.#slotFreed = undefined;
    w?.();
  }

  async #pollLoop(): Promise<void> {
    const { client, log } = this.#o;
    const signal = this.#stopping.signal;
    const backoff = new Backoff();
    while (!signal.aborted) {
      if (this.#running.size >= this.#maxConcurrent) {
        await new Promise<void>((resolve) => {
          // The listener goes with the wait: a long-lived agent must not pile them up on the stop signal.
          const done = (): void => {
            signal.removeEventListener('abort', done);
            resolve();
          };
          this.#slotFreed = done;
          signal.addEventListener('abort', done, { once: true });
        });
        continue;
      }
      let command: ClaimedCommand | null;
      try {
        command = (await client.post<PollReply>('/api/agent/commands/poll', {}, { signal })).command;
        backoff.reset();
      } catch (err) {
        if (signal.aborted) break;
        this.#lastError = errorText(err);
        log.warn(`poll failed: ${this.#lastError}`);
        await backoff.wait(signal).catch(() => undefined);
        continue;
      }
      if (command) {
        this.#start(command);
        continue; // poll again at once while slots remain
      }
      await sleep(this.#o.pollSeconds * 1000, signal).catch(() => undefined);
    }
  }

  #start(command: ClaimedCommand): void {
    const { log, client } = this.#o;
    const abort = new AbortController();
    const started = Date.now();
    log.info({ commandId: command.id, type: command.type, attempt: command.attempt }, 'command started');
    const done = (async () => {
      const outcome: CommandOutcome = await executeCommand(command, {
        client,
        registries: this.#o.registries,
        tempDir: this.#o.tempDir,
        log,
        signal: abort.signal,
      });
      if (!outcome.success) this.#lastError = `command ${command.id} (${command.type}): ${outcome.error ?? 'failed'}`;
      log[outcome.success ? 'info' : 'warn'](
        {
          commandId: command.id,
          type: command.type,
          success: outcome.success,
          seconds: Math.round((Date.now() - started) / 100) / 10,
          ...(outcome.error ? { error: outcome.error } : {}),
        },
        'command finished',
      );
      await this.#sendResult(command, outcome);
    })()
      .catch((err: unknown) => log.error({ commandId: command.id }, `command ${command.id} broke: ${errorText(err)}`))
      .finally(() => {
        this.#running.delete(command.id);
        this.#wake();
      });
    this.#running.set(command.id, { command, abort, done });
  }

  async #sendResult(command: ClaimedCommand, outcome: CommandOutcome): Promise<void> {
    const body = {
      success: outcome.success,
      ...(outcome.error ? { error: outcome.error.slice(0, 4000) } : {}),
      ...(outcome.result ? { result: outcome.result } : {}),
    };
    try {
      await retryWithBackoff(() => this.#o.client.post(`/api/agent/commands/${command.id}/result`, body), {
        retryable: isRetryable,
        deadlineMs: RESULT_RETRY_MS,
      });
    } catch (err) {
      // 409: the master took the command back already; the result is dropped by design.
      const level = err instanceof MasterError && err.status === 409 ? 'info' : 'warn';
      this.#o.log[level]({ commandId: command.id }, `result not delivered: ${errorText(err)}`);
    }
  }

  /** Lets running commands finish within the grace period, then aborts them and waits for their results. */
  async #drain(): Promise<void> {
    if (this.#running.size === 0) return;
    const all = (): Promise<unknown> => Promise.allSettled([...this.#running.values()].map((r) => r.done));
    const grace = AbortSignal.timeout(this.#o.stopGraceSeconds * 1000);
    const finished = await Promise.race([
      all().then(() => true),
      new Promise<false>((resolve) => grace.addEventListener('abort', () => resolve(false), { once: true })),
    ]);
    if (finished) return;
    this.#o.log.warn(
      { running: this.inFlight },
      `grace period of ${this.#o.stopGraceSeconds} s is over; aborting running work`,
    );
    for (const r of this.#running.values()) r.abort.abort(new Error(STOPPED_MESSAGE));
    await all();
  }
}
