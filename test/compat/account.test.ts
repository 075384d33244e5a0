import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { build, call, setupAdmin, ADMIN } from '../helpers/build.ts';
import { UserEntity } from '../../core/db/entities/user.ts';
import { ApiKeyEntity } from '../../core/db/entities/api-key.ts';
import { expectEnvelope, Ref, Opt, Time } from './reference-shape.ts';

/**
 * BackupX compatibility: setup, login, the profile, users and API keys, as BackupX's web console
 * and scripts send and read them. Shapes from BackupX's Go DTOs (server/internal/service) and the
 * console's types (web/src/services/*.ts).
 */

const Role = Type.Union([Type.Literal('admin'), Type.Literal('operator'), Type.Literal('viewer')]);

/** The account-security summary every user shape carries (test/compat/account-security.test.ts turns them on). */
const SECURITY_FLAGS = {
  mfaEnabled: Type.Boolean(),
  twoFactorEnabled: Type.Boolean(),
  twoFactorRecoveryCodesRemaining: Type.Integer(),
  webAuthnEnabled: Type.Boolean(),
  webAuthnCredentialCount: Type.Integer(),
  trustedDeviceCount: Type.Integer(),
  emailOtpEnabled: Type.Boolean(),
  smsOtpEnabled: Type.Boolean(),
};

/** service/auth_service.go UserOutput; web/src/services/auth.ts UserInfo. */
const UserOutput = Ref({
  id: Type.Integer(),
  username: Type.String(),
  displayName: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  role: Type.String(),
  ...SECURITY_FLAGS,
});

/** service/auth_service.go AuthPayload; web/src/services/auth.ts AuthResult. */
const AuthResult = Ref({
  token: Type.String({ minLength: 1 }),
  user: UserOutput,
  trustedDeviceToken: Opt(Type.String()),
});

/** service/user_service.go UserSummary; web/src/services/users.ts UserSummary. */
const UserSummary = Ref({
  id: Type.Integer(),
  username: Type.String(),
  displayName: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  role: Role,
  disabled: Type.Boolean(),
  ...SECURITY_FLAGS,
  createdAt: Time,
});

/** service/api_key_service.go ApiKeySummary (lastUsedAt/expiresAt omitempty); web/src/services/api-keys.ts. */
const ApiKeySummary = Ref({
  id: Type.Integer(),
  name: Type.String(),
  role: Role,
  prefix: Type.String(),
  createdBy: Type.String(),
  lastUsedAt: Opt(Time),
  expiresAt: Opt(Time),
  disabled: Type.Boolean(),
  createdAt: Time,
});

/** What the console's users page sends on create and on edit (web/src/pages/admin/UsersPage.tsx). */
function upsertPayload(
  fields: Partial<Record<'username' | 'password' | 'displayName' | 'email' | 'phone' | 'role', string>> & {
    disabled?: boolean;
  },
) {
  return {
    username: '',
    password: '',
    displayName: '',
    email: '',
    phone: '',
    role: 'operator',
    disabled: false,
    ...fields,
  };
}

const profile = (app: FastifyInstance, token: string) => call(app, 'GET', '/api/auth/profile', { token });
const login = (app: FastifyInstance, username: string, password: string) =>
  // The console's login form: rememberDevice is always sent, the other second-factor fields only when filled in.
  call(app, 'POST', '/api/auth/login', { body: { username, password, rememberDevice: false } });

test('GET /api/auth/setup/status: {initialized}', async (t) => {
  const { app } = await build(t);
  const before = expectEnvelope(
    await call(app, 'GET', '/api/auth/setup/status'),
    Ref({ initialized: Type.Boolean() }),
    'setup status',
  );
  assert.equal(before.initialized, false);
  await setupAdmin(app);
  assert.equal(
    expectEnvelope(await call(app, 'GET', '/api/auth/setup/status'), Ref({ initialized: Type.Boolean() })).initialized,
    true,
  );
});

test("POST /api/auth/setup: the console's {username, password, displayName} creates the admin and answers {token, user}", async (t) => {
  const { app } = await build(t);
  const data = expectEnvelope(
    await call(app, 'POST', '/api/auth/setup', {
      body: { username: 'owner', password: 'owner-password-1', displayName: 'The Owner' },
    }),
    AuthResult,
    'setup',
  );
  assert.equal(data.user.displayName, 'The Owner');
  assert.equal(data.user.role, 'admin');
  assert.equal(data.user.mfaEnabled, false);
  assert.equal(
    expectEnvelope(await profile(app, data.token), UserOutput).username,
    'owner',
    'the token opens a session',
  );
});

test("POST /api/auth/login: the console's body logs in and answers {token, user}; second-factor fields are accepted and typed", async (t) => {
  const { app } = await build(t);
  await setupAdmin(app);
  const data = expectEnvelope(await login(app, ADMIN.username, ADMIN.password), AuthResult, 'login');
  assert.equal(data.user.username, ADMIN.username);
  assert.equal(data.user.twoFactorEnabled, false);
  assert.equal((await profile(app, data.token)).status, 200);

  // No account has a second factor, so (as in the reference) a code or a device name changes nothing.
  const withCode = await call(app, 'POST', '/api/auth/login', {
    body: {
      username: ADMIN.username,
      password: ADMIN.password,
      twoFactorCode: '123456',
      trustedDeviceToken: '',
      rememberDevice: true,
      trustedDeviceName: 'Firefox on Linux',
    },
  });
  expectEnvelope(withCode, AuthResult, 'login with second-factor fields');
  assert.equal(withCode.json.data.trustedDeviceToken, undefined, 'no trusted device without a second factor');

  const wrongType = await call(app, 'POST', '/api/auth/login', {
    body: { username: ADMIN.username, password: ADMIN.password, rememberDevice: 'yes' },
  });
  assert.equal(wrongType.status, 400);
  assert.equal(wrongType.json.code, 'INVALID_INPUT');
  const wrong = await login(app, ADMIN.username, 'not-the-password');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.code, 'AUTH_INVALID_CREDENTIALS', 'the code the console branches on');
});

test('GET /api/auth/profile: the user output with its account-security flags', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const me = expectEnvelope(await profile(app, token), UserOutput, 'profile');
  assert.equal(me.username, ADMIN.username);
  for (const flag of ['mfaEnabled', 'twoFactorEnabled', 'webAuthnEnabled', 'emailOtpEnabled', 'smsOtpEnabled'])
    assert.equal(me[flag], false, flag);
  for (const count of ['twoFactorRecoveryCodesRemaining', 'webAuthnCredentialCount', 'trustedDeviceCount'])
    assert.equal(me[count], 0, count);
});

test('PUT /api/auth/password: {changed}; the console keeps its token, every other session is closed', async (t) => {
  const { app } = await build(t);
  const consoleToken = await setupAdmin(app);
  const otherLogin: string = (await login(app, ADMIN.username, ADMIN.password)).json.data.token;
  const data = expectEnvelope(
    await call(app, 'PUT', '/api/auth/password', {
      token: consoleToken,
      body: { oldPassword: ADMIN.password, newPassword: 'a-new-password-9' },
    }),
    Ref({ changed: Type.Boolean() }),
    'password change',
  );
  assert.equal(data.changed, true);

  assert.equal(
    (await profile(app, consoleToken)).status,
    200,
    "the caller's token still works: the console's next click does not log it out",
  );
  assert.equal((await call(app, 'GET', '/api/users', { token: consoleToken })).status, 200);
  const other = await profile(app, otherLogin);
  assert.equal(other.status, 401, 'the old token of another login is refused');
  assert.equal(other.json.code, 'AUTH_UNAUTHORIZED');
  assert.equal((await login(app, ADMIN.username, ADMIN.password)).status, 401);
  assert.equal((await login(app, ADMIN.username, 'a-new-password-9')).status, 200);
});

test('POST /api/auth/logout: {loggedOut}', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  assert.equal(
    expectEnvelope(await call(app, 'POST', '/api/auth/logout', { token }), Ref({ loggedOut: Type.Boolean() }), 'logout')
      .loggedOut,
    true,
  );
});

/** More rows than any default page: the console loads these lists in one request, so all must come. */
const MANY = 120;

test('GET /api/users: a plain array of every user summary', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const em = app.diContainer.cradle.orm.em.fork();
  for (let i = 0; i < MANY; i++)
    em.create(UserEntity, { username: `user-${i}`, passwordHash: 'not-a-hash', displayName: `User ${i}` });
  await em.flush();
  const res = await call(app, 'GET', '/api/users', { token: admin });
  const users = expectEnvelope(res, Type.Array(UserSummary), 'user list');
  assert.equal(users.length, MANY + 1, 'no page limit unless asked for');
  assert.equal(users[0].username, ADMIN.username);
  assert.equal(res.headers['x-total-count'], String(MANY + 1));
});

test("POST /api/users: the console's upsert payload creates the user as sent", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const created = expectEnvelope(
    await call(app, 'POST', '/api/users', {
      token: admin,
      body: upsertPayload({
        username: 'olga',
        password: 'olga-password-1',
        displayName: 'Olga',
        email: 'olga@example.com',
        phone: '+49 30 1234',
      }),
    }),
    UserSummary,
    'created user',
  );
  assert.deepEqual(
    {
      username: created.username,
      displayName: created.displayName,
      email: created.email,
      phone: created.phone,
      role: created.role,
      disabled: created.disabled,
    },
    {
      username: 'olga',
      displayName: 'Olga',
      email: 'olga@example.com',
      phone: '+49 30 1234',
      role: 'operator',
      disabled: false,
    },
  );
  assert.equal((await login(app, 'olga', 'olga-password-1')).status, 200);

  const disabled = expectEnvelope(
    await call(app, 'POST', '/api/users', {
      token: admin,
      body: upsertPayload({
        username: 'vic',
        password: 'vic-password-1',
        displayName: 'Vic',
        role: 'viewer',
        disabled: true,
      }),
    }),
    UserSummary,
  );
  assert.equal(disabled.disabled, true);
  assert.equal(
    (await login(app, 'vic', 'vic-password-1')).json.code,
    'AUTH_USER_DISABLED',
    'disabled: true is honoured',
  );
});

test("PUT /api/users/:id: the console's edit payload (blank password = unchanged, username sent back) updates as sent", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const olga = expectEnvelope(
    await call(app, 'POST', '/api/users', {
      token: admin,
      body: upsertPayload({ username: 'olga', password: 'olga-password-1', displayName: 'Olga' }),
    }),
    UserSummary,
  );
  const olgaSession: string = (await login(app, 'olga', 'olga-password-1')).json.data.token;

  // openEdit() fills the form from the summary and leaves the password blank.
  const edit = {
    username: olga.username,
    password: '',
    displayName: 'Olga O.',
    email: 'o@example.com',
    phone: '',
    role: olga.role,
    disabled: false,
  };
  const updated = expectEnvelope(
    await call(app, 'PUT', `/api/users/${olga.id}`, { token: admin, body: edit }),
    UserSummary,
    'updated user',
  );
  assert.equal(updated.displayName, 'Olga O.');
  assert.equal(updated.email, 'o@example.com');
  assert.equal((await login(app, 'olga', 'olga-password-1')).status, 200, 'a blank password keeps the old one');
  assert.equal((await profile(app, olgaSession)).status, 200, 'and revokes nothing');

  const promoted = expectEnvelope(
    await call(app, 'PUT', `/api/users/${olga.id}`, {
      token: admin,
      body: { ...edit, username: 'olga.o', password: 'olga-password-2', role: 'viewer' },
    }),
    UserSummary,
  );
  assert.deepEqual({ username: promoted.username, role: promoted.role }, { username: 'olga.o', role: 'viewer' });
  assert.equal((await login(app, 'olga.o', 'olga-password-2')).status, 200, 'rename and new password are honoured');
  assert.equal((await profile(app, olgaSession)).status, 401, 'a new password and role close her sessions');

  // An admin editing themselves on the users page keeps their own session, as the console expects.
  const me = expectEnvelope(await profile(app, admin), UserOutput);
  const self = await call(app, 'PUT', `/api/users/${me.id}`, {
    token: admin,
    body: {
      username: me.username,
      password: 'admin-password-2',
      displayName: me.displayName,
      email: '',
      phone: '',
      role: 'admin',
      disabled: false,
    },
  });
  expectEnvelope(self, UserSummary, 'self edit');
  assert.equal((await profile(app, admin)).status, 200);
});

test('DELETE /api/users/:id: {deleted}', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const olga = expectEnvelope(
    await call(app, 'POST', '/api/users', {
      token: admin,
      body: upsertPayload({ username: 'olga', password: 'olga-password-1', displayName: 'Olga' }),
    }),
    UserSummary,
  );
  assert.equal(
    expectEnvelope(
      await call(app, 'DELETE', `/api/users/${olga.id}`, { token: admin }),
      Ref({ deleted: Type.Boolean() }),
    ).deleted,
    true,
  );
  assert.equal((await login(app, 'olga', 'olga-password-1')).status, 401);
});

test('GET /api/api-keys: a plain array of every summary, never the plaintext', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const { plainKey } = (
    await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: 'ci', role: 'viewer', ttlHours: 0 } })
  ).json.data;
  const em = app.diContainer.cradle.orm.em.fork();
  for (let i = 0; i < MANY; i++)
    em.create(ApiKeyEntity, {
      name: `key-${i}`,
      role: 'viewer',
      prefix: 'bpk_00000000',
      keyHash: String(i).padStart(64, '0'),
      createdById: null,
    });
  await em.flush();
  const res = await call(app, 'GET', '/api/api-keys', { token: admin });
  const keys = expectEnvelope(res, Type.Array(ApiKeySummary), 'api key list');
  assert.equal(keys.length, MANY + 1, 'no page limit unless asked for');
  assert.ok(!res.body.includes(plainKey.slice(12)), 'the list holds no secret part');
});

test('POST /api/api-keys: {name, role, ttlHours} answers {apiKey, plainKey} once; the key works with the role and expiry asked for', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const Created = Ref({ apiKey: ApiKeySummary, plainKey: Type.String() });
  const forever = expectEnvelope(
    await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: 'ci', role: 'viewer', ttlHours: 0 } }),
    Created,
    'created key',
  );
  assert.equal(forever.apiKey.prefix, forever.plainKey.slice(0, 12));
  assert.equal(forever.apiKey.expiresAt, undefined, 'ttlHours 0 never expires');
  assert.equal(forever.apiKey.createdBy, ADMIN.username);
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: forever.plainKey })).status, 200, 'as Bearer');
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { apiKey: forever.plainKey })).status, 200, 'as X-Api-Key');
  assert.equal(
    (await call(app, 'POST', '/api/backup/tasks', { apiKey: forever.plainKey, body: {} })).status,
    403,
    'with the viewer role asked for',
  );

  const daily = expectEnvelope(
    await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: 'daily', role: 'operator', ttlHours: 24 } }),
    Created,
  );
  const hoursLeft = (Date.parse(daily.apiKey.expiresAt) - Date.now()) / 3600_000;
  assert.ok(hoursLeft > 23.9 && hoursLeft <= 24, `expires in 24 h (${hoursLeft})`);
});

test('PUT /api/api-keys/:id/toggle: {disabled} sets the state and the answer carries it', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const { apiKey, plainKey } = (
    await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: 'ci', role: 'viewer', ttlHours: 0 } })
  ).json.data;
  const toggle = (disabled: boolean) =>
    call(app, 'PUT', `/api/api-keys/${apiKey.id}/toggle`, { token: admin, body: { disabled } });
  assert.equal(expectEnvelope(await toggle(true), Ref({ disabled: Type.Boolean() }), 'toggle').disabled, true);
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { apiKey: plainKey })).json.code, 'AUTH_KEY_DISABLED');
  assert.equal(expectEnvelope(await toggle(false), Ref({ disabled: Type.Boolean() })).disabled, false);
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { apiKey: plainKey })).status, 200);
});

test('DELETE /api/api-keys/:id: {revoked}', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const { apiKey, plainKey } = (
    await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: 'ci', role: 'viewer', ttlHours: 0 } })
  ).json.data;
  assert.equal(
    expectEnvelope(
      await call(app, 'DELETE', `/api/api-keys/${apiKey.id}`, { token: admin }),
      Ref({ revoked: Type.Boolean() }),
    ).revoked,
    true,
  );
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { apiKey: plainKey })).status, 401);
});
