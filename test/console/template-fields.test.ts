import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PASSWORD_MASK,
  TEMPLATE_FIELDS,
  applies,
  newTemplateValues,
  payloadFromValues,
  valuesFromPayload,
} from '../../packages/console/src/features/templates/template-fields.ts';
import {
  EMPTY_ROW,
  createdTaskPath,
  variablesOf,
} from '../../packages/console/src/features/templates/apply-variables.ts';
import type { DriverInfo } from '../../packages/console/src/features/tasks/task-form-model.ts';

// What GET /api/database/types answers for the shipped drivers (test/console/task-form-model.test.ts checks the same list against the server).
const DRIVERS: DriverInfo[] = [
  {
    type: 'mysql',
    aliases: ['mysql'],
    databaseNames: 'required',
    taskFields: ['dbHost', 'dbPort', 'dbUser', 'dbPassword'],
    defaults: { dbPort: 3306 },
  },
  {
    type: 'postgresql',
    aliases: ['postgresql', 'pgsql'],
    databaseNames: 'required',
    taskFields: ['dbHost', 'dbPort', 'dbUser', 'dbPassword'],
    defaults: { dbPort: 5432 },
  },
  { type: 'sqlite', aliases: ['sqlite'], databaseNames: 'none', taskFields: ['dbPath'], defaults: {} },
];
const shown = (type: string, drivers: readonly DriverInfo[] = DRIVERS) =>
  TEMPLATE_FIELDS.filter((f) => f.section === 'database' && applies(f, type, drivers)).map((f) => f.key);

// A template detail's payload as GET /api/task-templates/{id} answers it (template-payload-view.ts): every field, legacy forms included.
const view = {
  type: 'postgresql',
  enabled: true,
  cronExpr: '0 3 * * *',
  sourcePath: '',
  sourcePaths: [],
  excludePatterns: [],
  dbHost: 'db',
  dbPort: 5432,
  dbUser: 'backup',
  dbPassword: PASSWORD_MASK,
  dbName: 'app',
  dbPath: '',
  storageTargetIds: [2, 5],
  storageTargetId: 2,
  nodeId: 0,
  nodeLabel: '',
  nodePoolTag: '',
  tags: 'prod,db',
  retentionDays: 30,
  maxBackups: 10,
  keepDaily: 7,
  keepWeekly: 0,
  keepMonthly: 0,
  keepYearly: 0,
  compression: 'zstd',
  encrypt: true,
  slaHoursRpo: 0,
  rtoMinutes: 0,
  timeoutMinutes: 0,
  alertOnConsecutiveFails: 1,
  verifyEnabled: false,
  verifyCronExpr: '',
  verifyMode: 'quick',
  maintenanceWindows: '',
  dependsOnTaskIds: [],
  replicationTargetIds: [],
  backupMode: 'full',
  diffFullIntervalDays: 7,
};

test('a stored payload round-trips without its legacy forms and without the masked password', () => {
  const values = valuesFromPayload(view);
  assert.equal(values.dbPassword, '');
  assert.deepEqual(values.tags, ['prod', 'db']);
  assert.deepEqual(values.storageTargetIds, ['2', '5']);
  assert.equal(values.nodeId, '');
  const { payload, errors } = payloadFromValues(values, DRIVERS);
  assert.deepEqual(errors, {});
  for (const legacy of ['sourcePath', 'storageTargetId', 'nodePoolTag', 'backupMode', 'extraConfig', 'dbPassword'])
    assert.equal(legacy in payload, false, legacy);
  // file-only fields do not go with a database type
  assert.equal('sourcePaths' in payload, false);
  // nor a database field the driver does not read
  assert.equal('dbPath' in payload, false);
  assert.equal(payload.dbName, 'app');
  assert.deepEqual(payload.storageTargetIds, [2, 5]);
  assert.deepEqual(payload.tags, ['prod', 'db']);
  assert.equal(payload.dbPort, 5432);
  assert.equal(payload.nodeId, 0);
  assert.equal(payload.cronExpr, '0 3 * * *');
});

test('a new template sends what was set; unset numbers get the server defaults', () => {
  const values = { ...newTemplateValues(), sourcePaths: ['/srv'], retentionDays: '14' };
  const { payload, errors } = payloadFromValues(values, DRIVERS);
  assert.deepEqual(errors, {});
  assert.equal(payload.type, 'file');
  assert.equal(payload.retentionDays, 14);
  assert.equal('maxBackups' in payload, false);
  assert.equal('dbHost' in payload, false);
  assert.deepEqual(payload.sourcePaths, ['/srv']);
  assert.equal(payload.enabled, true);
});

test('a new password is sent; numbers are checked', () => {
  const values = { ...valuesFromPayload(view), dbPassword: 'n3w', dbPort: '70000', keepDaily: '1.5' };
  const { payload, errors } = payloadFromValues(values, DRIVERS);
  assert.deepEqual(errors, { dbPort: 'range', keepDaily: 'integer' });
  assert.equal(payload.dbPassword, 'n3w');
  assert.deepEqual(payloadFromValues({ ...values, type: '' }, DRIVERS).errors.type, 'required');
});

test('every field is unique; file fields for file tasks, database fields as the driver reads them', () => {
  const keys = TEMPLATE_FIELDS.map((f) => f.key);
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(applies({ key: 'sourcePaths', only: 'file' }, 'file', DRIVERS), true);
  assert.equal(applies({ key: 'sourcePaths', only: 'file' }, 'mysql', DRIVERS), false);
  assert.equal(applies({ key: 'dbHost', only: 'database' }, 'file', DRIVERS), false);
  assert.equal(applies({ key: 'tags' }, 'mysql', DRIVERS), true);
  assert.deepEqual(shown('postgresql'), ['dbHost', 'dbPort', 'dbUser', 'dbPassword', 'dbName']);
  assert.deepEqual(shown('pgsql'), ['dbHost', 'dbPort', 'dbUser', 'dbPassword', 'dbName']);
  assert.deepEqual(shown('sqlite'), ['dbPath']);
  assert.deepEqual(shown('file'), []);
  // a driver the master does not list (or before the list arrives): every database field, so nothing stored is hidden
  assert.deepEqual(shown('oracle'), ['dbHost', 'dbPort', 'dbUser', 'dbPassword', 'dbName', 'dbPath']);
  assert.deepEqual(shown('sqlite', []), ['dbHost', 'dbPort', 'dbUser', 'dbPassword', 'dbName', 'dbPath']);
});

test("a sqlite template sends its file and none of a server's fields", () => {
  const values = {
    ...newTemplateValues(),
    type: 'sqlite',
    dbPath: ' /var/lib/app.db ',
    dbHost: 'stale',
    dbName: 'stale',
    dbPort: '5432',
  };
  const { payload, errors } = payloadFromValues(values, DRIVERS);
  assert.deepEqual(errors, {});
  assert.equal(payload.dbPath, '/var/lib/app.db');
  for (const key of ['dbHost', 'dbPort', 'dbUser', 'dbPassword', 'dbName', 'sourcePaths'])
    assert.equal(key in payload, false, key);
});

test("apply: one variables item per row, blanks keep the template's values, names required", () => {
  const { variables, missingNames } = variablesOf([
    { ...EMPTY_ROW, name: ' web-1 ', sourcePaths: ['/srv/a', ' '], tags: ['x'], nodeId: '3' },
    { ...EMPTY_ROW, name: '', dbHost: ' h ' },
  ]);
  assert.deepEqual(variables, [
    { name: 'web-1', sourcePaths: ['/srv/a'], tags: ['x'], nodeId: 3 },
    { name: '', dbHost: 'h' },
  ]);
  assert.deepEqual(missingNames, [1]);
  assert.equal(createdTaskPath([{ success: true, taskId: 9 }]), '/tasks/9');
  assert.equal(
    createdTaskPath([
      { success: true, taskId: 9 },
      { success: true, taskId: 10 },
    ]),
    null,
  );
  assert.equal(createdTaskPath([{ success: false }]), null);
});
