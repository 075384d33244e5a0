import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentConfigError, loadAgentConfig } from '../../agent/config.ts';

async function withYaml(text: string, fn: (path: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-agent-config-'));
  try {
    const path = join(dir, 'agent.yaml');
    await writeFile(path, text);
    fn(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('defaults apply when only the master and a token file are given', () => {
  const c = loadAgentConfig({
    argv: ['--master', 'https://backup.example.com/', '--token-file', 'agent.token'],
    env: {},
    cwd: '/etc/backplane',
  });
  assert.equal(c.master, 'https://backup.example.com');
  assert.equal(c.tokenFile, '/etc/backplane/agent.token');
  assert.equal(c.heartbeatSeconds, 15);
  assert.equal(c.pollSeconds, 5);
  assert.equal(c.stopGraceSeconds, 30);
  assert.equal(c.tempDir, join(tmpdir(), 'backplane-agent'));
  assert.deepEqual(c.plugins, []);
});

test('flags win over the environment, the environment over the file', async () => {
  await withYaml(
    'master: http://file.example:8340\npollSeconds: 7\nheartbeatSeconds: 20\nstopGraceSeconds: 3\ntokenFile: /file/token\n',
    (path) => {
      const c = loadAgentConfig({
        argv: ['--config', path, '--poll-seconds', '2'],
        env: {
          BACKPLANE_AGENT_POLL_SECONDS: '4',
          BACKPLANE_AGENT_HEARTBEAT_SECONDS: '9',
          BACKPLANE_AGENT_MASTER: 'http://env.example',
        },
      });
      assert.equal(c.pollSeconds, 2);
      assert.equal(c.heartbeatSeconds, 9);
      assert.equal(c.stopGraceSeconds, 3);
      assert.equal(c.master, 'http://env.example');
      assert.equal(c.tokenFile, '/file/token');
    },
  );
});

test('BACKPLANE_AGENT_CONFIG names the file when --config is absent', async () => {
  await withYaml('master: https://m.example/base/\ntoken: bpn_abc\n', (path) => {
    const c = loadAgentConfig({ argv: [], env: { BACKPLANE_AGENT_CONFIG: path } });
    assert.equal(c.master, 'https://m.example/base');
    assert.equal(c.token, 'bpn_abc');
  });
});

test('an enrollment code stands in for a token', () => {
  const c = loadAgentConfig({ argv: ['--master', 'http://m.example'], env: { BACKPLANE_AGENT_ENROLL_CODE: 'abc' } });
  assert.equal(c.enrollCode, 'abc');
  assert.equal(c.token, undefined);
});

test('a proxy comes from --proxy or BACKPLANE_AGENT_PROXY_URL', () => {
  assert.equal(
    loadAgentConfig({
      argv: ['--master', 'http://m.example', '--token', 't', '--proxy', 'http://proxy.example:3128/'],
      env: {},
    }).proxyUrl,
    'http://proxy.example:3128',
  );
  assert.equal(
    loadAgentConfig({
      argv: ['--master', 'http://m.example', '--token', 't'],
      env: { BACKPLANE_AGENT_PROXY_URL: 'https://p.example' },
    }).proxyUrl,
    'https://p.example',
  );
  assert.equal(
    loadAgentConfig({ argv: ['--master', 'http://m.example', '--token', 't'], env: {} }).proxyUrl,
    undefined,
  );
});

const invalid: Array<[string, string[], Record<string, string>, RegExp]> = [
  ['no master', ['--token', 't'], {}, /master URL is required/],
  ['relative master', ['--master', 'backup.example.com', '--token', 't'], {}, /absolute URL/],
  ['ftp master', ['--master', 'ftp://m.example', '--token', 't'], {}, /http or https/],
  ['credentials in the master', ['--master', 'https://u:p@m.example', '--token', 't'], {}, /credentials/],
  ['query in the master', ['--master', 'https://m.example/?x=1', '--token', 't'], {}, /query/],
  ['fragment in the master', ['--master', 'https://m.example/#x', '--token', 't'], {}, /fragment/],
  ['no token at all', ['--master', 'https://m.example'], {}, /node token is required/],
  [
    'zero poll seconds',
    ['--master', 'https://m.example', '--token', 't', '--poll-seconds', '0'],
    {},
    /--poll-seconds must be a whole number/,
  ],
  [
    'fractional heartbeat from env',
    ['--master', 'https://m.example', '--token', 't'],
    { BACKPLANE_AGENT_HEARTBEAT_SECONDS: '1.5' },
    /BACKPLANE_AGENT_HEARTBEAT_SECONDS/,
  ],
  ['unknown flag', ['--master', 'https://m.example', '--token', 't', '--nope', 'x'], {}, /Unknown option/],
  [
    'socks proxy',
    ['--master', 'https://m.example', '--token', 't', '--proxy', 'socks5://p.example:1080'],
    {},
    /proxy must use http or https/,
  ],
  [
    'proxy with a path',
    ['--master', 'https://m.example', '--token', 't', '--proxy', 'http://p.example/x'],
    {},
    /proxy must not contain a path/,
  ],
];
for (const [name, argv, env, pattern] of invalid) {
  test(`refused: ${name}`, () => {
    assert.throws(
      () => loadAgentConfig({ argv, env }),
      (err: unknown) => err instanceof AgentConfigError && pattern.test(err.message),
    );
  });
}

test('unknown settings and bad YAML in the file are named', async () => {
  await withYaml('master: http://m.example\ntokne: x\n', (path) => {
    assert.throws(() => loadAgentConfig({ argv: ['--config', path], env: {} }), /unknown settings: tokne/);
  });
  await withYaml('master: [\n', (path) => {
    assert.throws(() => loadAgentConfig({ argv: ['--config', path], env: {} }), /not valid YAML/);
  });
  assert.throws(
    () => loadAgentConfig({ argv: ['--config', '/nonexistent/agent.yaml'], env: {} }),
    /cannot read the config file/,
  );
});

test('error messages never contain the token', () => {
  const secret = 'bpn_' + 'a'.repeat(64);
  try {
    loadAgentConfig({ argv: ['--master', 'https://u:p@m.example', '--token', secret], env: {} });
    assert.fail('expected an error');
  } catch (err) {
    assert.ok(!(err as Error).message.includes(secret));
  }
});
