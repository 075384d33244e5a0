import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { openOrm, migrate } from '../core/db/orm.ts';
import { seedHistory } from '../test/helpers/insight-seed.ts';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.ts';
import { masterNodeOptions } from './backup-files.ts';

/**
 * The API's hot routes against a bare Fastify 5 route answering the same envelope, in the same
 * run on the same machine: 32 connections, BACKPLANE_BENCH_API_SECONDS (10) per route, req/s and
 * latency (p50/p99) from autocannon, and the ratio to the bare route. Routes: the agent
 * heartbeat and poll, the profile, and a 50-row record list over 5 000 records. Also the
 * master's RSS just started (idle) and after the load. Nothing is asserted.
 */
const SECONDS = Number(process.env.BACKPLANE_BENCH_API_SECONDS ?? 10);
const CONNECTIONS = 32;
const BARE = fileURLToPath(new URL('./fixtures/bare-fastify.ts', import.meta.url));

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function startBare(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BARE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, url: /listening (\S+)/.exec(chunk.toString())![1]! };
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(
  url: string,
  options: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
): Promise<Load> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: options.method,
    headers: { 'content-type': 'application/json', ...options.headers },
    ...(options.body ? { body: options.body } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

const row = (name: string, l: Load, bare: Load) =>
  console.log(
    `| ${name} | ${Math.round(l.rps)} | ${(l.rps / bare.rps).toFixed(3)}x | ${l.p50} | ${l.p99} | ${l.errors} |`,
  );

export async function benchApi(): Promise<void> {
  console.log(
    `cpus ${cpus().length}, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}, ${CONNECTIONS} connections, ${SECONDS} s per route`,
  );
  const dataDir = await mkdtemp(join(tmpdir(), 'backplane-bench-api-'));
  let master: ServerProcess | undefined;
  let bare: { child: ChildProcess; url: string } | undefined;
  try {
    // 5 000 records for the list, written before the master starts.
    const orm = await openOrm(`sqlite:${join(dataDir, 'backplane.db')}`);
    await migrate(orm);
    await seedHistory(orm.em.fork(), { tasks: 50, records: 5000, nodes: 0, targets: 2, seed: 1 });
    // No run is in progress in this history (start-up would fail "running" ones, one log line each).
    await orm.em
      .fork()
      .getConnection()
      .execute("update backup_records set status = 'failed', completed_at = started_at where status = 'running'");
    await orm.close();
    master = await startServerProcess({
      ...masterNodeOptions(),
      BACKPLANE_DATA_DIR: dataDir,
      BACKPLANE_TEMP_SWEEP_INTERVAL: '0',
      BACKPLANE_STORAGE_HEALTH_INTERVAL: '0',
    });
    await new Promise((r) => setTimeout(r, 2000));
    const idle = await rssMiB(master.child.pid!);
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${master!.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { data: Record<string, unknown> };
    };
    const token = String(
      (await post('/api/auth/setup', { username: 'bench', password: 'bench-password-1' })).data.token,
    );
    const node = (await post('/api/nodes', { name: 'bench-node' }, { authorization: `Bearer ${token}` })).data;
    const agentToken = String(node.token);
    bare = await startBare();

    const bareBeat = await load(`${bare.url}/bare`, { method: 'POST', body: '{}' });
    const bareGet = await load(`${bare.url}/bare`, { method: 'GET' });
    const beat = await load(`${master.url}/api/agent/heartbeat`, {
      method: 'POST',
      headers: { 'x-agent-token': agentToken },
      body: JSON.stringify({ agentVersion: '0.1.0', inFlight: [] }),
    });
    const poll = await load(`${master.url}/api/agent/commands/poll`, {
      method: 'POST',
      headers: { 'x-agent-token': agentToken },
      body: '{}',
    });
    const profile = await load(`${master.url}/api/auth/profile`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
    });
    const list = await load(`${master.url}/api/backup/records?limit=50`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
    });
    const loaded = await rssMiB(master.child.pid!);

    console.log('\n| route | req/s | ratio to bare | p50 ms | p99 ms | errors |');
    console.log('|---|---|---|---|---|---|');
    row('bare Fastify POST (reference)', bareBeat, bareBeat);
    row('bare Fastify GET (reference)', bareGet, bareGet);
    row('POST /api/agent/heartbeat', beat, bareBeat);
    row('POST /api/agent/commands/poll', poll, bareBeat);
    row('GET /api/auth/profile', profile, bareGet);
    row('GET /api/backup/records?limit=50 (5 000 records)', list, bareGet);
    console.log(`\nmaster RSS: ${idle.toFixed(0)} MiB idle after start, ${loaded.toFixed(0)} MiB after the load`);
  } finally {
    bare?.child.kill();
    await master?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchApi();
