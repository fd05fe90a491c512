// Coupon guessing limits (spec, Limits): 10 attempts per minute per IP and 5 per 5 minutes per
// session or device. The device is the checkout page's cookie, or an X-Device-Id header; a caller
// that sends neither is limited per IP on both counts. Counted through the shared RateLimiter, so
// every instance sees the same numbers when REDIS_URL is set.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tooManyRequests } from '../../http/errors.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';

export const COUPON_LIMITS = {
  ip: { max: 10, windowMs: 60_000 },
  device: { max: 5, windowMs: 300_000 },
} as const;

export const DEVICE_COOKIE = 'cofre_did';
const DEVICE_ID = /^[A-Za-z0-9_-]{8,128}$/;

/** A cookie of the request, unparsed; null when absent. */
export function cookie(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The session/device identifier of a request: X-Device-Id, else the checkout cookie, else none. */
export function deviceId(req: FastifyRequest): string | null {
  const header = req.headers['x-device-id'];
  if (typeof header === 'string' && DEVICE_ID.test(header)) return header;
  const c = cookie(req, DEVICE_COOKIE);
  return c && DEVICE_ID.test(c) ? c : null;
}

/** Sets the device cookie on a checkout page response when the browser has none yet. */
export function ensureDeviceCookie(req: FastifyRequest, reply: FastifyReply, secure: boolean) {
  if (cookie(req, DEVICE_COOKIE)) return;
  const id = randomBytes(16).toString('base64url');
  reply.header('Set-Cookie', `${DEVICE_COOKIE}=${id}; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

function keys(req: FastifyRequest) {
  const device = deviceId(req);
  return { ip: `coupon:ip:${req.ip}`, device: device ? `coupon:dev:${device}` : `coupon:dev-ip:${req.ip}` };
}

/** 429 for the tripped limit that resets last, if any. */
function refuse(tripped: { resetMs: number; max: number }[]): void {
  if (!tripped.length) return;
  const last = tripped.reduce((a, b) => (b.resetMs > a.resetMs ? b : a));
  throw tooManyRequests('Too many coupon attempts; try again later', last.resetMs, last.max);
}

/** Counts one attempt on both limits; 429 with Retry-After when either is exceeded. */
export async function hitCouponLimits(limiter: RateLimiter, req: FastifyRequest): Promise<void> {
  const k = keys(req);
  const [ip, device] = await Promise.all([limiter.hit(k.ip, COUPON_LIMITS.ip.windowMs), limiter.hit(k.device, COUPON_LIMITS.device.windowMs)]);
  refuse([
    ...(ip.count > COUPON_LIMITS.ip.max ? [{ resetMs: ip.resetMs, max: COUPON_LIMITS.ip.max }] : []),
    ...(device.count > COUPON_LIMITS.device.max ? [{ resetMs: device.resetMs, max: COUPON_LIMITS.device.max }] : []),
  ]);
}

/** 429 if the caller has no attempts left, without counting one (checkout with a coupon). */
export async function checkCouponLimits(limiter: RateLimiter, req: FastifyRequest): Promise<void> {
  const k = keys(req);
  const [ip, device] = await Promise.all([limiter.peek(k.ip), limiter.peek(k.device)]);
  refuse([
    ...(ip.count >= COUPON_LIMITS.ip.max ? [{ resetMs: ip.resetMs, max: COUPON_LIMITS.ip.max }] : []),
    ...(device.count >= COUPON_LIMITS.device.max ? [{ resetMs: device.resetMs, max: COUPON_LIMITS.device.max }] : []),
  ]);
}
