import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { runNotifierContract, contractMessage, registerPlugin } from '@backplane/plugin-testkit';
import { emailType } from '../../plugins/notify-email/email-notifier.ts';
import emailPlugin from '../../plugins/notify-email/index.ts';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.ts';

const PASSWORD = 'smtp-contract-password';
const deps = { tempDir: '/tmp', log: { info() {}, warn() {}, error() {} } };
const base = {
  host: '127.0.0.1',
  from: 'Backplane <backup@example.test>',
  to: 'ops@example.test',
  rejectUnauthorized: false,
};

runNotifierContract('email', async () => {
  const smtp = await startSmtpStandIn({ users: { ops: PASSWORD } });
  return {
    type: emailType,
    config: { ...base, port: smtp.port, username: 'ops', password: PASSWORD, security: 'starttls' },
    refused: { ...base, port: smtp.port, username: 'ops', password: 'wrong-password-123', security: 'starttls' },
    at: ({ host, port }) => ({ ...base, host, port, username: 'ops', password: PASSWORD, security: 'none' }),
    received: () => smtp.mails.map((m) => m.source),
    close: smtp.close,
  };
});

const send = async (config: Record<string, unknown>, message = contractMessage(), options = {}) => {
  const instance = await emailType.create(config, deps);
  await instance.send(message, options);
  return message;
};

test('email: STARTTLS with AUTH, several recipients, text and HTML parts, headers for deduplication', async (t) => {
  const smtp = await startSmtpStandIn({ users: { ops: PASSWORD } });
  t.after(smtp.close);
  const message = await send(
    {
      ...base,
      port: String(smtp.port),
      username: 'ops',
      password: PASSWORD,
      to: 'a@example.test, b@example.test;c@example.test',
    },
    contractMessage('multi', { severity: 'error', fields: { taskName: 'db <prod>', count: 2 } }),
  );
  const [mail] = smtp.mails;
  assert.ok(mail, 'a mail arrived');
  assert.deepEqual(mail.to, ['a@example.test', 'b@example.test', 'c@example.test']);
  assert.equal(mail.user, 'ops');
  assert.equal(mail.secure, true, 'STARTTLS was used before AUTH');
  assert.match(mail.source, /^Subject: Backplane contract multi/m);
  assert.match(mail.source, /Content-Type: text\/plain/);
  assert.match(mail.source, /Content-Type: text\/html/);
  assert.match(mail.source, /db &lt;prod&gt;/, 'HTML is escaped');
  assert.match(mail.source, new RegExp(`^Message-ID: <${message.idempotencyKey}@backplane>`, 'm'));
  assert.match(mail.source, new RegExp(`^X-Backplane-Idempotency-Key: ${message.idempotencyKey}`, 'm'));
  assert.ok(!mail.source.includes(PASSWORD));
});

test('email: implicit TLS on port 465 semantics (security tls, or auto with port 465)', async (t) => {
  const smtp = await startSmtpStandIn({ secure: true, users: { ops: PASSWORD } });
  t.after(smtp.close);
  await send({ ...base, port: smtp.port, username: 'ops', password: PASSWORD, security: 'tls' });
  assert.equal(smtp.mails.length, 1);
  assert.equal(smtp.mails[0]!.secure, true);
});

test('email: security starttls refuses a server without STARTTLS, so the password never travels in clear', async (t) => {
  const smtp = await startSmtpStandIn({ noStarttls: true });
  t.after(smtp.close);
  await assert.rejects(
    send({ ...base, port: smtp.port, username: 'ops', password: PASSWORD, security: 'starttls' }),
    (err: Error & { kind?: string }) => {
      assert.equal(err.name, 'ProviderError');
      assert.ok(!err.message.includes(PASSWORD));
      return true;
    },
  );
  assert.equal(smtp.mails.length, 0);
});

test('email: CR/LF in a title cannot add a header; an address override replaces the recipients', async (t) => {
  const smtp = await startSmtpStandIn();
  t.after(smtp.close);
  await send(
    { ...base, port: smtp.port, security: 'none', to: 'list@example.test' },
    contractMessage('crlf', { title: 'Alert\r\nBcc: attacker@example.test' }),
    { address: { kind: 'email', value: 'me@example.test' } },
  );
  const [mail] = smtp.mails;
  assert.deepEqual(mail!.to, ['me@example.test']);
  const headers = mail!.source.split('\r\n\r\n')[0]!;
  assert.ok(!/^Bcc:/im.test(headers), 'no injected header');
  assert.match(headers, /^Subject: Alert Bcc: attacker@example.test$/m);
});

test("email: the schema takes BackupX's fields (port as a number or a string) and refuses the rest", async () => {
  const validate = new Ajv({ strict: false }).compile(emailType.configSchema);
  assert.ok(
    validate({ host: 'smtp.example.test', port: 587, username: 'u', password: 'p', from: 'a@b.c', to: 'x@y.z' }),
  );
  assert.ok(validate({ host: 'smtp.example.test', port: '465', from: 'a@b.c', to: 'x@y.z' }));
  for (const bad of [
    { host: 'h', port: 0, from: 'a@b.c', to: 'x@y.z' },
    { host: 'h', port: 25, to: 'x@y.z' },
    { host: 'h', port: 25, from: 'a@b.c', to: 'x@y.z', security: 'ssl3' },
    { host: 'h', port: 'abc', from: 'a@b.c', to: 'x@y.z' },
  ]) {
    assert.equal(validate(bad), false, JSON.stringify(bad));
  }
  const registered = await registerPlugin(emailPlugin);
  assert.deepEqual([...registered.notifiers.keys()], ['email']);
  assert.deepEqual(emailType.addressKinds, ['email']);
});
