import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SessionTokens } from '../../core/auth/jwt.ts';

test('session tokens: claims round-trip; a remembered token still ends at its expiry; a forged or foreign one is refused', async () => {
  const tokens = new SessionTokens(randomBytes(32), 60);
  const { token, expiresAt } = await tokens.issue({ userId: 7, role: 'operator', tokenVersion: 3 });
  const claims = await tokens.verify(token);
  assert.equal(claims?.userId, 7);
  assert.equal(claims?.role, 'operator');
  assert.equal(claims?.tokenVersion, 3);
  assert.match(claims?.sessionId ?? '', /^[\w-]{22}$/);
  // Verified once, then answered from memory: the same claims until the token expires, none after.
  assert.deepEqual(await tokens.verify(token, expiresAt.getTime() - 1000), claims);
  assert.equal(await tokens.verify(token, expiresAt.getTime() + 1000), undefined);

  const [head, body] = token.split('.');
  const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
  const forged = `${head}.${Buffer.from(JSON.stringify({ ...payload, role: 'admin' })).toString('base64url')}.${token.split('.')[2]}`;
  assert.equal(await tokens.verify(forged), undefined, 'a changed payload fails the signature');
  const other = await new SessionTokens(randomBytes(32), 60).issue({ userId: 7, role: 'admin', tokenVersion: 3 });
  assert.equal(await tokens.verify(other.token), undefined, 'signed with another key');
  assert.equal(await tokens.verify('not-a-token'), undefined);
});
