import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { scratchPostgres } from '../helpers/databases.ts';
import { waitFor } from '../helpers/agent-process.ts';
import { migrate, openOrm } from '../../core/db/orm.ts';
import { PgCluster } from '../../core/db/pg-cluster.ts';
import { RecordLogHub, type LogEvent } from '../../core/backup/record-log.ts';

const quiet = { info: () => undefined, warn: () => undefined };

/** A cluster member on `url` that records its leadership changes, lost sessions and errors. */
function member(url: string, masterId: number) {
  const errors: unknown[] = [];
  const cluster = new PgCluster({
    url,
    masterId,
    numberFloor: masterId * 1000,
    checkMs: 150,
    onError: (err) => errors.push(err),
    log: quiet,
  });
  const changes: boolean[] = [];
  let lost = 0;
  cluster.onLeadership(async (leader) => void changes.push(leader));
  cluster.onSessionLost(() => void lost++);
  return { cluster, changes, errors, lost: () => lost };
}

test('masters on one PostgreSQL database: one leads, a dead session hands the lead on, numbered notices arrive everywhere in one order', {
  timeout: 60_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_cluster');
  if (!url) return;
  const orm = await openOrm(url);
  await migrate(orm);
  await orm.close();

  const a = member(url, 101);
  const b = member(url, 102);
  t.after(async () => {
    await a.cluster.stop();
    await b.cluster.stop();
  });
  const seen: Record<'a' | 'b', string[]> = { a: [], b: [] };
  a.cluster.listen('backplane_events', (p) => seen.a.push(p));
  b.cluster.listen('backplane_events', (p) => seen.b.push(p));

  await a.cluster.start();
  await b.cluster.start();
  assert.deepEqual(a.changes, [true], 'the first master leads');
  assert.equal(b.cluster.leader, false);
  assert.deepEqual((await b.cluster.liveMasters()).sort(), [101, 102]);

  // Numbered notices from both masters: every master sees all of them, in one order, numbered upwards from the highest floor.
  await Promise.all([0, 1, 2, 3, 4, 5].map((i) => (i % 2 ? a : b).cluster.notifyNumbered('backplane_events', `n${i}`)));
  await waitFor(
    'six notices on both masters',
    async () => (seen.a.length === 6 && seen.b.length === 6 ? true : undefined),
    10_000,
  );
  assert.deepEqual(seen.a, seen.b);
  const numbers = seen.a.map((p) => Number(p.split(':')[0]));
  assert.deepEqual(
    [...numbers].sort((x, y) => x - y),
    numbers,
    'delivered in the order of their numbers',
  );
  assert.ok(numbers[0]! > 102 * 1000, `numbers start above the newest master's floor: ${numbers[0]}`);
  assert.deepEqual(seen.a.map((p) => p.split(':')[1]).sort(), ['n0', 'n1', 'n2', 'n3', 'n4', 'n5']);

  // The leader's session ends (as when its process dies or its network goes): the other master leads.
  const admin = new pg.Client({ connectionString: url });
  admin.on('error', () => undefined);
  await admin.connect();
  t.after(() => admin.end());
  await admin.query(
    "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'backplane-master-101'",
  );
  await waitFor('the first master to notice', async () => (a.changes.length >= 2 ? true : undefined), 10_000);
  assert.deepEqual(a.changes.slice(0, 2), [true, false], 'the master that lost its session stopped leading');
  assert.equal(a.lost(), 1, 'and was told its session was lost');
  // One of them leads again: the other master, or the first one on its new session, whichever tries first.
  await waitFor('a leader again', async () => (a.cluster.leader !== b.cluster.leader ? true : undefined), 10_000);
  await waitFor(
    'the first master to be alive again',
    async () => ((await b.cluster.liveMasters()).includes(101) ? true : undefined),
    10_000,
  );

  // A leader that stops: the other takes over.
  const [leader, follower] = a.cluster.leader ? [a, b] : [b, a];
  await leader.cluster.stop();
  await waitFor('the other master to lead', async () => (follower.cluster.leader ? true : undefined), 10_000);
  assert.deepEqual(await follower.cluster.liveMasters(), [follower.cluster.masterId]);
  assert.deepEqual(
    [...a.errors, ...b.errors].filter((e) => !/terminat|session/.test(String(e))),
    [],
  );
});

test("a record's log written on one master streams on another, a line too long for a notice included", {
  timeout: 60_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_cluster_logs');
  if (!url) return;
  const orm = await openOrm(url);
  t.after(() => orm.close());
  await migrate(orm);
  const writer = member(url, 201);
  const reader = member(url, 202);
  t.after(async () => {
    await writer.cluster.stop();
    await reader.cluster.stop();
  });
  const here = new RecordLogHub(orm, 'backup');
  const there = new RecordLogHub(orm, 'backup');
  const restoreThere = new RecordLogHub(orm, 'restore');
  here.relay(writer.cluster, (err) => writer.errors.push(err));
  there.relay(reader.cluster, (err) => reader.errors.push(err));
  restoreThere.relay(reader.cluster, (err) => reader.errors.push(err));
  await writer.cluster.start();
  await reader.cluster.start();

  const received: LogEvent[] = [];
  const wrongKind: LogEvent[] = [];
  there.subscribe(7, (e) => received.push(e));
  restoreThere.subscribe(7, (e) => wrongKind.push(e));
  const long = 'ü'.repeat(3900); // 7,800 bytes in UTF-8: over a notice's limit once wrapped
  await here.open(7, 'running');
  await here.line(7, 'info', 'first');
  await here.line(7, 'warn', long);
  here.progress(7, { bytesRead: 10, bytesStored: 5, speedBps: 1, elapsedSeconds: 1 }, 'progress');
  await here.line(7, 'info', 'last');
  await here.close(7, 'success');
  await waitFor(
    'the final event on the other master',
    async () => (received.some((e) => e.completed) ? true : undefined),
    10_000,
  );
  const lines = received.filter((e) => e.level !== 'progress' && !e.completed);
  assert.deepEqual(
    lines.map((e) => [e.sequence, e.level, e.message]),
    [
      [1, 'info', 'first'],
      [2, 'warn', long],
      [3, 'info', 'last'],
    ],
  );
  assert.ok(received.some((e) => e.level === 'progress' && e.progress?.bytesRead === 10));
  assert.deepEqual(received.at(-1)!.status, 'success');
  assert.deepEqual(wrongKind, [], 'a restore log hub ignores backup logs');
  assert.deepEqual([...writer.errors, ...reader.errors], []);
});
