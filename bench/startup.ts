import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServerProcess } from '../test/helpers/server-process.ts';

/**
 * Start-up time (spawn to listening, on a fresh data dir and on an existing one) and the
 * resident memory of an idle master, as the real entry point runs it.
 */
async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

export async function benchStartup(runs = 5): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-'));
  try {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const dataDir = join(dir, 'data'); // the first run migrates, the rest reuse it
      const t0 = performance.now();
      const server = await startServerProcess({ BACKPLANE_DATA_DIR: dataDir });
      times.push(performance.now() - t0);
      if (i === runs - 1) {
        await sleep(3000);
        const rss = await rssKiB(server.child.pid!);
        console.log(`idle RSS after 3 s: ${(rss / 1024).toFixed(1)} MiB`);
      }
      await server.stop();
    }
    const [first, ...rest] = times;
    const sorted = [...rest].sort((a, b) => a - b);
    console.log(`start-up, fresh data dir (migrations run): ${first!.toFixed(0)} ms`);
    console.log(`start-up, existing data dir: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms over ${rest.length} runs (min ${sorted[0]!.toFixed(0)}, max ${sorted[sorted.length - 1]!.toFixed(0)})`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
