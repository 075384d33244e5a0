import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { Ajv } from 'ajv';
import { runStorageContract } from '@backplane/plugin-testkit';
import { GoogleStandIn, FOLDER_MIME } from '../helpers/google-stand-in.ts';
import {
  ProviderError,
  type ProviderDeps,
  type StorageInstance,
  type StorageType,
  isPlugin,
  type ExtensionPoints,
} from '@backplane/plugin-api';
import googleDrivePlugin from '../../plugins/storage-google-drive/index.ts';
import {
  createGoogleDriveType,
  type GoogleDriveTypeOptions,
} from '../../plugins/storage-google-drive/google-drive-type.ts';

const MiB = 1024 * 1024;
const REDIRECT = 'https://backplane.example.test/storage-targets/google-drive/callback';

const warnings: string[] = [];
const deps: ProviderDeps = {
  tempDir: tmpdir(),
  env: {},
  log: { info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
};

/** The type wired to a stand-in; back-off shrunk so retry tests take milliseconds. */
function typeFor(standIn: GoogleStandIn, options: GoogleDriveTypeOptions = {}): StorageType {
  return createGoogleDriveType({
    authUrl: standIn.authUrl,
    tokenUrl: standIn.tokenUrl,
    apiUrl: standIn.apiUrl,
    ...options,
    upload: { retryBaseMs: 5, ...options.upload },
  });
}

function configFor(standIn: GoogleStandIn, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { clientId: standIn.clientId, clientSecret: standIn.clientSecret, refreshToken: standIn.grant(), ...extra };
}

async function openOn(
  standIn: GoogleStandIn,
  extra: Record<string, unknown> = {},
  options: GoogleDriveTypeOptions = {},
): Promise<StorageInstance> {
  return typeFor(standIn, options).create(configFor(standIn, extra), deps);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function kindOf(err: unknown): string | undefined {
  return err instanceof ProviderError ? err.kind : undefined;
}

async function rejectsKind(
  action: Promise<unknown> | (() => Promise<unknown>),
  kind: string,
  pattern?: RegExp,
): Promise<ProviderError> {
  let caught: unknown;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, `expected a rejection of kind ${kind}`);
  assert.equal(kindOf(caught), kind, `expected kind ${kind}, got ${String((caught as Error)?.stack ?? caught)}`);
  if (pattern) assert.match((caught as Error).message, pattern);
  return caught as ProviderError;
}

function source(data: Buffer, chunk = 64 * 1024): Readable {
  return Readable.from(
    (async function* gen() {
      for (let i = 0; i < data.length; i += chunk) {
        yield data.subarray(i, i + chunk);
        await tick();
      }
    })(),
  );
}

function failing(bytesBeforeFailure: number): Readable {
  return Readable.from(
    (async function* gen() {
      for (let sent = 0; sent < bytesBeforeFailure; sent += 64 * 1024) {
        yield randomBytes(Math.min(64 * 1024, bytesBeforeFailure - sent));
        await tick();
      }
      throw new Error('source died');
    })(),
  );
}

// ---- the conformance suite, against the stand-in ---------------------------------------------

runStorageContract(
  'google_drive (Google stand-in, 256 KiB chunks, 7-item pages)',
  async () => {
    const standIn = await GoogleStandIn.start({ maxPageSize: 7 });
    // Small chunks so that ordinary test objects span several PUTs of a resumable session.
    const instance = await openOn(standIn, {}, { upload: { chunkBytes: 256 * 1024 } });
    return { instance, cleanup: () => standIn.close() };
  },
  { largeBytes: 64 * MiB },
);

// ---- the plugin and the type -----------------------------------------------------------------

describe('google_drive: plugin and type', { timeout: 120_000 }, () => {
  it('the plugin registers the google_drive type with secrets, capabilities and OAuth', async () => {
    assert.ok(isPlugin(googleDrivePlugin));
    assert.equal(googleDrivePlugin.name, 'storage-google-drive');
    assert.equal(googleDrivePlugin.apiVersion, 1);
    const added: StorageType[] = [];
    const ext: ExtensionPoints = {
      storage: { addType: (t) => added.push(t), has: (name) => added.some((t) => t.type === name) },
      notifiers: { addType: () => assert.fail('no notifiers'), has: () => false },
      databases: { addType: () => assert.fail('no databases'), has: () => false },
    };
    await googleDrivePlugin.register({} as never, { ext });
    assert.equal(added.length, 1);
    const type = added[0]!;
    assert.equal(type.type, 'google_drive');
    assert.deepEqual(type.secretFields, ['clientSecret', 'refreshToken']);
    assert.deepEqual(type.capabilities, { range: true, usage: true, oauth: true });
    assert.equal(typeof type.oauth?.profile, 'function');
    const validate = new Ajv({ strict: false }).compile(type.configSchema);
    assert.equal(validate({ clientId: 'id', clientSecret: 'secret' }), true);
    assert.equal(
      validate({ clientId: 'id', clientSecret: 'secret', folderId: '1AbC_d-9', refreshToken: '1//x' }),
      true,
    );
    assert.equal(validate({ clientId: 'id' }), false, 'clientSecret is required');
    assert.equal(
      validate({ clientId: 'id', clientSecret: 's', folderId: "x' or '1" }),
      false,
      'a folderId is an id, not a query fragment',
    );
    assert.deepEqual(
      type.options?.map((o) => [o.name, o.secret, o.required]),
      [
        ['clientId', false, true],
        ['clientSecret', true, true],
        ['folderId', false, false],
        ['refreshToken', true, false],
      ],
    );
  });

  it("without endpoints it uses Google's, or BACKPLANE_GOOGLE_* from the environment", () => {
    const type = createGoogleDriveType();
    const config = { clientId: 'cid.apps.googleusercontent.com', clientSecret: 's' };
    const saved = process.env.BACKPLANE_GOOGLE_AUTH_URL;
    try {
      delete process.env.BACKPLANE_GOOGLE_AUTH_URL;
      assert.ok(
        type
          .oauth!.authUrl(config, { state: 's', redirectUri: REDIRECT })
          .startsWith('https://accounts.google.com/o/oauth2/v2/auth?'),
      );
      process.env.BACKPLANE_GOOGLE_AUTH_URL = 'http://127.0.0.1:9/mirror/auth';
      assert.ok(
        type
          .oauth!.authUrl(config, { state: 's', redirectUri: REDIRECT })
          .startsWith('http://127.0.0.1:9/mirror/auth?'),
      );
    } finally {
      if (saved === undefined) delete process.env.BACKPLANE_GOOGLE_AUTH_URL;
      else process.env.BACKPLANE_GOOGLE_AUTH_URL = saved;
    }
  });
});

// ---- OAuth -------------------------------------------------------------------------------------

describe('google_drive: OAuth against the stand-in', { timeout: 120_000 }, () => {
  let standIn: GoogleStandIn;
  let type: StorageType;
  const config = () => ({ clientId: standIn.clientId, clientSecret: standIn.clientSecret });

  before(async () => {
    standIn = await GoogleStandIn.start();
    type = typeFor(standIn);
  });
  after(() => standIn.close());

  /** What the browser does: open the consent URL, follow Google's redirect back, read the code. */
  async function consent(authUrl: string): Promise<URL> {
    const res = await fetch(authUrl, { redirect: 'manual' });
    assert.equal(res.status, 302, `consent page answered ${res.status}: ${await res.text()}`);
    return new URL(res.headers.get('location')!);
  }

  it("authUrl is Google's consent URL on the configured endpoint, with offline access, consent and state", () => {
    const url = new URL(type.oauth!.authUrl(config(), { state: 'st4te+/=', redirectUri: REDIRECT }));
    assert.equal(`${url.origin}${url.pathname}`, standIn.authUrl);
    const p = url.searchParams;
    assert.equal(p.get('client_id'), standIn.clientId);
    assert.equal(p.get('redirect_uri'), REDIRECT);
    assert.equal(p.get('state'), 'st4te+/=', 'state passes through unchanged');
    assert.equal(p.get('access_type'), 'offline');
    assert.equal(p.get('prompt'), 'consent');
    assert.equal(p.get('response_type'), 'code');
    assert.equal(p.get('scope'), 'https://www.googleapis.com/auth/drive.file');
  });

  it('the whole flow: consent, code exchange, a working target, the profile', async () => {
    const back = await consent(type.oauth!.authUrl(config(), { state: 'flow-1', redirectUri: REDIRECT }));
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'flow-1');
    const code = back.searchParams.get('code');
    assert.ok(code);
    const secrets = await type.oauth!.exchange(config(), { code, redirectUri: REDIRECT }, deps);
    assert.deepEqual(Object.keys(secrets), ['refreshToken']);
    assert.ok(secrets.refreshToken);

    const instance = await type.create({ ...config(), ...secrets }, deps);
    const result = await instance.testConnection();
    assert.equal(result.success, true, result.message);
    assert.match(result.message, /tester@example\.test/);
    await instance.put('hello/world.txt', Readable.from([Buffer.from('hi')]), { size: 2 });
    assert.equal((await readAll(await instance.get('hello/world.txt'))).toString(), 'hi');

    assert.deepEqual(await type.oauth!.profile!({ ...config(), ...secrets }, deps), {
      email: standIn.user.emailAddress,
      name: standIn.user.displayName,
      picture: standIn.user.photoLink,
    });
    await rejectsKind(type.oauth!.exchange(config(), { code, redirectUri: REDIRECT }, deps), 'auth', /invalid_grant/);
  });

  it("a bad code, a wrong secret or another redirect URI are refused with kind auth and Google's reason", async () => {
    await rejectsKind(
      type.oauth!.exchange(config(), { code: '4/0-not-a-code', redirectUri: REDIRECT }, deps),
      'auth',
      /invalid_grant/,
    );
    const back = await consent(type.oauth!.authUrl(config(), { state: 's', redirectUri: REDIRECT }));
    const code = back.searchParams.get('code')!;
    await rejectsKind(
      type.oauth!.exchange({ ...config(), clientSecret: 'wrong' }, { code, redirectUri: REDIRECT }, deps),
      'auth',
      /invalid_client/,
    );
    await rejectsKind(
      type.oauth!.exchange(config(), { code, redirectUri: 'https://elsewhere.example.test/cb' }, deps),
      'auth',
      /redirect_uri_mismatch/,
    );
  });

  it('an authorisation that yields no refresh token is refused with kind auth', async () => {
    // Without prompt=consent Google issues a refresh token only on the very first grant.
    const url = new URL(type.oauth!.authUrl(config(), { state: 's', redirectUri: REDIRECT }));
    url.searchParams.delete('prompt');
    await consent(url.href); // an earlier grant exists after the tests above; make sure
    const code = (await consent(url.href)).searchParams.get('code')!;
    await rejectsKind(
      type.oauth!.exchange(config(), { code, redirectUri: REDIRECT }, deps),
      'auth',
      /no refresh token/,
    );
  });

  it('a refusal on the consent page, or consent without the Drive permission, gives no target', async () => {
    standIn.denyConsent = true;
    try {
      const back = await consent(type.oauth!.authUrl(config(), { state: 'denied', redirectUri: REDIRECT }));
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), 'denied');
      assert.equal(back.searchParams.get('code'), null);
    } finally {
      standIn.denyConsent = false;
    }
    standIn.grantOnly = ['openid'];
    try {
      const code = (
        await consent(type.oauth!.authUrl(config(), { state: 's', redirectUri: REDIRECT }))
      ).searchParams.get('code')!;
      await rejectsKind(
        type.oauth!.exchange(config(), { code, redirectUri: REDIRECT }, deps),
        'auth',
        /permission was not granted/,
      );
    } finally {
      standIn.grantOnly = null;
    }
  });

  it('the endpoints can come from deps.env instead of the factory', async () => {
    const envType = createGoogleDriveType({ upload: { retryBaseMs: 5 } });
    const envDeps: ProviderDeps = {
      ...deps,
      env: {
        BACKPLANE_GOOGLE_AUTH_URL: standIn.authUrl,
        BACKPLANE_GOOGLE_TOKEN_URL: standIn.tokenUrl,
        BACKPLANE_GOOGLE_API_URL: standIn.url,
      },
    };
    const refreshToken = standIn.grant();
    assert.equal(
      (await envType.oauth!.profile!({ ...config(), refreshToken }, envDeps)).email,
      standIn.user.emailAddress,
    );
    const instance = await envType.create({ ...config(), refreshToken }, envDeps);
    assert.deepEqual(await instance.put('env/x', Readable.from([Buffer.from('abc')])), { size: 3 });
    await rejectsKind(envType.oauth!.exchange(config(), { code: 'nope', redirectUri: REDIRECT }, envDeps), 'auth');
  });

  it('profile without a refresh token, or with a revoked one, rejects with kind auth', async () => {
    await rejectsKind(type.oauth!.profile!(config(), deps), 'auth');
    const refreshToken = standIn.grant();
    standIn.revoke(refreshToken);
    await rejectsKind(type.oauth!.profile!({ ...config(), refreshToken }, deps), 'auth', /expired or revoked/);
  });
});

// ---- credentials going bad -------------------------------------------------------------------

describe('google_drive: credentials', { timeout: 120_000 }, () => {
  let standIn: GoogleStandIn;
  before(async () => {
    standIn = await GoogleStandIn.start();
  });
  after(() => standIn.close());

  it('the stand-in refuses Drive calls without a valid access token (so auth is really exercised)', async () => {
    const anonymous = await fetch(`${standIn.apiUrl}drive/v3/about?fields=user`);
    assert.equal(anonymous.status, 401);
    const body = (await anonymous.json()) as { error: { code: number; errors: { reason: string }[] } };
    assert.equal(body.error.code, 401);
    assert.equal(body.error.errors[0]?.reason, 'authError');
    const forged = await fetch(`${standIn.apiUrl}drive/v3/files`, { headers: { authorization: 'Bearer ya29.forged' } });
    assert.equal(forged.status, 401);
  });

  it('a revoked refresh token makes every operation reject with kind auth and testConnection fail with the reason', async () => {
    const config = configFor(standIn);
    const instance = await typeFor(standIn).create(config, deps);
    await instance.put('before/revoke', Readable.from([Buffer.from('x')]));
    standIn.revoke(config.refreshToken as string);
    standIn.expireAccessTokens();
    await rejectsKind(
      () => instance.put('after/revoke', Readable.from([Buffer.from('y')])),
      'auth',
      /expired or revoked/,
    );
    await rejectsKind(() => instance.get('before/revoke'), 'auth');
    await rejectsKind(() => instance.stat('before/revoke'), 'auth');
    await rejectsKind(() => instance.delete('before/revoke'), 'auth');
    await rejectsKind(async () => {
      for await (const _ of instance.list('')) {
        /* drain */
      }
    }, 'auth');
    await rejectsKind(() => instance.usage!(), 'auth');
    const result = await instance.testConnection();
    assert.equal(result.success, false);
    assert.match(result.message, /invalid_grant: Token has been expired or revoked/);
  });

  it('an unknown refresh token, a wrong client secret or no refresh token at all: kind auth', async () => {
    for (const extra of [{ refreshToken: '1//never-issued' }, { clientSecret: 'GOCSPX-wrong' }, { refreshToken: '' }]) {
      const instance = await typeFor(standIn).create(configFor(standIn, extra), deps);
      await rejectsKind(() => instance.stat('a/b'), 'auth');
      const result = await instance.testConnection();
      assert.equal(result.success, false, JSON.stringify(extra));
    }
  });

  it('an access token Google stops accepting early is refreshed and the call repeated', async () => {
    const instance = await openOn(standIn);
    await instance.put('refresh/one', Readable.from([Buffer.from('1')]));
    const refreshes = standIn.stats.tokenRefreshes;
    standIn.expireAccessTokens();
    assert.equal((await instance.stat('refresh/one'))?.size, 1);
    await instance.put('refresh/two', source(randomBytes(600 * 1024)), {});
    standIn.expireAccessTokens();
    assert.equal((await readAll(await instance.get('refresh/two'))).length, 600 * 1024);
    assert.ok(standIn.stats.tokenRefreshes >= refreshes + 2, 'the client went back to the token endpoint');
  });
});

// ---- Drive specifics ---------------------------------------------------------------------------

describe('google_drive: uploads, folders and errors', { timeout: 120_000 }, () => {
  let standIn: GoogleStandIn;
  before(async () => {
    standIn = await GoogleStandIn.start();
  });
  after(() => standIn.close());

  const named = (name: string) => standIn.items().filter((i) => i.name === name);

  it('keys become folders below "Backplane" in My Drive, or below the configured folderId', async () => {
    const instance = await openOn(standIn);
    // Reads on a fresh account find nothing and create nothing.
    assert.equal(await instance.stat('task/x'), undefined);
    assert.deepEqual(await collectKeys(instance, ''), []);
    await rejectsKind(() => instance.get('task/x'), 'not_found');
    await instance.delete('task/x');
    assert.deepEqual(standIn.items(), []);
    await instance.put('task/2026/01/02/7-x.tar.zst', Readable.from([Buffer.from('data')]));
    assert.ok(standIn.items().some((i) => i.path === 'Backplane/task/2026/01/02/7-x.tar.zst' && i.size === 4));
    const backplane = standIn.items().filter((i) => i.path === 'Backplane');
    assert.equal(backplane.length, 1);
    assert.equal(backplane[0]!.mimeType, FOLDER_MIME);
    assert.deepEqual(backplane[0]!.parents, [standIn.rootId]);

    const custom = await standIn.putItem('root', 'Custom backups', null);
    const other = await openOn(standIn, { folderId: custom.id });
    await other.put('k', Readable.from([Buffer.from('z')]));
    assert.ok(standIn.items().some((i) => i.path === 'Custom backups/k'));
    assert.deepEqual(await collectKeys(other, ''), ['k']);

    const missing = await openOn(standIn, { folderId: '1DoesNotExist' });
    const result = await missing.testConnection();
    assert.equal(result.success, false);
    assert.match(result.message, /does not exist/);
    await rejectsKind(() => missing.put('k', Readable.from([Buffer.from('z')])), 'permanent', /does not exist/);
  });

  it('an upload cut short by its source leaves no file; the bytes already sent stay in an unfinished session', async () => {
    const instance = await openOn(standIn, {}, { upload: { chunkBytes: 256 * 1024 } });
    const received = standIn.stats.uploadBytesReceived;
    await assert.rejects(instance.put('broken/big.bin', failing(3 * MiB)), /source died/);
    assert.ok(standIn.stats.uploadBytesReceived - received >= 2 * MiB, 'chunks had reached Drive before the failure');
    assert.deepEqual(named('big.bin'), [], 'no file exists');
    assert.equal(await instance.stat('broken/big.bin'), undefined);
    assert.ok(standIn.openSessions >= 1, 'the abandoned session is simply never finished');
  });

  it('a connection dropped mid-chunk is resumed from what Drive holds', async () => {
    const instance = await openOn(standIn, {}, { upload: { chunkBytes: 1 * MiB } });
    const data = randomBytes(3 * MiB + 12_345);
    standIn.fail('upload.chunk', { cutAfterBytes: 300_000 });
    const puts = standIn.stats.chunkPuts;
    assert.deepEqual(await instance.put('resume/cut.bin', source(data), { size: data.length }), { size: data.length });
    assert.ok(standIn.stats.chunkPuts - puts >= 5, 'a status query and the rest of the chunk were sent again');
    assert.ok((await readAll(await instance.get('resume/cut.bin'))).equals(data));
  });

  it('5xx and 429 answers are retried; a Drive that keeps failing makes put reject as transient and leaves nothing', async () => {
    const instance = await openOn(standIn, {}, { upload: { chunkBytes: 256 * 1024 } });
    const data = randomBytes(700_000);
    standIn.fail('upload.chunk', { status: 503, times: 2 });
    standIn.fail('files.list', { status: 429 });
    standIn.fail('upload.start', { status: 500 });
    assert.deepEqual(await instance.put('retry/ok.bin', source(data), { size: data.length }), { size: data.length });
    assert.ok((await readAll(await instance.get('retry/ok.bin'))).equals(data));

    standIn.fail('upload.chunk', { status: 503, times: 1000 });
    try {
      await rejectsKind(() => instance.put('retry/never.bin', source(data), { size: data.length }), 'transient', /503/);
    } finally {
      standIn.clearFaults();
    }
    assert.deepEqual(named('never.bin'), []);
  });

  it('a full Drive rejects with kind quota', async () => {
    const instance = await openOn(standIn);
    const used = standIn.items().reduce((sum, i) => sum + i.size, 0);
    standIn.quotaLimitBytes = used + 1_000;
    try {
      await rejectsKind(
        () => instance.put('quota/sized', source(randomBytes(5_000)), { size: 5_000 }),
        'quota',
        /storage quota/,
      );
      await rejectsKind(() => instance.put('quota/unsized', source(randomBytes(5_000))), 'quota', /storage quota/);
      const usage = await instance.usage!();
      assert.deepEqual(usage, { usedBytes: used, totalBytes: used + 1_000, freeBytes: 1_000 });
    } finally {
      standIn.quotaLimitBytes = 15 * 1024 ** 3;
    }
    assert.deepEqual([...named('sized'), ...named('unsized')], []);
  });

  it('usage reports no total for an unlimited plan', async () => {
    const instance = await openOn(standIn);
    standIn.quotaLimitBytes = null;
    try {
      const usage = await instance.usage!();
      assert.equal(usage.totalBytes, undefined);
      assert.equal(usage.freeBytes, undefined);
      assert.ok(Number.isSafeInteger(usage.usedBytes));
    } finally {
      standIn.quotaLimitBytes = 15 * 1024 ** 3;
    }
  });

  it('same-named files left by other clients: get picks the newest, put and delete clear them all', async () => {
    const instance = await openOn(standIn);
    await instance.put('dups/file', Readable.from([Buffer.from('mine')]));
    const folder = standIn.items().find((i) => i.path === 'Backplane/dups')!;
    await standIn.putItem(folder.id, 'file', Buffer.from('older-foreign'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await standIn.putItem(folder.id, 'file', Buffer.from('newest'));
    assert.equal((await readAll(await instance.get('dups/file'))).toString(), 'newest');
    assert.deepEqual(await collectKeys(instance, 'dups/'), ['dups/file'], 'listed once');
    await instance.put('dups/file', Readable.from([Buffer.from('replaced')]));
    assert.deepEqual(named('file').filter((i) => i.path === 'Backplane/dups/file').length, 1);
    assert.equal((await readAll(await instance.get('dups/file'))).toString(), 'replaced');
    await standIn.putItem(folder.id, 'file', Buffer.from('again'));
    await instance.delete('dups/file');
    assert.equal(standIn.items().filter((i) => i.path === 'Backplane/dups/file').length, 0);
  });

  it('a failed upload keeps the previous object whole', async () => {
    const instance = await openOn(standIn, {}, { upload: { chunkBytes: 256 * 1024 } });
    const old = randomBytes(900_000);
    await instance.put('keep/me', source(old), { size: old.length });
    await assert.rejects(instance.put('keep/me', failing(700_000)));
    // A 403 makes the auth library refresh the token and repeat the call once; this one persists.
    standIn.fail('upload.chunk', { status: 403, reason: 'forbidden', times: 2 });
    try {
      await rejectsKind(() => instance.put('keep/me', source(randomBytes(1_000))), 'auth');
    } finally {
      standIn.clearFaults();
    }
    assert.ok((await readAll(await instance.get('keep/me'))).equals(old));
    assert.equal(standIn.items().filter((i) => i.path === 'Backplane/keep/me').length, 1);
  });

  it('two writers creating the same folder at once converge on one folder', async () => {
    const [a, b] = await Promise.all([openOn(standIn), openOn(standIn)]);
    await Promise.all([
      a.put('race/day/a', Readable.from([Buffer.from('a')])),
      b.put('race/day/b', Readable.from([Buffer.from('b')])),
    ]);
    assert.equal(standIn.items().filter((i) => i.path === 'Backplane/race').length, 1, 'one "race" folder');
    assert.equal(standIn.items().filter((i) => i.path === 'Backplane/race/day').length, 1, 'one "day" folder');
    assert.deepEqual(await collectKeys(a, 'race/'), ['race/day/a', 'race/day/b']);
    assert.equal((await readAll(await b.get('race/day/a'))).toString(), 'a');
  });

  it("folders deleted behind the instance's back are created again", async () => {
    const instance = await openOn(standIn);
    await instance.put('stale/a/one', Readable.from([Buffer.from('1')]));
    const folder = standIn.items().find((i) => i.path === 'Backplane/stale')!;
    await standIn.removeItem(folder.id);
    assert.equal(await instance.stat('stale/a/one'), undefined);
    await instance.put('stale/a/two', Readable.from([Buffer.from('2')]));
    assert.deepEqual(await collectKeys(instance, 'stale/'), ['stale/a/two']);
  });

  it('downloads: a cut-off stream errors, a file replaced meanwhile is looked up again, a dropped Range is cut locally', async () => {
    const instance = await openOn(standIn);
    const data = randomBytes(2 * MiB);
    await instance.put('cut/download', source(data), {});
    standIn.fail('files.media', { cutAfterBytes: 100_000 });
    await assert.rejects(readAll(await instance.get('cut/download')));
    assert.ok((await readAll(await instance.get('cut/download'))).equals(data), 'the next read is whole again');
    standIn.fail('files.media', { status: 404, reason: 'notFound' });
    assert.ok(
      (await readAll(await instance.get('cut/download'))).equals(data),
      'one 404 between lookup and read is retried',
    );
    standIn.ignoreRange = true;
    try {
      assert.ok(
        (await readAll(await instance.get('cut/download', { start: 1000, end: 1999 }))).equals(
          data.subarray(1000, 2000),
        ),
      );
      assert.ok(
        (await readAll(await instance.get('cut/download', { start: 2 * MiB - 10 }))).equals(
          data.subarray(2 * MiB - 10),
        ),
      );
    } finally {
      standIn.ignoreRange = false;
    }
  });

  it('put streams: the source is never more than about a chunk ahead of what Drive received', async () => {
    const instance = await openOn(standIn); // the production chunk size: 8 MiB
    const total = 40 * MiB;
    const hash = createHash('sha256');
    let produced = 0;
    let lead = 0;
    const start = standIn.stats.uploadBytesReceived;
    const body = Readable.from(
      (function* gen() {
        const block = randomBytes(MiB);
        while (produced < total) {
          lead = Math.max(lead, produced - (standIn.stats.uploadBytesReceived - start));
          produced += block.length;
          hash.update(block);
          yield block;
        }
      })(),
      { objectMode: false, highWaterMark: MiB },
    );
    assert.deepEqual(await instance.put('stream/40m.bin', body, { size: total }), { size: total });
    assert.ok(lead <= 8 * MiB + 4 * MiB, `the source ran ${(lead / MiB).toFixed(1)} MiB ahead of Drive: put buffers`);
    const back = createHash('sha256');
    for await (const chunk of (await instance.get('stream/40m.bin')) as AsyncIterable<Buffer>) back.update(chunk);
    assert.equal(back.digest('hex'), hash.digest('hex'));
    await instance.delete('stream/40m.bin');
  });

  it("the stand-in holds the client to Drive's rules (fields required, 256 KiB chunks, q grammar)", async () => {
    const token = await accessToken(standIn);
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await fetch(`${standIn.apiUrl}drive/v3/about`, { headers: auth })).status, 400);
    const badQ = await fetch(`${standIn.apiUrl}drive/v3/files?q=${encodeURIComponent("name contains 'x'")}`, {
      headers: auth,
    });
    assert.equal(badQ.status, 400);
    const start = await fetch(`${standIn.apiUrl}upload/drive/v3/files?uploadType=resumable`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'raw' }),
    });
    assert.equal(start.status, 200);
    const session = start.headers.get('location')!;
    const odd = await fetch(session, {
      method: 'PUT',
      headers: { 'content-range': 'bytes 0-999/*' },
      body: Buffer.alloc(1000),
    });
    assert.equal(odd.status, 400, 'a non-final chunk that is not a multiple of 256 KiB');
    const status = await fetch(session, { method: 'PUT', headers: { 'content-range': 'bytes */*' } });
    assert.equal(status.status, 308);
    assert.equal(status.headers.get('range'), null, 'nothing received yet');
    const done = await fetch(session, {
      method: 'PUT',
      headers: { 'content-range': 'bytes 0-999/1000' },
      body: Buffer.alloc(1000),
    });
    assert.equal(done.status, 200);
    assert.equal(((await done.json()) as { name: string }).name, 'raw');
  });
});

async function collectKeys(instance: StorageInstance, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of instance.list(prefix)) keys.push(item.key);
  return keys.sort();
}

async function accessToken(standIn: GoogleStandIn): Promise<string> {
  const res = await fetch(standIn.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: standIn.grant(),
      client_id: standIn.clientId,
      client_secret: standIn.clientSecret,
    }),
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { access_token: string }).access_token;
}
