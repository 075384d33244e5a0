import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { generate } from 'otplib';
import { build, call, setupAdmin } from '../helpers/build.ts';

export const ORIGIN = 'https://backplane.example.test';
export const ALICE = { username: 'alice', password: 'alice-password-1' };

/** A master whose passkeys belong to backplane.example.test, an admin, and Alice (operator) with her session. */
export async function accountApp(t: TestContext, config: Record<string, unknown> = {}) {
  const { app } = await build(t, { config: { externalUrl: ORIGIN, ...config } });
  const admin = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { ...ALICE, displayName: 'Alice', role: 'operator' },
  });
  assert.equal(created.status, 200, created.body);
  const token = await passwordLogin(app);
  return { app, admin, aliceId: created.json.data.id as number, token };
}

export async function passwordLogin(app: FastifyInstance, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await login(app, extra);
  assert.equal(res.status, 200, res.body);
  return res.json.data.token;
}

export const login = (
  app: FastifyInstance,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) => call(app, 'POST', '/api/auth/login', { body: { ...ALICE, ...extra }, headers });

/** The TOTP code an authenticator app shows `steps` periods from now (the server takes ±1). */
export function totpCode(secret: string, steps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
}

/** Enrols TOTP for the session's user: returns the secret and the recovery codes. The current step is used up. */
export async function enrolTotp(
  app: FastifyInstance,
  token: string,
  password = ALICE.password,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await call(app, 'POST', '/api/auth/2fa/setup', { token, body: { currentPassword: password } });
  assert.equal(setup.status, 200, setup.body);
  const enabled = await call(app, 'POST', '/api/auth/2fa/enable', {
    token,
    body: { code: await totpCode(setup.json.data.secret) },
  });
  assert.equal(enabled.status, 200, enabled.body);
  return { secret: setup.json.data.secret, recoveryCodes: enabled.json.data.recoveryCodes };
}

export function cookieFrom(
  headers: Record<string, unknown>,
  name: string,
): { value: string; attributes: string } | undefined {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw ? [String(raw)] : [];
  const line = list.find((c: string) => c.startsWith(`${name}=`));
  if (!line) return undefined;
  const [pair, ...attributes] = line.split(';');
  return { value: pair!.slice(name.length + 1), attributes: attributes.join(';').trim() };
}
