import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD_MASK, TEMPLATE_FIELDS, applies, newTemplateValues, payloadFromValues, valuesFromPayload } from '../../packages/console/src/features/templates/template-fields.ts';
import { EMPTY_ROW, createdTaskPath, variablesOf } from '../../packages/console/src/features/templates/apply-variables.ts';

// A template detail's payload as GET /api/task-templates/{id} answers it (template-payload-view.ts): every field, legacy forms included.
const view = {
  type: 'postgresql', enabled: true, cronExpr: '0 3 * * *', sourcePath: '', sourcePaths: [], excludePatterns: [],
  dbHost: 'db', dbPort: 5432, dbUser: 'backup', dbPassword: PASSWORD_MASK, dbName: 'app', dbPath: '',
  storageTargetIds: [2, 5], storageTargetId: 2, nodeId: 0, nodeLabel: '', nodePoolTag: '', tags: 'prod,db',
  retentionDays: 30, maxBackups: 10, keepDaily: 7, keepWeekly: 0, keepMonthly: 0, keepYearly: 0, compression: 'zstd', encrypt: true,
  slaHoursRpo: 0, rtoMinutes: 0, timeoutMinutes: 0, alertOnConsecutiveFails: 1, verifyEnabled: false, verifyCronExpr: '', verifyMode: 'quick',
  maintenanceWindows: '', dependsOnTaskIds: [], replicationTargetIds: [], backupMode: 'full', diffFullIntervalDays: 7,
};

test('a stored payload round-trips without its legacy forms and without the masked password', () => {
  const values = valuesFromPayload(view);
  assert.equal(values.dbPassword, '');
  assert.deepEqual(values.tags, ['prod', 'db']);
  assert.deepEqual(values.storageTargetIds, ['2', '5']);
  assert.equal(values.nodeId, '');
  const { payload, errors } = payloadFromValues(values);
  assert.deepEqual(errors, {});
  for (const legacy of ['sourcePath', 'storageTargetId', 'nodePoolTag', 'backupMode', 'extraConfig', 'dbPassword']) assert.equal(legacy in payload, false, legacy);
  // file-only fields do not go with a database type
  assert.equal('sourcePaths' in payload, false);
  assert.deepEqual(payload.storageTargetIds, [2, 5]);
  assert.deepEqual(payload.tags, ['prod', 'db']);
  assert.equal(payload.dbPort, 5432);
  assert.equal(payload.nodeId, 0);
  assert.equal(payload.cronExpr, '0 3 * * *');
});

test('a new template sends what was set; unset numbers get the server defaults', () => {
  const values = { ...newTemplateValues(), sourcePaths: ['/srv'], retentionDays: '14' };
  const { payload, errors } = payloadFromValues(values);
  assert.deepEqual(errors, {});
  assert.equal(payload.type, 'file');
  assert.equal(payload.retentionDays, 14);
  assert.equal('maxBackups' in payload, false);
  assert.equal('dbHost' in payload, false);
  assert.deepEqual(payload.sourcePaths, ['/srv']);
  assert.equal(payload.enabled, true);
});

test('a new password is sent; numbers are checked', () => {
  const values = { ...valuesFromPayload(view), dbPassword: 'n3w', dbPort: '70000', keepDaily: '1.5', type: '' };
  const { payload, errors } = payloadFromValues(values);
  assert.deepEqual(errors, { type: 'required', dbPort: 'range', keepDaily: 'integer' });
  assert.equal(payload.dbPassword, 'n3w');
});

test('every field is unique and file/database fields apply by type', () => {
  const keys = TEMPLATE_FIELDS.map((f) => f.key);
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(applies({ only: 'file' }, 'file'), true);
  assert.equal(applies({ only: 'database' }, 'file'), false);
  assert.equal(applies({ only: 'database' }, 'mysql'), true);
  assert.equal(applies({}, 'mysql'), true);
});

test('apply: one variables item per row, blanks keep the template\'s values, names required', () => {
  const { variables, missingNames } = variablesOf([
    { ...EMPTY_ROW, name: ' web-1 ', sourcePaths: ['/srv/a', ' '], tags: ['x'], nodeId: '3' },
    { ...EMPTY_ROW, name: '', dbHost: ' h ' },
  ]);
  assert.deepEqual(variables, [{ name: 'web-1', sourcePaths: ['/srv/a'], tags: ['x'], nodeId: 3 }, { name: '', dbHost: 'h' }]);
  assert.deepEqual(missingNames, [1]);
  assert.equal(createdTaskPath([{ success: true, taskId: 9 }]), '/tasks/9');
  assert.equal(createdTaskPath([{ success: true, taskId: 9 }, { success: true, taskId: 10 }]), null);
  assert.equal(createdTaskPath([{ success: false }]), null);
});
