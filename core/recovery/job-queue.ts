/**
 * A FIFO of jobs with a concurrency limit, for recovery work (restores, verifications,
 * replications) so it never starves or floods the backup slots. Each job gets an AbortSignal
 * that `stop()` fires.
 */
export class JobQueue {
  readonly #limit: number;
  readonly #waiting: Array<{ id: string; work: (signal: AbortSignal) => Promise<void> }> = [];
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #stopping = false;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  push(id: string, work: (signal: AbortSignal) => Promise<void>): void {
    this.#waiting.push({ id, work });
    this.#pump();
  }

  async idle(): Promise<void> {
    while (this.#running.size > 0 || this.#waiting.length > 0) {
      await Promise.allSettled([...this.#running.values()].map((r) => r.done));
      if (this.#running.size === 0 && this.#waiting.length > 0) await new Promise((r) => setImmediate(r));
    }
  }

  /**
   * Cancels one job: a waiting one is dropped (it never starts), a running one is aborted with
   * `reason` and waited for. Says which it was; `none` when the queue does not hold it.
   */
  async cancel(id: string, reason: Error): Promise<'waiting' | 'running' | 'none'> {
    const at = this.#waiting.findIndex((j) => j.id === id);
    if (at >= 0) {
      this.#waiting.splice(at, 1);
      return 'waiting';
    }
    const running = this.#running.get(id);
    if (!running) return 'none';
    running.controller.abort(reason);
    await running.done;
    return 'running';
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#waiting.length = 0;
    for (const r of this.#running.values()) r.controller.abort(new Error('the master is shutting down'));
    await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }

  #pump(): void {
    while (!this.#stopping && this.#running.size < this.#limit && this.#waiting.length > 0) {
      const job = this.#waiting.shift()!;
      const controller = new AbortController();
      const done = job
        .work(controller.signal)
        .catch(() => undefined)
        .finally(() => {
          this.#running.delete(job.id);
          this.#pump();
        });
      this.#running.set(job.id, { controller, done });
    }
  }
}
