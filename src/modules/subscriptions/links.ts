// Signed self-service links: /subscription/{id}?t=<expiry>.<signature>. The subscriber has no
// account; whoever holds an unexpired link of a subscription may act on it (pay, update the card,
// pause, cancel), as with Stripe's customer-portal links. HMAC-SHA256 keyed by a key derived from
// JWT_SECRET, compared in constant time; links expire after LINK_TTL_MS.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';

export const LINK_TTL_MS = 30 * 86_400_000;

const sign = (config: Config, id: string, exp: number) => createHmac('sha256', `${config.jwtSecret}:subscription-link`).update(`${id}.${exp}`).digest('base64url');

/** The token of a link to subscription `id`, valid until now + ttl. */
export function linkToken(config: Config, id: string, now: Date, ttlMs = LINK_TTL_MS): string {
  const exp = Math.floor((now.getTime() + ttlMs) / 1000);
  return `${exp}.${sign(config, id, exp)}`;
}

export const manageUrl = (config: Config, id: string, now: Date) => `${config.checkoutUrl}/subscription/${id}?t=${linkToken(config, id, now)}`;

/** Whether `token` is a valid, unexpired link token for subscription `id`. */
export function verifyLinkToken(config: Config, id: string, token: string | undefined, now = new Date()): boolean {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= now.getTime()) return false;
  const want = Buffer.from(sign(config, id, exp));
  const got = Buffer.from(m[2]);
  return want.length === got.length && timingSafeEqual(want, got);
}
