import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  accountCards,
  afterEnrolment,
  enrolmentNotice,
  recoveryCodesFile,
} from '../../packages/console/src/features/account/account-state.ts';

test('an enrolment-only session is offered the enrolment cards only', () => {
  assert.deepEqual(accountCards({ mfaEnrollmentRequired: true }), ['profile', 'totp', 'otp', 'passkeys']);
  assert.ok(accountCards({}).includes('devices'));
  assert.ok(accountCards({}).includes('sessions'));
  assert.ok(
    !accountCards({ mfaEnrollmentRequired: true }).includes('sessions'),
    'the sessions routes are not enrolment routes',
  );
  assert.ok(
    accountCards({ mfaEnrollmentRequired: false, mfaEnrollmentDeadline: '2026-03-01T00:00:00Z' }).includes('password'),
  );
});

test('the notice: required, a deadline, or nothing once a factor exists', () => {
  assert.deepEqual(enrolmentNotice({ mfaEnrollmentRequired: true }, false), { kind: 'required' });
  assert.deepEqual(enrolmentNotice({ mfaEnrollmentRequired: false, mfaEnrollmentDeadline: 'D' }, false), {
    kind: 'deadline',
    deadline: 'D',
  });
  assert.equal(enrolmentNotice({ mfaEnrollmentRequired: true }, true), null);
  assert.equal(enrolmentNotice({}, false), null);
});

test('after enrolment an enrolment-only session signs in again; a full one refreshes', () => {
  assert.equal(afterEnrolment({ mfaEnrollmentRequired: true }, true), 'sign-in-again');
  assert.equal(afterEnrolment({ mfaEnrollmentRequired: true }, false), 'refresh');
  assert.equal(afterEnrolment({ mfaEnrollmentDeadline: 'D' }, true), 'refresh');
});

test('recovery codes file', () => {
  assert.equal(
    recoveryCodesFile(['AAAA-1111', 'BBBB-2222'], 'ann', '2026-03-10'),
    'Backplane recovery codes for ann\nIssued 2026-03-10. Each code works once.\n\nAAAA-1111\nBBBB-2222\n',
  );
});
