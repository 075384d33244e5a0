import { Agent, request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServerProcess } from '../test/helpers/server-process.ts';
import { cpuSeconds, machine, masterNodeOptions, rssKiB, secs, withCleanup } from './backup-files.ts';

/**
 * The agent protocol at scale: one real master process (SQLite) and N simulated agents in this
 * process, each heartbeating every 15 s and polling every 5 s (random phases), as
 * `backplane agent` does when idle. Prints latency percentiles per route, the achieved request
 * rate, the master's CPU and RSS over the window. Then a claim race: 2,000 commands queued for
 * one node, drained by 200 concurrent pollers sharing its token; prints claims, distinct ids
 * and duplicates. Asserts nothing.
 *
 *   node bench/agents.ts   (BACKPLANE_BENCH_AGENTS=10000, BACKPLANE_BENCH_AGENTS_SECONDS=60)
 */

const ADMIN = { username: 'bench', password: 'bench-password-1' };
const HEARTBEAT_MS = 15_000;
const POLL_MS = 5_000;
const BATCH = 50; // MAX_NODE_BATCH
const SOCKETS = 256;
const RACE_COMMANDS = 2000;
const RACE_POLLERS = 200;
const HEARTBEAT_BODY = JSON.stringify({
  hostname: 'bench-host',
  agentVersion: '0.1.0',
  os: 'linux',
  arch: 'x64',
  running: 0,
  inFlight: [],
});
const STARTING_BODY = JSON.stringify({
  hostname: 'bench-host',
  agentVersion: '0.1.0',
  os: 'linux',
  arch: 'x64',
  running: 0,
  inFlight: [],
  starting: true,
});

interface Reply {
  status: number;
  body: string;
  ms: number;
}

/** The master's own memory breakdown from its /metrics (prom-client's default metrics): where RSS goes. */
async function memoryFigures(baseUrl: string): Promise<string> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const value = (name: string): number =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return (
    `RSS ${mib(value('process_resident_memory_bytes'))}, V8 heap used ${mib(value('nodejs_heap_size_used_bytes'))} ` +
    `of ${mib(value('nodejs_heap_size_total_bytes'))}, external ${mib(value('nodejs_external_memory_bytes'))}`
  );
}

/** One keep-alive pool for every simulated agent: the client side must not be what limits. */
export function client(baseUrl: string): {
  post(path: string, headers: Record<string, string>, body: string): Promise<Reply>;
  close(): void;
} {
  const agent = new Agent({ keepAlive: true, maxSockets: SOCKETS, maxFreeSockets: SOCKETS });
  const url = new URL(baseUrl);
  return {
    post(path, headers, body) {
      const t0 = performance.now();
      return new Promise<Reply>((resolve, reject) => {
        const req = httpRequest(
          {
            agent,
            host: url.hostname,
            port: url.port,
            path,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                body: Buffer.concat(chunks).toString(),
                ms: performance.now() - t0,
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** A call slower than this is counted by the second it ended in. */
const SLOW_MS = 50;

export class Latencies {
  readonly ms: number[] = [];
  errors = 0;
  readonly errorSamples = new Map<string, number>();
  /** Calls over SLOW_MS, by the second they ended in (from `origin`): shows whether slow calls cluster. */
  readonly slowBySecond = new Map<number, number>();
  origin = performance.now();

  add(ms: number): void {
    this.ms.push(ms);
    if (ms > SLOW_MS) {
      const second = Math.floor((performance.now() - this.origin) / 1000);
      this.slowBySecond.set(second, (this.slowBySecond.get(second) ?? 0) + 1);
    }
  }

  slow(): string {
    return (
      [...this.slowBySecond]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}s:${n}`)
        .join(' ') || 'none'
    );
  }

  fail(what: string): void {
    this.errors++;
    this.errorSamples.set(what, (this.errorSamples.get(what) ?? 0) + 1);
  }

  /** The q-quantile in ms (NaN with no samples). */
  quantile(q: number): number {
    const s = [...this.ms].sort((a, b) => a - b);
    return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : Number.NaN;
  }

  summary(): string {
    const s = [...this.ms].sort((a, b) => a - b);
    const at = (q: number): string =>
      s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(1) : '-';
    const errs = [...this.errorSamples].map(([k, n]) => `${n}x ${k}`).join('; ');
    return (
      `${s.length} ok, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, ` +
      `max ${s.length ? s[s.length - 1]!.toFixed(1) : '-'} ms, ${this.errors} errors${errs ? ` (${errs})` : ''}`
    );
  }
}

export const errorOf = (r: Reply): string => {
  try {
    return `HTTP ${r.status} ${(JSON.parse(r.body) as { code?: string }).code ?? ''}`.trim();
  } catch {
    return `HTTP ${r.status}`;
  }
};

export async function benchAgents(options: { agents?: number; seconds?: number } = {}): Promise<void> {
  const count = options.agents ?? Number(process.env.BACKPLANE_BENCH_AGENTS ?? 10_000);
  const seconds = options.seconds ?? Number(process.env.BACKPLANE_BENCH_AGENTS_SECONDS ?? 60);
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-'));
  const dataDir = join(dir, 'data');
  await withCleanup(
    () => rm(dir, { recursive: true, force: true }),
    async () => {
      const server = await startServerProcess({
        ...masterNodeOptions(),
        BACKPLANE_DATA_DIR: dataDir,
        BACKPLANE_NODE_OFFLINE_SECONDS: '60',
      });
      await withCleanup(
        () => server.stop(),
        async () => {
          const pid = server.child.pid!;
          const idleKiB = await rssKiB(pid);
          // The master logs two lines per request at info (its default level): keep only the tail, count warnings and errors.
          const masterProblems = new Map<string, number>();
          const scanLogs = (chunk: Buffer): void => {
            for (const line of chunk.toString().split('\n')) {
              const m = /"level":(\d+).*?"msg":"([^"]{0,160})/.exec(line);
              if (m && Number(m[1]) >= 40) masterProblems.set(m[2]!, (masterProblems.get(m[2]!) ?? 0) + 1);
            }
            if (server.logs.length > 2000) server.logs.splice(0, server.logs.length - 200);
          };
          server.child.stdout!.on('data', scanLogs);
          server.child.stderr!.on('data', scanLogs);
          const http = client(server.url);
          try {
            const api = async <T>(path: string, body: unknown, token = ''): Promise<T> => {
              const r = await http.post(path, token ? { authorization: `Bearer ${token}` } : {}, JSON.stringify(body));
              if (r.status !== 200) throw new Error(`POST ${path}: HTTP ${r.status}: ${r.body.slice(0, 500)}`);
              return (JSON.parse(r.body) as { data: T }).data;
            };
            const admin = (await api<{ token: string }>('/api/auth/setup', ADMIN)).token;

            // ---- 1. nodes and their tokens ----
            let t0 = performance.now();
            const nodes: { id: number; token: string }[] = [];
            for (let i = 0; i < count; i += BATCH) {
              const names = Array.from(
                { length: Math.min(BATCH, count - i) },
                (_, k) => `bench-node-${String(i + k + 1).padStart(5, '0')}`,
              );
              // All or nothing: a refused batch is an error answer, which api() throws on.
              const results = await api<{ name: string; node: { id: number } | null; token: string | null }[]>(
                '/api/nodes/batch',
                { names },
                admin,
              );
              for (const r of results) {
                if (!r.node || !r.token) throw new Error(`node ${r.name} not created`);
                nodes.push({ id: r.node.id, token: r.token });
              }
            }
            console.log(
              `${count} nodes created through POST /api/nodes/batch (${Math.ceil(count / BATCH)} calls) in ${secs(performance.now() - t0)} (${machine()})`,
            );
            console.log(
              `master RSS: ${(idleKiB / 1024).toFixed(1)} MiB just started, ${((await rssKiB(pid)) / 1024).toFixed(1)} MiB with the nodes created`,
            );

            // ---- 2. N agents: heartbeat every 15 s, poll every 5 s ----
            const heartbeats = new Latencies();
            const polls = new Latencies();
            const heartbeat = async (token: string, into: Latencies, body = HEARTBEAT_BODY): Promise<void> => {
              try {
                const r = await http.post('/api/agent/heartbeat', { 'x-agent-token': token }, body);
                if (r.status === 200) into.add(r.ms);
                else into.fail(errorOf(r));
              } catch (err) {
                into.fail((err as Error).message);
              }
            };
            let unexpectedCommands = 0;
            const poll = async (token: string): Promise<void> => {
              try {
                const r = await http.post('/api/agent/commands/poll', { 'x-agent-token': token }, '{}');
                if (r.status !== 200) return polls.fail(errorOf(r));
                polls.add(r.ms);
                const command = (JSON.parse(r.body) as { data: { command: { id: number } | null } }).data.command;
                if (command) unexpectedCommands++;
              } catch (err) {
                polls.fail((err as Error).message);
              }
            };

            // A starting agent's first heartbeat (this brings every node online).
            const startup = new Latencies();
            t0 = performance.now();
            await Promise.all(nodes.map((n) => heartbeat(n.token, startup, STARTING_BODY)));
            console.log(
              `first heartbeat of ${count} agents, all at once through ${SOCKETS} sockets: ${secs(performance.now() - t0)}; ${startup.summary()}`,
            );

            const windowMs = seconds * 1000;
            const start = performance.now() + 100;
            const end = start + windowMs;
            let maxSlipMs = 0;
            // Each simulated agent keeps its own schedule and never has two calls of a kind in flight,
            // like the real agent; a late call goes out at once and the slip is recorded.
            const loop = async (periodMs: number, call: () => Promise<void>): Promise<void> => {
              for (let next = start + Math.random() * periodMs; next < end; next += periodMs) {
                const wait = next - performance.now();
                if (wait > 0) await sleep(wait);
                else maxSlipMs = Math.max(maxSlipMs, -wait);
                await call();
              }
            };
            const loopDelay = monitorEventLoopDelay({ resolution: 10 });
            const rssSamples: number[] = [];
            await sleep(start - performance.now());
            loopDelay.enable();
            const cpu0 = (await cpuSeconds(pid)).own;
            const selfCpu0 = process.cpuUsage();
            const wall0 = performance.now();
            heartbeats.origin = wall0;
            polls.origin = wall0;
            const rssTimer = setInterval(
              () =>
                void rssKiB(pid).then(
                  (k) => rssSamples.push(k),
                  () => undefined,
                ),
              1000,
            );
            const windowDone = sleep(windowMs).then(async () => ({
              cpu: (await cpuSeconds(pid)).own,
              self: process.cpuUsage(selfCpu0),
              wall: performance.now(),
            }));
            await Promise.all(
              nodes.flatMap((n) => [
                loop(HEARTBEAT_MS, () => heartbeat(n.token, heartbeats)),
                loop(POLL_MS, () => poll(n.token)),
              ]),
            );
            const drainedAt = performance.now();
            const w = await windowDone;
            clearInterval(rssTimer);
            loopDelay.disable();
            const wallS = (w.wall - wall0) / 1000;
            const done = heartbeats.ms.length + polls.ms.length;
            const expected = count * (windowMs / HEARTBEAT_MS + windowMs / POLL_MS);
            console.log(
              `${count} agents for ${seconds} s (heartbeat every ${HEARTBEAT_MS / 1000} s, poll every ${POLL_MS / 1000} s, ` +
                `random phases, ${SOCKETS} keep-alive sockets):`,
            );
            console.log(`  heartbeat: ${heartbeats.summary()}`);
            console.log(`  poll:      ${polls.summary()}`);
            console.log(
              `  calls over ${SLOW_MS} ms by second of the window: heartbeat ${heartbeats.slow()}; poll ${polls.slow()}`,
            );
            console.log(
              `  requests: ${done + heartbeats.errors + polls.errors} of ~${expected.toFixed(0)} scheduled, ` +
                `${(done / wallS).toFixed(0)} req/s answered OK ` +
                `(target ${(count / (HEARTBEAT_MS / 1000) + count / (POLL_MS / 1000)).toFixed(0)} req/s); ` +
                `last call finished ${((drainedAt - wall0) / 1000 - seconds).toFixed(2)} s after the window; ` +
                `largest schedule slip ${maxSlipMs.toFixed(0)} ms`,
            );
            if (unexpectedCommands) console.log(`  polls that returned a command (none queued): ${unexpectedCommands}`);
            const met =
              count >= 10_000 &&
              heartbeats.errors + polls.errors === 0 &&
              heartbeats.quantile(0.99) < 50 &&
              polls.quantile(0.99) < 50;
            console.log(
              `  goal (issue 17): 10,000 agents with p99 < 50 ms and no errors: ${met ? 'met' : 'NOT met'}${count < 10_000 ? ` (${count} agents run)` : ''}`,
            );
            const meanRss = rssSamples.reduce((a, b) => a + b, 0) / Math.max(1, rssSamples.length);
            console.log(
              `  master: CPU ${(((w.cpu - cpu0) / wallS) * 100).toFixed(0)}% of one core; RSS mean ${(meanRss / 1024).toFixed(1)} MiB, ` +
                `peak ${(Math.max(...rssSamples) / 1024).toFixed(1)} MiB (${rssSamples.length} samples, 1/s)`,
            );
            console.log(`  master memory at the end of the load: ${await memoryFigures(server.url)}`);
            await sleep(10_000);
            console.log(`  master memory 10 s later, idle: ${await memoryFigures(server.url)}`);
            console.log(
              `  client (this process): CPU ${(((w.self.user + w.self.system) / 1e6 / wallS) * 100).toFixed(0)}% of one core, ` +
                `event-loop delay p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms`,
            );

            // ---- 3. no double claims: many pollers, one node, many commands ----
            const target = nodes[0]!;
            const db = new DatabaseSync(join(dataDir, 'backplane.db'));
            try {
              db.exec('pragma busy_timeout = 5000');
              // Same representation as the master's own rows (MikroORM's datetime on SQLite).
              const { created_at: createdAt } = db
                .prepare('select created_at from nodes where id = ?')
                .get(target.id) as { created_at: number | string };
              const insert = db.prepare(
                'insert into agent_commands (node_id, type, status, payload, result, error, record_kind, record_id, attempts, created_at) ' +
                  "values (?, 'list_dir', 'pending', ?, '', '', '', 0, 0, ?)",
              );
              db.exec('begin');
              for (let i = 0; i < RACE_COMMANDS; i++)
                insert.run(target.id, JSON.stringify({ path: `/bench/${i}` }), createdAt);
              db.exec('commit');
              const pendingNow = db.prepare(
                "select count(*) as n from agent_commands where node_id = ? and status = 'pending'",
              );
              const pending = (): number => Number((pendingNow.get(target.id) as { n: number }).n);

              const claimed: number[] = [];
              const pollLat = new Latencies();
              const resultLat = new Latencies();
              let nullWhilePending = 0;
              const poller = async (): Promise<void> => {
                for (;;) {
                  let r: Reply;
                  try {
                    r = await http.post('/api/agent/commands/poll', { 'x-agent-token': target.token }, '{}');
                  } catch (err) {
                    pollLat.fail((err as Error).message);
                    return;
                  }
                  if (r.status !== 200) {
                    pollLat.fail(errorOf(r));
                    return;
                  }
                  pollLat.add(r.ms);
                  const command = (JSON.parse(r.body) as { data: { command: { id: number } | null } }).data.command;
                  if (!command) {
                    if (pending() > 0) nullWhilePending++;
                    return;
                  }
                  claimed.push(command.id);
                  try {
                    const res = await http.post(
                      `/api/agent/commands/${command.id}/result`,
                      { 'x-agent-token': target.token },
                      JSON.stringify({ success: true, result: {} }),
                    );
                    if (res.status === 200) resultLat.add(res.ms);
                    else resultLat.fail(errorOf(res));
                  } catch (err) {
                    resultLat.fail((err as Error).message);
                  }
                }
              };
              // Pollers stop at their first null; the claim gives up after a few lost races, so sweep
              // again while commands remain (and report it).
              t0 = performance.now();
              let sweeps = 0;
              let leftAfterFirst = 0;
              do {
                sweeps++;
                await Promise.all(Array.from({ length: RACE_POLLERS }, () => poller()));
                if (sweeps === 1) leftAfterFirst = pending();
              } while (pending() > 0 && sweeps < 20);
              const drainMs = performance.now() - t0;
              const distinct = new Set(claimed).size;
              const byStatus = db
                .prepare(
                  'select status, count(*) as n, sum(attempts) as attempts from agent_commands where node_id = ? group by status',
                )
                .all(target.id) as { status: string; n: number; attempts: number }[];
              console.log(
                `claim race: ${RACE_COMMANDS} commands queued for one node, ${RACE_POLLERS} concurrent pollers with its token (poll -> result until null):`,
              );
              console.log(
                `  claims ${claimed.length}, distinct ids ${distinct}, duplicates ${claimed.length - distinct}; still pending ${pending()}`,
              );
              console.log(
                `  drained in ${secs(drainMs)} (${sweeps} sweep${sweeps === 1 ? '' : 's'}; ${leftAfterFirst} still pending after the first, ` +
                  `${nullWhilePending} null polls while commands were pending)`,
              );
              console.log(`  table: ${byStatus.map((s) => `${s.status} ${s.n} (attempts ${s.attempts})`).join(', ')}`);
              console.log(`  poll:   ${pollLat.summary()}`);
              console.log(`  result: ${resultLat.summary()}`);
            } finally {
              db.close();
            }
            if (masterProblems.size > 0)
              console.log(
                `  master warnings/errors logged: ${[...masterProblems].map(([m, n]) => `${n}x ${m}`).join('; ')}`,
              );
            else console.log('  master logged no warnings or errors');
          } finally {
            http.close();
          }
        },
      );
    },
  );
}

if (import.meta.main) await benchAgents();
