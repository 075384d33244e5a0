import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentTokenCache, AGENT_TOKEN_TTL_MS } from '../../core/auth/agent-token-cache.ts';
import { build, call, setupAdmin } from '../helpers/build.ts';

const NODE = { nodeId: 1, nodeName: 'n', maxConcurrent: 1, bandwidthLimit: '', labels: '' };

test("agent token cache: entries end after the TTL or at a previous token's end of grace, whichever is first", () => {
  const cache = new AgentTokenCache();
  cache.set('a', NODE, null, 0);
  assert.deepEqual(cache.get('a', AGENT_TOKEN_TTL_MS - 1), NODE);
  assert.equal(cache.get('a', AGENT_TOKEN_TTL_MS), undefined);
  cache.set('b', NODE, new Date(1000), 0);
  assert.deepEqual(cache.get('b', 999), NODE);
  assert.equal(cache.get('b', 1000), undefined, 'the grace ends before the TTL');
});

test('a rotated, deleted or edited node is seen at once by its next heartbeat', async (t) => {
  const { app } = await build(t, { config: { tokenRotationGraceSeconds: 0 } });
  const admin = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'cached', maxConcurrent: 1 } });
  const beat = (token: string) =>
    call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': token }, body: {} });
  const first = created.json.data.token as string;
  assert.equal((await beat(first)).json.data.maxConcurrent, 1);
  assert.equal(
    (await call(app, 'PUT', `/api/nodes/${created.json.data.node.id}`, { token: admin, body: { maxConcurrent: 3 } }))
      .status,
    200,
  );
  assert.equal((await beat(first)).json.data.maxConcurrent, 3, 'the edit is in the next answer, not 5 s later');
  const rotated = await call(app, 'POST', `/api/nodes/${created.json.data.node.id}/rotate-token`, { token: admin });
  assert.equal((await beat(first)).status, 401, 'the replaced token stops at once without a grace');
  const second = rotated.json.data.token as string;
  assert.equal((await beat(second)).status, 200);
  assert.equal((await call(app, 'DELETE', `/api/nodes/${created.json.data.node.id}`, { token: admin })).status, 200);
  assert.equal((await beat(second)).status, 401, "a deleted node's token stops at once");
});
