import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SECRET_MASK,
  fieldErrorsOf,
  fieldSpec,
  gibToQuota,
  quotaToGib,
  fieldSpecs,
  fieldOfIssuePath,
  humanise,
  initialValues,
  specsFromConfig,
  splitAdvanced,
  toConfig,
  validateValues,
} from '../../packages/console/src/features/targets/config-form.ts';
import { buildCatalogue, searchTypes } from '../../packages/console/src/features/targets/target-catalogue.ts';

const webdav = {
  name: 'webdav',
  options: [
    { key: 'path', label: 'Where inside the remote.', required: false, isPassword: false, advanced: false },
    {
      key: 'url',
      label: 'URL of http host to connect to.\n\nE.g. https://example.com.',
      required: true,
      isPassword: false,
      advanced: false,
      examples: ['https://example.com'],
    },
    { key: 'pass', label: 'Password.', required: false, isPassword: true, advanced: false },
    {
      key: 'pacer_min_sleep',
      label: 'Minimum time to sleep between API calls.',
      required: false,
      isPassword: false,
      default: '10ms',
      advanced: true,
    },
    { key: 'unix_socket', label: 'Unix socket.', required: false, isPassword: false, default: 'false', advanced: true },
  ],
};

test('humanise turns option names into labels', () => {
  assert.equal(humanise('access_key_id'), 'Access key id');
  assert.equal(humanise('basePath'), 'Base path');
  assert.equal(humanise('clientID'), 'Client id');
});

test('field specs: required first, kinds from the catalogue, help cut to its first paragraph', () => {
  const specs = fieldSpecs(webdav);
  assert.deepEqual(
    specs.map((s) => s.key),
    ['url', 'path', 'pass', 'pacer_min_sleep', 'unix_socket'],
  );
  const url = specs[0]!;
  assert.equal(url.help, 'URL of http host to connect to.');
  assert.equal(url.fullHelp, 'URL of http host to connect to.\n\nE.g. https://example.com.');
  assert.deepEqual(url.examples, ['https://example.com']);
  assert.equal(specs.find((s) => s.key === 'pass')!.kind, 'password');
  assert.equal(specs.find((s) => s.key === 'unix_socket')!.kind, 'boolean');
  assert.equal(specs.find((s) => s.key === 'pacer_min_sleep')!.defaultValue, '10ms');
  const { main, advanced } = splitAdvanced(specs);
  assert.deepEqual(
    main.map((s) => s.key),
    ['url', 'path', 'pass'],
  );
  assert.deepEqual(
    advanced.map((s) => s.key),
    ['pacer_min_sleep', 'unix_socket'],
  );
});

test('a required option is never hidden among the advanced ones', () => {
  assert.equal(
    fieldSpec('s3', { key: 'x', label: '', required: true, isPassword: false, advanced: true }).advanced,
    false,
  );
});

test('the generic rclone type edits its options map as JSON', () => {
  assert.equal(
    fieldSpec('rclone', { key: 'options', label: '', required: false, isPassword: true, advanced: false }).kind,
    'json',
  );
  assert.equal(
    fieldSpec('sftp', { key: 'options', label: '', required: false, isPassword: true, advanced: false }).kind,
    'password',
  );
});

test('new target: empty values, defaults left to the backend, switches at their default', () => {
  const specs = fieldSpecs(webdav);
  const values = initialValues(specs);
  assert.deepEqual(values, { url: '', path: '', pass: '', pacer_min_sleep: '', unix_socket: false });
  assert.deepEqual(toConfig(specs, { ...values, url: ' https://dav.example ', pass: ' s3cret ' }), {
    url: 'https://dav.example',
    pass: ' s3cret ',
  });
  assert.deepEqual(toConfig(specs, { ...values, url: 'u', unix_socket: true }), { url: 'u', unix_socket: true });
});

test('stored target: masked secrets start empty and are kept by leaving them out', () => {
  const specs = fieldSpecs(webdav);
  const stored = {
    url: 'https://dav.example',
    pass: SECRET_MASK,
    unix_socket: 'false',
    endpoint: 'https://dav.example',
  };
  const values = initialValues(specs, stored, ['pass']);
  assert.equal(values.pass, '');
  assert.equal(values.url, 'https://dav.example');
  assert.equal(values.unix_socket, false);
  const config = toConfig(specs, values, stored);
  assert.deepEqual(config, { url: 'https://dav.example', unix_socket: false });
  assert.ok(!('pass' in config), 'an unchanged secret is not sent');
  assert.ok(!('endpoint' in config), 'aliases the detail adds are not echoed back');
  assert.deepEqual(toConfig(specs, { ...values, pass: 'new' }, stored).pass, 'new');
  // The mask itself, pasted back, never overwrites the secret with eight stars.
  assert.ok(!('pass' in toConfig(specs, { ...values, pass: SECRET_MASK }, stored)));
});

test('validation: required fields, a stored secret counts as set, JSON must be an object', () => {
  const specs = fieldSpecs({
    name: 'google_drive',
    options: [
      {
        key: 'clientId',
        label: 'OAuth client ID.',
        required: true,
        isPassword: false,
        advanced: false,
        valueType: 'string',
      },
      {
        key: 'clientSecret',
        label: 'The OAuth client secret.',
        required: true,
        isPassword: true,
        advanced: false,
        valueType: 'string',
      },
      { key: 'folderId', label: 'Folder.', required: false, isPassword: false, advanced: false, valueType: 'string' },
    ],
  });
  const values = initialValues(specs);
  assert.deepEqual(validateValues(specs, values), { clientId: 'required', clientSecret: 'required' });
  assert.deepEqual(validateValues(specs, { ...values, clientId: 'id' }, ['clientSecret']), {});
  const generic = fieldSpecs({
    name: 'rclone',
    options: [{ key: 'options', label: '', required: false, isPassword: true, advanced: false }],
  });
  assert.deepEqual(validateValues(generic, { options: '[1]' }), { options: 'json' });
  assert.deepEqual(validateValues(generic, { options: '{"url":"x"}' }), {});
  assert.deepEqual(toConfig(generic, { options: '{"url":"x"}' }), { options: { url: 'x' } });
});

test('a stored target of a type the catalogue lacks is still editable', () => {
  const specs = specsFromConfig({ bucket: 'b', accessKeyId: SECRET_MASK, internalNetwork: true }, ['accessKeyId']);
  assert.deepEqual(
    specs.map((s) => [s.key, s.kind]),
    [
      ['bucket', 'text'],
      ['accessKeyId', 'password'],
      ['internalNetwork', 'boolean'],
    ],
  );
});

test('API issue paths name form fields', () => {
  assert.equal(fieldOfIssuePath('config/basePath'), 'basePath');
  assert.equal(fieldOfIssuePath('body/config/url'), 'url');
  assert.equal(fieldOfIssuePath('body/name'), undefined);
});

test('catalogue: plugin types first, rclone backends sorted, duplicates of plugin types dropped; search by words', () => {
  const plugin = (type: string, displayName: string, oauth = false) => ({
    type,
    displayName,
    description: `${displayName} type`,
    capabilities: { oauth },
    options: [],
  });
  const rclone = (type: string, description: string) => ({
    type,
    displayName: type,
    description,
    family: 'rclone',
    capabilities: { oauth: false },
    options: [],
  });
  const catalogue = buildCatalogue([
    rclone('sftp', 'SSH/SFTP (rclone backend "sftp")'),
    plugin('google_drive', 'Google Drive', true),
    rclone('s3', 'Amazon S3 Compliant Storage Providers'),
    plugin('local_disk', 'Local disk'),
  ]);
  assert.deepEqual(
    catalogue.map((t) => t.name),
    ['local_disk', 'google_drive', 's3', 'sftp'],
  );
  assert.deepEqual(
    catalogue.map((t) => t.family),
    ['plugin', 'plugin', 'rclone', 'rclone'],
  );
  assert.equal(catalogue[1]!.oauth, true);
  assert.equal(catalogue[1]!.displayName, 'Google Drive');
  assert.equal(catalogue[3]!.displayName, 'SSH/SFTP');
  assert.deepEqual(
    searchTypes(catalogue, 'amazon s3').map((t) => t.name),
    ['s3'],
  );
  assert.deepEqual(searchTypes(catalogue, '  ').length, 4);
  assert.deepEqual(
    searchTypes(catalogue, 'GOOGLE').map((t) => t.name),
    ['google_drive'],
  );
});

test('API details become field errors; quota converts between GiB and bytes', () => {
  assert.deepEqual(
    fieldErrorsOf([
      { path: 'config/basePath', message: 'is required' },
      { path: 'config/basePath', message: 'must be absolute' },
      { path: 'body/name', message: 'x' },
      'junk',
    ]),
    { basePath: 'is required; must be absolute' },
  );
  assert.deepEqual(fieldErrorsOf(undefined), {});
  assert.equal(gibToQuota(1.5), 1610612736);
  assert.equal(gibToQuota(-1), 0);
  assert.equal(gibToQuota(Number.NaN), 0);
  assert.equal(quotaToGib(1610612736), 1.5);
});

test('value types the plugin declares: switches, JSON objects and numbers sent as numbers', () => {
  const specs = fieldSpecs({
    name: 'example',
    options: [
      { key: 'port', label: '', required: false, isPassword: false, advanced: false, valueType: 'integer' },
      { key: 'tls', label: '', required: false, isPassword: false, advanced: false, valueType: 'boolean' },
      { key: 'headers', label: '', required: false, isPassword: false, advanced: false, valueType: 'object' },
      { key: 'host', label: '', required: true, isPassword: false, advanced: false, valueType: 'string' },
    ],
  });
  assert.deepEqual(
    specs.map((s) => [s.key, s.kind]),
    [
      ['host', 'text'],
      ['port', 'text'],
      ['tls', 'boolean'],
      ['headers', 'json'],
    ],
  );
  assert.deepEqual(toConfig(specs, { host: 'h', port: '2222', tls: true, headers: '{"a":"b"}' }), {
    host: 'h',
    port: 2222,
    tls: true,
    headers: { a: 'b' },
  });
  assert.equal(
    toConfig(specs, { host: 'h', port: 'abc', tls: false, headers: '' }).port,
    'abc',
    'a non-number is left for the server to refuse by field',
  );
});
