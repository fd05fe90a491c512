// The keys account security derives from JWT_SECRET: one seals TOTP secrets at rest (AES-256-GCM),
// one keys the HMAC of short codes (an e-mailed 6-digit code hashed without a key could be found
// from its hash in a million tries). Changing JWT_SECRET ends every session and leaves enrolled
// authenticators unreadable: their owners sign in with a recovery code and enrol again.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { hashKey } from '../../http/auth.ts';

export interface AccountKeys {
  seal(plain: string): string;
  open(sealed: string): string;
  /** A keyed hash of a short code. */
  mac(text: string): string;
}

export function accountKeys(jwtSecret: string): AccountKeys {
  const sealKey = Buffer.from(hkdfSync('sha256', jwtSecret, 'cofre', 'totp secrets', 32));
  const macKey = Buffer.from(hkdfSync('sha256', jwtSecret, 'cofre', 'short codes', 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', sealKey, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `v1.${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      const raw = Buffer.from(sealed.replace(/^v1\./, ''), 'base64url');
      const d = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    },
    mac: (text) => createHmac('sha256', macKey).update(text).digest('hex'),
  };
}

/** A random single-use token for a URL or a challenge (32 bytes) and the hash it is stored as. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashKey(token) };
}
