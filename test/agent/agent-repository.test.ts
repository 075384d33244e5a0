import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask } from '../backup/helpers.ts';
import { agentFor, master, finished, node, runToEnd } from '../helpers/agent-master.ts';
import { filesUnder } from '../engine/helpers.ts';
import { RepositoryEntity } from '../../core/db/entities/repository.ts';
import { repositoryPasswordAad } from '../../core/backup/repositories.ts';

test("repository mode on an agent: restic on the node through the master's bridge; the master checks, forgets and prunes", async (t) => {
  const m = await master(t);
  const n = await node(m, 'edge-repo');
  const agent = await agentFor(t, m, n);
  const src = await tempDir(t);
  await mkdir(join(src, 'docs'), { recursive: true });
  await writeFile(join(src, 'docs/a.txt'), 'first');
  await writeFile(join(src, 'big.bin'), randomBytes(2 * 1024 * 1024));
  const target = await diskTarget(t, m.app, m.token);
  const task = await createTask(m.app, m.token, {
    name: 'node-repo',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: n.id,
    backupMode: 'repository',
  });
  const first = await runToEnd(m, task.id, agent);
  assert.equal(first.status, 'success', first.errorMessage);
  assert.equal(first.backupKind, 'repository');
  await writeFile(join(src, 'docs/a.txt'), 'second, longer');
  await rename(join(src, 'docs'), join(src, 'papers'));
  const second = await runToEnd(m, task.id, agent);
  assert.equal(second.status, 'success', second.errorMessage);
  assert.ok(second.fileSize < 256 * 1024, `only what changed is added (${second.fileSize})`);
  const listing = await call(m.app, 'GET', `/api/backup/records/${second.id}/contents?limit=1000`, { token: m.token });
  const under = `${src.slice(1)}/`;
  const paths = listing.json.data.entries
    .map((e: { path: string }) => e.path)
    .filter((p: string) => p.startsWith(under))
    .map((p: string) => p.slice(under.length))
    .sort();
  assert.deepEqual(paths, ['big.bin', 'papers', 'papers/a.txt']);

  // The bridge is append-only for agents, and closed once the run ended.
  const detail = await call(m.app, 'GET', `/api/backup/records/${second.id}`, { token: m.token });
  const snapshot = detail.json.data.storageUploadResults[0];
  assert.equal(snapshot.status, 'success');
  assert.match(snapshot.snapshotId, /^[0-9a-f]{64}$/);

  // A repository the sealed password no longer opens: the node's run fails with the code.
  const em = m.app.diContainer.cradle.orm.em.fork();
  const row = await em.findOneOrFail(RepositoryEntity, { taskId: task.id }, { populate: ['sealedPassword'] });
  const sealed = row.sealedPassword;
  row.sealedPassword = m.app.diContainer.cradle.secretBox.seal('not-the-password', repositoryPasswordAad(row.id));
  await em.flush();
  const wrong = await runToEnd(m, task.id, agent);
  assert.equal(wrong.status, 'failed');
  assert.equal(wrong.errorCode, 'REPOSITORY_WRONG_PASSWORD', wrong.errorMessage);
  row.sealedPassword = sealed;
  await em.flush();
  // Deleting on the master forgets the snapshot; the leader prunes.
  const del = await call(m.app, 'DELETE', `/api/backup/records/${first.id}`, { token: m.token });
  assert.equal(del.status, 200, del.body);
  assert.equal(await m.app.diContainer.cradle.recordDeleter.pruneRepositories(), 1);

  // The node restores the newest snapshot (read through the same bridge).
  const into = await tempDir(t);
  const restore = await call(m.app, 'POST', `/api/backup/records/${second.id}/restore`, {
    token: m.token,
    body: { targetPath: into },
  });
  assert.equal(restore.status, 200, restore.body);
  const done = await finished(m, `/api/restore/records/${restore.json.data.id}`, agent);
  assert.equal(done.status, 'success', done.errorMessage);
  assert.deepEqual((await filesUnder(join(into, src))).sort(), ['big.bin', 'papers/a.txt']);
  assert.equal(await readFile(join(into, src, 'papers/a.txt'), 'utf8'), 'second, longer');
});

test("the agents' repository bridge: append-only, open only with the capability of a run running on its node", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'edge-bridge' } });
  const node = { id: created.json.data.node.id as number, token: created.json.data.token as string };
  const target = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  const task = await createTask(app, admin, {
    name: 'bridge',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: node.id,
    backupMode: 'repository',
  });
  const asNode = { headers: { authorization: `Bearer ${node.token}` } };
  const beat = await call(app, 'POST', '/api/agent/heartbeat', { ...asNode, body: { hostname: 'edge' } });
  assert.equal(beat.status, 200, beat.body);
  const run = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: admin });
  assert.equal(run.status, 200, run.body);
  const recordId = run.json.data.recordId as number;
  const claimed = await call(app, 'POST', '/api/agent/commands/poll', { ...asNode, body: {} });
  assert.equal(claimed.status, 200, claimed.body);
  const spec = await call(app, 'GET', `/api/agent/tasks/${task.id}?recordId=${recordId}`, asNode);
  assert.equal(spec.status, 200, spec.body);
  const { path, password } = spec.json.data.repository.targets[0];
  assert.ok(password.length >= 32, 'the node gets the repository password in its spec');
  const send = (method: string, rest: string, body?: Buffer, base = path) =>
    app.inject({
      method: method as 'GET',
      url: `${base}${rest}`,
      ...(body ? { payload: body, headers: { 'content-type': 'application/octet-stream' } } : {}),
    });
  assert.equal((await send('GET', 'config')).statusCode, 404, 'closed until the run is running');
  const running = await call(app, 'POST', `/api/agent/records/${recordId}`, { ...asNode, body: { status: 'running' } });
  assert.equal(running.json?.data?.accepted, true, running.body);

  const blob = Buffer.from('a key file');
  const id = createHash('sha256').update(blob).digest('hex');
  assert.equal((await send('POST', `keys/${id}`, blob)).statusCode, 200);
  assert.equal((await send('POST', `keys/${id}`, blob)).statusCode, 403, 'nothing is replaced');
  assert.equal((await send('DELETE', `keys/${id}`)).statusCode, 403, 'nothing is deleted');
  assert.equal((await send('POST', `locks/${id}`, blob)).statusCode, 200);
  assert.equal((await send('DELETE', `locks/${id}`)).statusCode, 200, 'but locks');
  const wrong = path.replace(/\/[A-Za-z0-9_-]{43}\/$/, `/${'A'.repeat(43)}/`);
  assert.notEqual(wrong, path);
  assert.equal((await send('GET', `keys/${id}`, undefined, wrong)).statusCode, 404, 'a wrong capability');
  const read = await send('GET', `keys/${id}`);
  assert.equal(read.statusCode, 200);
  assert.deepEqual(read.rawPayload, blob);

  // Once the run ended, the capability opens nothing (after the short cache of checked capabilities).
  await call(app, 'POST', `/api/agent/records/${recordId}`, {
    ...asNode,
    body: { status: 'failed', errorMessage: 'test' },
  });
  await new Promise((r) => setTimeout(r, 5_100));
  assert.equal((await send('GET', `keys/${id}`)).statusCode, 404);
});
