import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SECRET_MASK,
  formValues,
  groupSettings,
  serverFieldErrors,
  settingErrors,
  settingsPatch,
  specOf,
  type SettingInfo,
} from '../../packages/console/src/features/settings/settings-layout.ts';

// What GET /api/settings answers on a fresh installation (with the audit webhook secret stored), plus two keys the console does not group.
const stored = {
  site_name: 'Backplane',
  language: 'en',
  timezone: '',
  backup_notification_enabled: 'true',
  bandwidth_limit: '',
  audit_webhook_url: '',
  audit_webhook_secret: SECRET_MASK,
  audit_retention_days: '0',
  mfa_required_for_admins: 'false',
  mfa_enrollment_grace_days: '7',
  passkey_passwordless_login: 'false',
  future_flag: 'false',
  future_limit: '5',
};

// What GET /api/settings/catalogue answers (descriptions shortened); future_limit is described but has no group in the
// console, future_flag is not described at all.
const catalogue: SettingInfo[] = [
  { key: 'site_name', kind: 'text', description: "The installation's name.", default: 'Backplane', secret: false },
  { key: 'language', kind: 'language', description: 'The preferred language.', default: 'en', secret: false },
  {
    key: 'timezone',
    kind: 'timezone',
    description: 'The zone cron schedules are read in.',
    default: '',
    secret: false,
  },
  {
    key: 'backup_notification_enabled',
    kind: 'boolean',
    description: 'Send backup results.',
    default: 'true',
    secret: false,
  },
  {
    key: 'bandwidth_limit',
    kind: 'rate',
    description: 'A bandwidth limit.',
    default: '',
    secret: false,
    notYet: 'not implemented; set bandwidthLimit on a node instead',
  },
  { key: 'audit_webhook_url', kind: 'url', description: 'Audit entries are posted here.', default: '', secret: false },
  { key: 'audit_webhook_secret', kind: 'text', description: 'Signs the audit webhook.', default: '', secret: true },
  { key: 'audit_retention_days', kind: 'integer', description: 'Days kept.', default: '0', secret: false },
  {
    key: 'mfa_required_for_admins',
    kind: 'boolean',
    description: 'Admins need a second factor.',
    default: 'false',
    secret: false,
  },
  { key: 'mfa_enrollment_grace_days', kind: 'integer', description: 'Days to enrol.', default: '7', secret: false },
  {
    key: 'passkey_passwordless_login',
    kind: 'boolean',
    description: 'Passkeys sign in alone.',
    default: 'false',
    secret: false,
  },
  { key: 'future_limit', kind: 'integer', description: 'A later setting.', default: '3', secret: false },
];

test("every returned setting is shown, grouped, with the catalogue's kind, help, default, secret and support", () => {
  const groups = groupSettings(stored, catalogue);
  assert.deepEqual(
    groups.map((g) => g.group),
    ['general', 'notifications', 'security', 'audit', 'transfer', 'other'],
  );
  assert.equal(groups.flatMap((g) => g.specs).length, Object.keys(stored).length);
  const specs = Object.fromEntries(groups.flatMap((g) => g.specs).map((s) => [s.key, s]));
  assert.equal(specs.timezone!.kind, 'timezone');
  assert.equal(specs.language!.kind, 'language');
  assert.equal(specs.audit_webhook_url!.kind, 'url');
  assert.equal(specs.audit_webhook_secret!.secret, true);
  assert.equal(specs.audit_webhook_secret!.kind, 'text');
  assert.equal(specs.mfa_enrollment_grace_days!.kind, 'integer');
  assert.equal(specs.mfa_enrollment_grace_days!.default, '7');
  assert.equal(specs.site_name!.description, "The installation's name.");
  assert.equal(specs.bandwidth_limit!.kind, 'rate');
  assert.equal(specs.bandwidth_limit!.notYet, 'not implemented; set bandwidthLimit on a node instead');
  assert.equal(specs.site_name!.notYet, undefined);
  // described but not grouped: under Other, still typed by the catalogue
  assert.deepEqual(
    groups.at(-1)!.specs.map((s) => [s.key, s.kind]),
    [
      ['future_flag', 'boolean'],
      ['future_limit', 'integer'],
    ],
  );
  assert.equal(specs.future_flag!.description, '');
});

test('without the catalogue, inputs are guessed from the values (a masked value is a secret)', () => {
  assert.deepEqual(specOf('x', 'true', []), {
    key: 'x',
    group: 'other',
    kind: 'boolean',
    secret: false,
    description: '',
  });
  assert.equal(specOf('audit_webhook_secret', SECRET_MASK, []).secret, true);
  assert.equal(specOf('audit_webhook_secret', SECRET_MASK, []).group, 'audit');
  assert.equal(specOf('site_name', 'Backplane', []).kind, 'text');
});

test('the patch holds only changes; a stored secret left empty is kept, cleared on request', () => {
  const values = formValues(stored, catalogue);
  assert.equal(values.audit_webhook_secret, '');
  assert.deepEqual(settingsPatch(stored, values, catalogue), {});
  assert.deepEqual(settingsPatch(stored, { ...values, site_name: ' Ops ', audit_retention_days: '30' }, catalogue), {
    site_name: 'Ops',
    audit_retention_days: '30',
  });
  assert.deepEqual(settingsPatch(stored, { ...values, audit_webhook_secret: 's3cret ' }, catalogue), {
    audit_webhook_secret: 's3cret ',
  });
  assert.deepEqual(settingsPatch(stored, values, catalogue, ['audit_webhook_secret']), { audit_webhook_secret: '' });
  // nothing stored: nothing to clear
  assert.deepEqual(
    settingsPatch({ ...stored, audit_webhook_secret: '' }, values, catalogue, ['audit_webhook_secret']),
    {},
  );
  // a catalogue secret that is not masked (empty) is still handled as a secret: typed text is sent untrimmed
  assert.deepEqual(
    settingsPatch({ ...stored, audit_webhook_secret: '' }, { ...values, audit_webhook_secret: ' k ' }, catalogue),
    { audit_webhook_secret: ' k ' },
  );
});

test("integer settings must be whole numbers (ranges are the server's); server details map to fields", () => {
  assert.deepEqual(
    settingErrors(
      { ...stored, mfa_enrollment_grace_days: '1.5', audit_retention_days: 'x', future_limit: '-1' },
      stored,
      catalogue,
    ),
    { mfa_enrollment_grace_days: 'integer', audit_retention_days: 'integer', future_limit: 'integer' },
  );
  assert.deepEqual(settingErrors({ ...stored, mfa_enrollment_grace_days: '91' }, stored, catalogue), {});
  assert.deepEqual(settingErrors(stored, stored, catalogue), {});
  assert.deepEqual(serverFieldErrors([{ key: 'timezone', message: 'must be an IANA time zone' }, { bogus: 1 }]), {
    timezone: 'must be an IANA time zone',
  });
  assert.deepEqual(serverFieldErrors(undefined), {});
});
