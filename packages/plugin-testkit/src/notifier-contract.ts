import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import type { NotificationMessage, NotifierType, ProviderDeps } from '@backplane/plugin-api';
import { closedPort } from './database-contract.ts';

/**
 * The notifier conformance suite: every notification channel type runs it against a stand-in
 * server that speaks its service's protocol (an SMTP server, an HTTP server answering like the
 * Bot API...). It checks what core relies on:
 * - a message is delivered, its title and body reach the service;
 * - a credential the service refuses rejects with ProviderError kind `auth`;
 * - a host where nothing listens rejects with kind `transient`, as does a server that never
 *   answers once the caller's signal aborts (core's timeout), and an already aborted signal;
 * - no error message (nor its causes) contains a secret of the config;
 * - the manifest is sound: an object schema whose required and secret fields are among its
 *   properties, and the harness's config within it (core validates configs with Ajv; the suite
 *   checks the shape without a validator, so the kit needs no dependency).
 */
export interface NotifierHarness {
  type: NotifierType;
  /** A config that delivers to the stand-in; its secret fields hold distinctive values (at least 8 characters). */
  config: Record<string, unknown>;
  /** The same config with a credential the stand-in refuses. */
  refused: Record<string, unknown>;
  /** The config aimed at another server (`url` is `http://host:port`): the suite uses it for a closed port and a silent server. */
  at(endpoint: { host: string; port: number; url: string }): Record<string, unknown>;
  /** What the stand-in has received so far, as text (request bodies, mail sources). */
  received(): string[] | Promise<string[]>;
  close(): Promise<void>;
}

const quietDeps = (): ProviderDeps => ({ tempDir: tmpdir(), log: { info() {}, warn() {}, error() {} } });

/** A fresh message whose title and body carry `token`. */
export function contractMessage(
  token = randomBytes(6).toString('hex'),
  overrides: Partial<NotificationMessage> = {},
): NotificationMessage {
  return {
    event: 'test',
    severity: 'info',
    title: `Backplane contract ${token}`,
    body: `Body of message ${token}.\nSecond line.`,
    fields: { token, count: 1 },
    timestamp: new Date().toISOString(),
    link: `http://127.0.0.1/records/${token}`,
    idempotencyKey: `contract-${token}`,
    ...overrides,
  };
}

/** A TCP server that accepts connections and never says a word: a service that hangs. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function kindOf(err: unknown): string | undefined {
  // Duck-typed: a third-party plugin carries its own copy of @backplane/plugin-api.
  if (!(err instanceof Error) || err.name !== 'ProviderError') return undefined;
  const kind = (err as { kind?: unknown }).kind;
  return typeof kind === 'string' ? kind : undefined;
}

/** Every message of an error and its causes. */
function messagesOf(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 8; depth++) {
    parts.push(current instanceof Error ? `${current.name}: ${current.message}` : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(' | ');
}

async function failure(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (err) {
    return err;
  }
  assert.fail('expected the delivery to fail, it succeeded');
}

export function runNotifierContract(label: string, open: () => Promise<NotifierHarness>): void {
  let opened: Promise<NotifierHarness> | undefined;
  const harness = () => (opened ??= open());
  after(async () => {
    if (opened) await (await opened).close();
  });

  const secretsOf = (h: NotifierHarness, config: Record<string, unknown>) =>
    h.type.secretFields.map((f) => config[f]).filter((v): v is string => typeof v === 'string' && v.length > 0);

  const assertNoSecret = (h: NotifierHarness, config: Record<string, unknown>, err: unknown) => {
    const text = messagesOf(err);
    for (const secret of secretsOf(h, config)) {
      assert.ok(
        !text.includes(secret) && !text.includes(encodeURIComponent(secret)),
        `an error message leaks the secret ${JSON.stringify(secret)}: ${text}`,
      );
    }
  };

  const send = async (
    h: NotifierHarness,
    config: Record<string, unknown>,
    message: NotificationMessage,
    signal?: AbortSignal,
  ) => {
    const instance = await h.type.create(config, quietDeps());
    try {
      await instance.send(message, signal ? { signal } : {});
    } finally {
      await instance.close?.();
    }
  };

  test(`${label}: the manifest is sound`, async () => {
    const h = await harness();
    const schema = h.type.configSchema as {
      type?: unknown;
      properties?: Record<string, unknown>;
      required?: string[];
      additionalProperties?: unknown;
    };
    assert.equal(schema.type, 'object', 'configSchema describes an object');
    const properties = Object.keys(schema.properties ?? {});
    for (const field of [...(schema.required ?? []), ...h.type.secretFields])
      assert.ok(properties.includes(field), `${field} is not a property of the config schema`);
    for (const field of schema.required ?? [])
      assert.ok(h.config[field] !== undefined, `the harness config lacks the required ${field}`);
    if (schema.additionalProperties === false)
      for (const key of Object.keys(h.config))
        assert.ok(properties.includes(key), `the harness config has ${key}, which the schema does not allow`);
    assert.ok(h.type.displayName.length > 0);
    for (const secret of secretsOf(h, h.config))
      assert.ok(secret.length >= 8, 'the harness secrets must be distinctive (8+ characters) for the leak checks');
  });

  test(`${label}: delivers a message`, async () => {
    const h = await harness();
    const message = contractMessage();
    await send(h, h.config, message);
    const token = String(message.fields.token);
    const got = await h.received();
    assert.ok(
      got.some((text) => text.includes(`contract ${token}`)),
      `the title did not reach the service; received: ${got.join('\n---\n').slice(0, 2000)}`,
    );
    assert.ok(
      got.some((text) => text.includes(`message ${token}`)),
      'the body did not reach the service',
    );
  });

  test(`${label}: a refused credential is an auth error without the secret`, async () => {
    const h = await harness();
    const err = await failure(send(h, h.refused, contractMessage()));
    assert.equal(kindOf(err), 'auth', `expected ProviderError kind auth, got ${messagesOf(err)}`);
    assertNoSecret(h, h.refused, err);
    assertNoSecret(h, h.config, err);
  });

  test(`${label}: an unreachable host is transient, without the secret`, async () => {
    const h = await harness();
    const port = await closedPort();
    const config = h.at({ host: '127.0.0.1', port, url: `http://127.0.0.1:${port}` });
    const err = await failure(send(h, config, contractMessage()));
    assert.equal(kindOf(err), 'transient', `expected ProviderError kind transient, got ${messagesOf(err)}`);
    assertNoSecret(h, config, err);
  });

  test(`${label}: a server that never answers is given up when the signal aborts`, { timeout: 30_000 }, async () => {
    const h = await harness();
    const silent = await silentServer();
    try {
      const config = h.at({ host: '127.0.0.1', port: silent.port, url: `http://127.0.0.1:${silent.port}` });
      const err = await failure(send(h, config, contractMessage(), AbortSignal.timeout(300)));
      assert.equal(kindOf(err), 'transient', `expected ProviderError kind transient, got ${messagesOf(err)}`);
      assertNoSecret(h, config, err);
    } finally {
      await silent.close();
    }
  });

  test(`${label}: an aborted signal delivers nothing`, async () => {
    const h = await harness();
    const message = contractMessage();
    const err = await failure(send(h, h.config, message, AbortSignal.abort()));
    assert.equal(kindOf(err), 'transient', `expected ProviderError kind transient, got ${messagesOf(err)}`);
    const got = await h.received();
    assert.ok(
      !got.some((text) => text.includes(String(message.fields.token))),
      'a message was delivered although the signal had aborted',
    );
  });
}
