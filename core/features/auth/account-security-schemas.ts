import { Type } from 'typebox';
import { Username } from '../users/user-schemas.ts';

const B64 = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '^[A-Za-z0-9_-]+={0,2}$' });
const CurrentPassword = Type.String({ minLength: 1, maxLength: 128 });
const Code = Type.String({ minLength: 1, maxLength: 32 });

/**
 * A passkey's answers as the browser's `toJSON()` (and the reference's console) send them.
 * Extra members newer browsers add (authenticatorAttachment, clientExtensionResults) pass
 * through to the WebAuthn verifier, which reads them.
 */
const CREDENTIAL_ID = { id: B64(1400), rawId: B64(1400), type: Type.Optional(Type.Literal('public-key')) };

export const WebAuthnAssertion = Type.Object(
  {
    ...CREDENTIAL_ID,
    response: Type.Object(
      {
        clientDataJSON: B64(8192),
        authenticatorData: B64(8192),
        signature: B64(1024),
        userHandle: Type.Optional(Type.Union([B64(1024), Type.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

export const WebAuthnAttestation = Type.Object(
  {
    ...CREDENTIAL_ID,
    response: Type.Object(
      {
        clientDataJSON: B64(8192),
        attestationObject: B64(65536),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

export const PasswordBody = Type.Object({ currentPassword: CurrentPassword });
export const CodeBody = Type.Object({ code: Code });
export const PasswordAndCodeBody = Type.Object({ currentPassword: CurrentPassword, code: Code });
/** No body at all reaches validation as null (Type.Optional means nothing at the root): no password. */
export const OptionalPasswordBody = Type.Union([
  Type.Object({ currentPassword: Type.Optional(CurrentPassword) }),
  Type.Null(),
]);

const OtpChannel = Type.Union([Type.Literal('email'), Type.Literal('sms')]);

export const OtpConfigBody = Type.Object({
  currentPassword: CurrentPassword,
  channel: OtpChannel,
  enabled: Type.Boolean(),
  email: Type.Optional(Type.String({ maxLength: 255, pattern: '^$|^[^\\s@]+@[^\\s@]+$' })),
  phone: Type.Optional(Type.String({ maxLength: 64, pattern: '^$|^\\+?[0-9 ()-]{3,32}$' })),
});

export const OtpSendBody = Type.Object({
  username: Username,
  password: Type.String({ minLength: 1, maxLength: 128 }),
  channel: OtpChannel,
});

export const PasskeyLoginOptionsBody = Type.Object({
  username: Type.Optional(Type.String({ maxLength: 64 })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export const PasskeyFinishBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 128 })),
  credential: WebAuthnAttestation,
});

/** The WebAuthn options as the browser API takes them (`PublicKeyCredential*OptionsJSON`), passed through whole. */
export const WebAuthnOptions = Type.Object({ challenge: Type.String() }, { additionalProperties: true });

export const TotpSetupView = Type.Object({
  secret: Type.String(),
  otpAuthUrl: Type.String(),
  qrCodeDataUrl: Type.String(),
  twoFactorEnabled: Type.Boolean(),
  twoFactorConfirmed: Type.Boolean(),
});
