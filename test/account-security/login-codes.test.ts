import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../helpers/build.ts';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { LoginOtpEntity } from '../../core/db/entities/account-security.ts';
import { accountApp, login, ALICE } from './helpers.ts';

/** Email and SMS login codes travel through the notification channels, to real stand-in servers. */

test('email codes: enabling needs an address and a channel; the code arrives by SMTP, logs in once, and is stored hashed', async (t) => {
  const { app, admin, aliceId, token } = await accountApp(t);
  const smtp = await startSmtpStandIn();
  t.after(() => smtp.close());
  const configure = (body: Record<string, unknown>) =>
    call(app, 'PUT', '/api/auth/otp/config', {
      token,
      body: { currentPassword: ALICE.password, channel: 'email', enabled: true, ...body },
    });

  assert.equal((await configure({})).json.code, 'AUTH_EMAIL_REQUIRED');
  assert.equal(
    (await configure({ email: 'alice@example.test' })).json.code,
    'AUTH_OTP_NO_CHANNEL',
    'a code nobody can deliver would lock the account out',
  );
  assert.equal(
    (await configure({ email: 'alice@example.test', currentPassword: 'wrong-password' })).json.code,
    'AUTH_WRONG_PASSWORD',
  );
  const channel = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: {
      name: 'mail',
      type: 'email',
      config: {
        host: '127.0.0.1',
        port: smtp.port,
        from: 'backplane@example.test',
        to: 'ops@example.test',
        rejectUnauthorized: false,
      },
    },
  });
  assert.equal(channel.status, 200, channel.body);
  const on = await configure({ email: 'alice@example.test' });
  assert.equal(on.status, 200, on.body);
  assert.deepEqual(
    [on.json.data.emailOtpEnabled, on.json.data.mfaEnabled, on.json.data.email],
    [true, true, 'alice@example.test'],
  );

  assert.deepEqual((await login(app)).json.details.methods, ['email_otp']);
  const wrongPassword = await call(app, 'POST', '/api/auth/otp/send', {
    body: { ...ALICE, password: 'wrong-password', channel: 'email' },
  });
  assert.deepEqual(
    [wrongPassword.status, wrongPassword.json.code],
    [401, 'AUTH_INVALID_CREDENTIALS'],
    'no code without the password',
  );
  assert.equal(
    (await call(app, 'POST', '/api/auth/otp/send', { body: { ...ALICE, channel: 'sms' } })).json.code,
    'AUTH_SMS_OTP_DISABLED',
  );
  const sent = await call(app, 'POST', '/api/auth/otp/send', { body: { ...ALICE, channel: 'email' } });
  assert.equal(sent.status, 200, sent.body);
  assert.deepEqual(sent.json.data, { sent: true });
  assert.equal(smtp.mails.length, 1);
  assert.deepEqual(smtp.mails[0]!.to, ['alice@example.test'], "to the user, not to the channel's recipients");
  const code = /login code is (\d{6})/.exec(smtp.mails[0]!.source)?.[1];
  assert.ok(code, smtp.mails[0]!.source.slice(0, 500));

  const stored = await app.diContainer.cradle.orm.em.fork().findOneOrFail(LoginOtpEntity, { userId: aliceId });
  assert.match(stored.codeHash, /^\$argon2id\$/);
  assert.ok(!stored.codeHash.includes(code));
  const ok = await login(app, { twoFactorCode: code });
  assert.equal(ok.status, 200, ok.body);
  assert.equal((await login(app, { twoFactorCode: code })).json.code, 'AUTH_2FA_INVALID', 'a code works once');
});

test('SMS codes go to the webhook channel with the phone and the code; a delivery failure withdraws the code with a coded 400', async (t) => {
  const { app, admin, aliceId, token } = await accountApp(t);
  const gateway = await startWebhookReceiver();
  t.after(() => gateway.stop());
  const hook = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: { name: 'sms gateway', type: 'webhook', config: { url: gateway.url } },
  });
  assert.equal(hook.status, 200, hook.body);
  const on = await call(app, 'PUT', '/api/auth/otp/config', {
    token,
    body: { currentPassword: ALICE.password, channel: 'sms', enabled: true, phone: '+41 79 555 01 02' },
  });
  assert.equal(on.status, 200, on.body);
  assert.equal(on.json.data.smsOtpEnabled, true);

  assert.equal((await call(app, 'POST', '/api/auth/otp/send', { body: { ...ALICE, channel: 'sms' } })).status, 200);
  const [request] = await gateway.waitFor(1);
  assert.equal(request!.json.phone, '+41 79 555 01 02');
  assert.equal(request!.json.fields.purpose, 'login_otp');
  const code: string = request!.json.fields.code;
  assert.match(code, /^\d{6}$/);

  // Wrong guesses count against the pending code: the fifth drops it, and the right one no longer works.
  const wrong = code === '000000' ? '111111' : '000000';
  for (let i = 0; i < 5; i += 1)
    assert.equal((await login(app, { twoFactorCode: wrong })).json.code, 'AUTH_2FA_INVALID');
  assert.equal(
    (await login(app, { twoFactorCode: code })).json.code,
    'AUTH_2FA_INVALID',
    'dropped after five wrong codes',
  );

  // A fresh code works.
  assert.equal((await call(app, 'POST', '/api/auth/otp/send', { body: { ...ALICE, channel: 'sms' } })).status, 200);
  const [, second] = await gateway.waitFor(2);
  assert.equal((await login(app, { twoFactorCode: second!.json.fields.code })).status, 200);

  // The gateway refuses: no code stays pending.
  gateway.status = 503;
  const failed = await call(app, 'POST', '/api/auth/otp/send', { body: { ...ALICE, channel: 'sms' } });
  assert.deepEqual([failed.status, failed.json.code], [400, 'AUTH_OTP_DELIVERY_FAILED']);
  assert.equal(failed.json.details.channel, 'sms');
  assert.equal(await app.diContainer.cradle.orm.em.fork().count(LoginOtpEntity, { userId: aliceId }), 0);
  const [, , refused] = await gateway.waitFor(3);
  assert.equal(
    (await login(app, { twoFactorCode: refused!.json.fields.code })).json.code,
    'AUTH_2FA_INVALID',
    'a code that was not delivered is not valid',
  );

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { limit: '200' } });
  const actions = audit.json.data.items.map((r: { action: string; detail: string }) => `${r.action} ${r.detail}`);
  assert.ok(actions.includes('otp_enable channel=sms'));
  assert.ok(actions.includes('otp_send channel=sms'));
  assert.ok(actions.includes('otp_send_failed AUTH_OTP_DELIVERY_FAILED'));
  assert.ok(actions.includes('login_success factor=otp'));
});
