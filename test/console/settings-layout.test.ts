import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SECRET_MASK, formValues, groupSettings, serverFieldErrors, settingErrors, settingsPatch } from '../../packages/console/src/features/settings/settings-layout.ts';

// What GET /api/settings answers on a fresh installation (with the audit webhook secret stored), plus a key the console does not know.
const stored = {
  site_name: 'Backplane', language: 'en', timezone: '', backup_notification_enabled: 'true', bandwidth_limit: '',
  audit_webhook_url: '', audit_webhook_secret: SECRET_MASK, audit_retention_days: '0',
  mfa_required_for_admins: 'false', mfa_enrollment_grace_days: '7', passkey_passwordless_login: 'false', future_flag: 'false',
};

test('every returned setting is shown, grouped, with an input of its kind', () => {
  const groups = groupSettings(stored);
  assert.deepEqual(groups.map((g) => g.group), ['general', 'notifications', 'security', 'audit', 'transfer', 'other']);
  assert.equal(groups.flatMap((g) => g.specs).length, Object.keys(stored).length);
  const kinds = Object.fromEntries(groups.flatMap((g) => g.specs).map((s) => [s.key, s.kind]));
  assert.equal(kinds.timezone, 'timezone');
  assert.equal(kinds.audit_webhook_secret, 'secret');
  assert.equal(kinds.mfa_enrollment_grace_days, 'integer');
  assert.equal(kinds.future_flag, 'boolean');
});

test('the patch holds only changes; a stored secret left empty is kept, cleared on request', () => {
  const values = formValues(stored);
  assert.equal(values.audit_webhook_secret, '');
  assert.deepEqual(settingsPatch(stored, values), {});
  assert.deepEqual(settingsPatch(stored, { ...values, site_name: ' Ops ', audit_retention_days: '30' }), { site_name: 'Ops', audit_retention_days: '30' });
  assert.deepEqual(settingsPatch(stored, { ...values, audit_webhook_secret: 's3cret ' }), { audit_webhook_secret: 's3cret ' });
  assert.deepEqual(settingsPatch(stored, values, ['audit_webhook_secret']), { audit_webhook_secret: '' });
  // nothing stored: nothing to clear
  assert.deepEqual(settingsPatch({ ...stored, audit_webhook_secret: '' }, values, ['audit_webhook_secret']), {});
});

test('integers out of range are caught; server details map to fields', () => {
  assert.deepEqual(settingErrors({ ...stored, mfa_enrollment_grace_days: '91', audit_retention_days: 'x' }, stored), { mfa_enrollment_grace_days: 'integer', audit_retention_days: 'integer' });
  assert.deepEqual(settingErrors(stored, stored), {});
  assert.deepEqual(serverFieldErrors([{ key: 'timezone', message: 'must be an IANA time zone' }, { bogus: 1 }]), { timezone: 'must be an IANA time zone' });
  assert.deepEqual(serverFieldErrors(undefined), {});
});
