/** otplib and qrcode load with the first TOTP operation, not when the master starts. */
const otp = () => import('otplib');

/**
 * RFC 6238 with the parameters every authenticator app understands: SHA-1, 6 digits, 30 s.
 * One step either side is accepted for clock drift; `afterStep` refuses any step already used,
 * so a code works once (no replay within its window).
 */
const PERIOD = 30;

export async function newTotpSecret(): Promise<string> {
  return (await otp()).generateSecret({ length: 20 });
}

export async function totpUri(secret: string, account: string, issuer: string): Promise<string> {
  return (await otp()).generateURI({ issuer, label: account, secret, algorithm: 'sha1', digits: 6, period: PERIOD });
}

export async function qrCodeDataUrl(uri: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
}

/** The time step the code belongs to when it is valid and newer than `afterStep`; otherwise undefined. */
export async function totpStep(secret: string, code: string, afterStep: number | null): Promise<number | undefined> {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  try {
    const result = await (await otp()).verify({
      secret,
      token,
      algorithm: 'sha1',
      digits: 6,
      period: PERIOD,
      epochTolerance: PERIOD,
      ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  } catch {
    return undefined;
  }
}
