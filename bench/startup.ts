import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from '../test/helpers/server-process.ts';
import { MASTER_NODE_FLAGS } from '../core/node-flags.ts';
import { withMaster } from './backup-files.ts';

const MAIN = fileURLToPath(new URL('../core/main.ts', import.meta.url));

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
        console.log(
          `master idle RSS after 3 s: ${(rss / 1024).toFixed(1)} MiB (issue 17's goal: <= 100 MiB, ${rss <= 100 * 1024 ? 'met' : 'NOT met'})`,
        );
      }
      await server.stop();
    }
    const [first, ...rest] = times;
    const sorted = [...rest].sort((a, b) => a - b);
    console.log(`start-up, fresh data dir (migrations run): ${first!.toFixed(0)} ms`);
    console.log(
      `start-up, existing data dir: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms over ${rest.length} runs ` +
        `(min ${sorted[0]!.toFixed(0)}, max ${sorted[sorted.length - 1]!.toFixed(0)})`,
    );
    await agentIdle(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The agent's resident memory once it is connected and idle: a real agent process
 * (`backplane agent`, the flags of `npm run agent`) enrolled on a master started for it, read
 * 5 s after the master saw it online.
 */
async function agentIdle(dir: string): Promise<void> {
  await withMaster(join(dir, 'agent-master'), join(dir, 'agent-target'), async (master) => {
    const [created] = await master.api<{ node: { id: number } | null; token: string | null }[]>(
      'POST',
      '/api/nodes/batch',
      { names: ['bench-agent'] },
    );
    if (!created?.node || !created.token) throw new Error('the master created no node');
    const agent = spawn(process.execPath, [...MASTER_NODE_FLAGS, MAIN, 'agent'], {
      env: {
        PATH: process.env.PATH ?? '',
        BACKPLANE_AGENT_MASTER: master.server.url,
        BACKPLANE_AGENT_TOKEN: created.token,
        BACKPLANE_AGENT_TEMP_DIR: join(dir, 'agent-tmp'),
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    try {
      const t0 = performance.now();
      for (;;) {
        const node = await master.api<{ status: string }>('GET', `/api/nodes/${created.node.id}`);
        if (node.status === 'online') break;
        if (agent.exitCode !== null) throw new Error(`the agent exited with ${String(agent.exitCode)}`);
        if (performance.now() - t0 > 30_000) throw new Error('the agent did not come online within 30 s');
        await sleep(200);
      }
      await sleep(5000);
      const rss = await rssKiB(agent.pid!);
      console.log(
        `agent idle RSS 5 s after coming online: ${(rss / 1024).toFixed(1)} MiB (issue 17's goal: <= 60 MiB, ${rss <= 60 * 1024 ? 'met' : 'NOT met'})`,
      );
    } finally {
      if (agent.exitCode === null && agent.signalCode === null) {
        const exited = once(agent, 'exit');
        agent.kill('SIGTERM');
        await exited;
      }
    }
  });
}
