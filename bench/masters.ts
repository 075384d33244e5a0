import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.ts';
import { postgresUrl } from '../test/helpers/databases.ts';
import { client, errorOf, Latencies } from './agents.ts';
import { cpuSeconds, machine, masterNodeOptions, secs, withCleanup } from './backup-files.ts';

/**
 * Heartbeat capacity with 1, 2 and 3 masters on one PostgreSQL database (issue 18): for each
 * count, a fresh database, the masters (real processes; the others get the first one's keys),
 * `BACKPLANE_BENCH_MASTERS_NODES` nodes, then `BACKPLANE_BENCH_MASTERS_CLIENTS` simulated agents
 * calling `POST /api/agent/heartbeat` back to back for `BACKPLANE_BENCH_MASTERS_SECONDS`, spread
 * evenly over the masters (as a load balancer would). Prints answered heartbeats per second,
 * latencies, and the CPU of the masters, of PostgreSQL and of the simulated agents. Capacity in
 * agents is that rate times the heartbeat period (15 s). Masters add capacity only where they
 * add CPUs: on one machine whose cores are already busy, each added master adds its own overhead
 * instead (docs/benchmarks.md). Asserts nothing.
 *
 *   node bench/run.ts masters
 */

const ADMIN = { username: 'bench', password: 'bench-password-1' };
const HEARTBEAT_S = 15;
const BODY = JSON.stringify({
  hostname: 'bench-host',
  agentVersion: '0.1.0',
  os: 'linux',
  arch: 'x64',
  running: 0,
  inFlight: [],
});

/** CPU seconds used so far by the PostgreSQL server processes (every backend, this database's or not). */
async function postgresCpu(): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  let total = 0;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (!/^\d+ \(postgres\)/.test(stat)) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return total;
}

async function round(masterCount: number, nodes: number, clients: number, seconds: number): Promise<void> {
  const name = `bp_bench_masters_${process.pid}_${masterCount}`;
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const url = new URL(postgresUrl());
  url.pathname = `/${name}`;
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-masters-'));
  const masters: ServerProcess[] = [];
  await withCleanup(
    async () => {
      await Promise.allSettled(masters.map((m) => m.stop()));
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await admin.end();
      await rm(dir, { recursive: true, force: true });
    },
    async () => {
      const env = (i: number): Record<string, string> => ({
        ...masterNodeOptions(),
        BACKPLANE_DATA_DIR: join(dir, `m${i}`),
        BACKPLANE_DATABASE_URL: url.toString(),
        BACKPLANE_NODE_OFFLINE_SECONDS: '60',
      });
      masters.push(await startServerProcess(env(0)));
      const shared = {
        BACKPLANE_SECRET_KEY: (await readFile(join(dir, 'm0', 'secret.key'), 'utf8')).trim(),
        BACKPLANE_AGE_IDENTITY_FILE: join(dir, 'm0', 'backup.agekey'),
      };
      for (let i = 1; i < masterCount; i++) masters.push(await startServerProcess({ ...env(i), ...shared }));
      // The masters log every request at info: keep only a tail, and count warnings and errors.
      const problems = new Map<string, number>();
      for (const m of masters) {
        m.child.stdout!.on('data', (chunk: Buffer) => {
          for (const line of chunk.toString().split('\n')) {
            const found = /"level":(\d+).*?"msg":"([^"]{0,200})/.exec(line);
            const err = /"err":\{"type":"(\w+)","message":"([^"]{0,200})/.exec(line);
            if (found && Number(found[1]) >= 40)
              problems.set(`${found[2]}${err ? `: ${err[1]} ${err[2]}` : ''}`, (problems.get(found[2]!) ?? 0) + 1);
          }
          if (m.logs.length > 2000) m.logs.splice(0, m.logs.length - 200);
        });
      }
      const https = masters.map((m) => client(m.url));
      try {
        const post = async <T>(path: string, body: unknown, token: string): Promise<T> => {
          const r = await https[0]!.post(path, token ? { authorization: `Bearer ${token}` } : {}, JSON.stringify(body));
          if (r.status !== 200) throw new Error(`POST ${path}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
          return (JSON.parse(r.body) as { data: T }).data;
        };
        const token = (await post<{ token: string }>('/api/auth/setup', ADMIN, '')).token;
        const tokens: string[] = [];
        for (let i = 0; i < nodes; i += 50) {
          const names = Array.from({ length: Math.min(50, nodes - i) }, (_, k) => `bench-${i + k}`);
          for (const r of await post<{ token: string | null }[]>('/api/nodes/batch', { names }, token))
            tokens.push(r.token!);
        }
        console.log(`  ${masterCount} master(s) started, ${tokens.length} nodes created`);
        // A warm-up second: statement caches, token caches, connections.
        const beat = async (i: number, into: Latencies | undefined): Promise<void> => {
          const http = https[i % masterCount]!;
          try {
            const r = await http.post('/api/agent/heartbeat', { 'x-agent-token': tokens[i % tokens.length]! }, BODY);
            if (r.status === 200) into?.add(r.ms);
            else into?.fail(errorOf(r));
          } catch (err) {
            into?.fail((err as Error).message);
          }
        };
        const drive = async (into: Latencies | undefined, ms: number): Promise<void> => {
          const end = performance.now() + ms;
          await Promise.all(
            Array.from({ length: clients }, async (_, c) => {
              for (let k = c; performance.now() < end; k += clients) await beat(k, into);
            }),
          );
        };
        await drive(undefined, 1000);
        const lat = new Latencies();
        const pids = masters.map((m) => m.child.pid!);
        const cpu0 = await Promise.all(pids.map(async (p) => (await cpuSeconds(p)).own));
        const pg0 = await postgresCpu();
        const self0 = process.cpuUsage();
        const t0 = performance.now();
        await drive(lat, seconds * 1000);
        const wallS = (performance.now() - t0) / 1000;
        const cpu = (await Promise.all(pids.map(async (p) => (await cpuSeconds(p)).own))).map(
          (c, i) => ((c - cpu0[i]!) / wallS) * 100,
        );
        const pgCpu = (((await postgresCpu()) - pg0) / wallS) * 100;
        const self = process.cpuUsage(self0);
        const clientCpu = ((self.user + self.system) / 1e6 / wallS) * 100;
        const rate = lat.ms.length / wallS;
        console.log(
          `${masterCount} master${masterCount === 1 ? '' : 's'}: ${rate.toFixed(0)} heartbeats/s answered ` +
            `(${(rate * HEARTBEAT_S).toFixed(0)} agents at one heartbeat per ${HEARTBEAT_S} s); ${lat.summary()}`,
        );
        if (problems.size > 0)
          console.log(`  masters logged: ${[...problems].map(([msg, n]) => `${n}x ${msg}`).join('; ')}`);
        console.log(
          `  CPU (% of one core): masters ${cpu.map((c) => c.toFixed(0)).join(' + ')}, PostgreSQL ${pgCpu.toFixed(0)}, ` +
            `the agents (this process) ${clientCpu.toFixed(0)}; ${cpus().length} CPUs = ${cpus().length * 100}`,
        );
      } finally {
        for (const h of https) h.close();
      }
    },
  );
}

export async function benchMasters(): Promise<void> {
  const nodes = Number(process.env.BACKPLANE_BENCH_MASTERS_NODES ?? 1000);
  const clients = Number(process.env.BACKPLANE_BENCH_MASTERS_CLIENTS ?? 32);
  const seconds = Number(process.env.BACKPLANE_BENCH_MASTERS_SECONDS ?? 10);
  console.log(
    `${nodes} nodes, ${clients} agents heartbeating back to back for ${seconds} s, spread over the masters ` +
      `(${machine()}; this process, the masters and PostgreSQL share these CPUs)`,
  );
  const t0 = performance.now();
  for (const count of [1, 2, 3]) await round(count, nodes, clients, seconds);
  console.log(`(${secs(performance.now() - t0)} in all)`);
}

if (import.meta.main) await benchMasters();
