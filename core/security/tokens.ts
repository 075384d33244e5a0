import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';

/** Prefixes from the contract: API keys, node tokens and install tokens are told apart at a glance. */
export const TOKEN_PREFIX = {
  apiKey: 'bpk',
  node: 'bpn',
  install: 'bpi',
  trustedDevice: 'bpd',
  /** A client that signed in before (core/auth/login-devices.ts). */
  loginDevice: 'bpc',
} as const;
const HEX_LENGTH = { apiKey: 48, node: 64, install: 64, trustedDevice: 64, loginDevice: 64 } as const;

export type TokenKind = keyof typeof TOKEN_PREFIX;

export function generateToken(kind: TokenKind): string {
  return `${TOKEN_PREFIX[kind]}_${randomBytes(HEX_LENGTH[kind] / 2).toString('hex')}`;
}

export function looksLike(kind: TokenKind, value: string): boolean {
  return (
    value.length === TOKEN_PREFIX[kind].length + 1 + HEX_LENGTH[kind] && value.startsWith(`${TOKEN_PREFIX[kind]}_`)
  );
}

/**
 * Tokens carry 192+ random bits, so a plain SHA-256 is a safe, fast lookup key
 * (slow password hashes are for low-entropy secrets).
 */
export function hashToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
