import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Passkey, TrustedDevice } from '../../db/entities/account-security.ts';
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts';
import { hashToken } from '../../security/tokens.ts';
import { TRUSTED_DEVICE_COOKIE, TRUSTED_DEVICE_DAYS } from '../../auth/mfa/trusted-devices.ts';
import { UserView, toUserView } from '../users/user-view.ts';
import { LOGIN_DEVICE_COOKIE, LOGIN_DEVICE_DAYS } from '../../auth/login-devices.ts';
import { ok } from '../../http/envelope.ts';
import type { ClientInfo, Session } from './auth-service.ts';

export const TrustedDeviceView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: Timestamp,
  expiresAt: Timestamp,
  lastIp: Type.String(),
  userAgent: Type.String(),
  /** The device this request comes from (its cookie). */
  current: Type.Boolean(),
});

function deviceFields(d: TrustedDevice) {
  return {
    id: d.id,
    name: d.name,
    createdAt: d.createdAt.toISOString(),
    lastUsedAt: d.lastUsedAt.toISOString(),
    expiresAt: d.expiresAt.toISOString(),
    lastIp: d.lastIp,
    userAgent: d.userAgent,
  };
}

/** Whether the request comes from this device (its cookie holds the device's token). */
export function isCurrentDevice(d: TrustedDevice, request: FastifyRequest): boolean {
  const cookie = request.cookies[TRUSTED_DEVICE_COOKIE];
  return cookie !== undefined && hashToken(cookie) === d.tokenHash;
}

export function toTrustedDeviceView(d: TrustedDevice, request: FastifyRequest) {
  return { ...deviceFields(d), current: isCurrentDevice(d, request) };
}

export const PasskeyView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  /** Registered with user verification (PIN, biometrics): usable for a passwordless login. */
  userVerified: Type.Boolean(),
});

export function toPasskeyView(p: Passkey) {
  return {
    id: p.id,
    name: p.name,
    createdAt: p.createdAt.toISOString(),
    lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
    userVerified: p.userVerified,
  };
}

export const SessionView = Type.Object({
  token: Type.String(),
  expiresAt: Timestamp,
  user: UserView,
  /** Issued because the login asked `rememberDevice`: the token also goes out as an HttpOnly cookie. */
  trustedDevice: Type.Optional(Type.Omit(TrustedDeviceView, ['current'])),
  trustedDeviceToken: Type.Optional(Type.String()),
  /**
   * A new login-device token: this client signed in, so it may still sign in while the account is
   * locked against unknown clients. Also set as an HttpOnly cookie; clients without cookies send it
   * back as `deviceToken` on their next login. Absent when the client presented its current one.
   */
  deviceToken: Type.Optional(Type.String()),
  /** `mfa_required_for_admins`: this admin must enrol a second factor by this time ... */
  mfaEnrollmentDeadline: Type.Optional(Timestamp),
  /** ... and, when true, it has passed: the session opens the enrolment routes only. */
  mfaEnrollmentRequired: Type.Optional(Type.Boolean()),
});

export function sessionView(s: Session) {
  return {
    token: s.token,
    expiresAt: s.expiresAt.toISOString(),
    user: toUserView(s.user, s.factors),
    ...(s.trustedDevice
      ? {
          trustedDeviceToken: s.trustedDevice.token,
          trustedDevice: deviceFields(s.trustedDevice.device),
        }
      : {}),
    ...(s.deviceToken ? { deviceToken: s.deviceToken } : {}),
    ...(s.mfaEnrollmentDeadline
      ? {
          mfaEnrollmentDeadline: s.mfaEnrollmentDeadline.toISOString(),
          mfaEnrollmentRequired: s.enrolmentOnly === true,
        }
      : {}),
  };
}

/** The trusted-device cookie: HttpOnly, SameSite=Lax, sent to the auth routes only, Secure over HTTPS. */
export function setTrustedDeviceCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  void reply.setCookie(TRUSTED_DEVICE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/api/auth',
    secure: request.protocol === 'https',
    maxAge: TRUSTED_DEVICE_DAYS * 86_400,
  });
}

export function clearTrustedDeviceCookie(request: FastifyRequest, reply: FastifyReply): void {
  if (request.cookies[TRUSTED_DEVICE_COOKIE] !== undefined)
    void reply.clearCookie(TRUSTED_DEVICE_COOKIE, { path: '/api/auth' });
}

/** The login-device cookie: like the trusted-device cookie, for as long as a login device lasts. */
export function setLoginDeviceCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  void reply.setCookie(LOGIN_DEVICE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/api/auth',
    secure: request.protocol === 'https',
    maxAge: LOGIN_DEVICE_DAYS * 86_400,
  });
}

/**
 * The client of a sign-in request: its address, user agent and the credentials that may make it a
 * trusted client of the account (each from the body when sent there, else from its cookie).
 */
export function clientOf(
  request: FastifyRequest,
  body: { deviceToken?: string; trustedDeviceToken?: string } = {},
): ClientInfo {
  const deviceToken = body.deviceToken || request.cookies[LOGIN_DEVICE_COOKIE];
  const trustedDeviceToken = body.trustedDeviceToken || request.cookies[TRUSTED_DEVICE_COOKIE];
  return {
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? '',
    ...(deviceToken ? { deviceToken } : {}),
    ...(trustedDeviceToken ? { trustedDeviceToken } : {}),
  };
}

/**
 * The answer to every successful sign-in (setup, login, and any later way of signing in): the
 * cookies of the devices it issued, the audit entry (`login_success` with how it was made, unless
 * another action is named) and the login answer (SessionView).
 */
export async function answerLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  session: Session,
  action = 'login_success',
  via = '',
) {
  if (session.trustedDevice) setTrustedDeviceCookie(request, reply, session.trustedDevice.token);
  if (session.deviceToken) setLoginDeviceCookie(request, reply, session.deviceToken);
  // How the login was made: through what (`sso=<provider>`), the second factor used, whether a device was remembered.
  const detail = [
    via,
    session.secondFactor ? `factor=${session.secondFactor}` : '',
    session.trustedDevice ? 'remembered_device' : '',
    session.enrolmentOnly ? 'enrolment_only' : '',
  ]
    .filter(Boolean)
    .join(', ');
  await request.diScope.cradle.audit.record(
    { principal: null, clientIp: request.ip, username: session.user.username },
    {
      category: 'auth',
      action,
      targetType: 'user',
      targetId: session.user.id,
      targetName: session.user.username,
      ...(detail ? { detail } : {}),
    },
  );
  return ok(sessionView(session));
}
