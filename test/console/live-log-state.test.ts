import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyLogEvent,
  initialLiveLog,
  parseLogEvent,
  progressPercent,
} from '../../packages/console/src/components/live-log-state.ts';

test('lines append once by sequence; progress replaces; the final event ends the log', () => {
  let s = initialLiveLog;
  s = applyLogEvent(s, {
    sequence: 1,
    level: 'info',
    message: 'start',
    timestamp: '2026-01-01T00:00:00.000Z',
    completed: false,
    status: 'running',
  });
  s = applyLogEvent(s, {
    sequence: 2,
    level: 'warn',
    message: 'skip x',
    timestamp: '2026-01-01T00:00:01.000Z',
    completed: false,
    status: 'running',
  });
  // a reconnect replays line 2
  s = applyLogEvent(s, {
    sequence: 2,
    level: 'warn',
    message: 'skip x',
    timestamp: '2026-01-01T00:00:01.000Z',
    completed: false,
    status: 'running',
  });
  s = applyLogEvent(s, {
    sequence: 2,
    level: 'progress',
    message: '',
    completed: false,
    status: 'running',
    progress: { bytesRead: 10, bytesStored: 5, speedBps: 2, elapsedSeconds: 3 },
  });
  assert.deepEqual(
    s.lines.map((l) => l.message),
    ['start', 'skip x'],
  );
  assert.equal(s.progress?.bytesRead, 10);
  assert.equal(s.done, false);
  s = applyLogEvent(s, { sequence: 2, level: 'info', message: 'stream completed', completed: true, status: 'success' });
  assert.equal(s.done, true);
  assert.equal(s.status, 'success');
  assert.equal(s.lines.length, 2);
});

test('parseLogEvent ignores what is not a JSON object', () => {
  assert.equal(parseLogEvent('nope'), null);
  assert.equal(parseLogEvent('3'), null);
  assert.deepEqual(parseLogEvent('{"sequence":1}'), { sequence: 1 });
});

test('progressPercent is null without an expected size and never claims 100 while running', () => {
  const p = { bytesRead: 50, bytesStored: 10, speedBps: 1, elapsedSeconds: 1 };
  assert.equal(progressPercent(p, null), null);
  assert.equal(progressPercent(null, 100), null);
  assert.equal(progressPercent(p, 100), 50);
  assert.equal(progressPercent({ ...p, bytesRead: 500 }, 100), 99);
});
