import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cronPreview, describeCron } from '../../packages/console/src/features/tasks/cron-preview.ts';

const from = new Date('2026-03-02T10:15:00Z'); // a Monday

test('an empty expression means no schedule', () => {
  assert.deepEqual(cronPreview('   '), { kind: 'empty' });
});

test('a daily expression: text and the next five runs in the given zone', () => {
  const p = cronPreview('0 2 * * *', { from, timeZone: 'UTC' });
  assert.equal(p.kind, 'valid');
  if (p.kind !== 'valid') return;
  assert.equal(p.description, 'At 02:00');
  assert.deepEqual(
    p.next.map((d) => d.toISOString()),
    [
      '2026-03-03T02:00:00.000Z',
      '2026-03-04T02:00:00.000Z',
      '2026-03-05T02:00:00.000Z',
      '2026-03-06T02:00:00.000Z',
      '2026-03-07T02:00:00.000Z',
    ],
  );
});

test('the zone shifts the instants', () => {
  const p = cronPreview('0 2 * * *', { from, timeZone: 'Asia/Tokyo', count: 1 });
  assert.equal(p.kind === 'valid' && p.next[0]?.toISOString(), '2026-03-02T17:00:00.000Z');
});

test("an invalid expression gives croner's error, as the server would", () => {
  const p = cronPreview('61 * * * *', { from });
  assert.equal(p.kind, 'invalid');
  assert.ok(p.kind === 'invalid' && p.error.length > 0);
  assert.equal(cronPreview('not a cron').kind, 'invalid');
});

test('weekday ranges and nicknames are described', () => {
  assert.equal(describeCron('30 1 * * 1-5'), 'At 01:30, Monday through Friday');
  assert.equal(describeCron('@daily'), 'At 00:00');
  const p = cronPreview('@hourly', { from, timeZone: 'UTC', count: 2 });
  assert.deepEqual(p.kind === 'valid' && p.next.map((d) => d.toISOString()), [
    '2026-03-02T11:00:00.000Z',
    '2026-03-02T12:00:00.000Z',
  ]);
});
