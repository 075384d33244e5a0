/**
 * Bech32 (BIP 173) decoding as the age format uses it (https://age-encryption.org/v1): the
 * original Bech32 checksum (not Bech32m), no length limit on the data part, all-lowercase or
 * all-uppercase strings with the checksum computed over the lowercase form.
 */

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ (GENERATOR[i] as number)) >>> 0;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >>> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

/** 5-bit groups to bytes; leftover bits must be fewer than 5 and all zero. */
function fromWords(words: number[]): Buffer {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  for (const w of words) {
    acc = ((acc << 5) | w) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
  }
  if (bits >= 5 || (acc & ((1 << bits) - 1)) !== 0) throw new Error('invalid padding');
  return Buffer.from(out);
}

/**
 * Decodes `s`, requiring the human-readable part `hrp` (compared case-insensitively).
 * Returns the data bytes; throws on any malformation or a checksum mismatch.
 */
export function bech32Decode(s: string, hrp: string): Buffer {
  if (s !== s.toLowerCase() && s !== s.toUpperCase()) throw new Error('mixed case');
  const lower = s.toLowerCase();
  const sep = lower.lastIndexOf('1');
  if (sep < 1 || sep + 7 > lower.length) throw new Error('malformed');
  const prefix = lower.slice(0, sep);
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix.charCodeAt(i);
    if (c < 33 || c > 126) throw new Error('malformed prefix');
  }
  if (prefix !== hrp.toLowerCase()) throw new Error(`expected the prefix "${hrp}"`);
  const data: number[] = [];
  for (const ch of lower.slice(sep + 1)) {
    const v = CHARSET.indexOf(ch);
    if (v < 0) throw new Error('invalid character');
    data.push(v);
  }
  if (polymod([...hrpExpand(prefix), ...data]) !== 1) throw new Error('bad checksum');
  return fromWords(data.slice(0, -6));
}

/** Bytes to 5-bit groups, the last one zero-padded. */
function toWords(bytes: Uint8Array): number[] {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

/** Encodes `data` under the human-readable part `hrp`, lowercase. */
export function bech32Encode(hrp: string, data: Uint8Array): string {
  const prefix = hrp.toLowerCase();
  const words = toWords(data);
  const chk = polymod([...hrpExpand(prefix), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (chk >>> (5 * (5 - i))) & 31);
  return `${prefix}1${[...words, ...checksum].map((w) => CHARSET[w]).join('')}`;
}
