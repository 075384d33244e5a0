import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { StorageInstance, StorageType } from '@backplane/plugin-api';
import { ProviderRegistry } from '../../core/engine/host/provider-registry.ts';
import { BACKUPX_VENDORS, deps, rcloneType, registerInto, registeredTypes } from '../helpers/rclone-types.ts';
import { buildArgv, buildEnv, REMOTE, type Operation } from '../../plugins/storage-rclone/invocation.ts';
import { rcloneFailure, redact } from '../../plugins/storage-rclone/errors.ts';
import { uploadStrategy } from '../../plugins/storage-rclone/upload-strategy.ts';
import { closedPort, startSftpServer, startWebdavServer, type RcloneServer } from '../helpers/rclone-servers.ts';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';

const MiB = 1024 * 1024;
const PLUGIN_DIR = fileURLToPath(new URL('../../plugins/storage-rclone/', import.meta.url));

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function kindOf(err: unknown): string | undefined {
  return err instanceof Error && err.name === 'ProviderError' ? (err as { kind?: string }).kind : undefined;
}

async function rejection(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected a rejection');
}

/** rclone processes whose parent is this test process, minus the given ones (the test servers). */
async function rcloneChildren(exclude: number[] = []): Promise<Array<{ pid: number; argv: string[]; env: string[] }>> {
  const out: Array<{ pid: number; argv: string[]; env: string[] }> = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (exclude.includes(pid)) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (Number(fields[1]) !== process.pid || comm !== 'rclone') continue;
      const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter((s) => s !== '');
      const env = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').filter((s) => s !== '');
      out.push({ pid, argv, env });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(25);
  }
  assert.fail(`timed out waiting for ${what}`);
}

// The conformance suite on the three backends: storage-rclone-{local,webdav,sftp}.test.ts.

// ---- catalogue ---------------------------------------------------------------------------------

describe('storage-rclone: catalogue from the installed rclone', () => {
  it('registers one type per backend under its rclone name, plus the generic rclone type', async () => {
    const types = await registeredTypes();
    for (const name of ['s3', 'webdav', 'sftp', 'ftp', 'azureblob', 'b2', 'local', 'drive', 'rclone'])
      assert.ok(types.has(name), `${name} is registered`);
    for (const wrapper of ['alias', 'cache', 'chunker', 'combine', 'compress', 'crypt', 'hasher', 'union'])
      assert.ok(!types.has(wrapper), `wrapper ${wrapper} is not registered`);
    assert.ok(!types.has('memory'), 'memory (one process only) is not registered');
    for (const type of types.values()) {
      if (BACKUPX_VENDORS.includes(type.type)) continue; // BackupX's types on the s3 backend, below
      assert.equal(type.family, 'rclone', `${type.type} family`);
      assert.ok(type.displayName.length > 0, `${type.type} displayName`);
      assert.ok(type.options && type.options.length > 0, `${type.type} options`);
      assert.equal(type.capabilities.range, true);
      assert.equal(type.capabilities.oauth, false);
    }
  });

  it('webdav: url, user and pass, with pass secret; the schema requires url and refuses unknown fields', async () => {
    const webdav = await rcloneType('webdav');
    const options = new Map(webdav.options!.map((o) => [o.name, o]));
    assert.equal(options.get('url')?.required, true);
    assert.equal(options.get('url')?.secret, false);
    assert.equal(options.get('user')?.secret, false);
    assert.equal(options.get('pass')?.secret, true);
    assert.ok(options.has('path'), 'the root field');
    assert.ok(webdav.secretFields.includes('pass'));
    assert.ok(webdav.secretFields.includes('bearer_token'));
    assert.ok(!webdav.secretFields.includes('user'));
    assert.match(webdav.displayName, /webdav/i);
    const validate = new Ajv({ strict: false, allErrors: true }).compile(webdav.configSchema);
    assert.equal(
      validate({ url: 'https://dav.example.com/', user: 'u', pass: 'p', path: 'backups' }),
      true,
      JSON.stringify(validate.errors),
    );
    assert.equal(validate({ user: 'u' }), false, 'url is required');
    assert.equal(validate({ url: 'https://x/', typo_option: 'x' }), false, 'unknown fields are refused');
  });

  it("BackupX's cloud vendor types: its keys, region required unless an endpoint is given, both keys secret", async () => {
    const types = await registeredTypes();
    for (const name of BACKUPX_VENDORS) {
      const type = types.get(name)!;
      assert.ok(type, `${name} is registered`);
      assert.equal(type.family, undefined, 'not an rclone backend of the catalogue');
      assert.deepEqual(type.secretFields, ['accessKeyId', 'secretAccessKey']);
      const validate = new Ajv({ strict: false, allErrors: true }).compile(type.configSchema);
      const keys = { bucket: 'b', accessKeyId: 'a', secretAccessKey: 's' };
      assert.equal(validate({ ...keys, region: 'z0' }), true, JSON.stringify(validate.errors));
      assert.equal(
        validate({ ...keys, endpoint: 'https://s3.example.test' }),
        true,
        `${name}: an endpoint replaces the region`,
      );
      assert.equal(validate(keys), false, `${name}: a region or an endpoint`);
      assert.equal(validate({ ...keys, region: 'z0', path: 'x' }), false, `${name}: unknown fields are refused`);
    }
    assert.equal(
      new Ajv({ strict: false }).compile(types.get('qiniu_kodo')!.configSchema)({
        bucket: 'b',
        accessKeyId: 'a',
        secretAccessKey: 's',
        region: 'mars',
      }),
      false,
      'Qiniu region codes only',
    );
  });

  it('credentials are secret fields on every backend, flags and paths are not', async () => {
    const secret = async (type: string) => new Set((await rcloneType(type)).secretFields);
    const s3 = await secret('s3');
    for (const f of ['secret_access_key', 'access_key_id', 'session_token', 'sse_customer_key'])
      assert.ok(s3.has(f), `s3 ${f}`);
    for (const f of ['endpoint', 'region', 'provider', 'sse_kms_key_id', 'shared_credentials_file'])
      assert.ok(!s3.has(f), `s3 ${f} is not secret`);
    const azure = await secret('azureblob');
    for (const f of ['key', 'sas_url']) assert.ok(azure.has(f), `azureblob ${f}`);
    const drive = await secret('drive');
    for (const f of ['client_secret', 'token', 'service_account_credentials']) assert.ok(drive.has(f), `drive ${f}`);
    assert.ok(!drive.has('token_url') && !drive.has('client_id'));
    const sftp = await secret('sftp');
    for (const f of ['pass', 'key_pem', 'key_file_pass']) assert.ok(sftp.has(f), `sftp ${f}`);
    for (const f of ['key_file', 'ask_password', 'key_use_agent', 'pubkey_file'])
      assert.ok(!sftp.has(f), `sftp ${f} is not secret`);
    assert.ok((await secret('b2')).has('key'));
    assert.ok((await secret('ftp')).has('pass'));
  });

  it('every schema compiles; local needs an absolute path', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    for (const type of (await registeredTypes()).values()) ajv.compile(type.configSchema);
    const local = await rcloneType('local');
    const validate = ajv.compile(local.configSchema);
    assert.equal(validate({ path: '/srv/backups' }), true);
    assert.equal(validate({ path: 'relative/dir' }), false);
    assert.equal(validate({}), false);
    await assert.rejects(
      async () => (await local.create({ path: 'relative' }, deps())).stat('x'),
      (err: Error) => kindOf(err) === 'permanent',
    );
  });

  it('the generic rclone type takes a backend, an options map (sealed as a whole) and a path', async () => {
    const generic = await rcloneType('rclone');
    assert.deepEqual(generic.secretFields, ['options']);
    const validate = new Ajv({ strict: false }).compile(generic.configSchema);
    assert.equal(validate({ backend: 'webdav', options: { url: 'https://x/', pass: 'p' }, path: 'b' }), true);
    assert.equal(validate({ options: {} }), false, 'backend is required');
    assert.equal(
      validate({ backend: 'webdav', options: { type: 'local' } }),
      false,
      '"type" cannot be smuggled in as an option',
    );
    const dir = await mkdtemp(join(tmpdir(), 'backplane-rclone-generic-'));
    try {
      const storage = await generic.create({ backend: 'local', options: { no_preallocate: true }, path: dir }, deps());
      assert.deepEqual(await storage.put('a/b.txt', Readable.from([Buffer.from('generic')]), { size: 7 }), { size: 7 });
      assert.equal((await readAll(await storage.get('a/b.txt'))).toString(), 'generic');
      assert.equal(await readFile(join(dir, 'a/b.txt'), 'utf8'), 'generic');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a type another plugin already provides is left to it; the rest registers', async () => {
    const registry = new ProviderRegistry<StorageType>('storage');
    const s3 = await rcloneType('s3');
    registry.add({ ...s3, displayName: 'native S3' }, 'storage-s3');
    await registerInto(registry);
    assert.equal(registry.owners().s3, 'storage-s3');
    assert.equal(registry.owners().webdav, 'storage-rclone');
    assert.equal(registry.owners().rclone, 'storage-rclone');
  });

  it('uploads go to a temporary name and are moved into place, except on backends with atomic uploads', () => {
    for (const backend of ['local', 'webdav', 'sftp', 'ftp', 'smb', 'drive'])
      assert.equal(uploadStrategy(backend), 'temp-then-move', backend);
    for (const backend of ['s3', 'gcs', 'azureblob', 'b2']) assert.equal(uploadStrategy(backend), 'direct', backend);
  });
});

// ---- credentials, reachability, secrets --------------------------------------------------------

describe('storage-rclone: credentials, unreachable hosts and secrets', () => {
  let webdav: RcloneServer;
  let sftp: RcloneServer;
  before(async () => {
    [webdav, sftp] = await Promise.all([startWebdavServer(), startSftpServer()]);
  });
  after(async () => {
    await Promise.all([webdav?.stop(), sftp?.stop()]);
  });

  it("webdav with a wrong password: testConnection fails with rclone's reason, put is refused as auth", async () => {
    const wrong = 'not-the-password-1234';
    const storage = await (await rcloneType('webdav')).create(
      { url: webdav.url, user: webdav.user, pass: wrong, path: 'wrong' },
      deps(),
    );
    const result = await storage.testConnection();
    assert.equal(result.success, false);
    assert.match(result.message, /401|unauthori[sz]ed/i);
    assert.ok(!result.message.includes(wrong), 'the password is not in the message');
    const err = await rejection(() => storage.put('x/y', Readable.from([Buffer.from('data')]), { size: 4 }));
    assert.equal(kindOf(err), 'auth', String(err));
    assert.ok(!err.message.includes(wrong));
    assert.deepEqual(await readdir(webdav.dir), [], 'nothing was written');
  });

  it("sftp with a wrong password: testConnection fails with rclone's reason, put is refused as auth", async () => {
    const wrong = 'not-the-password-5678';
    const storage = await (await rcloneType('sftp')).create(
      { host: sftp.host, port: sftp.port, user: sftp.user, pass: wrong, path: 'wrong' },
      deps(),
    );
    const result = await storage.testConnection();
    assert.equal(result.success, false);
    assert.match(result.message, /unable to authenticate/i);
    assert.ok(!result.message.includes(wrong));
    const err = await rejection(() => storage.put('x/y', Readable.from([Buffer.from('data')]), { size: 4 }));
    assert.equal(kindOf(err), 'auth', String(err));
    assert.deepEqual(await readdir(sftp.dir), [], 'nothing was written');
  });

  it('the right credentials pass testConnection on both servers', async () => {
    const dav = await (await rcloneType('webdav')).create(
      { url: webdav.url, user: webdav.user, pass: webdav.pass, path: 'probe' },
      deps(),
    );
    const ssh = await (await rcloneType('sftp')).create(
      { host: sftp.host, port: String(sftp.port), user: sftp.user, pass: sftp.pass, path: 'probe' },
      deps(),
    );
    for (const storage of [dav, ssh]) {
      const result = await storage.testConnection();
      assert.equal(result.success, true, result.message);
    }
  });

  it('an unreachable host (a closed port on 127.0.0.1) fails fast, without hanging, as transient', async () => {
    const port = await closedPort();
    const secretInUrl = 'hunter2-in-the-url';
    const dav = await (await rcloneType('webdav')).create(
      { url: `http://someone:${secretInUrl}@127.0.0.1:${port}/`, pass: 'x' },
      deps(),
    );
    const ssh = await (await rcloneType('sftp')).create({ host: '127.0.0.1', port, user: 'u', pass: 'p' }, deps());
    for (const storage of [dav, ssh]) {
      const started = Date.now();
      const result = await storage.testConnection();
      assert.equal(result.success, false);
      assert.match(result.message, /connection refused/i);
      assert.ok(!result.message.includes(secretInUrl), `userinfo is redacted: ${result.message}`);
      assert.ok(Date.now() - started < 15_000, `testConnection took ${Date.now() - started} ms`);
      const putStarted = Date.now();
      const err = await rejection(() => storage.put('k', Readable.from([Buffer.from('x')]), { size: 1 }));
      assert.equal(kindOf(err), 'transient', String(err));
      assert.ok(Date.now() - putStarted < 30_000, `put took ${Date.now() - putStarted} ms`);
    }
  });

  it('argv never carries a setting: the pure builders', () => {
    const secret = 'S3cr3t-value-that-must-not-leak';
    const spec = {
      backend: 'webdav',
      options: { url: 'https://dav.example.com/', user: 'me', pass: secret, bearer_token: secret },
      root: 'backups',
    };
    const operations: Operation[] = [
      { op: 'rcat', path: 'a/b', size: 10 },
      { op: 'moveto', from: 'a/.b.0123456789abcdef.partial', to: 'a/b' },
      { op: 'cat', path: 'a/b', offset: 5, count: 10 },
      { op: 'stat', path: 'a/b' },
      { op: 'list', path: 'a/' },
      { op: 'deletefile', path: 'a/b' },
      { op: 'about', path: '' },
      { op: 'obscure' },
      { op: 'providers' },
    ];
    for (const operation of operations) {
      for (const profile of ['standard', 'probe'] as const) {
        const argv = buildArgv(operation, spec.root, profile);
        assert.ok(!argv.join(' ').includes(secret), `${operation.op} argv`);
        assert.ok(!argv.join(' ').includes('dav.example.com'), `${operation.op} argv holds no setting at all`);
      }
    }
    assert.deepEqual(buildArgv({ op: 'obscure' }, ''), ['obscure', '-'], 'the password to obscure comes on stdin');
    assert.deepEqual(buildArgv({ op: 'cat', path: 'k', offset: 5, count: 10 }, 'root').slice(-5), [
      '--offset',
      '5',
      '--count',
      '10',
      `${REMOTE}:root/k`,
    ]);
    const env = buildEnv(
      {
        PATH: '/usr/bin',
        HOME: '/root',
        BACKPLANE_SECRET_KEY: 'master',
        RCLONE_CONFIG_PASS: 'x',
        RCLONE_CONFIG_OTHER_TYPE: 's3',
        rclone_bwlimit: '1',
      },
      spec,
    );
    assert.equal(env.RCLONE_CONFIG, '/dev/null', 'no rclone.conf is read or written');
    assert.equal(env.RCLONE_CONFIG_BPREMOTE_TYPE, 'webdav');
    assert.equal(env.RCLONE_CONFIG_BPREMOTE_PASS, secret);
    assert.equal(env.RCLONE_CONFIG_BPREMOTE_URL, 'https://dav.example.com/');
    assert.equal(env.PATH, '/usr/bin');
    for (const name of ['BACKPLANE_SECRET_KEY', 'RCLONE_CONFIG_PASS', 'RCLONE_CONFIG_OTHER_TYPE', 'rclone_bwlimit'])
      assert.ok(!(name in env), `${name} is not passed on`);
  });

  it('argv never carries a secret: a running rclone child, read from /proc', async () => {
    const storage = await (await rcloneType('webdav')).create(
      { url: webdav.url, user: webdav.user, pass: webdav.pass, path: 'argv' },
      deps({
        ...process.env,
        BACKPLANE_SECRET_KEY: 'master-key-must-not-reach-rclone',
        RCLONE_CONFIG_EVIL_TYPE: 'local',
      }),
    );
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const body = Readable.from(
      (async function* slow() {
        yield Buffer.alloc(1024, 1);
        await released;
        yield Buffer.alloc(1024, 2);
      })(),
    );
    const uploading = storage.put('slow/object', body, { size: 2048 });
    try {
      const child = await waitFor('the rcat child', async () =>
        (await rcloneChildren([webdav.pid, sftp.pid])).find((c) => c.argv.includes('rcat')),
      );
      assert.ok(!child.argv.join('\0').includes(webdav.pass), `argv: ${child.argv.join(' ')}`);
      assert.ok(!child.argv.join('\0').includes(webdav.url.replace(/\/$/, '')), 'the URL is not on argv either');
      const env = new Map(child.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
      assert.equal(env.get('RCLONE_CONFIG_BPREMOTE_TYPE'), 'webdav');
      assert.equal(env.get('RCLONE_CONFIG_BPREMOTE_URL'), webdav.url);
      const obscured = env.get('RCLONE_CONFIG_BPREMOTE_PASS');
      assert.ok(obscured && obscured !== webdav.pass, 'the password reaches rclone obscured, through the environment');
      assert.equal(env.get('RCLONE_CONFIG'), '/dev/null');
      assert.ok(
        !env.has('BACKPLANE_SECRET_KEY') && !env.has('RCLONE_CONFIG_EVIL_TYPE'),
        "Backplane's and foreign rclone settings stay out",
      );
    } finally {
      release();
    }
    assert.deepEqual(await uploading, { size: 2048 });
  });

  it('messages are trimmed and cleaned of secrets', () => {
    const secret = 'pa55-w0rd-xyz';
    const stderr =
      `2026/01/01 00:00:00 ERROR : x: something\n2026/01/01 00:00:00 Failed to rcat: ` +
      `Put "https://user:${secret}@host/x?sig=abcdef": pass=${secret} Authorization: Bearer tok123 ${'z'.repeat(2000)}`;
    const err = rcloneFailure('rcat', { code: 1, signal: null, stderr }, [secret]);
    assert.ok(!err.message.includes(secret));
    assert.ok(!err.message.includes('tok123'));
    assert.ok(!err.message.includes('abcdef'));
    assert.ok(err.message.length <= 500, `length ${err.message.length}`);
    assert.match(err.message, /^rclone rcat: Put/);
    assert.equal(redact('token: abc.def', []), 'token: ***');
  });
});

// ---- child processes ---------------------------------------------------------------------------

describe('storage-rclone: child processes', () => {
  let dir: string;
  let storage: StorageInstance;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'backplane-rclone-proc-'));
    storage = await (await rcloneType('local')).create({ path: dir }, deps());
    await storage.put(
      'big.bin',
      Readable.from(
        (function* gen() {
          for (let i = 0; i < 64; i++) yield Buffer.alloc(MiB, i);
        })(),
      ),
      { size: 64 * MiB },
    );
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('a prefix naming an object plus "/" lists nothing (rclone would list the file itself)', async () => {
    const keys = async (prefix: string) => {
      const out: string[] = [];
      for await (const item of storage.list(prefix)) out.push(item.key);
      return out.sort();
    };
    await storage.put('edge/file', Readable.from([Buffer.from('1')]), { size: 1 });
    await storage.put('edge/dir/dir', Readable.from([Buffer.from('2')]), { size: 1 });
    assert.deepEqual(await keys('edge/file/'), []);
    assert.deepEqual(await keys('edge/file'), ['edge/file']);
    assert.deepEqual(await keys('edge/dir/'), ['edge/dir/dir'], 'a folder holding one object named like itself');
    assert.deepEqual(await keys('edge/'), ['edge/dir/dir', 'edge/file']);
  });

  it('a cat child that dies midway errors the stream instead of ending it short', async () => {
    const stream = await storage.get('big.bin');
    const iterator = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const first = await iterator.next();
    assert.equal(first.done, false);
    const child = await waitFor('the cat child', async () =>
      (await rcloneChildren()).find((c) => c.argv.includes('cat')),
    );
    process.kill(child.pid, 'SIGKILL');
    let failed: unknown;
    try {
      for (let r = await iterator.next(); !r.done; r = await iterator.next());
    } catch (err) {
      failed = err;
    }
    assert.ok(failed instanceof Error, 'the stream errored');
    assert.equal(kindOf(failed), 'transient', String(failed));
  });

  it('a consumer that stops reading stops the child', async () => {
    const stream = await storage.get('big.bin', { start: MiB });
    await new Promise<void>((resolve) => stream.once('readable', () => resolve()));
    assert.ok((await rcloneChildren()).some((c) => c.argv.includes('cat')));
    stream.destroy();
    await waitFor('no rclone child left', async () => ((await rcloneChildren()).length === 0 ? true : undefined));
  });

  it('an aborted put kills its child and leaves no process and no object', async () => {
    const controller = new AbortController();
    const body = Readable.from(
      (async function* endless() {
        for (let i = 0; ; i++) {
          yield Buffer.alloc(64 * 1024, i);
          await sleep(5);
        }
      })(),
    );
    const putting = storage.put('aborted/obj', body, { signal: controller.signal });
    await waitFor('the rcat child', async () => (await rcloneChildren()).find((c) => c.argv.includes('rcat')));
    controller.abort(new Error('stop'));
    const err = await rejection(() => putting);
    assert.equal(err.message, 'stop');
    await waitFor('no rclone child left', async () => ((await rcloneChildren()).length === 0 ? true : undefined));
    assert.equal(await storage.stat('aborted/obj'), undefined);
    assert.deepEqual(await readdir(join(dir, 'aborted')).catch(() => []), [], 'no temporary object either');
  });
});

// ---- without rclone ----------------------------------------------------------------------------

describe('storage-rclone: without a usable rclone binary', () => {
  it('register still works and adds only the generic type and BackupX vendor types, whose every operation is unsupported', async () => {
    const types = await registeredTypes('/nonexistent/rclone');
    assert.deepEqual([...types.keys()], ['rclone', ...BACKUPX_VENDORS]);
    const vendor = await types
      .get('aliyun_oss')!
      .create({ region: 'cn-hangzhou', bucket: 'b', accessKeyId: 'a', secretAccessKey: 's' }, deps());
    await assert.rejects(vendor.stat('a'), (err: Error) => kindOf(err) === 'unsupported');
    const generic = types.get('rclone')!;
    assert.match(generic.description ?? '', /not installed/);
    const storage = await generic.create({ backend: 'webdav', options: { url: 'http://127.0.0.1:1/' } }, deps());
    const unsupported = (err: Error) => kindOf(err) === 'unsupported' && /rclone is not installed/.test(err.message);
    await assert.rejects(storage.put('a', Readable.from([Buffer.from('x')]), { size: 1 }), unsupported);
    await assert.rejects(storage.get('a'), unsupported);
    await assert.rejects(storage.stat('a'), unsupported);
    await assert.rejects(storage.delete('a'), unsupported);
    await assert.rejects(storage.usage!(), unsupported);
    await assert.rejects(async () => {
      for await (const _ of storage.list('')) break;
    }, unsupported);
    const result = await storage.testConnection();
    assert.equal(result.success, false);
    assert.match(result.message, /rclone is not installed/);
  });

  it('a binary that vanished after boot: operations are unsupported, not a crash', async () => {
    const webdav = await rcloneType('webdav');
    const storage = await webdav.create(
      { url: 'http://127.0.0.1:1/', user: 'u', pass: 'p' },
      deps({ ...process.env, BACKPLANE_RCLONE_BINARY: '/nonexistent/rclone' }),
    );
    const unsupported = (err: Error) => kindOf(err) === 'unsupported' && /not installed/.test(err.message);
    await assert.rejects(storage.put('a', Readable.from([Buffer.from('x')]), { size: 1 }), unsupported);
    await assert.rejects(storage.stat('a'), unsupported);
    assert.equal((await storage.testConnection()).success, false);
  });
});

// ---- through the app ---------------------------------------------------------------------------

describe('storage-rclone: loaded by the app', () => {
  /** A project root without built-in plugins; this one is loaded by path (other plugins' work does not interfere). */
  async function rcloneOnly(t: Parameters<typeof tempDir>[0]): Promise<{ projectRoot: string; plugins: string[] }> {
    const root = await tempDir(t, 'backplane-rclone-root-');
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'rclone-only', private: true, type: 'module' }));
    await mkdir(join(root, 'plugins'));
    return { projectRoot: root, plugins: [PLUGIN_DIR] };
  }

  it('lists the rclone backends with their options', async (t) => {
    const { app } = await build(t, { config: await rcloneOnly(t) });
    const token = await setupAdmin(app);
    const res = await call(app, 'GET', '/api/storage-targets/rclone/backends', { token });
    assert.equal(res.status, 200, res.body);
    const backends = new Map(
      (
        res.json.data as Array<{
          name: string;
          options: Array<{ key: string; isPassword: boolean; required: boolean }>;
        }>
      ).map((b) => [b.name, b]),
    );
    for (const name of ['s3', 'webdav', 'sftp', 'local', 'rclone']) assert.ok(backends.has(name), name);
    const options = new Map(backends.get('webdav')!.options.map((o) => [o.key, o]));
    assert.equal(options.get('pass')?.isPassword, true);
    assert.equal(options.get('url')?.required, true);
  });

  it('boots without rclone: only the generic type, and testing it answers a coded 400', async (t) => {
    const saved = process.env.BACKPLANE_RCLONE_BINARY;
    process.env.BACKPLANE_RCLONE_BINARY = '/nonexistent/rclone';
    let app: FastifyInstance;
    try {
      ({ app } = await build(t, { config: await rcloneOnly(t) }));
    } finally {
      if (saved === undefined) delete process.env.BACKPLANE_RCLONE_BINARY;
      else process.env.BACKPLANE_RCLONE_BINARY = saved;
    }
    const token = await setupAdmin(app);
    const res = await call(app, 'GET', '/api/storage-targets/rclone/backends', { token });
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(
      res.json.data.map((b: { name: string }) => b.name),
      ['rclone'],
    );
    const test = await call(app, 'POST', '/api/storage-targets/test', {
      token,
      body: { name: 'x', type: 'rclone', config: { backend: 'webdav', options: { url: 'http://127.0.0.1:1/' } } },
    });
    assert.equal(test.status, 400, test.body);
    assert.equal(test.json.code, 'STORAGE_TARGET_TEST_FAILED');
    assert.match(test.json.message, /rclone is not installed/);
  });
});
