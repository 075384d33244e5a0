import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { providerErrorKind, type DatabaseDriverInstance, type DatabaseDriverType } from '@backplane/plugin-api';

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
 *
 * The optional members, each tested only when the driver declares it: tableStats counts the
 * seeded rows; ensureDatabase creates once (then answers false) and refuses bad names;
 * dropDatabase removes and is idempotent; a restore into an ensured database has the source's
 * tableStats; replaceDatabase swaps content and the source name disappears; checkDump accepts a
 * real dump's edges and refuses cut-short ones and garbage; atomicRestore: a restore whose input
 * errors part-way leaves the target as it was.
 */

/** The data every engine seeds: unicode, quotes, a NULL, an empty table and a 50k-row table. */
export interface Dataset {
  tables: Array<{ name: string; columns: string[]; rows: Array<Array<string | number | null>> }>;
}

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
  /** The driver's type: its optional members (`atomicRestore`, `checkDump`) are tested when declared. */
  type: DatabaseDriverType;
  instance: DatabaseDriverInstance;
  /**
   * A fresh empty database (name or path; `name` when given, e.g. from `scratchName`), created
   * with the harness's own access; the harness drops it in cleanup. A file-based engine may
   * return a path that `seed` (or a restore) creates.
   */
  createDatabase(name?: string): Promise<string>;
  /**
   * A unique database name (or path) that does not exist yet. `tricky`: one that needs quoting
   * (the engine's quote character and a space), to prove the driver quotes identifiers.
   */
  scratchName(tricky?: boolean): string;
  /** Drops the database (deletes the file) if it exists, with the harness's own access. */
  removeDatabase(db: string): Promise<void>;
  /** tableStats' key for a dataset table: `public.people` where the engine has schemas; the table name when absent. */
  statsKey?(table: string): string;
  /** The dump ends with a trailer proving it ran to completion (text dumps; not SQLite's page copy). */
  dumpHasTrailer: boolean;
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

/** What core hands `checkDump`: the first and last 64 KiB of the decoded dump. */
const EDGE = 64 * 1024;
function edges(bytes: Buffer): [Buffer, Buffer] {
  return [bytes.subarray(0, EDGE), bytes.subarray(Math.max(0, bytes.length - EDGE))];
}

function* chunked(bytes: Buffer, size = 64 * 1024): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** One table of `count` rows, named apart from the contract dataset's. */
export function smallDataset(table: string, count: number): Dataset {
  const rows: Array<Array<string | number | null>> = [];
  for (let i = 1; i <= count; i++) rows.push([i, `${table}-${i}`, i % 2 === 0 ? null : i * 10]);
  return { tables: [{ name: table, columns: ['id', 'label', 'qty'], rows }] };
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
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

export function runDatabaseContract(
  label: string,
  open: (t: TestContext) => Promise<DatabaseHarness | undefined>,
): void {
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
  let seededDump: Promise<Buffer> | undefined;
  /** The bytes of a real dump of the seeded database, taken once. */
  const dumpBytes = async (h: DatabaseHarness): Promise<Buffer> => {
    seededDump ??= (async () => {
      const { stream, done } = await h.instance.dump({ databases: [await seeded(h)] });
      const chunks = (await stream.toArray()) as Buffer[];
      await done;
      return Buffer.concat(chunks);
    })();
    return seededDump;
  };
  /** A scratch database removed in `t.after`; created (empty) unless `create` is false. */
  const scratch = async (
    h: DatabaseHarness,
    t: TestContext,
    options: { create?: boolean; tricky?: boolean } = {},
  ): Promise<string> => {
    const name = h.scratchName(options.tricky);
    t.after(() => h.removeDatabase(name));
    if (options.create !== false) await h.createDatabase(name);
    return name;
  };
  const listed = async (h: DatabaseHarness, db: string) =>
    (await h.instance.discover()).some((d) => d.name === db || db.endsWith(`/${d.name}`));
  const expectedStats = (h: DatabaseHarness, dataset: Dataset) =>
    Object.fromEntries(dataset.tables.map((table) => [h.statsKey?.(table.name) ?? table.name, table.rows.length]));

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
      for (const argv of seen)
        assert.ok(!argv.some((a) => a.includes(h.secret!)), `secret in child argv: ${argv.join(' ')}`);
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

  // Core offers its compressor program to every dump (DumpOptions.compressor); gzip stands in here.
  const gzip = { command: 'gzip', args: ['-c', '-1'] };

  test(`${label}: a dump offered a compressor restores the data (compressed when the driver honours it)`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    const db = await seeded(h);
    const result = await h.instance.dump({ databases: [db], compressor: gzip });
    const bytes = Buffer.concat((await result.stream.toArray()) as Buffer[]);
    await result.done;
    const plain = result.compressed ? gunzipSync(bytes) : bytes;
    if (result.compressed) assert.ok(bytes.length < plain.length, 'the stream is the compressor output');
    assert.ok(plain.length > 100_000, 'the dump holds the 50k-row table');
    const viaDriver = await h.createDatabase();
    await h.instance.restore(Readable.from([plain]), { database: viaDriver });
    await expectSame(h, viaDriver, data);
  });

  test(`${label}: a dump of a missing database offered a compressor fails too`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    let result: Awaited<ReturnType<DatabaseDriverInstance['dump']>>;
    try {
      result = await h.instance.dump({ databases: [h.missingDatabase], compressor: gzip });
    } catch {
      return; // refused before streaming: as good
    }
    await assert.rejects(result.stream.toArray(), 'the stream errors instead of ending');
    await assert.rejects(result.done);
  });

  test(`${label}: restore of a broken stream fails`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    const target = await h.createDatabase();
    await assert.rejects(
      h.instance.restore(Readable.from([Buffer.from('this is not a dump;\n\0\0garbage')]), { database: target }),
    );
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
    await assert.rejects(instance.discover(), (err) =>
      ['transient', 'not_found', 'permanent'].includes(providerErrorKind(err) ?? ''),
    );
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

  test(`${label}: tableStats counts the rows of every table`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.instance.tableStats) return t.skip('the driver has no tableStats');
    const db = await seeded(h);
    assert.deepEqual(await h.instance.tableStats(db), expectedStats(h, data));
    await assert.rejects(h.instance.tableStats(h.missingDatabase), (err) =>
      ['not_found', 'permanent'].includes(providerErrorKind(err) ?? ''),
    );
  });

  test(`${label}: ensureDatabase creates a database once and refuses bad names`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.instance.ensureDatabase) return t.skip('the driver has no ensureDatabase');
    for (const tricky of [false, true]) {
      const name = await scratch(h, t, { create: false, tricky });
      assert.equal(await h.instance.ensureDatabase(name), true, `${name} is created`);
      assert.equal(await h.instance.ensureDatabase(name), false, `${name} exists the second time`);
      assert.ok(await listed(h, name), `discover lists ${name}`);
      if (h.instance.tableStats) assert.deepEqual(await h.instance.tableStats(name), {}, 'a new database is empty');
    }
    for (const bad of ['', 'bad\0name', 'x'.repeat(65)]) {
      await assert.rejects(
        h.instance.ensureDatabase(bad),
        (err) => providerErrorKind(err) === 'permanent',
        JSON.stringify(bad),
      );
    }
  });

  test(`${label}: dropDatabase removes a database and is idempotent`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.instance.dropDatabase) return t.skip('the driver has no dropDatabase');
    const name = await scratch(h, t, { create: false, tricky: true });
    if (h.instance.ensureDatabase) await h.instance.ensureDatabase(name);
    else await h.createDatabase(name);
    await h.seed(name, smallDataset('doomed', 2));
    assert.ok(await listed(h, name));
    await h.instance.dropDatabase(name);
    assert.equal(await listed(h, name), false, 'discover no longer lists it');
    await h.instance.dropDatabase(name); // already gone: fine
    await assert.rejects(h.instance.dropDatabase('bad\0name'), (err) => providerErrorKind(err) === 'permanent');
  });

  test(`${label}: a restore into an ensured database has the source's table stats`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.instance.ensureDatabase || !h.instance.tableStats)
      return t.skip('the driver has no ensureDatabase or no tableStats');
    const source = await h.instance.tableStats(await seeded(h));
    const dump = await dumpBytes(h);
    const target = await scratch(h, t, { create: false });
    assert.equal(await h.instance.ensureDatabase(target), true);
    await h.instance.restore(Readable.from(chunked(dump)), { database: target });
    assert.deepEqual(await h.instance.tableStats(target), source);
  });

  test(`${label}: replaceDatabase puts the source in the target's place`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (!h.instance.replaceDatabase) return t.skip('the driver has no replaceDatabase');
    const incoming = smallDataset('incoming', 3);
    const stats = async (db: string) => (h.instance.tableStats ? h.instance.tableStats(db) : undefined);
    const leftovers = async (target: string) =>
      (await h.instance.discover()).filter((d) => d.name !== target && d.name.startsWith(target)).map((d) => d.name);

    // over an existing target with other tables
    const target = await scratch(h, t, { tricky: true });
    await h.seed(target, smallDataset('outgoing', 5));
    const source = await scratch(h, t);
    await h.seed(source, incoming);
    await h.instance.replaceDatabase(target, source);
    assert.deepEqual(await h.rows(target, 'incoming'), incoming.tables[0]!.rows, 'the target holds the source data');
    if (h.instance.tableStats) assert.deepEqual(await stats(target), expectedStats(h, incoming), 'and only that');
    assert.equal(await listed(h, source), false, 'the source name no longer exists');
    assert.deepEqual(await leftovers(target), [], 'the previous target is gone');

    // into a name that does not exist yet
    const fresh = await scratch(h, t, { create: false });
    const other = await scratch(h, t);
    await h.seed(other, incoming);
    await h.instance.replaceDatabase(fresh, other);
    assert.deepEqual(await h.rows(fresh, 'incoming'), incoming.tables[0]!.rows);
    assert.equal(await listed(h, other), false);

    await assert.rejects(h.instance.replaceDatabase(target, h.missingDatabase), (err) =>
      ['not_found', 'permanent'].includes(providerErrorKind(err) ?? ''),
    );
    assert.deepEqual(await h.rows(target, 'incoming'), incoming.tables[0]!.rows, 'a failed replace leaves the target');
  });

  test(`${label}: checkDump accepts a complete dump and refuses cut-short ones and garbage`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    const check = h.type.checkDump;
    if (!check) return t.skip('the driver has no checkDump');
    const dump = await dumpBytes(h);
    assert.ok(dump.length > 2 * EDGE, 'the dump is larger than head and tail together');
    const verdict = (bytes: Buffer) => check(...edges(bytes));
    assert.equal(verdict(dump), undefined, 'a complete dump passes');
    const refused = (bytes: Buffer, what: string) => {
      const problem = verdict(bytes);
      assert.equal(typeof problem, 'string', `${what} is refused`);
      assert.ok(problem!.length > 0 && problem!.length < 300, `a short message: ${problem}`);
    };
    refused(dump.subarray(0, 40_003), 'a dump cut short within its first 64 KiB');
    if (h.dumpHasTrailer) {
      refused(dump.subarray(0, dump.length - 512), 'a dump cut just before its trailer');
      refused(dump.subarray(0, Math.floor(dump.length / 2) + 3), 'a dump cut in the middle');
    }
    refused(randomBytes(200_000), 'random bytes');
    refused(Buffer.from('SELECT 1;\n'), 'a short text');
    refused(
      Buffer.concat([randomBytes(100_000), dump.subarray(dump.length - EDGE)]),
      'a foreign head with a real tail',
    );
  });

  test(`${label}: an atomic restore whose input fails part-way leaves the target unchanged`, async (t) => {
    const h = await harness(t);
    if (!h) return;
    if (h.type.atomicRestore !== true) return t.skip('the driver does not declare atomicRestore');
    const dump = await dumpBytes(h);
    const keep = smallDataset('keep_me', 3);
    const target = await scratch(h, t);
    await h.seed(target, keep);
    const before = h.instance.tableStats ? await h.instance.tableStats(target) : undefined;
    async function* breaking(): AsyncGenerator<Buffer> {
      yield* chunked(dump.subarray(0, Math.floor(dump.length / 2)));
      await sleep(300); // the tool has applied what it read so far
      throw new Error('the artifact broke part-way');
    }
    await assert.rejects(
      h.instance.restore(Readable.from(breaking()), { database: target }),
      /the artifact broke part-way/,
    );
    if (before)
      assert.deepEqual(await h.instance.tableStats!(target), before, 'the same tables with the same row counts');
    assert.deepEqual(await h.rows(target, 'keep_me'), keep.tables[0]!.rows, 'the same rows');
  });

  after(async () => {
    if (opened) await (await opened).cleanup();
  });
}
