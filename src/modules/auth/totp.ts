// TOTP (RFC 6238) over HOTP (RFC 4226): HMAC-SHA-1, 30-second steps from the Unix epoch, 6 digits by
// default (what Google Authenticator, Authy and 1Password expect), and the secret in RFC 4648 base32.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const STEP_SECONDS = 30;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32, ignoring case, spaces and padding; throws on any other character. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const i = ALPHABET.indexOf(ch);
    if (i < 0) throw new Error('invalid base32');
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** HOTP value of `counter` (RFC 4226 §5.3: dynamic truncation), zero-padded to `digits`. */
export function hotp(secret: Uint8Array, counter: number, digits = 6): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(msg).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const bin = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** The time step of an instant (ms since the epoch). */
export const stepAt = (ms: number) => Math.floor(ms / 1000 / STEP_SECONDS);

/** The TOTP code at an instant. */
export const totp = (secret: Uint8Array, ms: number, digits = 6) => hotp(secret, stepAt(ms), digits);

/**
 * The step a code matches within ±1 step of `ms` (clock drift), never one at or before `afterStep`
 * (a code already used, or an earlier one, is refused: replay). Null when none does.
 */
export function matchStep(secret: Uint8Array, code: string, ms: number, afterStep: number | null, digits = 6): number | null {
  if (!/^\d+$/.test(code) || code.length !== digits) return null;
  const now = stepAt(ms);
  for (const step of [now - 1, now, now + 1]) {
    if (afterStep !== null && step <= afterStep) continue;
    if (timingSafeEqual(Buffer.from(hotp(secret, step, digits)), Buffer.from(code))) return step;
  }
  return null;
}

/** The otpauth:// URI authenticator apps read from the QR code (Key Uri Format). */
export function otpauthUri(secretBase32: string, account: string, issuer: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const q = new URLSearchParams({ secret: secretBase32, issuer, algorithm: 'SHA1', digits: '6', period: String(STEP_SECONDS) });
  return `otpauth://totp/${label}?${q.toString()}`;
}
