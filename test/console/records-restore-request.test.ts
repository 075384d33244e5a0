import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restoreRequest, type RestoreChoices } from '../../packages/console/src/features/records/restore-request.ts';

const base: RestoreChoices = { destination: 'original', targetPath: '', targetDatabase: '', databases: [] };
const file = { kind: 'file' as const, severalDatabases: false };

test('a whole file restore to the original place sends an empty body', () => {
  assert.deepEqual(restoreRequest(file, base, []), { body: {} });
});

test('a selection into another folder sends targetPath and selectedPaths', () => {
  assert.deepEqual(
    restoreRequest(file, { ...base, destination: 'folder', targetPath: ' /tmp/restore/ ' }, ['srv/app/a']),
    { body: { targetPath: '/tmp/restore', selectedPaths: ['srv/app/a'] } },
  );
  assert.deepEqual(restoreRequest(file, { ...base, destination: 'folder', targetPath: '/' }, []), {
    body: { targetPath: '/' },
  });
});

test('another folder must be given and absolute; at most 1000 paths', () => {
  assert.deepEqual(restoreRequest(file, { ...base, destination: 'folder' }, []), { problem: 'targetPathRequired' });
  assert.deepEqual(restoreRequest(file, { ...base, destination: 'folder', targetPath: 'tmp/x' }, []), {
    problem: 'targetPathNotAbsolute',
  });
  assert.deepEqual(
    restoreRequest(
      file,
      base,
      Array.from({ length: 1001 }, (_, i) => `f${i}`),
    ),
    { problem: 'tooManyPaths' },
  );
});

test('database restores: the task database, another one, chosen databases', () => {
  const one = { kind: 'database' as const, severalDatabases: false };
  assert.deepEqual(restoreRequest(one, { ...base, targetPath: '/ignored' }, ['ignored']), { body: {} });
  assert.deepEqual(restoreRequest(one, { ...base, targetDatabase: ' shop_copy ' }, []), {
    body: { targetDatabase: 'shop_copy' },
  });
  const several = { kind: 'database' as const, severalDatabases: true, databaseCount: 3 };
  assert.deepEqual(restoreRequest(several, { ...base, databases: ['shop', 'crm'] }, []), {
    body: { databases: ['shop', 'crm'] },
  });
  assert.deepEqual(restoreRequest(several, { ...base, databases: ['shop', 'crm', 'hr'] }, []), { body: {} });
  assert.deepEqual(restoreRequest(several, { ...base, databases: ['shop', 'crm'], targetDatabase: 'x' }, []), {
    problem: 'oneDatabaseForTarget',
  });
  assert.deepEqual(
    restoreRequest({ ...several, databaseCount: 1 }, { ...base, databases: ['shop'], targetDatabase: 'x' }, []),
    { body: { targetDatabase: 'x', databases: ['shop'] } },
  );
});
