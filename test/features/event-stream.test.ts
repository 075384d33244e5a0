import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { openSse } from '../helpers/sse-client.ts';

test('the event stream delivers application events with ids and replays what a reconnecting client missed', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const abort = new AbortController();
  t.after(() => abort.abort());
  const { events } = app.diContainer.cradle;

  const stream = await openSse(`${base}/api/events/stream`, { authorization: `Bearer ${viewer}` }, abort.signal);
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
  assert.equal(stream.headers.get('x-accel-buffering'), 'no');
  assert.match(stream.headers.get('cache-control') ?? '', /no-cache/);

  // Publish only once the subscription exists (the handler subscribes before any frame).
  await new Promise((r) => setTimeout(r, 100));
  const first = events.publish({ type: 'storage_unhealthy', title: 'nas is unhealthy', body: 'timeout', fields: { targetId: 1 } });
  const frame = await stream.next();
  assert.equal(frame.event, 'storage_unhealthy');
  assert.equal(frame.id, String(first.id));
  assert.deepEqual(JSON.parse(frame.data).fields, { targetId: 1 });

  abort.abort();
  const missed = events.publish({ type: 'storage_recovered', title: 'nas recovered', body: '', fields: {} });
  const again = new AbortController();
  t.after(() => again.abort());
  const resumed = await openSse(`${base}/api/events/stream`, { authorization: `Bearer ${viewer}`, 'last-event-id': String(first.id) }, again.signal);
  const replayed = await resumed.next();
  assert.equal(replayed.id, String(missed.id), 'the event published while disconnected is replayed');
  assert.equal(replayed.event, 'storage_recovered');
  again.abort();

  const anonymous = await call(app, 'GET', '/api/events/stream', { headers: { accept: 'text/event-stream' } });
  assert.equal(anonymous.status, 401);
  const json = await call(app, 'GET', '/api/events/stream', { token: viewer, headers: { accept: 'application/json' } });
  assert.equal(json.status, 406);
  assert.equal(json.json.code, 'NOT_ACCEPTABLE');
});
