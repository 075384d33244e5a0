import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { postgresUrl } from '../test/helpers/databases.ts';
import { pgDumpArgs, pgEnv } from '../plugins/db-postgres/postgres-argv.ts';
import type { PostgresConfig } from '../plugins/db-postgres/postgres-config.ts';
import {
  cpuSeconds,
  machine,
  statCpuSeconds,
  MiB,
  mib,
  rate,
  rssKiB,
  sampleRss,
  secs,
  timeShell,
  withCleanup,
  withMaster,
} from './backup-files.ts';

/**
 * PostgreSQL backup end to end: a scratch database (`bp_bench_<random>`) of about
 * BACKPLANE_BENCH_PG_MB MiB (default 1024) on the server of BACKPLANE_TEST_PG_URL, backed up
 * by a real master process as a `postgresql` task (pg_dump, zstd, age, local_disk), against
 * `pg_dump | zstd -3 -T1` (and `| age`) with the driver's own pg_dump arguments. Prints wall
 * times, ratios, CPU seconds (the master, the programs, the server's processes) and the
 * master's RSS; asserts nothing. The scratch database is dropped at the end.
 * Skipped, with the reason, when the server cannot be reached.
 *
 *   node bench/backup-postgres.ts
 */

/** The dump password the task carries (trust authentication ignores it); the stock run gets the same. */
const DUMMY_PASSWORD = 'bench-unused';

/**
 * CPU seconds used so far by every `postgres` process this user can read (the server backend
 * that serves pg_dump does much of the work and is nobody's child here); 0 when none is local.
 */
async function serverCpuSeconds(): Promise<number> {
  let total = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!text.includes('(postgres)')) continue;
    const cpu = statCpuSeconds(text);
    total += cpu.own + cpu.children; // reaped backends count in the postmaster's children
  }
  return total;
}

/** Inserts rows of md5 text until pg_database_size reaches `bytes`. */
async function fill(client: pg.Client, bytes: number): Promise<{ rows: number; size: number }> {
  await client.query(`CREATE TABLE bench_rows (
    id bigint PRIMARY KEY,
    ref text NOT NULL,
    body text NOT NULL,
    qty integer NOT NULL,
    created timestamptz NOT NULL)`);
  const size = async (): Promise<number> =>
    Number((await client.query<{ s: string }>('SELECT pg_database_size(current_database()) AS s')).rows[0]!.s);
  let rows = 0;
  let current = await size();
  while (current < bytes) {
    // about 200 bytes per row on disk (with the index); at most 1M rows per statement
    const batch = Math.max(10_000, Math.min(1_000_000, Math.ceil((bytes - current) / 200)));
    await client.query(
      `INSERT INTO bench_rows
      SELECT g, md5(g::text), md5((g * 7)::text) || ' ' || md5((g * 13)::text) || ' row ' || g, (g * 31) % 1000,
             timestamptz '2024-01-01' + g * interval '1 second'
        FROM generate_series($1::bigint, $2::bigint) AS g`,
      [rows + 1, rows + batch],
    );
    rows += batch;
    current = await size();
  }
  await client.query('VACUUM (FREEZE, ANALYZE) bench_rows'); // hint bits set now, not during the first dump
  await client.query('CHECKPOINT');
  return { rows, size: await size() };
}

export async function benchBackupPostgres(options: { bytes?: number } = {}): Promise<void> {
  const bytes = options.bytes ?? Number(process.env.BACKPLANE_BENCH_PG_MB ?? 1024) * MiB;
  const url = new URL(postgresUrl());
  const admin = new pg.Client({ connectionString: url.href, connectionTimeoutMillis: 3000 });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch (err) {
    console.log(`PostgreSQL benchmark skipped: ${url.host} not reachable (${(err as Error).message})`);
    await admin.end().catch(() => undefined);
    return;
  }
  const database = `bp_bench_${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-pg-'));
  let created = false;
  const cleanup = async (): Promise<void> => {
    try {
      if (created) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await admin.end().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  };
  await withCleanup(cleanup, async () => {
    await admin.query(`CREATE DATABASE ${database}`);
    created = true;
    const config: PostgresConfig = {
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username || 'postgres'),
      password: url.password ? decodeURIComponent(url.password) : DUMMY_PASSWORD,
      connectTimeoutSeconds: 10,
    };

    const t0 = performance.now();
    const scratch = new pg.Client({
      host: config.host,
      port: config.port,
      user: config.user,
      password: config.password,
      database,
    });
    scratch.on('error', () => undefined);
    await scratch.connect();
    let filled: { rows: number; size: number };
    try {
      filled = await fill(scratch, bytes);
    } finally {
      await scratch.end().catch(() => undefined);
    }
    const version =
      (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
    console.log(
      `  scratch database ${database} on PostgreSQL ${version}: ${filled.rows} rows, ` +
        `pg_database_size ${mib(filled.size)}, filled in ${secs(performance.now() - t0)} (${machine()})`,
    );

    await withMaster(join(dir, 'data'), join(dir, 'target'), async (master, targetId) => {
      const recipient = await master.recipient();
      const args = pgDumpArgs(config, database);
      const env = pgEnv(process.env, config) as NodeJS.ProcessEnv;
      const zstdOut = join(dir, 'stock.sql.zst');
      const ageOut = join(dir, 'stock.sql.zst.age');
      const dumpZstd = 'out="$1"; shift; pg_dump "$@" | zstd -3 -T1 -q -c > "$out"';
      const dumpZstdAge = 'out="$1"; rcpt="$2"; shift 2; pg_dump "$@" | zstd -3 -T1 -q -c | age -r "$rcpt" > "$out"';
      await timeShell(dumpZstd, [zstdOut, ...args], env); // warm-up: shared buffers and page cache
      const stockMs = await timeShell(dumpZstd, [zstdOut, ...args], env);
      const stockSize = (await stat(zstdOut)).size;
      await rm(zstdOut, { force: true });
      const cpu0 = { self: await cpuSeconds('self'), server: await serverCpuSeconds() };
      const stockAgeMs = await timeShell(dumpZstdAge, [ageOut, recipient, ...args], env);
      const stockCpu = {
        programs: (await cpuSeconds('self')).children - cpu0.self.children,
        server: (await serverCpuSeconds()) - cpu0.server,
      };
      const stockAgeSize = (await stat(ageOut)).size;
      await rm(ageOut, { force: true });

      const task = await master.api<{ id: number }>('POST', '/api/backup/tasks', {
        name: 'bench-postgres',
        type: 'postgresql',
        dbHost: config.host,
        dbPort: config.port,
        dbUser: config.user,
        dbPassword: config.password,
        dbName: database,
        storageTargetIds: [targetId],
        compression: 'zstd',
        encrypt: true,
      });
      await sleep(2000);
      const idleKiB = await rssKiB(master.pid);
      const sampler = sampleRss(master.pid);
      const mcpu0 = { master: await cpuSeconds(master.pid), server: await serverCpuSeconds() };
      const run = await master.runTask(task.id).catch(async (err: unknown) => {
        await sampler.stop();
        throw err;
      });
      const mcpu1 = await cpuSeconds(master.pid);
      const ourCpu = {
        master: mcpu1.own - mcpu0.master.own,
        programs: mcpu1.children - mcpu0.master.children,
        server: (await serverCpuSeconds()) - mcpu0.server,
      };
      const rss = await sampler.stop();
      if (run.record.status !== 'success')
        throw new Error(`the backup ended ${run.record.status}: ${run.record.errorMessage}`);
      const dumpBytes: number = run.record.rawSize;
      if (process.env.BACKPLANE_BENCH_SHOW_LOGS) console.log(run.record.logContent ?? '');

      console.log(
        `  dump of ${mib(dumpBytes)} (plain SQL, the driver's pg_dump arguments; warmed by one untimed pg_dump | zstd):`,
      );
      console.log(
        `    stock pg_dump | zstd -3 -T1          ${secs(stockMs)} (${rate(dumpBytes, stockMs)}), artifact ${mib(stockSize)}`,
      );
      console.log(
        `    stock pg_dump | zstd -3 -T1 | age    ${secs(stockAgeMs)} (${rate(dumpBytes, stockAgeMs)}), artifact ${mib(stockAgeSize)}`,
      );
      console.log(
        `    backplane (zstd, age; API run)       ${secs(run.ms)} (${rate(dumpBytes, run.ms)}; ` +
          `record duration ${Number(run.record.durationSeconds).toFixed(1)} s), artifact ${mib(run.record.fileSize)}`,
      );
      console.log(
        `    ratio backplane/stock                ${(run.ms / stockMs).toFixed(2)} (vs stock with age: ${(run.ms / stockAgeMs).toFixed(2)})`,
      );
      const total = (c: { programs: number; server: number; master?: number }): string =>
        (c.programs + c.server + (c.master ?? 0)).toFixed(2);
      console.log(
        `    CPU seconds                          stock with age ${total(stockCpu)} ` +
          `(pg_dump+zstd+age ${stockCpu.programs.toFixed(2)}, server ${stockCpu.server.toFixed(2)}); ` +
          `backplane ${total(ourCpu)} ` +
          `(master ${ourCpu.master.toFixed(2)}, pg_dump+zstd ${ourCpu.programs.toFixed(2)}, server ${ourCpu.server.toFixed(2)})`,
      );
      console.log(
        `    master RSS                           idle ${(idleKiB / 1024).toFixed(1)} MiB, ` +
          `peak ${(rss.peakKiB / 1024).toFixed(1)} MiB (100 ms samples)` +
          `${rss.hwmKiB === undefined ? '' : `, VmHWM ${(rss.hwmKiB / 1024).toFixed(1)} MiB`}`,
      );
    });
  });
}

if (import.meta.main) await benchBackupPostgres();
