// Limits on the public checkout, whose routes take no credentials:
// - every checkout and card step, per IP per minute (CHECKOUT_PER_IP_PER_MINUTE): against flooding
//   a merchant with pending transactions;
// - against card testing (stolen card numbers tried one after another on a merchant's link, which
//   costs the merchant decline fees and disputes): production card charges per IP per hour
//   (CARD_ATTEMPTS_PER_IP_PER_HOUR), and after CARD_DECLINES_PER_HOUR declined cards from one IP,
//   or one device (the checkout cookie or X-Device-Id, as for coupons), no more card payments from
//   it until the hour is over. A charge counts as a decline from before the provider is asked until
//   it is approved (then the count is taken back): attempts racing each other cannot slip past the
//   limit while the first outcomes are still unknown. Development links are exempt: the sandbox takes only test cards, and
//   a merchant trying its integration declines them on purpose.
// Counted through the shared RateLimiter (Redis when REDIS_URL is set: every instance agrees).
import type { FastifyRequest } from 'fastify';
import type { CheckoutLimits } from '../../config.ts';
import { tooManyRequests } from '../../http/errors.ts';
import { enforce, type RateLimiter } from '../../http/ratelimit.ts';
import { deviceId } from '../coupons/limits.ts';
import type { CardGuard } from '../transactions/service.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const CARD_MESSAGE = 'Too many card payment attempts; try again later';

/**
 * The onRequest hook of the checkout routes: 429 when this request makes the caller's checkouts in
 * the current minute too many. Counted before the body is read: a malformed request is an attempt too.
 */
export function checkoutAdmission(limiter: RateLimiter, limits: CheckoutLimits): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    await enforce(limiter, `checkout:ip:${req.ip}`, MINUTE, limits.perIpPerMinute, 'Too many checkout attempts; try again shortly');
  };
}

/** The card-testing limits of one request, for the charge paths (production only: see above). */
export function cardGuard(limiter: RateLimiter, limits: CheckoutLimits, req: FastifyRequest): CardGuard {
  const device = deviceId(req);
  const declines = [`card-declines:ip:${req.ip}`, ...(device ? [`card-declines:dev:${device}`] : [])];
  return {
    async before() {
      const counted = await Promise.all(declines.map((k) => limiter.hit(k, HOUR)));
      const blocked = counted.filter((d) => d.count > limits.cardDeclinesPerHour);
      if (blocked.length) {
        await Promise.all(declines.map((k) => limiter.release(k))); // a refusal is no decline
        throw tooManyRequests(CARD_MESSAGE, Math.max(...blocked.map((d) => d.resetMs)), limits.cardDeclinesPerHour);
      }
      try {
        await enforce(limiter, `card-attempts:ip:${req.ip}`, HOUR, limits.cardAttemptsPerIpPerHour, CARD_MESSAGE);
      } catch (err) {
        await Promise.all(declines.map((k) => limiter.release(k)));
        throw err;
      }
    },
    async approved() {
      await Promise.all(declines.map((k) => limiter.release(k)));
    },
  };
}
