import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/**
 * RFC 6238 with the parameters every authenticator app understands: SHA-1, 6 digits, 30 s.
 * One step either side is accepted for clock drift; `afterStep` refuses any step already used,
 * so a code works once (no replay within its window).
 */
const PERIOD = 30;

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(secret: string, account: string, issuer: string): string {
  return generateURI({ issuer, label: account, secret, algorithm: 'sha1', digits: 6, period: PERIOD });
}

export function qrCodeDataUrl(uri: string): Promise<string> {
  return QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
}

/** The time step the code belongs to when it is valid and newer than `afterStep`; otherwise undefined. */
export async function totpStep(secret: string, code: string, afterStep: number | null): Promise<number | undefined> {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  try {
    const result = await verify({ secret, token, algorithm: 'sha1', digits: 6, period: PERIOD, epochTolerance: PERIOD, ...(afterStep !== null ? { afterTimeStep: afterStep } : {}) });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  } catch {
    return undefined;
  }
}
