import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideRetention,
  isGfs,
  type RetentionCandidate,
  type RetentionPolicy,
} from '../../core/backup/retention-policy.ts';

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-11-20T12:00:00Z');

function policy(p: Partial<RetentionPolicy> = {}): RetentionPolicy {
  return { maxBackups: 0, retentionDays: 0, keepDaily: 0, keepWeekly: 0, keepMonthly: 0, keepYearly: 0, ...p };
}

function rec(id: number, at: string | number, locked = false): RetentionCandidate {
  return { id, completedAt: new Date(at), locked };
}

/** `count` records one per day going back from NOW; id `count` is the newest. */
function daily(count: number): RetentionCandidate[] {
  return Array.from({ length: count }, (_, i) => rec(count - i, NOW.getTime() - i * DAY));
}

/** Every input id in exactly one list, both lists newest first, a reason for every id. */
function assertWellFormed(records: readonly RetentionCandidate[], d: ReturnType<typeof decideRetention>): void {
  const ids = records.map((r) => r.id).sort((a, b) => a - b);
  assert.deepEqual(
    [...d.keep, ...d.delete].sort((a, b) => a - b),
    ids,
    'every id in exactly one list',
  );
  assert.deepEqual(
    [...d.reasons.keys()].sort((a, b) => a - b),
    ids,
    'a reason for every id',
  );
  for (const reason of d.reasons.values()) assert.ok(reason.length > 0);
  const byId = new Map(records.map((r) => [r.id, r]));
  for (const list of [d.keep, d.delete]) {
    for (let i = 1; i < list.length; i++) {
      const a = byId.get(list[i - 1]!)!;
      const b = byId.get(list[i]!)!;
      const newerFirst =
        a.completedAt.getTime() > b.completedAt.getTime() ||
        (a.completedAt.getTime() === b.completedAt.getTime() && a.id > b.id);
      assert.ok(newerFirst, `list not newest first at ${a.id}, ${b.id}`);
    }
  }
}

test('isGfs is true only when a keep* tier is on', () => {
  assert.equal(isGfs(policy({ maxBackups: 5, retentionDays: 30 })), false);
  assert.equal(isGfs(policy()), false);
  assert.equal(isGfs(policy({ keepDaily: 1 })), true);
  assert.equal(isGfs(policy({ keepWeekly: 1 })), true);
  assert.equal(isGfs(policy({ keepMonthly: 1 })), true);
  assert.equal(isGfs(policy({ keepYearly: 1 })), true);
});

test('maxBackups keeps the newest N and deletes the rest', () => {
  const records = daily(10);
  const d = decideRetention(records, policy({ maxBackups: 3 }), { now: NOW });
  assert.deepEqual(d.keep, [10, 9, 8]);
  assert.deepEqual(d.delete, [7, 6, 5, 4, 3, 2, 1]);
  assert.equal(d.reasons.get(10), 'newest');
  assert.equal(d.reasons.get(9), 'within maxBackups (3)');
  assert.equal(d.reasons.get(7), 'beyond maxBackups (3)');
  assertWellFormed(records, d);
});

test('input order does not matter: records are sorted newest first', () => {
  const records = daily(6).reverse();
  const d = decideRetention(records, policy({ maxBackups: 2 }), { now: NOW });
  assert.deepEqual(d.keep, [6, 5]);
  assert.deepEqual(d.delete, [4, 3, 2, 1]);
});

test('retentionDays deletes records older than now - days*24h; the boundary instant is kept', () => {
  const cutoff = NOW.getTime() - 30 * DAY;
  const records = [
    rec(1, cutoff - 1),
    rec(2, cutoff),
    rec(3, cutoff + 1),
    rec(4, NOW.getTime() - DAY),
    rec(5, NOW.getTime()),
  ];
  const d = decideRetention(records, policy({ retentionDays: 30 }), { now: NOW });
  assert.deepEqual(d.keep, [5, 4, 3, 2]);
  assert.deepEqual(d.delete, [1]);
  assert.equal(d.reasons.get(1), 'older than 30 days');
  assert.equal(d.reasons.get(3), 'within 30 days');
  assertWellFormed(records, d);
});

test('retentionDays uses the given now, not the clock', () => {
  const records = [rec(1, '2020-01-01T00:00:00Z'), rec(2, '2020-01-05T00:00:00Z'), rec(3, '2020-01-10T00:00:00Z')];
  const d = decideRetention(records, policy({ retentionDays: 7 }), { now: new Date('2020-01-10T00:00:00Z') });
  assert.deepEqual(d.keep, [3, 2]);
  assert.deepEqual(d.delete, [1]);
});

test('maxBackups and retentionDays combined: a record must pass both', () => {
  // 10 records one per day: the 3 newest are within the count, the 5 newest within the age.
  const records = daily(10);
  const byCount = decideRetention(records, policy({ maxBackups: 3, retentionDays: 4 }), { now: NOW });
  assert.deepEqual(byCount.keep, [10, 9, 8], 'count is the tighter limit');
  assert.equal(byCount.reasons.get(9), 'within maxBackups (3); within 4 days');
  assert.equal(byCount.reasons.get(7), 'beyond maxBackups (3)');
  assert.equal(byCount.reasons.get(5), 'beyond maxBackups (3); older than 4 days');

  const byAge = decideRetention(records, policy({ maxBackups: 8, retentionDays: 2 }), { now: NOW });
  assert.deepEqual(byAge.keep, [10, 9, 8], 'age is the tighter limit');
  assert.deepEqual(byAge.delete, [7, 6, 5, 4, 3, 2, 1]);
  assert.equal(byAge.reasons.get(7), 'older than 2 days');
  assert.equal(byAge.reasons.get(1), 'beyond maxBackups (8); older than 2 days');
  assertWellFormed(records, byAge);
});

test('0 means unlimited: 50 records with maxBackups 0 and retentionDays 0 are all kept', () => {
  const records = Array.from({ length: 50 }, (_, i) => rec(i + 1, Date.UTC(2000 + (i % 25), i % 12, 1 + (i % 28))));
  const d = decideRetention(records, policy(), { now: NOW });
  assert.equal(d.delete.length, 0);
  assert.equal(d.keep.length, 50);
  assertWellFormed(records, d);

  // Each limit alone is also unlimited in the other dimension.
  const ageOnly = decideRetention(daily(50), policy({ retentionDays: 365 }), { now: NOW });
  assert.equal(ageOnly.delete.length, 0, 'maxBackups 0 imposes no count limit');
  const countOnly = decideRetention(records, policy({ maxBackups: 50 }), { now: NOW });
  assert.equal(countOnly.delete.length, 0, 'retentionDays 0 imposes no age limit');
});

test('locked records are never deleted and do not use maxBackups slots', () => {
  const records = daily(6);
  records[0]!.locked = true; // id 6, newest
  records[2]!.locked = true; // id 4
  records[5]!.locked = true; // id 1, oldest: also older than retentionDays
  const d = decideRetention(records, policy({ maxBackups: 2, retentionDays: 3 }), { now: NOW });
  // Unlocked newest first: 5, 3, 2. maxBackups 2 keeps 5 and 3.
  assert.deepEqual(d.keep, [6, 5, 4, 3, 1]);
  assert.deepEqual(d.delete, [2]);
  assert.equal(d.reasons.get(6), 'locked');
  assert.equal(d.reasons.get(4), 'locked');
  assert.equal(d.reasons.get(1), 'locked');
  assert.equal(d.reasons.get(5), 'newest', 'the newest unlocked record, not the locked one, is "newest"');
  assertWellFormed(records, d);
});

test('locked records do not use GFS slots either', () => {
  const records = [
    rec(3, '2026-11-20T10:00:00Z', true),
    rec(2, '2026-11-19T10:00:00Z'),
    rec(1, '2026-11-18T10:00:00Z'),
    rec(0, '2026-11-17T10:00:00Z'),
  ];
  const d = decideRetention(records, policy({ keepDaily: 2 }), { now: NOW });
  assert.deepEqual(d.keep, [3, 2, 1]);
  assert.deepEqual(d.delete, [0]);
  assert.equal(d.reasons.get(1), 'gfs daily 2026-11-18');
});

test('all records locked: nothing is deleted', () => {
  const records = daily(5).map((r) => ({ ...r, locked: true }));
  const d = decideRetention(records, policy({ maxBackups: 1, retentionDays: 1 }), { now: NOW });
  assert.deepEqual(d.keep, [5, 4, 3, 2, 1]);
  assert.deepEqual(d.delete, []);
  for (const id of d.keep) assert.equal(d.reasons.get(id), 'locked');
});

test('the newest unlocked record is always kept, even when older than retentionDays', () => {
  const records = [rec(1, '2020-01-01T00:00:00Z'), rec(2, '2020-02-01T00:00:00Z'), rec(3, '2020-03-01T00:00:00Z')];
  const d = decideRetention(records, policy({ retentionDays: 30, maxBackups: 10 }), { now: NOW });
  assert.deepEqual(d.keep, [3]);
  assert.deepEqual(d.delete, [2, 1]);
  assert.equal(d.reasons.get(3), 'newest');
  assert.equal(d.reasons.get(2), 'older than 30 days');

  // Behind a newer locked record, the newest unlocked one is still protected.
  const withLock = [...records, rec(4, '2026-11-01T00:00:00Z', true)];
  const d2 = decideRetention(withLock, policy({ retentionDays: 1 }), { now: NOW });
  assert.deepEqual(d2.keep, [4, 3]);
  assert.deepEqual(d2.delete, [2, 1]);
});

test('a single record is kept under any policy', () => {
  const only = [rec(1, '2001-01-01T00:00:00Z')];
  for (const p of [
    policy({ retentionDays: 1 }),
    policy({ maxBackups: 1, retentionDays: 1 }),
    policy({ keepYearly: 1 }),
    policy(),
  ]) {
    const d = decideRetention(only, p, { now: NOW });
    assert.deepEqual(d.keep, [1]);
    assert.deepEqual(d.delete, []);
  }
});

test('no records: empty decision', () => {
  const d = decideRetention([], policy({ maxBackups: 1, keepDaily: 1 }), { now: NOW });
  assert.deepEqual(d, { keep: [], delete: [], reasons: new Map() });
});

test('GFS daily keeps the newest record of each day, several records per day', () => {
  const records = [
    rec(1, '2026-11-18T01:00:00Z'),
    rec(2, '2026-11-18T13:00:00Z'),
    rec(3, '2026-11-19T00:00:00Z'),
    rec(4, '2026-11-19T12:00:00Z'),
    rec(5, '2026-11-19T23:59:59Z'),
    rec(6, '2026-11-20T06:00:00Z'),
    rec(7, '2026-11-20T09:00:00Z'),
    rec(8, '2026-11-17T22:00:00Z'),
  ];
  const d = decideRetention(records, policy({ keepDaily: 3 }), { now: NOW });
  assert.deepEqual(d.keep, [7, 5, 2]);
  assert.deepEqual(d.delete, [6, 4, 3, 1, 8]);
  assert.equal(d.reasons.get(7), 'newest');
  assert.equal(d.reasons.get(5), 'gfs daily 2026-11-19');
  assert.equal(d.reasons.get(2), 'gfs daily 2026-11-18');
  assert.equal(d.reasons.get(6), 'not selected by any GFS tier');
  assertWellFormed(records, d);
});

test('GFS counts distinct periods that have records, skipping empty days', () => {
  // Gaps: records on the 20th, 15th, 1st. keepDaily 2 keeps the 20th and the 15th.
  const records = [rec(1, '2026-11-01T10:00:00Z'), rec(2, '2026-11-15T10:00:00Z'), rec(3, '2026-11-20T10:00:00Z')];
  const d = decideRetention(records, policy({ keepDaily: 2 }), { now: NOW });
  assert.deepEqual(d.keep, [3, 2]);
  assert.deepEqual(d.delete, [1]);
});

test('GFS replaces the simple policy: maxBackups and retentionDays are ignored', () => {
  const records = daily(10);
  const d = decideRetention(records, policy({ keepDaily: 7, maxBackups: 1, retentionDays: 1 }), { now: NOW });
  assert.deepEqual(d.keep, [10, 9, 8, 7, 6, 5, 4]);
  assert.deepEqual(d.delete, [3, 2, 1]);
});

test('GFS weekly uses ISO-8601 weeks and ISO week-years across the new year', () => {
  // 2026-12-27 is a Sunday (2026-W52); 2026-12-31 (Thu) and 2027-01-01 (Fri) are both 2026-W53;
  // 2027-01-04 is the Monday of 2027-W01.
  const records = [
    rec(1, '2026-12-27T12:00:00Z'),
    rec(2, '2026-12-31T12:00:00Z'),
    rec(3, '2027-01-01T12:00:00Z'),
    rec(4, '2027-01-04T12:00:00Z'),
  ];
  const d = decideRetention(records, policy({ keepWeekly: 2 }), { now: new Date('2027-01-05T00:00:00Z') });
  assert.deepEqual(d.keep, [4, 3]);
  assert.deepEqual(d.delete, [2, 1]);
  assert.equal(d.reasons.get(3), 'gfs weekly 2026-W53');

  const three = decideRetention(records, policy({ keepWeekly: 3 }), { now: NOW });
  assert.deepEqual(three.keep, [4, 3, 1]);
  assert.equal(three.reasons.get(1), 'gfs weekly 2026-W52');
  assert.equal(three.reasons.get(2), 'not selected by any GFS tier');
});

test('GFS weekly: 2024-12-30 belongs to 2025-W01, 2024-12-29 to 2024-W52', () => {
  const records = [
    rec(1, '2024-12-29T12:00:00Z'), // Sunday, 2024-W52
    rec(2, '2024-12-30T12:00:00Z'), // Monday, 2025-W01
    rec(3, '2025-01-05T12:00:00Z'), // Sunday, 2025-W01
    rec(4, '2025-01-06T12:00:00Z'), // Monday, 2025-W02
  ];
  const d = decideRetention(records, policy({ keepWeekly: 5 }), { now: NOW });
  assert.deepEqual(d.keep, [4, 3, 1]);
  assert.deepEqual(d.delete, [2]);
  assert.equal(d.reasons.get(3), 'gfs weekly 2025-W01');
  assert.equal(d.reasons.get(1), 'gfs weekly 2024-W52');
});

test('GFS weekly: the week number is zero-padded and a week spans Monday to Sunday', () => {
  const records = [rec(1, '2026-11-16T00:00:00Z'), rec(2, '2026-11-22T23:59:59Z'), rec(3, '2026-11-23T00:00:00Z')];
  const d = decideRetention(records, policy({ keepWeekly: 10 }), { now: NOW });
  assert.deepEqual(d.keep, [3, 2]);
  assert.equal(d.reasons.get(2), 'gfs weekly 2026-W47');
  assert.equal(d.reasons.get(1), 'not selected by any GFS tier');

  const early = [rec(1, '2026-01-05T10:00:00Z'), rec(2, '2026-01-12T10:00:00Z')];
  assert.equal(decideRetention(early, policy({ keepWeekly: 2 }), { now: NOW }).reasons.get(1), 'gfs weekly 2026-W02');
});

test('GFS monthly and yearly keep the newest record of each month / year', () => {
  const records = [
    rec(1, '2024-03-10T00:00:00Z'),
    rec(2, '2024-12-31T23:00:00Z'),
    rec(3, '2025-06-01T00:00:00Z'),
    rec(4, '2025-06-30T00:00:00Z'),
    rec(5, '2025-07-01T00:00:00Z'),
    rec(6, '2026-01-15T00:00:00Z'),
    rec(7, '2026-01-20T00:00:00Z'),
  ];
  const monthly = decideRetention(records, policy({ keepMonthly: 3 }), { now: NOW });
  assert.deepEqual(monthly.keep, [7, 5, 4]);
  assert.deepEqual(monthly.delete, [6, 3, 2, 1]);
  assert.equal(monthly.reasons.get(5), 'gfs monthly 2025-07');
  assert.equal(monthly.reasons.get(4), 'gfs monthly 2025-06');

  const yearly = decideRetention(records, policy({ keepYearly: 3 }), { now: NOW });
  assert.deepEqual(yearly.keep, [7, 5, 2]);
  assert.deepEqual(yearly.delete, [6, 4, 3, 1]);
  assert.equal(yearly.reasons.get(5), 'gfs yearly 2025');
  assert.equal(yearly.reasons.get(2), 'gfs yearly 2024');
  assertWellFormed(records, yearly);
});

test('GFS tiers are a union; a record chosen by several tiers lists them all', () => {
  // One record per day from 2026-09-01 to 2026-11-20 (81 days), ids 1..81 oldest to newest.
  const start = Date.UTC(2026, 8, 1, 12);
  const records = Array.from({ length: 81 }, (_, i) => rec(i + 1, start + i * DAY));
  const d = decideRetention(records, policy({ keepDaily: 3, keepWeekly: 2, keepMonthly: 3 }), { now: NOW });
  // Daily: Nov 20, 19, 18 (ids 81, 80, 79). Weekly: W47 newest is Nov 20 (81), W46 newest is
  // Sun Nov 15 (76). Monthly: Nov 20 (81), Oct 31 (61), Sep 30 (30).
  assert.deepEqual(d.keep, [81, 80, 79, 76, 61, 30]);
  assert.equal(d.delete.length, 75);
  assert.equal(d.reasons.get(79), 'gfs daily 2026-11-18');
  assert.equal(d.reasons.get(76), 'gfs weekly 2026-W46');
  assert.equal(d.reasons.get(61), 'gfs monthly 2026-10');
  assert.equal(d.reasons.get(30), 'gfs monthly 2026-09');
  assertWellFormed(records, d);

  // Sunday Nov 15 is both a week's newest and, with keepDaily 6, a day's newest.
  const overlap = decideRetention(records, policy({ keepDaily: 6, keepWeekly: 2 }), { now: NOW });
  assert.equal(overlap.reasons.get(76), 'gfs daily 2026-11-15; gfs weekly 2026-W46');
  assert.deepEqual(overlap.keep, [81, 80, 79, 78, 77, 76]);
});

test('the time zone decides the day: 23:30 UTC is already the next day in Asia/Tokyo', () => {
  const records = [
    rec(1, '2026-11-20T10:00:00Z'), // Tokyo 2026-11-20 19:00
    rec(2, '2026-11-20T23:30:00Z'), // Tokyo 2026-11-21 08:30
    rec(3, '2026-11-21T10:00:00Z'), // Tokyo 2026-11-21 19:00
  ];
  const utc = decideRetention(records, policy({ keepDaily: 2 }), { now: NOW });
  assert.deepEqual(utc.keep, [3, 2]);
  assert.deepEqual(utc.delete, [1]);
  assert.equal(utc.reasons.get(2), 'gfs daily 2026-11-20');

  const explicitUtc = decideRetention(records, policy({ keepDaily: 2 }), { now: NOW, timeZone: 'UTC' });
  assert.deepEqual(explicitUtc.keep, utc.keep, 'UTC is the default');

  const tokyo = decideRetention(records, policy({ keepDaily: 2 }), { now: NOW, timeZone: 'Asia/Tokyo' });
  assert.deepEqual(tokyo.keep, [3, 1]);
  assert.deepEqual(tokyo.delete, [2]);
  assert.equal(tokyo.reasons.get(1), 'gfs daily 2026-11-20');
  assert.equal(tokyo.reasons.get(2), 'not selected by any GFS tier');

  // West of UTC the same instant can still be the previous day.
  const ny = decideRetention(
    [rec(1, '2026-11-20T03:00:00Z'), rec(2, '2026-11-20T05:00:00Z'), rec(3, '2026-11-21T12:00:00Z')],
    policy({ keepDaily: 3 }),
    { now: NOW, timeZone: 'America/New_York' },
  );
  assert.equal(ny.reasons.get(1), 'gfs daily 2026-11-19');
  assert.equal(ny.reasons.get(2), 'gfs daily 2026-11-20');
});

test('the time zone decides the ISO week, month and year too', () => {
  // 2026-12-31T20:00Z is 2027-01-01 05:00 in Tokyo: still 2026-W53 but a new month and year.
  const records = [rec(1, '2026-12-31T10:00:00Z'), rec(2, '2026-12-31T20:00:00Z'), rec(3, '2027-01-10T10:00:00Z')];
  const utcYearly = decideRetention(records, policy({ keepYearly: 2 }), { now: NOW });
  assert.deepEqual(utcYearly.keep, [3, 2]);
  assert.equal(utcYearly.reasons.get(2), 'gfs yearly 2026');
  const tokyoYearly = decideRetention(records, policy({ keepYearly: 2 }), { now: NOW, timeZone: 'Asia/Tokyo' });
  assert.deepEqual(tokyoYearly.keep, [3, 1]);
  assert.equal(tokyoYearly.reasons.get(1), 'gfs yearly 2026');
  const tokyoMonthly = decideRetention(records, policy({ keepMonthly: 2 }), { now: NOW, timeZone: 'Asia/Tokyo' });
  assert.deepEqual(tokyoMonthly.keep, [3, 1]);

  // Sunday 2026-11-22T20:00Z is Monday 2026-11-23 in Tokyo: the next ISO week.
  const week = [rec(1, '2026-11-22T10:00:00Z'), rec(2, '2026-11-22T20:00:00Z'), rec(3, '2026-11-30T10:00:00Z')];
  assert.deepEqual(decideRetention(week, policy({ keepWeekly: 2 }), { now: NOW }).keep, [3, 2]);
  const tokyoWeek = decideRetention(week, policy({ keepWeekly: 3 }), { now: NOW, timeZone: 'Asia/Tokyo' });
  assert.deepEqual(tokyoWeek.keep, [3, 2, 1]);
  assert.equal(tokyoWeek.reasons.get(2), 'gfs weekly 2026-W48');
  assert.equal(tokyoWeek.reasons.get(1), 'gfs weekly 2026-W47');
});

test('an unknown time zone is rejected', () => {
  assert.throws(
    () => decideRetention(daily(2), policy({ keepDaily: 1 }), { now: NOW, timeZone: 'Mars/Olympus' }),
    RangeError,
  );
});

test('ties on completedAt: the higher id is the newer record', () => {
  const at = '2026-11-20T10:00:00Z';
  const records = [rec(9, at), rec(7, at), rec(8, at), rec(1, '2026-11-19T10:00:00Z')];
  const simple = decideRetention(records, policy({ maxBackups: 2 }), { now: NOW });
  assert.deepEqual(simple.keep, [9, 8]);
  assert.deepEqual(simple.delete, [7, 1]);
  assert.equal(simple.reasons.get(9), 'newest');

  const gfs = decideRetention([...records].reverse(), policy({ keepDaily: 2 }), { now: NOW });
  assert.deepEqual(gfs.keep, [9, 1]);
  assert.deepEqual(gfs.delete, [8, 7]);
  assertWellFormed(records, gfs);
});

test('invalid input is rejected rather than guessed at', () => {
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => decideRetention(daily(3), policy({ maxBackups: bad }), { now: NOW }),
      RangeError,
      `maxBackups ${bad}`,
    );
    assert.throws(
      () => decideRetention(daily(3), policy({ keepWeekly: bad }), { now: NOW }),
      RangeError,
      `keepWeekly ${bad}`,
    );
  }
  assert.throws(
    () => decideRetention([rec(1, NOW.getTime()), rec(1, NOW.getTime() - DAY)], policy(), { now: NOW }),
    /duplicate record id 1/,
  );
  assert.throws(() => decideRetention([rec(1, 'not a date')], policy(), { now: NOW }), /invalid completedAt/);
  assert.throws(() => decideRetention(daily(2), policy(), { now: new Date(Number.NaN) }), /now/);
});

test('every id lands in exactly one list across many random policies', () => {
  let seed = 42;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let round = 0; round < 40; round++) {
    const count = 1 + Math.floor(random() * 300);
    const records = Array.from({ length: count }, (_, i) =>
      rec(i + 1, NOW.getTime() - Math.floor(random() * 800) * (DAY / 4), random() < 0.1),
    );
    const p = policy({
      maxBackups: Math.floor(random() * 20),
      retentionDays: Math.floor(random() * 200),
      ...(round % 2 === 0
        ? {
            keepDaily: Math.floor(random() * 8),
            keepWeekly: Math.floor(random() * 6),
            keepMonthly: Math.floor(random() * 4),
            keepYearly: Math.floor(random() * 2),
          }
        : {}),
    });
    const d = decideRetention(records, p, { now: NOW, timeZone: round % 3 === 0 ? 'Asia/Tokyo' : 'Europe/Berlin' });
    assertWellFormed(records, d);
    for (const r of records) if (r.locked) assert.ok(d.keep.includes(r.id), 'locked kept');
    const unlocked = records
      .filter((r) => !r.locked)
      .sort((a, b) => b.completedAt.getTime() - a.completedAt.getTime() || b.id - a.id);
    if (unlocked[0]) assert.ok(d.keep.includes(unlocked[0].id), 'newest unlocked kept');
    if (isGfs(p)) {
      const tiers = p.keepDaily + p.keepWeekly + p.keepMonthly + p.keepYearly;
      const lockedCount = records.filter((r) => r.locked).length;
      assert.ok(d.keep.length <= tiers + lockedCount, 'GFS keeps at most one record per slot');
    } else if (p.maxBackups > 0) {
      const lockedCount = records.filter((r) => r.locked).length;
      assert.ok(d.keep.length <= p.maxBackups + lockedCount);
    }
  }
});

test('thousands of records are decided quickly', () => {
  const count = 20_000;
  const records = Array.from({ length: count }, (_, i) => rec(i + 1, NOW.getTime() - i * (DAY / 24), i % 500 === 0));
  const started = performance.now();
  const gfs = decideRetention(records, policy({ keepDaily: 14, keepWeekly: 8, keepMonthly: 12, keepYearly: 5 }), {
    now: NOW,
    timeZone: 'Europe/Berlin',
  });
  const simple = decideRetention(records, policy({ maxBackups: 100, retentionDays: 30 }), { now: NOW });
  const elapsed = performance.now() - started;
  assert.equal(gfs.keep.length + gfs.delete.length, count);
  assert.equal(simple.keep.length, 100 + 40, '100 newest unlocked plus the 40 locked');
  assert.ok(elapsed < 2000, `took ${elapsed.toFixed(0)} ms`);
});

test('a full that a kept differential builds on is kept; one whose differentials all go, goes', () => {
  // 1 full, 2-3 its differentials; 4 full, 5-6 its differentials; 7 a locked differential of 1.
  const records = daily(7).map((r) => ({
    ...r,
    baseRecordId: ({ 2: 1, 3: 1, 5: 4, 6: 4 } as Record<number, number>)[r.id] ?? 0,
  }));
  const d = decideRetention(records, policy({ maxBackups: 2 }), { now: NOW });
  assert.deepEqual(d.keep, [7, 6, 4], 'the two newest, and the full of differential 6');
  assert.equal(d.reasons.get(4), 'the full of kept differential 6');
  assertWellFormed(records, d);

  const locked = records.map((r) => (r.id === 2 ? { ...r, locked: true } : r));
  const l = decideRetention(locked, policy({ maxBackups: 2 }), { now: NOW });
  assert.deepEqual(l.keep, [7, 6, 4, 2, 1], 'a locked differential keeps its full');
  assert.equal(l.reasons.get(1), 'the full of kept differential 2');
  assertWellFormed(locked, l);
});
