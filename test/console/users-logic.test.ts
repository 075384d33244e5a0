import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  apiKeyState,
  createUserBody,
  updateUserBody,
  validateUser,
  type UserFormValues,
} from '../../packages/console/src/features/users/user-form.ts';

const v: UserFormValues = {
  username: 'alice',
  displayName: '',
  email: '',
  phone: '',
  role: 'operator',
  password: 'secret-pass',
};

test('validation follows the API schema', () => {
  assert.deepEqual(validateUser(v, true), {});
  assert.deepEqual(validateUser({ ...v, username: 'al', password: 'short' }, true), {
    username: 'username',
    password: 'password',
  });
  assert.deepEqual(validateUser({ ...v, username: '.alice' }, true), { username: 'username' });
  assert.deepEqual(validateUser({ ...v, password: '' }, false), {});
  assert.deepEqual(validateUser({ ...v, email: 'nope' }, false), { email: 'email' });
});

test('create body leaves out empty optional fields', () => {
  assert.deepEqual(createUserBody(v), { username: 'alice', password: 'secret-pass', role: 'operator' });
  assert.deepEqual(createUserBody({ ...v, displayName: ' Alice ', email: 'a@x.io' }), {
    username: 'alice',
    password: 'secret-pass',
    role: 'operator',
    displayName: 'Alice',
    email: 'a@x.io',
  });
});

test('update body holds only what changed', () => {
  const before = { username: 'alice', displayName: 'Alice', email: 'a@x.io', phone: '', role: 'operator' as const };
  assert.deepEqual(updateUserBody(before, { ...before, password: '' }), {});
  assert.deepEqual(updateUserBody(before, { ...before, role: 'viewer', email: '', password: '' }), {
    role: 'viewer',
    email: '',
  });
  assert.deepEqual(updateUserBody(before, { ...before, displayName: '', password: 'new-password' }), {
    password: 'new-password',
  });
});

test('api key state: expired wins over disabled', () => {
  const now = Date.parse('2026-03-10T00:00:00Z');
  assert.equal(apiKeyState({ disabled: false, expired: false }, now), 'active');
  assert.equal(apiKeyState({ disabled: true, expired: false }, now), 'disabled');
  assert.equal(apiKeyState({ disabled: true, expired: true }, now), 'expired');
  assert.equal(apiKeyState({ disabled: false, expired: false, expiresAt: '2026-03-09T00:00:00Z' }, now), 'expired');
});
