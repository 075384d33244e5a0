import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLoopback, relyingParty, type ServerAddress } from '../../../core/auth/mfa/webauthn-party.ts';
import { loadConfig } from '../../../core/config/load-config.ts';
import type { Config } from '../../../core/config/config.ts';
import { AppError } from '../../../core/http/app-error.ts';

const config = (overrides: Partial<Config> = {}): Config =>
  loadConfig({ env: {}, cwd: '/tmp', overrides: { dataDir: '/tmp/unused', ...overrides } });
const at = (...addresses: string[]): ServerAddress[] =>
  addresses.map((address) => ({ address, port: 8340, family: address.includes(':') ? 'IPv6' : 'IPv4' }));
const notConfigured = (err: unknown) => err instanceof AppError && err.code === 'AUTH_WEBAUTHN_NOT_CONFIGURED';

test('loopback addresses: 127.0.0.0/8, ::1 and IPv4-mapped 127.x; nothing else', () => {
  for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopback(address), address);
  for (const address of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', '::ffff:10.0.0.1', 'fe80::1', '128.0.0.1'])
    assert.ok(!isLoopback(address), address);
});

test('nothing configured: localhost with the port it listens on, only when every address it listens on is loopback', () => {
  for (const addresses of [at('127.0.0.1'), at('::1'), at('127.0.0.1', '::1')])
    assert.deepEqual(relyingParty(config(), addresses), {
      id: 'localhost',
      name: 'Backplane',
      origins: ['http://localhost:8340'],
    });
  const otherPorts: ServerAddress[] = [...at('127.0.0.1'), { address: '::1', port: 9000, family: 'IPv6' }];
  const unixSocket = ['/run/backplane.sock'];
  for (const addresses of [
    [],
    at('0.0.0.0'),
    at('::'),
    at('192.168.1.2'),
    at('127.0.0.1', '0.0.0.0'),
    otherPorts,
    unixSocket,
  ])
    assert.throws(() => relyingParty(config(), addresses), notConfigured, JSON.stringify(addresses));
});

test('anything configured wins over the loopback default, and is needed in full as before', () => {
  const loopback = at('127.0.0.1');
  assert.deepEqual(relyingParty(config({ externalUrl: 'https://backup.example.com' }), loopback), {
    id: 'backup.example.com',
    name: 'Backplane',
    origins: ['https://backup.example.com'],
  });
  assert.deepEqual(
    relyingParty(config({ webauthnRpId: 'example.com', webauthnOrigins: ['https://a.example.com'] }), loopback),
    { id: 'example.com', name: 'Backplane', origins: ['https://a.example.com'] },
  );
  // Half a configuration is a mistake to report, not something to complete with localhost.
  assert.throws(() => relyingParty(config({ webauthnRpId: 'example.com' }), loopback), notConfigured);
  assert.throws(() => relyingParty(config({ webauthnOrigins: ['https://a.example.com'] }), loopback), notConfigured);
});
