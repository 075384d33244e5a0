import type { EntityManager } from '@mikro-orm/core';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  AuthenticationResponseJSON,
} from '@simplewebauthn/server';
import type { User } from '../../db/entities/user.ts';
import { PasskeyEntity, WebAuthnChallengeEntity, type Passkey } from '../../db/entities/account-security.ts';
import { AppError } from '../../http/app-error.ts';
import type { RelyingParty } from './webauthn-party.ts';

const CHALLENGE_TTL_MS = 5 * 60_000;

/** The WebAuthn library, loaded on the first passkey operation rather than at start (~25 MiB resident). */
const webauthn = () => import('@simplewebauthn/server');
const helpers = () => import('@simplewebauthn/server/helpers');
/** ES256 and EdDSA: what platform authenticators and security keys sign with. */
const ALGORITHMS = [-7, -8];

type Purpose = 'register' | 'login';

async function storeChallenge(
  em: EntityManager,
  challenge: string,
  purpose: Purpose,
  userId: number | null,
): Promise<void> {
  await em.nativeDelete(WebAuthnChallengeEntity, { expiresAt: { $lte: new Date() } });
  em.create(WebAuthnChallengeEntity, {
    challenge,
    purpose,
    userId,
    expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
  });
  await em.flush();
}

/** Takes a challenge out of the store: true once, for an unexpired one of this purpose and account. */
function consumeChallenge(em: EntityManager, purpose: Purpose, userId: number | null) {
  return async (challenge: string): Promise<boolean> =>
    (await em.nativeDelete(WebAuthnChallengeEntity, { challenge, purpose, userId, expiresAt: { $gt: new Date() } })) ===
    1;
}

function transportsOf(p: Passkey): string[] {
  try {
    const list: unknown = JSON.parse(p.transports);
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/** The reference's console sends the credential without the fields newer browsers add; fill them in. */
function asResponseJson<T extends RegistrationResponseJSON | AuthenticationResponseJSON>(
  credential: Record<string, unknown>,
): T {
  return { clientExtensionResults: {}, type: 'public-key', ...credential } as unknown as T;
}

export async function registrationOptions(
  em: EntityManager,
  rp: RelyingParty,
  user: User,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await em.find(PasskeyEntity, { userId: user.id });
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userDisplayName: user.displayName,
    userID: new TextEncoder().encode(`backplane-user-${user.id}`),
    attestationType: 'none',
    supportedAlgorithmIDs: ALGORITHMS,
    timeout: CHALLENGE_TTL_MS,
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: transportsOf(p) })),
    // Discoverable, so that the passkey can also log in without a user name (passwordless).
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  await storeChallenge(em, options.challenge, 'register', user.id);
  return options;
}

export async function finishRegistration(
  em: EntityManager,
  rp: RelyingParty,
  user: User,
  credential: Record<string, unknown>,
  name: string,
): Promise<Passkey> {
  const [{ verifyRegistrationResponse }, { isoBase64URL }] = await Promise.all([webauthn(), helpers()]);
  let info;
  try {
    const result = await verifyRegistrationResponse({
      response: asResponseJson<RegistrationResponseJSON>(credential),
      expectedChallenge: consumeChallenge(em, 'register', user.id),
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
    if (!result.verified) throw new Error('not verified');
    info = result.registrationInfo;
  } catch (err) {
    throw new AppError('AUTH_WEBAUTHN_INVALID', {
      message: `The passkey registration was refused: ${(err as Error).message}`,
    });
  }
  if (await em.count(PasskeyEntity, { credentialId: info.credential.id }))
    throw new AppError('AUTH_WEBAUTHN_INVALID', { message: 'This passkey is already registered.' });
  const passkey = em.create(PasskeyEntity, {
    userId: user.id,
    credentialId: info.credential.id,
    publicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
    signCount: info.credential.counter,
    transports: JSON.stringify(info.credential.transports ?? []),
    name: name.trim().slice(0, 128) || `Passkey ${new Date().toISOString().slice(0, 10)}`,
    userVerified: info.userVerified,
  });
  await em.flush();
  return passkey;
}

/**
 * Options for a passkey login. With an account (the second-factor step, after the password)
 * they list its passkeys; without one (passwordless) they list none and the browser offers the
 * discoverable passkeys it holds for this site, which name the account themselves.
 */
export async function loginOptions(
  em: EntityManager,
  rp: RelyingParty,
  user: User | null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = user ? await em.find(PasskeyEntity, { userId: user.id }) : [];
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CHALLENGE_TTL_MS,
    userVerification: user ? 'preferred' : 'required',
    allowCredentials: allow.map((p) => ({ id: p.credentialId, transports: transportsOf(p) })),
  });
  await storeChallenge(em, options.challenge, 'login', user?.id ?? null);
  return options;
}

/**
 * Checks a passkey assertion: for `user` as its second factor, or (user null) as a passwordless
 * login that must have verified the user. The challenge is used up whatever the outcome, and the
 * sign counter must grow (a cloned authenticator shows up as a counter that does not).
 * Returns the passkey, whose `userId` names the account.
 */
export async function verifyAssertion(
  em: EntityManager,
  rp: RelyingParty,
  user: User | null,
  assertion: Record<string, unknown>,
): Promise<Passkey | undefined> {
  const credentialId =
    typeof assertion.id === 'string' ? assertion.id : typeof assertion.rawId === 'string' ? assertion.rawId : '';
  const passkey = credentialId ? await em.findOne(PasskeyEntity, { credentialId }) : null;
  if (!passkey || (user && passkey.userId !== user.id)) return undefined;
  const [{ verifyAuthenticationResponse }, { isoBase64URL }] = await Promise.all([webauthn(), helpers()]);
  try {
    const result = await verifyAuthenticationResponse({
      response: asResponseJson<AuthenticationResponseJSON>(assertion),
      expectedChallenge: consumeChallenge(em, 'login', user?.id ?? null),
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: isoBase64URL.toBuffer(passkey.publicKey),
        counter: passkey.signCount,
        transports: transportsOf(passkey),
      },
      requireUserVerification: user === null,
    });
    if (!result.verified) return undefined;
    const updated = await em.nativeUpdate(
      PasskeyEntity,
      { id: passkey.id, signCount: passkey.signCount },
      { signCount: result.authenticationInfo.newCounter, lastUsedAt: new Date() },
    );
    return updated === 1 ? passkey : undefined;
  } catch {
    return undefined;
  }
}
