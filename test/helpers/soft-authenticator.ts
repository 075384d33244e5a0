import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software passkey authenticator for tests: real P-256 keys and ES256 signatures from
 * node:crypto, attestation `none`, CBOR from the WebAuthn library's own encoder. It answers
 * `navigator.credentials.create/get` options the way a browser and platform authenticator do,
 * so the server's real verification runs against it.
 */
const b64url = (b: Uint8Array | Buffer) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

interface Credential {
  id: Buffer;
  key: KeyObject;
  userHandle: string;
  rpId: string;
  signCount: number;
}

export class SoftAuthenticator {
  readonly origin: string;
  /** Whether this authenticator verifies its user (PIN, biometrics): sets the UV flag. */
  userVerification: boolean;
  readonly #credentials: Credential[] = [];

  constructor(origin: string, options: { userVerification?: boolean } = {}) {
    this.origin = origin;
    this.userVerification = options.userVerification ?? true;
  }

  #flags(attested: boolean): number {
    return 0x01 /* UP */ | (this.userVerification ? 0x04 /* UV */ : 0) | (attested ? 0x40 /* AT */ : 0);
  }

  /** Answers registration options (PublicKeyCredentialCreationOptionsJSON) with a new credential. */
  create(options: { challenge: string; rp: { id?: string }; user: { id: string } }): Record<string, unknown> {
    const rpId = options.rp.id!;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const id = randomBytes(32);
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.#flags(true)]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      id,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin: this.origin,
      crossOrigin: false,
    });
    this.#credentials.push({ id, key: privateKey, userHandle: options.user.id, rpId, signCount: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(Buffer.from(clientDataJSON)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * Answers authentication options with an assertion from a credential it holds for the RP:
   * one of `allowCredentials`, or (empty list: a discoverable login) the newest it has.
   */
  get(
    options: { challenge: string; rpId?: string; allowCredentials?: { id: string }[] },
    overrides: { signCount?: number; origin?: string } = {},
  ): Record<string, unknown> {
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const credential = [...this.#credentials]
      .reverse()
      .find((c) => c.rpId === options.rpId && (allowed.size === 0 || allowed.has(b64url(c.id))));
    if (!credential) throw new Error('no credential for this relying party');
    credential.signCount = overrides.signCount ?? credential.signCount + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.signCount);
    const authData = Buffer.concat([sha256(credential.rpId), Buffer.from([this.#flags(false)]), counter]);
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: options.challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.key);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
