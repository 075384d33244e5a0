import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** One look at a process: its program name, argv and environment as /proc shows them to its owner. */
export interface ProcessSnapshot {
  pid: number;
  /** /proc/PID/comm: the program's name (15 characters at most). */
  comm: string;
  cmdline: string[];
  environ: string[];
}

async function parentOf(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold blanks and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * One consistent look: the name is read before and after argv and environment, and a look during
 * which the process exec'd (the name changed) is dropped, so a tool's name never comes with its
 * parent's environment (between fork and exec a child still shows its parent's).
 */
async function snapshot(pid: number): Promise<ProcessSnapshot | undefined> {
  try {
    const comm = await readFile(`/proc/${pid}/comm`, 'utf8');
    const [cmdline, environ] = await Promise.all([
      readFile(`/proc/${pid}/cmdline`, 'utf8'),
      readFile(`/proc/${pid}/environ`, 'utf8'),
    ]);
    if ((await readFile(`/proc/${pid}/comm`, 'utf8')) !== comm) return undefined;
    const parts = (text: string) => text.split('\0').filter((part) => part !== '');
    return { pid, comm: comm.trim(), cmdline: parts(cmdline), environ: parts(environ) };
  } catch {
    return undefined;
  }
}

/** Every process now running whose chain of parents leads to `root` (this process by default). */
export async function descendants(root = process.pid): Promise<ProcessSnapshot[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const parents = new Map<number, number>();
  await Promise.all(
    pids.map(async (pid) => {
      const parent = await parentOf(pid);
      if (parent !== undefined) parents.set(pid, parent);
    }),
  );
  const under = (pid: number): boolean => {
    for (let p = parents.get(pid), hops = 0; p !== undefined && hops < 64; p = parents.get(p), hops++)
      if (p === root) return true;
    return false;
  };
  const found = await Promise.all(pids.filter(under).map(snapshot));
  return found.filter((s): s is ProcessSnapshot => s !== undefined);
}

export interface ProcessWatch {
  /** Every snapshot taken so far (a process is looked at on every pass while it lives). */
  readonly seen: ProcessSnapshot[];
  /** Resolves once a descendant named each of `comms` has been seen; rejects after `timeoutMs`. */
  waitFor(comms: string[], timeoutMs: number): Promise<void>;
  /** Stops looking; resolves with every snapshot. */
  stop(): Promise<ProcessSnapshot[]>;
}

/**
 * Looks at the descendants of this process every `everyMs` until stopped. A process between
 * fork and exec still shows its parent's argv and environment (this test process's own), which
 * is why every look is kept rather than one per pid.
 */
export function watchDescendants(everyMs = 20): ProcessWatch {
  const seen: ProcessSnapshot[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      seen.push(...(await descendants()));
      await sleep(everyMs);
    }
  })();
  return {
    seen,
    async waitFor(comms, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const missing = comms.filter((comm) => !seen.some((s) => s.comm === comm));
        if (missing.length === 0) return;
        if (Date.now() > deadline) {
          const names = [...new Set(seen.map((s) => s.comm))].join(', ') || 'none';
          throw new Error(`never saw ${missing.join(', ')} among the descendants (saw: ${names})`);
        }
        await sleep(everyMs);
      }
    },
    async stop() {
      stopped = true;
      await loop;
      return seen;
    },
  };
}
