import { randomBytes } from 'node:crypto';

/** A signing secret: 32 random bytes, base64url, with a recognisable prefix. */
export function newSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64url');
}
