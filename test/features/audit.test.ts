import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, userWithRole, apiKeyWithRole, ADMIN, BEHIND_PROXY } from '../helpers/build.ts';
import { AuditLogEntity } from '../../core/db/entities/audit-log.ts';

// ---- helpers --------------------------------------------------------------------------------

interface Entry {
  id: number;
  userId: number | null;
  username: string;
  category: string;
  action: string;
  targetType: string;
  targetId: string;
  targetName: string;
  detail: string;
  clientIp: string;
  createdAt: string;
}

async function list(app: FastifyInstance, token: string, query: Record<string, string> = {}) {
  const res = await call(app, 'GET', '/api/audit-logs', { token, query });
  return { ...res, entries: (res.json?.data?.items ?? []) as Entry[], total: Number(res.headers['x-total-count']) };
}

/** All entries, newest first, read through the API with the largest page. */
async function all(app: FastifyInstance, token: string, query: Record<string, string> = {}): Promise<Entry[]> {
  const res = await list(app, token, { ...query, limit: '500' });
  assert.equal(res.status, 200, res.body);
  return res.entries;
}

interface Seed {
  category?: string;
  action?: string;
  username?: string;
  targetType?: string;
  targetId?: string;
  targetName?: string;
  detail?: string;
  clientIp?: string;
  createdAt?: Date;
}

/** Writes entries straight into the table (fixture data for filters, dates and paging). */
async function seed(app: FastifyInstance, rows: Seed[]): Promise<number[]> {
  const em = app.diContainer.cradle.orm.em.fork();
  const entities = rows.map((r) =>
    em.create(AuditLogEntity, {
      userId: null,
      username: r.username ?? 'seeder',
      category: r.category ?? 'fixture',
      action: r.action ?? 'seed',
      targetType: r.targetType ?? '',
      targetId: r.targetId ?? '',
      targetName: r.targetName ?? '',
      detail: r.detail ?? '',
      clientIp: r.clientIp ?? '',
    }),
  );
  await em.flush();
  // createdAt is stamped on insert; dated fixtures are moved afterwards.
  for (const [i, r] of rows.entries()) {
    if (r.createdAt) await em.nativeUpdate(AuditLogEntity, { id: entities[i]!.id }, { createdAt: r.createdAt });
  }
  return entities.map((e) => e.id);
}

/** RFC 4180 parsing: quoted fields, doubled quotes, separators and newlines inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

async function exportCsv(app: FastifyInstance, token: string, query: Record<string, string> = {}) {
  const res = await app.inject({
    method: 'GET',
    url: '/api/audit-logs/export',
    headers: { authorization: `Bearer ${token}` },
    query,
  });
  return { res, rows: res.statusCode === 200 ? parseCsv(res.body.replace(/^\uFEFF/, '')) : [] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until the predicate yields a value, for at most `ms`; fails the test otherwise. */
async function waitFor<T>(what: string, fn: () => T | undefined, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

interface Received {
  headers: IncomingMessage['headers'];
  raw: Buffer;
  json: any;
}

/** A stand-in webhook receiver on 127.0.0.1:0, closed (with its connections) when the test ends. */
async function receiver(t: TestContext, respond: (res: ServerResponse) => void = (res) => res.end('ok')) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      received.push({ headers: req.headers, raw, json });
      respond(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

// ---- what gets written --------------------------------------------------------------------

test('logins and mutations are audited with the real username, the client IP and the target', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY });
  const admin = await setupAdmin(app);
  const adminId = (await call(app, 'GET', '/api/auth/profile', { token: admin })).json.data.id as number;

  const ok = await call(app, 'POST', '/api/auth/login', { body: ADMIN, headers: { 'x-forwarded-for': '203.0.113.5' } });
  assert.equal(ok.status, 200);
  const bad = await call(app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: 'wrong-password' },
    headers: { 'x-forwarded-for': '203.0.113.6' },
  });
  assert.equal(bad.status, 401);
  const ghost = await call(app, 'POST', '/api/auth/login', {
    body: { username: 'nobody-here', password: 'whatever-1' },
    headers: { 'x-forwarded-for': '203.0.113.7' },
  });
  assert.equal(ghost.status, 401);

  const created = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'olivia', password: 'olivia-pass-1', role: 'operator' },
    headers: { 'x-forwarded-for': '198.51.100.1' },
  });
  assert.equal(created.status, 200);
  const oliviaId = created.json.data.id as number;
  assert.equal(
    (
      await call(app, 'PUT', `/api/users/${oliviaId}`, {
        token: admin,
        body: { role: 'viewer', password: 'olivia-pass-2' },
      })
    ).status,
    200,
  );
  assert.equal((await call(app, 'DELETE', `/api/users/${oliviaId}`, { token: admin })).status, 200);

  const key = await apiKeyWithRole(app, admin, 'admin');
  const viaKey = await call(app, 'POST', '/api/users', {
    apiKey: key.key,
    body: { username: 'made-by-key', password: 'key-made-pass-1', role: 'viewer' },
  });
  assert.equal(viaKey.status, 200);

  const entries = await all(app, admin);
  const find = (category: string, action: string, pred: (e: Entry) => boolean = () => true) => {
    const hit = entries.find((e) => e.category === category && e.action === action && pred(e));
    assert.ok(
      hit,
      `no ${category}/${action} entry in ${JSON.stringify(entries.map((e) => `${e.category}/${e.action}`))}`,
    );
    return hit;
  };

  const setup = find('auth', 'setup');
  assert.equal(setup.username, 'admin');
  assert.equal(setup.targetName, 'admin');
  assert.equal(setup.clientIp, '127.0.0.1');

  const success = find('auth', 'login_success', (e) => e.clientIp === '203.0.113.5');
  assert.equal(success.username, 'admin');
  assert.equal(success.targetType, 'user');
  assert.equal(success.targetId, String(adminId));
  assert.equal(success.targetName, 'admin');

  const failed = find('auth', 'login_failed', (e) => e.clientIp === '203.0.113.6');
  assert.equal(failed.username, 'admin');
  // the account's failures in a row, as the attempt read them (the cap: docs/account-security.md)
  assert.equal(failed.detail, 'AUTH_INVALID_CREDENTIALS, failure=1');
  assert.ok(!JSON.stringify(failed).includes('wrong-password'), 'the attempted password is not audited');
  const unknown = find('auth', 'login_failed', (e) => e.clientIp === '203.0.113.7');
  assert.equal(unknown.username, 'nobody-here');
  assert.equal(unknown.userId, null);

  const create = find('user', 'create', (e) => e.targetName === 'olivia');
  assert.equal(create.username, 'admin', 'the real username, not the id');
  assert.notEqual(create.username, String(adminId));
  assert.equal(create.userId, adminId);
  assert.equal(create.targetType, 'user');
  assert.equal(create.targetId, String(oliviaId));
  assert.equal(create.detail, 'role=operator');
  assert.equal(create.clientIp, '198.51.100.1');
  assert.ok(!Number.isNaN(Date.parse(create.createdAt)));
  assert.ok(Math.abs(Date.parse(create.createdAt) - Date.now()) < 60_000);

  const update = find('user', 'update', (e) => e.targetId === String(oliviaId));
  assert.match(update.detail, /role=viewer/);
  assert.match(update.detail, /password/);
  assert.ok(!update.detail.includes('olivia-pass-2'), 'a new password is not audited');
  const del = find('user', 'delete', (e) => e.targetId === String(oliviaId));
  assert.equal(del.targetName, 'olivia');
  assert.equal(del.username, 'admin');

  const byKey = find('user', 'create', (e) => e.targetName === 'made-by-key');
  assert.equal(byKey.username, 'api-key:admin-key');
  assert.equal(byKey.userId, adminId, 'a key acts for the admin who created it');
  find(
    'api_key',
    'create',
    (e) => e.targetId === String(key.id) && e.targetName === 'admin-key' && e.detail === 'role=admin',
  );
});

test('X-Forwarded-For is believed only from a configured proxy', async (t) => {
  const { app } = await build(t, { config: { trustedProxies: ['127.0.0.1'] } });
  const admin = await setupAdmin(app);
  const login = (remoteAddress: string, xff: string) =>
    app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress,
      headers: { 'x-forwarded-for': xff },
      payload: ADMIN,
    });
  assert.equal((await login('127.0.0.1', '192.0.2.10')).statusCode, 200);
  assert.equal((await login('10.20.30.40', '192.0.2.11')).statusCode, 200);
  const ips = (await all(app, admin, { action: 'login_success' })).map((e) => e.clientIp).sort();
  assert.deepEqual(ips, ['10.20.30.40', '192.0.2.10']);
});

test('by default no proxy is trusted: a local client cannot pick its address with X-Forwarded-For', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress: '127.0.0.1',
    headers: { 'x-forwarded-for': '192.0.2.10' },
    payload: ADMIN,
  });
  assert.equal(res.statusCode, 200);
  const ips = (await all(app, admin, { action: 'login_success' })).map((e) => e.clientIp);
  assert.deepEqual(ips, ['127.0.0.1'], 'the audit keeps the peer address');
});

test('a failed update is not audited as a change', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const res = await call(app, 'PUT', '/api/users/999999', { token: admin, body: { role: 'viewer' } });
  assert.equal(res.status, 404);
  assert.equal((await all(app, admin, { category: 'user' })).length, 0);
});

// ---- listing and filters ------------------------------------------------------------------

test('GET /api/audit-logs filters by every field, newest first', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const ids = await seed(app, [
    /* 0 */ {
      category: 'backup_task',
      action: 'create',
      username: 'alice',
      targetType: 'backup_task',
      targetId: '7',
      targetName: 'nightly',
      detail: '100% done',
      createdAt: new Date('2024-01-01T00:00:00Z'),
    },
    /* 1 */ {
      category: 'backup_task',
      action: 'delete',
      username: 'bob',
      targetType: 'backup_task',
      targetId: '8',
      targetName: 'weekly',
      detail: 'file_name.txt',
      createdAt: new Date('2024-02-01T00:00:00Z'),
    },
    /* 2 */ {
      category: 'storage_target',
      action: 'create',
      username: 'alice',
      targetType: 'storage_target',
      targetId: '7',
      targetName: 'fileXname',
      detail: '100 percent',
      createdAt: new Date('2024-03-01T12:00:00Z'),
    },
    /* 3 */ {
      category: 'storage_target',
      action: 'update',
      username: 'carol',
      targetType: 'storage_target',
      targetId: '77',
      targetName: 'a_b target',
      detail: 'back\\slash',
      createdAt: new Date('2024-04-01T00:00:00Z'),
    },
  ]);
  const pick = (entries: Entry[]) => entries.map((e) => e.id);
  const only = async (query: Record<string, string>) =>
    pick(await all(app, admin, query)).filter((id) => ids.includes(id));

  // Exact-match filters.
  assert.deepEqual(await only({ category: 'backup_task' }), [ids[1], ids[0]]);
  assert.deepEqual(await only({ action: 'create' }), [ids[2], ids[0]]);
  assert.deepEqual(await only({ username: 'alice' }), [ids[2], ids[0]]);
  assert.deepEqual(await only({ targetType: 'storage_target' }), [ids[3], ids[2]]);
  assert.deepEqual(await only({ targetId: '7' }), [ids[2], ids[0]], 'targetId is exact, 77 is not 7');
  assert.deepEqual(await only({ category: 'storage_target', action: 'create' }), [ids[2]], 'filters combine with AND');
  assert.deepEqual(await only({ username: 'ALICE' }).then((r) => r.length), 0, 'username is matched exactly');
  // Filters that match nothing return an empty page with a zero total.
  const none = await list(app, admin, { category: 'no-such-category' });
  assert.equal(none.status, 200);
  assert.deepEqual(none.entries, []);
  assert.equal(none.total, 0);

  // keyword: a literal substring of detail or target name; % and _ are not wildcards.
  assert.deepEqual(await only({ keyword: 'nightly' }), [ids[0]], 'matches the target name');
  assert.deepEqual(await only({ keyword: 'percent' }), [ids[2]], 'matches the detail');
  assert.deepEqual(await only({ keyword: '%' }), [ids[0]], 'a literal percent sign');
  assert.deepEqual(await only({ keyword: '100%' }), [ids[0]]);
  assert.deepEqual(await only({ keyword: '_' }), [ids[3], ids[1]], 'a literal underscore');
  assert.deepEqual(await only({ keyword: 'e_n' }), [ids[1]], '_ does not match the X of fileXname');
  assert.deepEqual(await only({ keyword: 'back\\slash' }), [ids[3]], 'a backslash is literal too');
  assert.deepEqual(await only({ keyword: '%%' }), [], 'two percent signs appear nowhere');
  const counted = await list(app, admin, { keyword: '_', limit: '1' });
  assert.deepEqual(
    [counted.entries.map((e) => e.id), counted.total],
    [[ids[3]], 2],
    'the total honours the keyword too',
  );

  // Dates: inclusive bounds, any RFC 3339 offset.
  assert.deepEqual(await only({ dateFrom: '2024-02-01T00:00:00Z', dateTo: '2024-03-01T12:00:00Z' }), [ids[2], ids[1]]);
  assert.deepEqual(await only({ dateTo: '2024-01-31T23:59:59Z' }), [ids[0]]);
  assert.deepEqual(
    await only({ dateFrom: '2024-03-01T13:00:00+02:00', dateTo: '2024-03-31T00:00:00Z' }),
    [ids[2]],
    '13:00+02:00 is 11:00Z, before the entry',
  );
  assert.deepEqual(await only({ dateFrom: '2024-03-01T12:00:00.001Z', dateTo: '2024-03-31T00:00:00Z' }), []);
  const recent = await all(app, admin, { dateFrom: '2024-05-01T00:00:00Z' });
  assert.ok(recent.length >= 1 && recent.every((e) => !ids.includes(e.id)), 'only the live entries are after May 2024');

  // Newest first: the entry written last leads, the fixtures follow from April back to January.
  // (Order is by insertion; the fixtures' back-dated times only matter to the date filters.)
  assert.equal(
    (await call(app, 'POST', '/api/users', { token: admin, body: { username: 'latest', password: 'latest-pass-1' } }))
      .status,
    200,
  );
  const everything = await all(app, admin);
  assert.equal(everything[0]?.targetName, 'latest');
  const order = everything.map((e) => e.id);
  assert.deepEqual(
    order,
    [...order].sort((a, b) => b - a),
  );
  assert.deepEqual(
    order.filter((id) => ids.includes(id)),
    [ids[3], ids[2], ids[1], ids[0]],
  );
});

test('bad filters: dateFrom after dateTo is AUDIT_FILTER_INVALID, malformed values are INVALID_INPUT', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const reversed = await list(app, admin, { dateFrom: '2024-02-01T00:00:00Z', dateTo: '2024-01-01T00:00:00Z' });
  assert.equal(reversed.status, 400);
  assert.equal(reversed.json.code, 'AUDIT_FILTER_INVALID');
  const reversedExport = await call(app, 'GET', '/api/audit-logs/export', {
    token: admin,
    query: { dateFrom: '2024-02-01T00:00:00Z', dateTo: '2024-01-01T00:00:00Z' },
  });
  assert.equal(reversedExport.status, 400);
  assert.equal(reversedExport.json.code, 'AUDIT_FILTER_INVALID');
  assert.match(
    String(reversedExport.headers['content-type']),
    /application\/json/,
    'the error is an envelope, not a CSV',
  );

  const equal = await list(app, admin, { dateFrom: '2024-01-01T00:00:00Z', dateTo: '2024-01-01T00:00:00Z' });
  assert.equal(equal.status, 200, 'an empty-width window is allowed');

  const malformed: Record<string, string>[] = [
    { dateFrom: 'yesterday' },
    { dateTo: '2024-13-01T00:00:00Z' },
    { dateFrom: '2024-02-30T00:00:00Z' },
    { dateFrom: '2024-01-01' },
    { dateFrom: '2024-01-01T00:00:00' /* no offset: ambiguous */ },
    { dateTo: '1700000000' },
    { limit: '0' },
    { limit: '501' },
    { limit: 'ten' },
    { offset: '-1' },
    { keyword: 'k'.repeat(201) },
  ];
  for (const query of malformed) {
    const res = await list(app, admin, query);
    assert.equal(res.status, 400, JSON.stringify(query));
    assert.equal(res.json.code, 'INVALID_INPUT', JSON.stringify(query));
    assert.ok(Array.isArray(res.json.details));
  }
  const badExportDate = await call(app, 'GET', '/api/audit-logs/export', {
    token: admin,
    query: { dateFrom: 'not-a-date' },
  });
  assert.equal(badExportDate.status, 400);
  assert.equal(badExportDate.json.code, 'INVALID_INPUT');
});

test('paging: default limit 50, maximum 500, offset, and X-Total-Count', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer');
  await seed(
    app,
    Array.from({ length: 520 }, (_, i) => ({ action: `seed-${i % 3}`, detail: `row ${i}` })),
  );
  const total = (await list(app, admin)).total;
  assert.ok(total >= 520);

  const first = await list(app, viewer.token);
  assert.equal(first.status, 200, 'viewers read the audit log');
  assert.equal(first.entries.length, 50, 'default limit');
  assert.equal(first.total, total);

  const max = await list(app, admin, { limit: '500' });
  assert.equal(max.entries.length, 500);
  assert.equal(max.total, total);
  const ids = max.entries.map((e) => e.id);
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => b - a),
    'newest first',
  );
  assert.equal(new Set(ids).size, 500);

  const page2 = await list(app, admin, { limit: '20', offset: '20' });
  assert.deepEqual(
    page2.entries.map((e) => e.id),
    ids.slice(20, 40),
  );
  assert.equal(page2.total, total);

  const tail = await list(app, admin, { limit: '500', offset: String(total - 3) });
  assert.equal(tail.entries.length, 3);
  const beyond = await list(app, admin, { offset: String(total + 10) });
  assert.equal(beyond.status, 200);
  assert.deepEqual(beyond.entries, []);
  assert.equal(beyond.total, total);

  const filtered = await list(app, admin, { action: 'seed-0', limit: '5' });
  assert.equal(filtered.entries.length, 5);
  assert.equal(filtered.total, 174, 'the total counts matching entries, not the page');

  const over = await list(app, admin, { limit: '501' });
  assert.equal(over.status, 400);
});

// ---- export -------------------------------------------------------------------------------

const HEADER = [
  'Time (UTC)',
  'User',
  'Category',
  'Action',
  'Target type',
  'Target ID',
  'Target name',
  'Detail',
  'Client IP',
];

test('export: CSV with BOM, English header, one row per entry, filters applied, newest first', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY });
  const admin = await setupAdmin(app);
  await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'exported', password: 'exported-pass-1', role: 'viewer' },
    headers: { 'x-forwarded-for': '192.0.2.77' },
  });
  await seed(app, [
    { category: 'fixture', detail: 'has, a comma and "quotes"\nand a newline', targetName: 'Zürich ☃' },
  ]);

  const { res, rows } = await exportCsv(app, admin);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  assert.match(String(res.headers['content-disposition']), /^attachment; filename="backplane-audit-\d{8}-\d{6}\.csv"$/);
  assert.deepEqual([...res.rawPayload.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 BOM');
  assert.ok(!res.body.slice(1).includes('\uFEFF'), 'exactly one BOM');
  assert.deepEqual(rows[0], HEADER);

  const entries = await all(app, admin);
  const body = rows.slice(1);
  assert.equal(body.length, entries.length, 'one row per entry');
  for (const [i, entry] of entries.entries()) {
    const row = body[i]!;
    assert.equal(row.length, 9);
    assert.deepEqual(row, [
      entry.createdAt,
      entry.username,
      entry.category,
      entry.action,
      entry.targetType,
      entry.targetId,
      entry.targetName,
      entry.detail,
      entry.clientIp,
    ]);
  }
  const userRow = body.find((r) => r[2] === 'user' && r[3] === 'create');
  assert.deepEqual(userRow?.slice(1, 9), [
    'admin',
    'user',
    'create',
    'user',
    userRow?.[5],
    'exported',
    'role=viewer',
    '192.0.2.77',
  ]);
  assert.match(userRow![0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'RFC 3339 in UTC');
  const fixture = body.find((r) => r[2] === 'fixture');
  assert.equal(fixture?.[7], 'has, a comma and "quotes"\nand a newline', 'quoting round-trips');
  assert.equal(fixture?.[6], 'Zürich ☃', 'UTF-8 survives');

  const filtered = await exportCsv(app, admin, { category: 'user' });
  assert.equal(filtered.res.statusCode, 200);
  assert.deepEqual(
    filtered.rows.slice(1).map((r) => r[6]),
    ['exported'],
  );
  const empty = await exportCsv(app, admin, { category: 'nothing' });
  assert.deepEqual(empty.rows, [HEADER], 'an empty export still has its header');
});

test('export cells that a spreadsheet would execute are prefixed with an apostrophe', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const payload = '=HYPERLINK("http://evil.example","click")';
  // A failed login records the typed username as the target name and the user.
  await call(app, 'POST', '/api/auth/login', { body: { username: payload, password: 'irrelevant' } });
  // An API key name is free text too.
  const key = await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: '@SUM(1+1)', role: 'viewer' } });
  assert.equal(key.status, 200);
  await seed(app, [
    { category: 'fixture', targetName: '+cmd|calc', detail: '-2+3', clientIp: '\tTAB' },
    { category: 'fixture', targetName: 'safe = name', detail: 'a-b' },
  ]);

  const { rows } = await exportCsv(app, admin);
  const failed = rows.find((r) => r[3] === 'login_failed');
  assert.ok(failed);
  assert.equal(failed[6], `'${payload}`, 'target name');
  assert.equal(failed[1], `'${payload}`, 'user');
  assert.equal(rows.find((r) => r[2] === 'api_key')?.[6], "'@SUM(1+1)");
  const seeded = rows.find((r) => r[6]?.includes('cmd'));
  assert.deepEqual(seeded?.slice(6), ["'+cmd|calc", "'-2+3", "'\tTAB"]);
  const safe = rows.find((r) => r[6]?.startsWith('safe'));
  assert.deepEqual(safe?.slice(6, 8), ['safe = name', 'a-b'], 'harmless cells are untouched');
  // The JSON list is not a spreadsheet: it keeps the value as stored.
  const listed = await all(app, admin, { action: 'login_failed' });
  assert.equal(listed[0]?.targetName, payload);
});

test('export streams every entry across batch boundaries, filters included', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  await seed(
    app,
    Array.from({ length: 1203 }, (_, i) => ({
      category: 'bulk',
      detail: i % 2 === 0 ? `even_${i}` : `odd ${i}`,
      targetId: String(i),
    })),
  );
  const { res, rows } = await exportCsv(app, admin, { category: 'bulk' });
  assert.equal(res.statusCode, 200);
  const body = rows.slice(1);
  assert.equal(body.length, 1203);
  const targetIds = body.map((r) => Number(r[5]));
  assert.deepEqual(
    targetIds,
    Array.from({ length: 1203 }, (_, i) => 1202 - i),
    'each entry once, newest first',
  );

  // The keyword filter holds across batches too (602 even rows, literal underscore).
  const even = await exportCsv(app, admin, { category: 'bulk', keyword: 'n_' });
  assert.equal(even.res.statusCode, 200);
  assert.equal(even.rows.length - 1, 602);
  assert.ok(even.rows.slice(1).every((r) => r[7]!.startsWith('even_')));
});

// ---- webhook ------------------------------------------------------------------------------

test('audit webhook: each entry is POSTed as JSON and signed with HMAC-SHA256 of the raw body', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY });
  const admin = await setupAdmin(app);
  const adminId = (await call(app, 'GET', '/api/auth/profile', { token: admin })).json.data.id as number;
  const hook = await receiver(t);
  const secret = 'webhook-signing-secret-42';
  const set = await call(app, 'PUT', '/api/settings', {
    token: admin,
    body: { audit_webhook_url: hook.url, audit_webhook_secret: secret },
  });
  assert.equal(set.status, 200);

  // The settings change is itself audited and delivered; its detail names keys, never the secret.
  const settingsPost = await waitFor('the settings update delivery', () =>
    hook.received.find((r) => r.json?.category === 'settings'),
  );
  assert.ok(!settingsPost.raw.toString().includes(secret));

  const created = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'hooked', password: 'hooked-pass-1', role: 'viewer' },
    headers: { 'x-forwarded-for': '192.0.2.44' },
  });
  assert.equal(created.status, 200);
  const post = await waitFor('the user create delivery', () =>
    hook.received.find((r) => r.json?.category === 'user' && r.json?.action === 'create'),
  );

  const stored = (await all(app, admin, { category: 'user', action: 'create' }))[0]!;
  assert.deepEqual(post.json, {
    eventType: 'audit.log',
    occurredAt: stored.createdAt,
    actor: { userId: adminId, username: 'admin' },
    category: 'user',
    action: 'create',
    targetType: 'user',
    targetId: String(created.json.data.id),
    targetName: 'hooked',
    detail: 'role=viewer',
    clientIp: '192.0.2.44',
  });
  assert.match(String(post.headers['content-type']), /^application\/json/);
  assert.match(String(post.headers['user-agent']), /^Backplane-Audit\//);
  const expected = `sha256=${createHmac('sha256', secret).update(post.raw).digest('hex')}`;
  assert.equal(post.headers['x-backplane-signature'], expected);
  assert.match(String(post.headers['x-backplane-signature']), /^sha256=[0-9a-f]{64}$/);
  // The signature really binds this body and this secret.
  assert.notEqual(
    post.headers['x-backplane-signature'],
    `sha256=${createHmac('sha256', 'other-secret').update(post.raw).digest('hex')}`,
  );
  assert.ok(!JSON.stringify(post.headers).includes(secret), 'the secret itself is never sent');

  // Logins from anonymous callers are delivered too, actor named by the typed username.
  await call(app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: 'nope-nope' },
    headers: { 'x-forwarded-for': '192.0.2.45' },
  });
  const failed = await waitFor('the failed login delivery', () =>
    hook.received.find((r) => r.json?.action === 'login_failed'),
  );
  assert.deepEqual(failed.json.actor, { userId: null, username: 'admin' });
  assert.equal(failed.json.clientIp, '192.0.2.45');
  assert.equal(
    failed.headers['x-backplane-signature'],
    `sha256=${createHmac('sha256', secret).update(failed.raw).digest('hex')}`,
  );

  // Without a secret the body is sent unsigned.
  await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_webhook_secret: '' } });
  await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'unsigned', password: 'unsigned-pass-1', role: 'viewer' },
  });
  const unsigned = await waitFor('the unsigned delivery', () =>
    hook.received.find((r) => r.json?.targetName === 'unsigned'),
  );
  assert.equal(unsigned.headers['x-backplane-signature'], undefined);
});

test('a webhook that answers 500, never answers, or cannot be reached does not fail or delay the audited request', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);

  const failing = await receiver(t, (res) => {
    res.statusCode = 500;
    res.end('boom');
  });
  await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_webhook_url: failing.url } });
  const a = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'user-a', password: 'user-a-pass-1', role: 'viewer' },
  });
  assert.equal(a.status, 200);
  await waitFor('the refused delivery', () => failing.received.find((r) => r.json?.targetName === 'user-a'));

  const hanging = await receiver(t, () => {
    /* never answers */
  });
  await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_webhook_url: hanging.url } });
  const started = Date.now();
  const b = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'user-b', password: 'user-b-pass-1', role: 'viewer' },
  });
  const took = Date.now() - started;
  assert.equal(b.status, 200);
  // Delivery has a 3 s timeout; a request that waited for it would take at least that long.
  assert.ok(took < 2000, `the request did not wait for the receiver (took ${took} ms)`);
  await waitFor('the hanging delivery to arrive', () => hanging.received.find((r) => r.json?.targetName === 'user-b'));

  await call(app, 'PUT', '/api/settings', {
    token: admin,
    body: { audit_webhook_url: `http://127.0.0.1:${await closedPort()}/hook` },
  });
  const c = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'user-c', password: 'user-c-pass-1', role: 'viewer' },
  });
  assert.equal(c.status, 200);

  // Every entry is stored regardless of delivery, and the app keeps serving.
  const names = (await all(app, admin, { category: 'user', action: 'create' })).map((e) => e.targetName).sort();
  assert.deepEqual(names, ['user-a', 'user-b', 'user-c']);
  assert.equal((await call(app, 'GET', '/api/settings', { token: admin })).status, 200);
});
