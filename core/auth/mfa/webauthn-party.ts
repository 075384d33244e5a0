import { isIPv4, type AddressInfo } from 'node:net';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../http/app-error.ts';

/** Where a server listens: an address and port, or a Unix socket's path (Fastify's `addresses()`). */
export type ServerAddress = AddressInfo | string;

export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (`::ffff:127.0.0.1`). */
export function isLoopback(address: string): boolean {
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return isIPv4(v4) ? v4.startsWith('127.') : address === '::1';
}

/**
 * The party of a master that only this machine can reach: every address it listens on is a
 * loopback one, so every browser that can open it opens http://localhost:<port>, which browsers
 * treat as a secure context (WebAuthn works there without TLS). Undefined when not listening, or
 * listening where other machines can connect (0.0.0.0 included): their browsers would reach it
 * under another name, which only a configured party can state. A Unix socket (behind a proxy)
 * is no loopback address either.
 */
function loopbackParty(listening: readonly ServerAddress[]): Omit<RelyingParty, 'name'> | undefined {
  const first = listening[0];
  const port = typeof first === 'object' ? first.port : undefined;
  const same = (a: ServerAddress) => typeof a === 'object' && isLoopback(a.address) && a.port === port;
  if (port === undefined || !listening.every(same)) return undefined;
  return { id: 'localhost', origins: [`http://localhost:${port}`] };
}

/**
 * Who passkeys are bound to: from configuration (`webauthnRpId`, `webauthnOrigins`, both
 * defaulting from `externalUrl`), else, with none of the three set, `localhost` and this master's
 * own origin when it listens on loopback only (`listening`: the addresses it listens on now).
 * Never from the request: the reference takes the RP ID and origin from the Host and Origin
 * headers, which lets a look-alike site relaying to the server pass its own origin off as valid.
 */
export function relyingParty(config: Config, listening: readonly ServerAddress[]): RelyingParty {
  const configured = config.externalUrl || config.webauthnRpId || config.webauthnOrigins.length > 0;
  const local = configured ? undefined : loopbackParty(listening);
  if (local) return { ...local, name: 'Backplane' };
  const external = config.externalUrl ? new URL(config.externalUrl) : undefined;
  const id = config.webauthnRpId ?? external?.hostname;
  const origins = config.webauthnOrigins.length > 0 ? config.webauthnOrigins : external ? [external.origin] : [];
  if (!id || origins.length === 0) throw new AppError('AUTH_WEBAUTHN_NOT_CONFIGURED');
  return { id, name: 'Backplane', origins };
}
