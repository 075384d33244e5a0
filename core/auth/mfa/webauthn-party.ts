import type { Config } from '../../config/config.ts';
import { AppError } from '../../http/app-error.ts';

export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/**
 * Who passkeys are bound to: from configuration only. The reference takes the RP ID and origin
 * from the request's Host and Origin headers, which lets a look-alike site relaying to the
 * server pass its own origin off as valid; a configured party keeps passkeys phishing-proof.
 */
export function relyingParty(config: Config): RelyingParty {
  const external = config.externalUrl ? new URL(config.externalUrl) : undefined;
  const id = config.webauthnRpId ?? external?.hostname;
  const origins = config.webauthnOrigins.length > 0 ? config.webauthnOrigins : external ? [external.origin] : [];
  if (!id || origins.length === 0) throw new AppError('AUTH_WEBAUTHN_NOT_CONFIGURED');
  return { id, name: 'Backplane', origins };
}
