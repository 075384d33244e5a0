import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CronTimer } from '../../core/backup/cron-timer.ts';
import { TestClock } from '../helpers/test-clock.ts';

const at = (iso: string) => new Date(iso);

test('a cron timer fires on its pattern as the clock advances, in the given time zone, and not after stop', async () => {
  const clock = new TestClock(at('2026-03-01T10:00:30Z'));
  const fires: string[] = [];
  const job = new CronTimer('0 * * * *', { timezone: 'Asia/Kolkata', clock }, (when) => fires.push(when.toISOString()));
  // Kolkata is UTC+05:30: its full hours are at half past in UTC.
  assert.equal(job.nextRun()?.toISOString(), '2026-03-01T10:30:00.000Z');
  await clock.advance(29 * 60_000);
  assert.deepEqual(fires, []);
  await clock.advance(2 * 60 * 60_000 + 60_000);
  assert.deepEqual(fires, ['2026-03-01T10:30:00.000Z', '2026-03-01T11:30:00.000Z', '2026-03-01T12:30:00.000Z']);
  job.stop();
  assert.equal(job.nextRun(), null);
  assert.equal(clock.pending, 0);
  await clock.advance(3 * 60 * 60_000);
  assert.equal(fires.length, 3);
});

test('a fire far ahead (beyond what one timer can wait) comes on time, reached in steps', async () => {
  const clock = new TestClock(at('2026-01-01T00:00:00Z'));
  const fires: string[] = [];
  new CronTimer('0 0 1 7 *', { timezone: 'UTC', clock }, (when) => fires.push(when.toISOString()));
  await clock.advance(180 * 86_400_000);
  assert.deepEqual(fires, []);
  await clock.advance(2 * 86_400_000);
  assert.deepEqual(fires, ['2026-07-01T00:00:00.000Z']);
});

test('a pattern croner refuses throws, and starts no timer', () => {
  const clock = new TestClock();
  assert.throws(() => new CronTimer('61 * * * *', { timezone: 'UTC', clock }, () => {}));
  assert.equal(clock.pending, 0);
});
