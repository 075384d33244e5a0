import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  previewRetention,
  retentionCandidates,
  type PreviewRecord,
} from '../../packages/console/src/features/tasks/retention-preview.ts';

const rec = (id: number, completedAt: string, extra: Partial<PreviewRecord> = {}): PreviewRecord => ({
  id,
  state: 'success',
  locked: false,
  deletePending: false,
  completedAt,
  startedAt: completedAt,
  ...extra,
});

// docs/retention.md's worked example.
const example = [
  rec(10, '2026-11-20T09:00:00Z'),
  rec(9, '2026-11-20T03:00:00Z'),
  rec(8, '2026-11-19T22:00:00Z'),
  rec(7, '2026-11-19T10:00:00Z', { locked: true }),
  rec(6, '2026-11-17T22:00:00Z'),
  rec(5, '2026-11-15T21:00:00Z'),
  rec(4, '2026-11-11T21:00:00Z'),
  rec(3, '2026-10-31T21:00:00Z'),
  rec(2, '2026-10-15T21:00:00Z'),
  rec(1, '2026-09-27T21:00:00Z'),
];
const zero = { maxBackups: 0, retentionDays: 0, keepDaily: 0, keepWeekly: 0, keepMonthly: 0, keepYearly: 0 };
const now = new Date('2026-11-20T09:05:00Z');

test('the GFS worked example of docs/retention.md', () => {
  const rows = previewRetention(
    example,
    { ...zero, maxBackups: 99, keepDaily: 3, keepWeekly: 2, keepMonthly: 2 },
    now,
    'UTC',
  );
  assert.deepEqual(
    rows.filter((r) => r.keep).map((r) => r.id),
    [10, 8, 7, 6, 5, 3],
  );
  const reason = new Map(rows.map((r) => [r.id, r.reason]));
  assert.equal(reason.get(10), 'newest');
  assert.equal(reason.get(7), 'locked');
  assert.equal(reason.get(8), 'gfs daily 2026-11-19');
  assert.equal(reason.get(5), 'gfs weekly 2026-W46');
  assert.equal(reason.get(3), 'gfs monthly 2026-10');
  assert.equal(reason.get(9), 'not selected by any GFS tier');
});

test('the simple policy of the same example: maxBackups 3 keeps #10, #9, #8 and locked #7', () => {
  const rows = previewRetention(example, { ...zero, maxBackups: 3 }, now);
  assert.deepEqual(
    rows.filter((r) => r.keep).map((r) => r.id),
    [10, 9, 8, 7],
  );
  assert.equal(rows.find((r) => r.id === 6)?.reason, 'beyond maxBackups (3)');
});

test('retentionDays: exactly D days old is kept; older goes; the newest always stays', () => {
  const records = [rec(3, '2026-11-19T09:05:00Z'), rec(2, '2026-11-18T09:05:00Z'), rec(1, '2026-11-18T09:04:59Z')];
  const rows = previewRetention(records, { ...zero, retentionDays: 2 }, now);
  assert.deepEqual(
    rows.map((r) => r.keep),
    [true, true, false],
  );
  assert.equal(rows[2]?.reason, 'older than 2 days');
  const old = previewRetention([rec(1, '2020-01-01T00:00:00Z')], { ...zero, retentionDays: 1 }, now);
  assert.deepEqual(
    old.map((r) => [r.keep, r.reason]),
    [[true, 'newest']],
  );
});

test('zeros keep everything; only artifact-holding records not being deleted are considered', () => {
  const records = [
    rec(4, '2026-11-20T00:00:00Z'),
    rec(3, '2026-11-19T00:00:00Z', { state: 'failed' }),
    rec(2, '2026-11-18T00:00:00Z', { deletePending: true }),
    rec(1, '2026-11-17T00:00:00Z', { state: 'partial' }),
  ];
  assert.deepEqual(
    retentionCandidates(records).map((r) => r.id),
    [4, 1],
  );
  assert.deepEqual(
    previewRetention(records, zero, now).map((r) => [r.id, r.keep, r.reason]),
    [
      [4, true, 'newest'],
      [1, true, 'no limit'],
    ],
  );
});

test('time zone moves a late-evening backup to the next day; same instant: higher id is newer', () => {
  const records = [rec(2, '2026-11-20T23:30:00Z'), rec(1, '2026-11-20T10:00:00Z')];
  const tokyo = previewRetention(records, { ...zero, keepDaily: 2 }, now, 'Asia/Tokyo');
  assert.equal(tokyo.find((r) => r.id === 2)?.reason, 'newest');
  assert.equal(tokyo.find((r) => r.id === 1)?.reason, 'gfs daily 2026-11-20');
  const utc = previewRetention(records, { ...zero, keepDaily: 2 }, now, 'UTC');
  assert.equal(utc.find((r) => r.id === 1)?.keep, false);
  const tie = previewRetention(
    [rec(1, '2026-11-20T00:00:00Z'), rec(2, '2026-11-20T00:00:00Z')],
    { ...zero, maxBackups: 1 },
    now,
  );
  assert.deepEqual(
    tie.map((r) => [r.id, r.keep]),
    [
      [2, true],
      [1, false],
    ],
  );
});

// The preview is a copy of the server's rule (the console bundles no server code): this keeps
// the two in step on many generated histories and policies, decisions and reasons alike.
test("the preview decides exactly as the server's decideRetention, on generated histories", async () => {
  const { decideRetention } = await import('../../core/backup/retention-policy.ts');
  let seed = 20261127;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const zones = ['UTC', 'Europe/Berlin', 'Asia/Tokyo', 'America/Los_Angeles'];
  for (let round = 0; round < 300; round++) {
    const count = rand(25);
    const records: PreviewRecord[] = [];
    for (let id = 1; id <= count; id++) {
      const at = new Date(now.getTime() - rand(400 * 24) * 3_600_000).toISOString();
      records.push(rec(id, at, { locked: rand(8) === 0 }));
    }
    const gfs = rand(2) === 0;
    const policy = gfs
      ? { ...zero, keepDaily: rand(5), keepWeekly: rand(4), keepMonthly: rand(4), keepYearly: rand(3) }
      : { ...zero, maxBackups: rand(6), retentionDays: rand(3) * 30 };
    const timeZone = zones[rand(zones.length)]!;
    const rows = previewRetention(records, policy, now, timeZone);
    const server = decideRetention(
      records.map((r) => ({ id: r.id, completedAt: new Date(r.completedAt!), locked: r.locked })),
      policy,
      { now, timeZone },
    );
    assert.deepEqual(
      rows
        .filter((r) => r.keep)
        .map((r) => r.id)
        .sort((a, b) => a - b),
      [...server.keep].sort((a, b) => a - b),
      `round ${round}`,
    );
    for (const r of rows) assert.equal(r.reason, server.reasons.get(r.id), `round ${round}, record ${r.id}`);
  }
});
