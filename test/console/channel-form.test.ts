import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SECRET_MASK,
  configFromValues,
  humanise,
  initialValues,
  inputSpecs,
  specsFromConfig,
  type CatalogueType,
} from '../../packages/console/src/features/notifications/channel-form.ts';
import {
  NEW_CHANNEL,
  commonBody,
  commonOf,
  effectiveEvents,
  eventTypeOptions,
  unknownEventTypes,
  validateCommon,
} from '../../packages/console/src/features/notifications/channel-settings.ts';

// The shape GET /api/notifications/types answers, trimmed to the email and telegram types' fields.
const email: CatalogueType = {
  type: 'email',
  configSchema: {
    type: 'object',
    properties: {
      host: { type: 'string', description: 'SMTP server host name or address.' },
      port: {
        anyOf: [
          { type: 'integer', minimum: 1, maximum: 65535 },
          { type: 'string', pattern: '^[0-9]{1,5}$' },
        ],
      },
      password: { type: 'string' },
      security: { type: 'string', enum: ['auto', 'tls', 'starttls', 'none'], default: 'auto' },
      rejectUnauthorized: { type: 'boolean', default: true },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['host', 'port'],
  },
  secretFields: ['password'],
  options: [
    {
      key: 'security',
      label: 'auto: implicit TLS on 465',
      required: false,
      isPassword: false,
      default: 'auto',
      advanced: false,
    },
    { key: 'host', label: 'SMTP server host name or address.', required: true, isPassword: false, advanced: false },
    { key: 'port', label: 'SMTP port', required: true, isPassword: false, advanced: false },
    { key: 'password', label: 'Password', required: false, isPassword: true, advanced: false },
    {
      key: 'rejectUnauthorized',
      label: 'Refuse bad certificates',
      required: false,
      isPassword: false,
      default: 'true',
      advanced: false,
    },
    { key: 'headers', label: 'Extra headers', required: false, isPassword: false, advanced: true },
  ],
};

test('each catalogue field becomes the input its schema asks for, required ones first', () => {
  const specs = inputSpecs(email);
  assert.deepEqual(
    specs.map((s) => [s.key, s.kind]),
    [
      ['host', 'text'],
      ['port', 'integer'],
      ['security', 'select'],
      ['password', 'password'],
      ['rejectUnauthorized', 'boolean'],
      ['headers', 'json'],
    ],
  );
  const port = specs.find((s) => s.key === 'port')!;
  assert.equal(port.min, 1);
  assert.equal(port.max, 65535);
  const security = specs.find((s) => s.key === 'security')!;
  assert.deepEqual(security.choices, ['auto', 'tls', 'starttls', 'none']);
  assert.equal(security.defaultValue, 'auto');
  assert.equal(specs.find((s) => s.key === 'host')!.help, 'SMTP server host name or address.');
  assert.equal(specs.find((s) => s.key === 'headers')!.advanced, true);
  assert.equal(humanise('rejectUnauthorized'), 'Reject unauthorized');
});

test('a string-first alternative stays text (telegram chatId: "@channel" or a number)', () => {
  const specs = inputSpecs({
    type: 'telegram',
    secretFields: ['botToken'],
    configSchema: {
      properties: { chatId: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, botToken: { type: 'string' } },
    },
    options: [
      { key: 'chatId', label: '', required: true, isPassword: false, advanced: false },
      { key: 'botToken', label: '', required: true, isPassword: false, advanced: false },
    ],
  });
  assert.equal(specs[0]!.kind, 'text');
  // secretFields marks a secret even when the option does not say isPassword
  assert.equal(specs[1]!.kind, 'password');
  assert.equal(specs[1]!.secret, true);
});

test('new channel: switches and selects start at their defaults, the rest empty', () => {
  const v = initialValues(inputSpecs(email));
  assert.deepEqual(v, { host: '', port: '', security: 'auto', password: '', rejectUnauthorized: true, headers: '' });
});

test('stored channel: its values, a masked secret empty, objects as JSON', () => {
  const v = initialValues(
    inputSpecs(email),
    { host: 'smtp', port: 587, password: SECRET_MASK, rejectUnauthorized: false, headers: { a: 'b' } },
    ['password'],
  );
  assert.equal(v.host, 'smtp');
  assert.equal(v.port, 587);
  assert.equal(v.password, '');
  assert.equal(v.rejectUnauthorized, false);
  assert.deepEqual(JSON.parse(String(v.headers)), { a: 'b' });
});

test('values become a typed config: numbers, booleans, JSON; empties left out', () => {
  const specs = inputSpecs(email);
  const { config, errors } = configFromValues(specs, {
    host: ' smtp.example.org ',
    port: '587',
    security: 'starttls',
    password: ' p w ',
    rejectUnauthorized: false,
    headers: '{"X-A":"1"}',
  });
  assert.deepEqual(errors, {});
  assert.deepEqual(config, {
    host: 'smtp.example.org',
    port: 587,
    security: 'starttls',
    password: ' p w ',
    rejectUnauthorized: false,
    headers: { 'X-A': '1' },
  });
  const empty = configFromValues(specs, {
    host: 'h',
    port: 25,
    security: 'auto',
    password: '',
    rejectUnauthorized: true,
    headers: '',
  });
  assert.deepEqual(empty.config, { host: 'h', port: 25, security: 'auto', rejectUnauthorized: true });
});

test('errors name the field: required, not an integer, out of range, bad JSON', () => {
  const specs = inputSpecs(email);
  assert.deepEqual(configFromValues(specs, { host: '', port: '1.5', headers: '{' }).errors, {
    host: 'required',
    port: 'integer',
    headers: 'json',
  });
  assert.deepEqual(configFromValues(specs, { host: 'h', port: 70000, headers: '[1]' }).errors, {
    port: 'range',
    headers: 'json',
  });
});

test('a stored secret left empty is left out (the server keeps it) and is not missing when required', () => {
  const specs = inputSpecs({
    ...email,
    options: email.options.map((o) => (o.key === 'password' ? { ...o, required: true } : o)),
  });
  const kept = configFromValues(specs, { host: 'h', port: 25, password: '' }, ['password']);
  assert.deepEqual(kept.errors, {});
  assert.equal('password' in kept.config, false);
  assert.equal(configFromValues(specs, { host: 'h', port: 25, password: '' }).errors.password, 'required');
  assert.equal(configFromValues(specs, { host: 'h', port: 25, password: 'new' }, ['password']).config.password, 'new');
});

test('a type no longer installed: one input per stored key, nothing dropped', () => {
  const specs = specsFromConfig({ url: 'https://x', secret: SECRET_MASK, on: true, headers: { a: 'b' } }, ['secret']);
  assert.deepEqual(
    specs.map((s) => [s.key, s.kind]),
    [
      ['url', 'text'],
      ['secret', 'password'],
      ['on', 'boolean'],
      ['headers', 'json'],
    ],
  );
});

test('common settings: defaults, stored values, body and who receives what', () => {
  assert.deepEqual(validateCommon(NEW_CHANNEL), { name: 'required' });
  const c = commonOf({
    name: 'ops',
    enabled: true,
    onSuccess: true,
    onFailure: true,
    eventTypes: [],
    digest: 'off',
    digestTime: '',
  });
  assert.equal(c.digest, '');
  assert.equal(c.digestTime, '08:00');
  assert.deepEqual(effectiveEvents(c), ['backup_success', 'backup_failed', 'backup_partial']);
  assert.deepEqual(effectiveEvents({ ...c, eventTypes: ['node_offline', 'node_offline'] }), ['node_offline']);
  assert.deepEqual(validateCommon({ ...c, digestTime: '24:00' }), { digestTime: 'time' });
  assert.deepEqual(commonBody({ ...c, name: ' ops ', eventTypes: ['a', ' a', ''] }), {
    name: 'ops',
    enabled: true,
    onSuccess: true,
    onFailure: true,
    eventTypes: ['a'],
    digest: '',
    digestTime: '08:00',
  });
});

// The shape GET /api/notifications/event-types answers, trimmed.
const eventCatalogue = [
  { type: 'backup_success', description: 'A backup finished successfully.' },
  { type: 'backup_failed', description: 'A backup failed.' },
  { type: 'node_offline', description: 'A node stopped answering.' },
];

test("event type picker: the server's types in its order with their descriptions, then selected ones it lacks", () => {
  const options = eventTypeOptions(eventCatalogue, ['node_offline', 'backup_exploded', 'backup_exploded']);
  assert.deepEqual(
    options.map((o) => [o.value, o.unknown]),
    [
      ['backup_success', false],
      ['backup_failed', false],
      ['node_offline', false],
      ['backup_exploded', true],
    ],
  );
  assert.equal(options[1]!.description, 'A backup failed.');
  assert.equal(options[3]!.description, '');
  assert.deepEqual(unknownEventTypes(eventCatalogue, ['node_offline', 'backup_exploded']), ['backup_exploded']);
  assert.deepEqual(unknownEventTypes(eventCatalogue, []), []);
  // before the catalogue arrives, a stored channel's types still show (and can be removed)
  assert.deepEqual(
    eventTypeOptions([], ['backup_failed']).map((o) => o.value),
    ['backup_failed'],
  );
});
