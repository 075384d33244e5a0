import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { openSse } from '../helpers/sse-client.ts';
import { diskTarget, createTask } from './helpers.ts';

test('a record log stream follows a queued run live, then ends with the terminal status; app events announce the result', async (t) => {
  const { app } = await build(t, { config: { maxConcurrent: 1 } });
  const admin = await setupAdmin(app);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const src = await tempDir(t);
  await writeFile(join(src, 'big.bin'), randomBytes(32 * 1024 * 1024));
  const disk = await diskTarget(t, app, admin);
  const slow = await createTask(app, admin, {
    name: 'slow',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const watched = await createTask(app, admin, {
    name: 'watched',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const abort = new AbortController();
  t.after(() => abort.abort());

  const appEvents = await openSse(`${base}/api/events/stream`, { authorization: `Bearer ${viewer}` }, abort.signal);
  await call(app, 'POST', `/api/backup/tasks/${slow.id}/run`, { token: admin });
  const run = await call(app, 'POST', `/api/backup/tasks/${watched.id}/run`, { token: admin });
  const recordId = run.json.data.recordId;
  assert.equal(run.json.data.state, 'queued');

  const stream = await openSse(
    `${base}/api/backup/records/${recordId}/logs/stream`,
    { authorization: `Bearer ${viewer}` },
    abort.signal,
  );
  assert.equal(stream.status, 200);
  const frames = [];
  for (;;) {
    const frame = await stream.next(10_000);
    frames.push({ id: Number(frame.id), ...JSON.parse(frame.data) });
    if (frames.at(-1).completed) break;
  }
  const lines = frames.filter((f) => f.level !== 'progress' && !f.completed);
  assert.deepEqual(
    lines.map((f) => f.sequence),
    lines.map((_, i) => i + 1),
    'every line once, in order',
  );
  assert.ok(frames.every((f) => f.id === f.sequence && f.recordId === recordId));
  assert.equal(frames.at(-1).status, 'success');
  assert.equal(frames.at(-1).message, 'stream completed');
  assert.match(lines.at(-1).message, /backup success/);

  // The result reaches the application event stream (the reference never sent it).
  const seen: string[] = [];
  for (let i = 0; i < 10; i++) {
    const e = await appEvents.next(30_000);
    const data = JSON.parse(e.data);
    seen.push(`${e.event}:${data.fields.recordId}`);
    if (e.event === 'backup_success' && data.fields.recordId === recordId) break;
  }
  assert.ok(seen.includes(`backup_success:${recordId}`), seen.join(', '));

  // Unknown record: JSON 404 before any stream opens; a non-SSE Accept is 406.
  const missing = await call(app, 'GET', '/api/backup/records/999999/logs/stream', {
    token: admin,
    headers: { accept: 'text/event-stream' },
  });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, 'BACKUP_RECORD_NOT_FOUND');
  const json = await call(app, 'GET', `/api/backup/records/${recordId}/logs/stream`, {
    token: admin,
    headers: { accept: 'application/json' },
  });
  assert.equal(json.status, 406);
  await app.diContainer.cradle.backupRuns.idle();
});
