import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
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
  const first = events.publish({
    type: 'storage_unhealthy',
    title: 'nas is unhealthy',
    body: 'timeout',
    fields: { targetId: 1 },
  })!;
  const frame = await stream.next();
  assert.equal(frame.event, 'storage_unhealthy');
  assert.equal(frame.id, String(first.id));
  assert.deepEqual(JSON.parse(frame.data).fields, { targetId: 1 });

  abort.abort();
  const missed = events.publish({ type: 'storage_recovered', title: 'nas recovered', body: '', fields: {} })!;
  const again = new AbortController();
  t.after(() => again.abort());
  const resumed = await openSse(
    `${base}/api/events/stream`,
    { authorization: `Bearer ${viewer}`, 'last-event-id': String(first.id) },
    again.signal,
  );
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

test('event ids keep growing across a restart; an id from before it, or 0, replays what this boot published', async (t) => {
  const dataDir = await tempDir(t);
  const first = await build(t, { dataDir });
  const before = ['a', 'b', 'c'].map(
    (title) => first.app.diContainer.cradle.events.publish({ type: 'storage_unhealthy', title, body: '', fields: {} })!,
  );
  await first.app.close();

  const { app } = await build(t, { dataDir });
  const admin = await setupAdmin(app);
  const { events } = app.diContainer.cradle;
  const after = ['d', 'e'].map((title) => events.publish({ type: 'storage_recovered', title, body: '', fields: {} })!);
  // The server compares ids as numbers (`EventBus.since`); clients only see and echo the strings.
  for (const old of before)
    for (const fresh of after) assert.ok(Number(String(fresh.id)) > Number(String(old.id)), `${fresh.id} > ${old.id}`);

  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const titles = async (lastEventId: string): Promise<string[]> => {
    const abort = new AbortController();
    t.after(() => abort.abort());
    const stream = await openSse(
      `${base}/api/events/stream`,
      { authorization: `Bearer ${admin}`, 'last-event-id': lastEventId },
      abort.signal,
    );
    const frames = [await stream.next(), await stream.next()];
    abort.abort();
    assert.deepEqual(
      frames.map((f) => f.id),
      after.map((e) => String(e.id)),
    );
    return frames.map((f) => JSON.parse(f.data).title);
  };
  assert.deepEqual(
    await titles(String(before.at(-1)!.id)),
    ['d', 'e'],
    'an id from the earlier boot gets everything this boot published',
  );
  assert.deepEqual(await titles('0'), ['d', 'e'], 'Last-Event-ID 0 replays the buffer');

  // Within a boot the id still marks the place: only what came after it.
  const abort = new AbortController();
  t.after(() => abort.abort());
  const stream = await openSse(
    `${base}/api/events/stream`,
    { authorization: `Bearer ${admin}`, 'last-event-id': String(after[0]!.id) },
    abort.signal,
  );
  assert.equal((await stream.next()).id, String(after[1]!.id));
});
