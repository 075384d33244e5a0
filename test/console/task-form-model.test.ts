import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  COVERED_ELSEWHERE,
  defaultPort,
  emptyTaskForm,
  fieldErrors,
  formFromTask,
  sourceKind,
  taskInputFromForm,
  type DriverInfo,
} from '../../packages/console/src/features/tasks/task-form-model.ts';
import { build, call, setupAdmin } from '../helpers/build.ts';

// What GET /api/database/types answers for the shipped drivers (the first test checks it against the server).
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

test('the driver fixture is what the server describes', async (t) => {
  const { app } = await build(t);
  const res = await call(app, 'GET', '/api/database/types', { token: await setupAdmin(app) });
  const served = (res.json.data as DriverInfo[]).map(({ type, aliases, databaseNames, taskFields, defaults }) => ({
    type,
    aliases,
    databaseNames,
    taskFields,
    defaults,
  }));
  assert.deepEqual(served, DRIVERS);
});

// TaskInput's properties (core/features/backup-tasks/backup-task-schemas.ts): every one reachable.
const TASK_INPUT_FIELDS = [
  'name',
  'type',
  'enabled',
  'cronExpr',
  'sourcePath',
  'sourcePaths',
  'excludePatterns',
  'dbHost',
  'dbPort',
  'dbUser',
  'dbPassword',
  'dbName',
  'dbPath',
  'storageTargetIds',
  'storageTargetId',
  'nodeId',
  'nodeLabel',
  'nodePoolTag',
  'tags',
  'retentionDays',
  'maxBackups',
  'keepDaily',
  'keepWeekly',
  'keepMonthly',
  'keepYearly',
  'compression',
  'encrypt',
  'slaHoursRpo',
  'rtoMinutes',
  'timeoutMinutes',
  'alertOnConsecutiveFails',
  'verifyEnabled',
  'verifyCronExpr',
  'verifyMode',
  'maintenanceWindows',
  'dependsOnTaskIds',
  'replicationTargetIds',
  'backupMode',
  'diffFullIntervalDays',
  'extraConfig',
];

test('every TaskInput field is a form value or covered by another', async () => {
  const { TaskInput } = await import('../../core/features/backup-tasks/backup-task-schemas.ts');
  assert.deepEqual(Object.keys(TaskInput.properties).sort(), [...TASK_INPUT_FIELDS].sort());
  const form = new Set(Object.keys(emptyTaskForm()));
  const missing = TASK_INPUT_FIELDS.filter((f) => !form.has(f) && !(f in COVERED_ELSEWHERE));
  assert.deepEqual(missing, []);
});

test('a file task sends its paths and no database fields; the password only when typed', () => {
  const v = {
    ...emptyTaskForm(),
    name: ' docs ',
    sourcePaths: ['/srv', ' '],
    storageTargetIds: ['2'],
    tags: ['a', ''],
    dbHost: 'stale',
    dbPassword: 'x',
  };
  const body = taskInputFromForm(v, DRIVERS);
  assert.equal(body.name, 'docs');
  assert.deepEqual(body.sourcePaths, ['/srv']);
  assert.deepEqual(body.storageTargetIds, [2]);
  assert.deepEqual(body.tags, ['a']);
  assert.equal(body.dbHost, '');
  assert.equal('dbPassword' in body, false);
  const pg = taskInputFromForm(
    { ...v, type: 'postgresql', dbHost: 'db', dbPort: 5432, dbUser: 'u', dbNames: ['a', 'b'] },
    DRIVERS,
  );
  assert.deepEqual([pg.dbHost, pg.dbPort, pg.dbName, pg.dbPassword, pg.sourcePaths], ['db', 5432, 'a,b', 'x', []]);
  assert.equal(taskInputFromForm({ ...v, type: 'postgresql' }, DRIVERS).dbPassword, 'x');
  assert.equal('dbPassword' in taskInputFromForm({ ...v, type: 'postgresql', dbPassword: '' }, DRIVERS), false);
});

test('placement: master, one node or a label pool', () => {
  const v = { ...emptyTaskForm(), nodeId: '4', nodeLabel: 'eu' };
  assert.deepEqual([taskInputFromForm(v, DRIVERS).nodeId, taskInputFromForm(v, DRIVERS).nodeLabel], [0, '']);
  assert.deepEqual(
    [
      taskInputFromForm({ ...v, placement: 'node' }, DRIVERS).nodeId,
      taskInputFromForm({ ...v, placement: 'node' }, DRIVERS).nodeLabel,
    ],
    [4, ''],
  );
  assert.deepEqual(
    [
      taskInputFromForm({ ...v, placement: 'pool' }, DRIVERS).nodeId,
      taskInputFromForm({ ...v, placement: 'pool' }, DRIVERS).nodeLabel,
    ],
    [0, 'eu'],
  );
});

test('a stored task round-trips through the form', () => {
  const body = taskInputFromForm(
    {
      ...emptyTaskForm(),
      name: 'n',
      type: 'mysql',
      dbHost: 'h',
      dbPort: 3306,
      dbUser: 'u',
      dbNames: ['x'],
      storageTargetIds: ['1'],
      placement: 'pool',
      nodeLabel: 'eu',
      tags: ['t1', 't2'],
      dependsOnTaskIds: ['3'],
    },
    DRIVERS,
  );
  const back = formFromTask({ ...body, tags: body.tags.join(','), nodeId: 0 });
  assert.deepEqual(taskInputFromForm(back, DRIVERS), body);
  assert.equal(sourceKind('sqlite', DRIVERS), 'path');
  assert.equal(sourceKind('pgsql', DRIVERS), 'server', 'an alias finds its driver');
  assert.equal(sourceKind('some-plugin-db', DRIVERS), 'server');
  assert.equal(sourceKind('file', []), 'file');
  assert.equal(defaultPort('pgsql', DRIVERS), 5432);
  assert.equal(defaultPort('sqlite', DRIVERS), undefined);
});

test('server details map to fields; unknown paths are kept apart', () => {
  const { byField, rest } = fieldErrors([
    { path: 'body/name', message: 'must NOT have fewer than 1 characters' },
    { path: 'sourcePaths/1', message: 'must be an absolute path' },
    { path: 'nodePoolTag', message: 'differs' },
    { path: 'dbName', message: 'is required' },
    { path: 'weird', message: 'x' },
  ]);
  assert.equal(byField.name, 'must NOT have fewer than 1 characters');
  assert.equal(byField.sourcePaths, 'must be an absolute path (#2)');
  assert.equal(byField.nodeLabel, 'differs');
  assert.equal(byField.dbNames, 'is required');
  assert.deepEqual(rest, ['weird: x']);
  assert.deepEqual(fieldErrors(undefined), { byField: {}, rest: [] });
});
