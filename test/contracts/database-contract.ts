import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { providerErrorKind, type DatabaseDriverInstance } from '../../core/plugin-host/contracts.ts';

/**
 * The database-driver conformance suite. A driver's test file calls `runDatabaseContract` with
 * a function that opens a harness on a real server (or file), or returns undefined after
 * `requireOrSkip` marked the test skipped.
 *
 * What it checks: testConnection; discover lists the seeded database with a size; a dump
 * streamed into `restore` of a fresh database reproduces the seeded rows exactly (checksum of
 * ordered rows per table); the same dump fed to the engine's stock client rebuilds them too;
 * a dump of a missing database rejects (never an empty artifact marked fine); bad credentials
 * and an unreachable server fail with the right kinds and quickly; no secret in any child's argv.
 */

/** The data every engine seeds: unicode, quotes, a NULL, an empty table and a 50k-row table. */
export interface Dataset { tables: Array<{ name: string; columns: string[]; rows: Array<Array<string | number | null>> }> }

export function contractDataset(largeRows = 50_000): Dataset {
  const items: Array<Array<string | number | null>> = [];
  for (let i = 1; i <= largeRows; i++) items.push([i, `item-${i}-${'ß'.repeat(i % 5)}`, (i * 7) % 1000]);
  return {
    tables: [
      {
        name: 'people',
        columns: ['id', 'name', 'nickname'],
        rows: [
          [1, 'Zoë Ångström', 'zoe'],
          [2, '李小龙', null],
          [3, 'Ελένη 🙂', 'lena'],
          [4, `O'Brien; "quoted" \\ back\nnew line`, ''],
        ],
      },
      { name: 'items', columns: ['id', 'label', 'qty'], rows: items },
      { name: 'empty_table', columns: ['id', 'label', 'qty'], rows: [] },
    ],
  };
}

export interface DatabaseHarness {
  instance: DatabaseDriverInstance;
  /** A fresh empty database (name or path); the harness drops it in cleanup. */
  createDatabase(): Promise<string>;
  /** Creates the dataset's tables (`id` integer primary key, text/integer columns) and rows. */
  seed(db: string, data: Dataset): Promise<void>;
  /** A table's rows ordered by id, values as numbers, strings or null. */
  rows(db: string, table: string): Promise<unknown[][]>;
  /** Feeds the dump file to the engine's stock tool (psql, mysql, sqlite3) to build `db`. */
  stockRestore(dumpFile: string, db: string): Promise<void>;
  /** A database name the server certainly does not hold. */
  missingDatabase: string;
  /** An instance whose credentials the server refuses; undefined when the server cannot check them. */
  badCredentials?(): Promise<DatabaseDriverInstance>;
  /** An instance pointing at a closed port. */
  unreachable?(): DatabaseDriverInstance;
  /** Bound on testConnection/discover against the unreachable instance. */
  timeoutMs?: number;
  /** The secret in the instance's config, and the argv the driver builds for its tools. */
  secret?: string;
  argv?(db: string): string[][];
  /** The dump runs as a child process, whose /proc cmdline the suite reads while it runs. */
  spawnsChild?: boolean;
  cleanup(): Promise<void>;
}

async function digest(rows: unknown[][]): Promise<string> {
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
}

async function expectSame(h: DatabaseHarness, db: string, data: Dataset): Promise<void> {
  for (const table of data.tables) {
    const rows = await h.rows(db, table.name);
    assert.equal(rows.length, table.rows.length, `${db}.${table.name}: row count`);
    assert.equal(await digest(rows), await digest(table.rows), `${db}.${table.name}: checksum of the ordered rows`);
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Children of this process and their argv, read from /proc (Linux). */
async function childArgv(): Promise<string[][]> {
  const out: string[][] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const statLine = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(statLine.slice(statLine.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      out.push((await readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0').filter(Boolean));
    } catch { /* exited meanwhile */ }
  }
  return out;
}

export function runDatabaseContract(label: string, open: (t: TestContext) => Promise<DatabaseHarness | undefined>): void {
  const data = contractDataset();
  let opened: Promise<DatabaseHarness> | undefined;
  let seededDb: Promise<string> | undefined;
  const harness = async (t: TestContext): Promise<DatabaseHarness | undefined> => {
    if (opened) return opened;
    const h = await open(t);
    if (h) opened = Promise.resolve(h);
    return h;
  };
  const seeded = async (h: DatabaseHarness): Promise<string> => {
    seededDb ??= (async () => {
      const db = await h.createDatabase();
      await h.seed(db, data);
      return db;
    })();
    return seededDb;
  };
  const work = async () => mkdtemp(join(tmpdir(), 'backplane-db-contract-'));

  test(`${label}: testConnection succeeds`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    await seeded(h); // a file-based engine has nothing to open before it
    const result = await h.instance.testConnection();
    assert.equal(result.success, true, result.message);
    assert.ok(result.message.length > 0);
  });

  test(`${label}: discover lists the seeded database with its size`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    const db = await seeded(h);
    const found = await h.instance.discover();
    const entry = found.find((d) => d.name === db || db.endsWith(`/${d.name}`));
    assert.ok(entry, `${db} among ${found.map((d) => d.name).join(', ')}`);
    assert.ok(typeof entry.sizeBytes === 'number' && entry.sizeBytes > 0, `size ${String(entry.sizeBytes)}`);
    assert.notEqual(entry.system, true);
  });

  test(`${label}: a dump restored by the driver and by the stock tool reproduces the data`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    const db = await seeded(h);
    const dir = await work();
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'dump');

    const seen: string[][] = [];
    const { stream, done } = await h.instance.dump({ databases: [db] });
    // Best effort: the child's argv is read from /proc while it runs (a small dump can finish
    // before the first look, so this cannot be required; the pure argv builders are asserted
    // deterministically in their own test).
    const watching = (async () => {
      for (let i = 0; i < 50 && seen.length === 0; i++) {
        seen.push(...(await childArgv()));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    await pipeline(stream, createWriteStream(file));
    await done;
    await watching;
    assert.ok((await stat(file)).size > 100_000, 'the dump holds the 50k-row table');
    if (h.secret) {
      for (const argv of seen) assert.ok(!argv.some((a) => a.includes(h.secret!)), `secret in child argv: ${argv.join(' ')}`);
    }

    const viaDriver = await h.createDatabase();
    await h.instance.restore(createReadStream(file), { database: viaDriver });
    await expectSame(h, viaDriver, data);

    const viaStock = await h.createDatabase();
    await h.stockRestore(file, viaStock);
    await expectSame(h, viaStock, data);
  });

  test(`${label}: a dump of a missing database fails, never an empty artifact`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    const failedKind = (err: unknown) => ['not_found', 'permanent'].includes(providerErrorKind(err) ?? '');
    let result: Awaited<ReturnType<DatabaseDriverInstance['dump']>>;
    try {
      result = await h.instance.dump({ databases: [h.missingDatabase] });
    } catch (err) {
      assert.ok(failedKind(err), `kind ${String(providerErrorKind(err))}: ${(err as Error).message}`);
      return;
    }
    await assert.rejects(result.stream.toArray(), 'the stream errors instead of ending');
    await assert.rejects(result.done, failedKind);
  });

  test(`${label}: restore of a broken stream fails`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    const target = await h.createDatabase();
    await assert.rejects(h.instance.restore(Readable.from([Buffer.from('this is not a dump;\n\0\0garbage')]), { database: target }));
  });

  test(`${label}: bad credentials fail with kind auth`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.badCredentials) return t.skip('the server does not check credentials');
    const bad = await h.badCredentials();
    const result = await bad.testConnection();
    assert.equal(result.success, false);
    await assert.rejects(bad.discover(), (err) => providerErrorKind(err) === 'auth');
    if (h.secret) assert.ok(!result.message.includes(h.secret));
  });

  test(`${label}: an unreachable server fails quickly`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.unreachable) return t.skip('no server to be unreachable');
    const instance = h.unreachable();
    const limit = (h.timeoutMs ?? 10_000) + 2_000;
    const started = Date.now();
    const result = await instance.testConnection();
    assert.equal(result.success, false);
    await assert.rejects(instance.discover(), (err) => ['transient', 'not_found', 'permanent'].includes(providerErrorKind(err) ?? ''));
    assert.ok(Date.now() - started < 2 * limit, `took ${Date.now() - started} ms`);
  });

  test(`${label}: no secret in the argv the driver builds`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.argv || !h.secret) return t.skip('no secret to leak');
    for (const argv of h.argv('some_db')) {
      assert.ok(argv.length > 0);
      assert.ok(!argv.some((a) => a.includes(h.secret!)), argv.join(' '));
    }
  });

  after(async () => {
    if (opened) await (await opened).cleanup();
  });
}
