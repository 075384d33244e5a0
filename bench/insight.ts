import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../core/config/load-config.ts';
import { buildApp } from '../core/app.ts';
import { postgresUrl } from '../test/helpers/databases.ts';
import { seedHistory } from '../test/helpers/insight-seed.ts';

/**
 * The read models at scale: a master seeded with BACKPLANE_BENCH_INSIGHT_RECORDS records
 * (100 000) over 500 tasks, 50 nodes and 10 targets, with verifications; every dashboard route,
 * the compliance report, its CSV and search are timed in-process (p50/p95 of 40 calls each,
 * after 3 warm-ups), on SQLite and on PostgreSQL. The goal is p95 < 100 ms. The query plans of
 * the heaviest aggregates are printed. Nothing is asserted.
 */
const RECORDS = Number(process.env.BACKPLANE_BENCH_INSIGHT_RECORDS ?? 100_000);
const CALLS = 40;

const ROUTES: [string, Record<string, string>][] = [
  ['/api/dashboard/stats', {}],
  ['/api/dashboard/timeline', { days: '30' }],
  ['/api/dashboard/sla', {}],
  ['/api/dashboard/cluster', {}],
  ['/api/dashboard/breakdown', { days: '30' }],
  ['/api/dashboard/node-performance', { days: '30' }],
  ['/api/reports/compliance', { days: '30' }],
  ['/api/reports/compliance/export', { days: '30' }],
  ['/api/search', { q: 'task-0042' }],
  ['/api/search', { q: '20260101' }],
];

const PLANS = [
  "select task_id, max(id) from backup_records where status = 'success' group by task_id",
  'select node_id, count(*) from backup_records where started_at >= ? group by node_id',
  "select task_id, max(id) from verify_records where mode = 'deep' and restore_ms is not null group by task_id",
];

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function measure(app: FastifyInstance, token: string): Promise<void> {
  console.log('| route | p50 ms | p95 ms |');
  console.log('|---|---|---|');
  for (const [url, query] of ROUTES) {
    const times: number[] = [];
    for (let i = 0; i < CALLS + 3; i++) {
      const started = performance.now();
      const res = await app.inject({ method: 'GET', url, query, headers: { authorization: `Bearer ${token}` } });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if (i >= 3) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const label = `${url}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
    console.log(`| ${label} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.95).toFixed(1)} |`);
  }
}

async function plans(app: FastifyInstance, dialect: 'sqlite' | 'postgresql'): Promise<void> {
  const conn = app.diContainer.cradle.orm.em.fork().getConnection();
  for (const sql of PLANS) {
    const bound = sql.replace(
      '?',
      dialect === 'sqlite'
        ? String(Date.now() - 30 * 86_400_000)
        : `'${new Date(Date.now() - 30 * 86_400_000).toISOString()}'`,
    );
    const rows = (await conn.execute(
      dialect === 'sqlite' ? `explain query plan ${bound}` : `explain ${bound}`,
    )) as Record<string, unknown>[];
    console.log(`  ${sql}\n${rows.map((r) => `    ${String(r.detail ?? r['QUERY PLAN'])}`).join('\n')}`);
  }
}

async function run(dialect: 'sqlite' | 'postgresql', databaseUrl: string | undefined, dataDir: string): Promise<void> {
  const config = loadConfig({
    env: {},
    cwd: dataDir,
    overrides: {
      dataDir,
      logLevel: 'silent',
      ...(databaseUrl ? { databaseUrl } : {}),
      tempSweepIntervalSeconds: 0,
      storageHealthIntervalSeconds: 0,
    },
  });
  const app = await buildApp(config, { logLevel: 'silent' });
  try {
    const setup = await app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { username: 'bench', password: 'bench-password-1' },
    });
    const token = setup.json().data.token as string;
    const started = performance.now();
    await seedHistory(app.diContainer.cradle.orm.em.fork(), {
      tasks: 500,
      records: RECORDS,
      nodes: 50,
      targets: 10,
      days: 90,
      seed: 42,
    });
    // PostgreSQL's autovacuum analyses a table soon after a bulk change; a bench that queries at
    // once would measure plans made without statistics, which no running master sees. SQLite
    // keeps no statistics unless told, and the master does not: it is measured as it is.
    if (dialect === 'postgresql') await app.diContainer.cradle.orm.em.fork().getConnection().execute('analyze');
    console.log(
      `\n## ${dialect}: ${RECORDS} records seeded in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s${dialect === 'postgresql' ? ', then ANALYZE' : ''}\n`,
    );
    await measure(app, token);
    console.log('\nquery plans:');
    await plans(app, dialect);
  } finally {
    await app.close();
  }
}

export async function benchInsight(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'backplane-bench-insight-'));
  try {
    await run('sqlite', undefined, join(dir, 'sqlite'));
    const admin = new pg.Client({ connectionString: postgresUrl() });
    try {
      await admin.connect();
    } catch (err) {
      console.log(`\nPostgreSQL not reachable at ${postgresUrl()} (${(err as Error).message}): skipped`);
      return;
    }
    const name = `backplane_bench_insight_${process.pid}`;
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    try {
      const url = new URL(postgresUrl());
      url.pathname = `/${name}`;
      await run('postgresql', url.toString(), join(dir, 'pg'));
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchInsight();
