import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { ADMIN, tempDir } from '../helpers/build.ts';
import { scratchPostgres } from '../helpers/databases.ts';
import { api, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { startAgent, waitFor, type AgentProcess } from '../helpers/agent-process.ts';
import { openSse, type SseFrame } from '../helpers/sse-client.ts';

/**
 * Three masters (the real entry point, child processes) on one PostgreSQL database behave as
 * one: one schedule that survives its leader's SIGKILL with no fire run twice, one run for two
 * simultaneous requests, events of every master on every master's stream, downloads and
 * restores through a master that did not run the backup, agents polling different masters.
 */

const leads = (m: ServerProcess): boolean => m.logs.some((l) => l.includes('this master leads'));

/** The period of the test schedule, seconds (a 6-field cron). */
const PERIOD = 4;

test('three masters on one PostgreSQL database: one schedule through a leader SIGKILL, one run, events and artifacts from any master', {
  timeout: 240_000,
}, async (t) => {
  const databaseUrl = await scratchPostgres(t, 'bp_scale_out');
  if (!databaseUrl) return;
  const dirs = await Promise.all([0, 1, 2].map(() => tempDir(t)));
  const disk = await tempDir(t);
  const src = await tempDir(t);
  const restoreInto = await tempDir(t);
  await mkdir(join(src, 'docs'));
  await writeFile(join(src, 'docs', 'a.txt'), 'scale out\n'.repeat(1000));
  const env = (dataDir: string): Record<string, string> => ({
    BACKPLANE_DATA_DIR: dataDir,
    BACKPLANE_DATABASE_URL: databaseUrl,
    BACKPLANE_TEMP_SWEEP_INTERVAL: '0',
  });

  const masters: ServerProcess[] = [];
  t.after(async () => {
    for (const m of masters) if (m.child.exitCode === null && m.child.signalCode === null) await m.stop();
  });
  // The first master creates the keys; the others are given them (BACKPLANE_SECRET_KEY, BACKPLANE_AGE_IDENTITY_FILE).
  masters.push(await startServerProcess(env(dirs[0]!)));
  await waitFor('the first master to lead', async () => (leads(masters[0]!) ? true : undefined));
  const shared = {
    BACKPLANE_SECRET_KEY: (await readFile(join(dirs[0]!, 'secret.key'), 'utf8')).trim(),
    BACKPLANE_AGE_IDENTITY_FILE: join(dirs[0]!, 'backup.agekey'),
  };
  masters.push(
    await startServerProcess({ ...env(dirs[1]!), ...shared }),
    await startServerProcess({ ...env(dirs[2]!), ...shared }),
  );
  const [a, b, c] = masters as [ServerProcess, ServerProcess, ServerProcess];
  assert.ok(!leads(b) && !leads(c), 'one leader');

  const token = (await api(`${a.url}/api/auth/setup`, 'POST', undefined, ADMIN)).body.data.token as string;
  const target = await api(`${b.url}/api/storage-targets`, 'POST', token, {
    name: 'disk',
    type: 'local_disk',
    config: { basePath: disk },
  });
  assert.equal(target.status, 200, JSON.stringify(target.body));
  const manual = await api(`${c.url}/api/backup/tasks`, 'POST', token, {
    name: 'Manual',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.body.data.id],
  });
  assert.equal(manual.status, 200, JSON.stringify(manual.body));

  // Master C's event stream, open for the whole test.
  const abort = new AbortController();
  t.after(() => abort.abort());
  const stream = await openSse(`${c.url}/api/events/stream`, { authorization: `Bearer ${token}` }, abort.signal);
  assert.equal(stream.status, 200);
  const frames: SseFrame[] = [];
  void (async () => {
    // Short waits, so no timer outlives the test; a stream that ended stops the loop (it would spin).
    let open = true;
    while (open && !abort.signal.aborted) {
      await stream.next(2000).then(
        (f) => frames.push(f),
        (err: unknown) => {
          open = !/stream ended/.test(String(err));
        },
      );
    }
  })();
  const outcomeOf = (recordId: number) =>
    frames.find((f) => f.event === 'backup_success' && JSON.parse(f.data).fields.recordId === recordId);

  // Simultaneous manual runs on A and B: one run.
  const [onA, onB] = await Promise.all(
    [a, b].map((m) => api(`${m.url}/api/backup/tasks/${manual.body.data.id}/run`, 'POST', token)),
  );
  assert.deepEqual([onA!.status, onB!.status].sort(), [200, 409], JSON.stringify([onA!.body, onB!.body]));
  const first = (onA!.status === 200 ? onA! : onB!).body.data.recordId as number;
  await waitFor('C to see the first run end', async () => outcomeOf(first), 60_000);
  // And one on the other master, so C sees runs of both.
  const second = await api(
    `${(onA!.status === 200 ? b : a).url}/api/backup/tasks/${manual.body.data.id}/run`,
    'POST',
    token,
  );
  assert.equal(second.status, 200, JSON.stringify(second.body));
  await waitFor('C to see the second run end', async () => outcomeOf(second.body.data.recordId), 60_000);

  const db = new pg.Client({ connectionString: databaseUrl });
  // The scratch database is dropped (sessions terminated) when the test ends.
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));
  const owners = (
    await db.query<{ id: number; master_id: number }>(
      'select id, master_id from backup_records where id in ($1, $2) order by id',
      [first, second.body.data.recordId],
    )
  ).rows;
  assert.equal(new Set(owners.map((r) => r.master_id)).size, 2, 'the two runs ran on two masters');

  // Download and restore through C, which ran neither.
  const download = await fetch(`${c.url}/api/backup/records/${second.body.data.recordId}/download`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(download.status, 200);
  const record = (await api(`${c.url}/api/backup/records/${second.body.data.recordId}`, 'GET', token)).body.data;
  assert.equal(
    createHash('sha256')
      .update(Buffer.from(await download.arrayBuffer()))
      .digest('hex'),
    record.checksum,
  );
  const restore = await api(`${c.url}/api/backup/records/${second.body.data.recordId}/restore`, 'POST', token, {
    targetPath: restoreInto,
  });
  assert.equal(restore.status, 200, JSON.stringify(restore.body));
  const restored = await waitFor(
    'the restore through C',
    async () => {
      const r = (await api(`${c.url}/api/restore/records/${restore.body.data.id}`, 'GET', token)).body.data;
      return r && ['success', 'failed'].includes(r.status) ? r : undefined;
    },
    60_000,
  );
  assert.equal(restored.status, 'success', JSON.stringify(restored));
  assert.equal(await readFile(join(restoreInto, src, 'docs', 'a.txt'), 'utf8'), 'scale out\n'.repeat(1000));

  // Agents polling different masters: one on B, one on C, each running a task asked for on another master.
  const agents: AgentProcess[] = [];
  t.after(async () => {
    for (const agent of agents) await agent.kill();
  });
  for (const [name, via, runVia] of [
    ['edge-b', b, a],
    ['edge-c', c, b],
  ] as const) {
    const created = await api(`${a.url}/api/nodes`, 'POST', token, { name });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    agents.push(
      await startAgent({ master: via.url, token: created.body.data.token, dir: await tempDir(t, 'backplane-agent-') }),
    );
    const nodeTask = await api(`${a.url}/api/backup/tasks`, 'POST', token, {
      name: `On ${name}`,
      type: 'file',
      sourcePaths: [src],
      storageTargetIds: [target.body.data.id],
      nodeId: created.body.data.node.id,
    });
    assert.equal(nodeTask.status, 200, JSON.stringify(nodeTask.body));
    await waitFor(
      `${name} online`,
      async () =>
        (await api(`${c.url}/api/nodes/${created.body.data.node.id}`, 'GET', token)).body.data.status === 'online'
          ? true
          : undefined,
      30_000,
    );
    const started = await api(`${runVia.url}/api/backup/tasks/${nodeTask.body.data.id}/run`, 'POST', token);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const ended = await waitFor(
      `the run on ${name}`,
      async () => {
        const r = (await api(`${c.url}/api/backup/records/${started.body.data.recordId}`, 'GET', token)).body.data;
        return ['success', 'partial', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
      },
      60_000,
    );
    assert.equal(ended.status, 'success', `${JSON.stringify(ended)}\n${agents.at(-1)!.logs.slice(-20).join('\n')}`);
    assert.equal(ended.nodeId, created.body.data.node.id);
  }

  // The schedule: created on B, fired by the leader A; A is SIGKILLed halfway through a minute.
  const scheduled = await api(`${b.url}/api/backup/tasks`, 'POST', token, {
    name: 'Scheduled',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.body.data.id],
    cronExpr: `*/${PERIOD} * * * * *`,
  });
  assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
  const runsOf = async () =>
    (
      await db.query<{ id: number; status: string; master_id: number; started_at: Date | null }>(
        'select id, status, master_id, started_at from backup_records where task_id = $1 order by id',
        [scheduled.body.data.id],
      )
    ).rows;
  // A minute of schedule, the leader killed halfway.
  await new Promise((r) => setTimeout(r, 7 * PERIOD * 1000));
  const beforeKill = await runsOf();
  assert.ok(beforeKill.length >= 3, `the leader fired the schedule: ${JSON.stringify(beforeKill)}`);
  a.child.kill('SIGKILL');
  await once(a.child, 'exit');
  const killedAt = Date.now();
  await waitFor('another master to lead', async () => (leads(b) || leads(c) ? true : undefined), 15_000);
  await new Promise((r) => setTimeout(r, 8 * PERIOD * 1000));
  const off = await api(`${c.url}/api/backup/tasks/${scheduled.body.data.id}/toggle`, 'PUT', token, { enabled: false });
  assert.equal(off.status, 200, JSON.stringify(off.body));
  const runs = await waitFor(
    'every run to end',
    async () => {
      const rows = await runsOf();
      return rows.every((r) => !['queued', 'running'].includes(r.status)) ? rows : undefined;
    },
    60_000,
  );

  const starts = runs.filter((r) => r.started_at).map((r) => r.started_at!.getTime());
  for (let i = 1; i < starts.length; i++) {
    assert.ok(
      starts[i]! - starts[i - 1]! >= (PERIOD / 2) * 1000,
      `no fire ran twice: runs started ${starts[i]! - starts[i - 1]!} ms apart`,
    );
  }
  const after = starts.filter((s) => s > killedAt);
  assert.ok(after.length >= 3, `the new leader kept the schedule: ${JSON.stringify(runs)}`);
  // The takeover (a check every 3 s) and the catch-up fire: at most one fire late.
  assert.ok(
    after[0]! - killedAt <= 3000 + 2 * PERIOD * 1000 + 2000,
    `first run after the kill ${after[0]! - killedAt} ms later`,
  );
  const killedMaster = beforeKill.at(-1)!.master_id;
  for (const r of runs) {
    assert.ok(['success', 'failed'].includes(r.status), JSON.stringify(r));
    // A run the kill interrupted is failed by the leader, never left running.
    if (r.status === 'failed') assert.equal(r.master_id, killedMaster, JSON.stringify(r));
  }
  assert.ok(
    runs.some((r) => r.master_id !== killedMaster && r.status === 'success'),
    'runs on the new leader succeed',
  );
  // Before the scratch database goes (the hooks run in order, its drop first).
  abort.abort();
  for (const m of [b, c]) assert.equal(await m.stop(), 0);
});
