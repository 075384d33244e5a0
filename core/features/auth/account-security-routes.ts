import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { userIdOf } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import type { User } from '../../db/entities/user.ts';
import { factorSummary } from '../../auth/mfa/factor-summary.ts';
import { UserView, toUserView } from '../users/user-view.ts';
import {
  PasswordBody,
  CodeBody,
  PasswordAndCodeBody,
  OptionalPasswordBody,
  OtpConfigBody,
  OtpSendBody,
  PasskeyLoginOptionsBody,
  PasskeyFinishBody,
  WebAuthnOptions,
  TotpSetupView,
} from './account-security-schemas.ts';
import {
  PasskeyView,
  toPasskeyView,
  TrustedDeviceView,
  toTrustedDeviceView,
  isCurrentDevice,
  clearTrustedDeviceCookie,
  clientOf,
} from './auth-views.ts';

/** Account-security routes: interactive sessions only (API keys get 403 AUTH_INTERACTIVE_ONLY). */
const OWN = { access: 'auth', interactiveOnly: true, secret: true } as const;
/** The same, and open to an admin's enrolment-only session (`mfa_required_for_admins`). */
const ENROL = { ...OWN, enrolment: true } as const;

const CodesView = Type.Object({ user: UserView, recoveryCodes: Type.Array(Type.String()) });

export async function accountSecurityRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const view = async (request: FastifyRequest, user: User) =>
    toUserView(user, await factorSummary(request.diScope.cradle.em, user));
  const audit = (request: FastifyRequest, user: User, action: string, detail?: string) =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category: 'auth',
      action,
      targetType: 'user',
      targetId: user.id,
      targetName: user.username,
      ...(detail ? { detail } : {}),
    });

  // --- TOTP ---------------------------------------------------------------------------------
  app.post(
    '/api/auth/2fa/setup',
    { config: ENROL, schema: { body: PasswordBody, response: { 200: envelopeOf(TotpSetupView) } } },
    async (request) => {
      const { accountSecurity } = request.diScope.cradle;
      const result = await accountSecurity.prepareTotp(userIdOf(request), request.body.currentPassword, request.ip);
      await audit(request, await accountSecurity.user(userIdOf(request)), 'two_factor_prepare');
      return ok(result);
    },
  );

  app.post(
    '/api/auth/2fa/enable',
    { config: ENROL, schema: { body: CodeBody, response: { 200: envelopeOf(CodesView) } } },
    async (request) => {
      const { user, recoveryCodes } = await request.diScope.cradle.accountSecurity.enableTotp(
        userIdOf(request),
        request.body.code,
      );
      await audit(request, user, 'two_factor_enable');
      return ok({ user: await view(request, user), recoveryCodes });
    },
  );

  app.delete(
    '/api/auth/2fa',
    { config: OWN, schema: { body: PasswordAndCodeBody, response: { 200: envelopeOf(UserView) } } },
    async (request, reply) => {
      const user = await request.diScope.cradle.accountSecurity.disableTotp(
        userIdOf(request),
        request.body.currentPassword,
        request.body.code,
        request.ip,
      );
      const shown = await view(request, user);
      if (!shown.mfaEnabled) clearTrustedDeviceCookie(request, reply);
      await audit(request, user, 'two_factor_disable');
      return ok(shown);
    },
  );

  app.post(
    '/api/auth/2fa/recovery-codes',
    { config: OWN, schema: { body: PasswordAndCodeBody, response: { 200: envelopeOf(CodesView) } } },
    async (request) => {
      const { user, recoveryCodes } = await request.diScope.cradle.accountSecurity.regenerateRecoveryCodes(
        userIdOf(request),
        request.body.currentPassword,
        request.body.code,
        request.ip,
      );
      await audit(request, user, 'two_factor_recovery_codes_regenerate');
      return ok({ user: await view(request, user), recoveryCodes });
    },
  );

  // --- email and SMS codes -------------------------------------------------------------------
  app.put(
    '/api/auth/otp/config',
    { config: ENROL, schema: { body: OtpConfigBody, response: { 200: envelopeOf(UserView) } } },
    async (request, reply) => {
      const user = await request.diScope.cradle.accountSecurity.configureOtp(
        userIdOf(request),
        request.body,
        request.ip,
      );
      const shown = await view(request, user);
      if (!shown.mfaEnabled) clearTrustedDeviceCookie(request, reply);
      await audit(
        request,
        user,
        request.body.enabled ? 'otp_enable' : 'otp_disable',
        `channel=${request.body.channel}`,
      );
      return ok(shown);
    },
  );

  app.post(
    '/api/auth/otp/send',
    {
      config: { access: 'public', secret: true },
      schema: { body: OtpSendBody, response: { 200: envelopeOf(Type.Object({ sent: Type.Boolean() })) } },
    },
    async (request) => {
      const { accountSecurity, audit: writer } = request.diScope.cradle;
      const who = { principal: null, clientIp: request.ip, username: request.body.username };
      try {
        const user = await accountSecurity.sendOtp(request.body, clientOf(request));
        await writer.record(who, {
          category: 'auth',
          action: 'otp_send',
          targetType: 'user',
          targetId: user.id,
          targetName: user.username,
          detail: `channel=${request.body.channel}`,
        });
        return ok({ sent: true });
      } catch (err) {
        if (err instanceof AppError)
          await writer.record(who, {
            category: 'auth',
            action: 'otp_send_failed',
            targetType: 'user',
            targetName: request.body.username,
            detail: err.code,
          });
        throw err;
      }
    },
  );

  // --- passkeys -----------------------------------------------------------------------------
  app.post(
    '/api/auth/webauthn/register/options',
    { config: ENROL, schema: { body: PasswordBody, response: { 200: envelopeOf(WebAuthnOptions) } } },
    async (request) =>
      ok(
        await request.diScope.cradle.accountSecurity.passkeyRegistrationOptions(
          userIdOf(request),
          request.body.currentPassword,
          request.ip,
        ),
      ),
  );

  app.post(
    '/api/auth/webauthn/register/finish',
    { config: ENROL, schema: { body: PasskeyFinishBody, response: { 200: envelopeOf(UserView) } } },
    async (request) => {
      const { user, passkey } = await request.diScope.cradle.accountSecurity.finishPasskeyRegistration(
        userIdOf(request),
        request.body.credential as Record<string, unknown>,
        request.body.name,
      );
      await audit(request, user, 'webauthn_register', `passkey=${passkey.name}`);
      return ok(await view(request, user));
    },
  );

  app.get(
    '/api/auth/webauthn/credentials',
    { config: ENROL, schema: { response: { 200: envelopeOf(Type.Array(PasskeyView)) } } },
    async (request) =>
      ok((await request.diScope.cradle.accountSecurity.listPasskeys(userIdOf(request))).map(toPasskeyView)),
  );

  app.delete(
    '/api/auth/webauthn/credentials/:id',
    { config: OWN, schema: { params: IdParams, body: PasswordBody, response: { 200: envelopeOf(UserView) } } },
    async (request, reply) => {
      const { user, passkey } = await request.diScope.cradle.accountSecurity.deletePasskey(
        userIdOf(request),
        request.params.id,
        request.body.currentPassword,
        request.ip,
      );
      const shown = await view(request, user);
      if (!shown.mfaEnabled) clearTrustedDeviceCookie(request, reply);
      await audit(request, user, 'webauthn_delete', `passkey=${passkey.name}`);
      return ok(shown);
    },
  );

  app.post(
    '/api/auth/webauthn/login/options',
    {
      config: { access: 'public', secret: true },
      schema: { body: PasskeyLoginOptionsBody, response: { 200: envelopeOf(WebAuthnOptions) } },
    },
    async (request) => {
      const { accountSecurity, settings, audit: writer } = request.diScope.cradle;
      const passwordless = (await settings.values()).passkey_passwordless_login === 'true';
      try {
        return ok(await accountSecurity.passkeyLoginOptions(request.body, clientOf(request), passwordless));
      } catch (err) {
        if (err instanceof AppError && request.body.password !== undefined) {
          await writer.record(
            { principal: null, clientIp: request.ip, username: request.body.username ?? '' },
            {
              category: 'auth',
              action: 'login_failed',
              targetType: 'user',
              targetName: request.body.username ?? '',
              detail: err.code,
            },
          );
        }
        throw err;
      }
    },
  );

  // --- trusted devices ----------------------------------------------------------------------
  app.get(
    '/api/auth/trusted-devices',
    { config: OWN, schema: { response: { 200: envelopeOf(Type.Array(TrustedDeviceView)) } } },
    async (request) =>
      ok(
        (await request.diScope.cradle.accountSecurity.listTrustedDevices(userIdOf(request))).map((d) =>
          toTrustedDeviceView(d, request),
        ),
      ),
  );

  app.delete(
    '/api/auth/trusted-devices/:id',
    {
      config: OWN,
      schema: {
        params: IdParams,
        body: OptionalPasswordBody,
        response: { 200: envelopeOf(Type.Object({ deleted: Type.Boolean() })) },
      },
    },
    async (request, reply) => {
      const { accountSecurity } = request.diScope.cradle;
      const device = await accountSecurity.revokeTrustedDevice(
        userIdOf(request),
        request.params.id,
        request.body?.currentPassword,
        request.ip,
      );
      if (isCurrentDevice(device, request)) clearTrustedDeviceCookie(request, reply);
      await audit(
        request,
        await accountSecurity.user(userIdOf(request)),
        'trusted_device_revoke',
        `device=${device.name}`,
      );
      return ok({ deleted: true });
    },
  );
}
