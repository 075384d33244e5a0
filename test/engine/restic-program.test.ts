import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  findRestic,
  parseResticVersion,
  Restic,
  RESTIC_MINIMUM_VERSION,
  versionAtLeast,
} from '../../core/engine/index.ts';
import { tempDir } from './helpers.ts';

test('version lines and comparisons', () => {
  assert.equal(parseResticVersion('restic 0.14.0 compiled with go1.19.8 on linux/amd64\n'), '0.14.0');
  assert.equal(parseResticVersion('restic 0.16.4-dev (compiled manually) compiled with go1.22'), '0.16.4');
  assert.equal(parseResticVersion('rustic 1.0.0'), undefined);
  assert.equal(versionAtLeast('0.14.0', RESTIC_MINIMUM_VERSION), true);
  assert.equal(versionAtLeast('0.17.3', RESTIC_MINIMUM_VERSION), true);
  assert.equal(versionAtLeast('1.0.0', RESTIC_MINIMUM_VERSION), true);
  assert.equal(versionAtLeast('0.13.9', RESTIC_MINIMUM_VERSION), false);
  assert.equal(versionAtLeast('0.9.6', RESTIC_MINIMUM_VERSION), false);
});

test('the installed restic is found on PATH and is new enough', async () => {
  const program = await findRestic({ PATH: process.env.PATH });
  assert.equal(program.command, 'restic');
  assert.ok(versionAtLeast(program.version, RESTIC_MINIMUM_VERSION), program.version);
});

test('a restic too old, missing or speaking another language is one clear error naming what to install', async () => {
  const { dir, cleanup } = await tempDir('bp-restic-');
  try {
    const old = join(dir, 'old-restic');
    await writeFile(old, '#!/bin/sh\necho "restic 0.12.1 compiled with go1.16.6 on linux/amd64"\n', { mode: 0o755 });
    await assert.rejects(
      findRestic({ BACKPLANE_RESTIC_BINARY: old, PATH: process.env.PATH }),
      new Error(
        `restic 0.14 or newer is required (found 0.12.1 at ${old}): apt-get install restic (Debian 12 and later), ` +
          'or a release from https://github.com/restic/restic/releases named by BACKPLANE_RESTIC_BINARY',
      ),
    );
    await assert.rejects(
      findRestic({ BACKPLANE_RESTIC_BINARY: join(dir, 'nothing'), PATH: process.env.PATH }),
      /^Error: restic 0\.14 or newer is required \(.*nothing was not found\): apt-get install restic/,
    );
    await assert.rejects(findRestic({ PATH: dir }), /\(restic was not found\): apt-get install restic/);
    const odd = join(dir, 'odd-restic');
    await writeFile(odd, '#!/bin/sh\necho "something else"\n', { mode: 0o755 });
    await assert.rejects(findRestic({ BACKPLANE_RESTIC_BINARY: odd }), /version printed "something else\\n"/);

    // an operation meets the same error before it runs anything
    process.env.BACKPLANE_RESTIC_BINARY = old;
    try {
      await assert.rejects(new Restic({ repository: join(dir, 'repo'), password: 'p' }).snapshots(), /found 0\.12\.1/);
    } finally {
      delete process.env.BACKPLANE_RESTIC_BINARY;
    }
  } finally {
    await cleanup();
  }
});
