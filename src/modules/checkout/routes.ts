// Public checkout API (no credentials): what the hosted pages call.
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';
import type { TransactionDeps } from '../transactions/types.ts';
import { notFound } from '../../http/errors.ts';
import { enforce } from '../../http/ratelimit.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import { AFF_COOKIE, parseClicks } from '../affiliates/attribution.ts';
import { checkCouponLimits, cookie, hitCouponLimits } from '../coupons/limits.ts';
import { cardGuard, checkoutAdmission } from './limits.ts';
import { recordAbandonment, recoverAbandonment } from '../payment-links/abandonments.ts';
import { AbandonmentBody, AbandonmentCreatedResponse, PublicLinkResponse, RecoverBody, RecoverResponse, SlugParams } from '../payment-links/schemas.ts';
import { findBySlug, publicView } from '../payment-links/public.ts';
import { findForCheckoutPage, transactionStatus } from '../transactions/queries.ts';
import { payPendingCard } from '../transactions/service.ts';
import { CheckoutBody, CheckoutResponse, DeclineResponse, PayCardBody, StatusResponse } from './schemas.ts';
import { checkoutLink, publicTransactionView, statusView } from './service.ts';
import { acceptOffer, declineOffer } from './upsell.ts';

/** Cart-abandonment reports per IP per minute (a public write: keeps a merchant's list from being flooded). */
const ABANDONMENTS_PER_MINUTE = 30;
/** Recoveries per IP per minute: the route takes an e-mail, so unlimited it would let anyone sweep a merchant's list. */
const RECOVERIES_PER_MINUTE = 10;

/** The options of checkoutRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface CheckoutRouteDeps {
  db: Db;
  config: Config;
  limiter: RateLimiter;
  transactions: TransactionDeps;
}

export default async function checkoutRoutes(app: HttpApp, deps: CheckoutRouteDeps) {
  const { db, config, limiter } = deps;
  const tags = ['Public'];
  const noStore = { 'Cache-Control': 'no-store' };
  // The per-IP limits are counted before the body is read (onRequest): a malformed request is an attempt too.
  const admit = checkoutAdmission(limiter, config.checkoutLimits);

  app.get(
    '/api/payment-links/public/slug/:slug',
    {
      schema: {
        tags,
        operationId: 'getPublicPaymentLink',
        summary: 'A payment link as its checkout page shows it (public)',
        description: 'Nothing private: no ids, counters or stock figures. Inactive, expired and sold-out links answer with available: false and the reason; unknown or archived ones 404.',
        params: SlugParams,
        response: { 200: PublicLinkResponse, ...errors(404) },
      },
    },
    async (req) => {
      const pl = await findBySlug(db, req.params.slug);
      if (!pl) throw notFound('Payment link');
      return { message: 'OK', paymentLink: publicView(pl) };
    },
  );

  app.post(
    '/api/payment-links/public/slug/:slug/checkout',
    {
      schema: {
        tags,
        operationId: 'checkoutPaymentLink',
        summary: 'Pay a payment link (public)',
        description:
          'Creates the transaction in the link\'s environment with the link\'s price, coupon, instalments and interest. Card data is charged at once (a declined card is still a 201 with status FAILED). ' +
          'Refusals: 404 unknown link; 400 PAYMENT_LINK_UNAVAILABLE (inactive or expired), INSUFFICIENT_STOCK (sold out), INVALID_COUPON, VALIDATION_ERROR (method disabled, phone or address required). ' +
          "An affiliate's code (`affiliateCode`, or the clicks the checkout page recorded in the cofre_aff cookie) attributes the sale (docs/affiliates.md). " +
          'A coupon that does not apply counts against the coupon-validation rate limits (429). Checkouts are limited per IP, and production card payments per IP and device against card testing (429 with Retry-After).',
        params: SlugParams,
        body: CheckoutBody,
        response: { 201: CheckoutResponse, ...errors(400, 404, 429, 503) },
      },
      onRequest: admit,
    },
    async (req, reply) => {
      const guard = {
        coupon: { before: () => checkCouponLimits(limiter, req), failed: () => hitCouponLimits(limiter, req).catch(() => {}) },
        card: cardGuard(limiter, config.checkoutLimits, req),
      };
      const { tx, redirectUrl } = await checkoutLink(deps.transactions, req.params.slug, req.body, guard, parseClicks(cookie(req, AFF_COOKIE)));
      return reply.code(201).headers(noStore).send({ message: 'Transaction created', transaction: publicTransactionView(tx, config, redirectUrl) });
    },
  );

  app.post(
    '/api/payment-links/public/slug/:slug/cart-abandonment',
    {
      schema: {
        tags,
        operationId: 'reportCartAbandonment',
        summary: 'Report a customer who left the checkout without paying (public)',
        description: 'One open abandonment per link and e-mail: a repeated report refreshes it. Limited to 30 per minute per IP.',
        params: SlugParams,
        body: AbandonmentBody,
        response: { 201: AbandonmentCreatedResponse, ...errors(400, 404, 429) },
      },
      onRequest: async (req) => {
        await enforce(limiter, `abandon:ip:${req.ip}`, 60_000, ABANDONMENTS_PER_MINUTE, 'Too many requests; slow down');
      },
    },
    async (req, reply) => {
      const { id } = await recordAbandonment(db, req.params.slug, req.body);
      return reply.code(201).send({ message: 'Cart abandonment recorded', cartAbandonment: { id } });
    },
  );

  app.post(
    '/api/payment-links/public/slug/:slug/cart-abandonment/recover',
    {
      schema: {
        tags,
        operationId: 'recoverCartAbandonment',
        summary: 'Mark a cart abandonment recovered (public)',
        description:
          'By its id or the customer e-mail. The answer is the same whether or not an open abandonment matched, so it tells nobody whether an e-mail left a cart. Limited to 10 per minute per IP. Paying the link marks the customer\'s abandonments recovered by itself.',
        params: SlugParams,
        body: RecoverBody,
        response: { 200: RecoverResponse, ...errors(400, 404, 429) },
      },
      onRequest: async (req) => {
        await enforce(limiter, `abandon-recover:ip:${req.ip}`, 60_000, RECOVERIES_PER_MINUTE, 'Too many requests; slow down');
      },
    },
    async (req) => {
      await recoverAbandonment(db, req.params.slug, req.body);
      return { message: 'Cart abandonment recovery noted' as const };
    },
  );

  app.get(
    '/api/checkout/transactions/:id/status',
    {
      schema: {
        tags,
        operationId: 'getCheckoutTransactionStatus',
        summary: 'Status of a transaction, for its payment page to poll (public)',
        description: "Only the status (and a boleto's state at its bank); nothing else about the payment.",
        params: IdParams,
        response: { 200: StatusResponse, ...errors(404) },
      },
    },
    async (req, reply) => reply.headers(noStore).send(statusView(await transactionStatus(db, req.params.id))),
  );

  app.post(
    '/api/checkout/transactions/:id/card',
    {
      schema: {
        tags,
        operationId: 'payCheckoutTransactionCard',
        summary: 'Pay a pending card transaction from its payment page (public)',
        description:
          'For card transactions created through the API without card data (their paymentUrl). The card is charged once; the number and CVV are never stored. Limited like the link checkout (429 with Retry-After).',
        params: IdParams,
        body: PayCardBody,
        response: { 200: CheckoutResponse, ...errors(400, 404, 429, 503) },
      },
      onRequest: admit,
    },
    async (req, reply) => {
      const tx = await payPendingCard(deps.transactions, req.params.id, req.body.card, cardGuard(limiter, config.checkoutLimits, req));
      const page = await findForCheckoutPage(db, tx.id);
      return reply.headers(noStore).send({ message: tx.status === 'PAID' ? 'Payment approved' : 'Payment declined', transaction: publicTransactionView(tx, config, page?.redirectUrl ?? null) });
    },
  );

  const offerTail = 'Public: the offer id is the secret (shown on the paid payment\'s page). Limited like the link checkout.';
  app.post(
    '/api/checkout/offers/:id/accept',
    {
      schema: {
        tags,
        operationId: 'acceptCheckoutOffer',
        summary: 'Accept an upsell or downsell after a payment (public, one click)',
        description:
          'Makes the offer\'s own transaction (parentTransactionId: the first payment): the same card charged again through the token its connector kept, or a new PIX. Accepted once: a repeat answers the same transaction. 409 when the first payment is not paid yet, the offer expired or was declined. ' +
          offerTail,
        params: IdParams,
        response: { 200: CheckoutResponse, ...errors(404, 409, 429, 503) },
      },
      onRequest: admit,
    },
    async (req, reply) => {
      const tx = await acceptOffer(deps.transactions, req.params.id, config.checkoutLimits.upsellMinutes);
      return reply.headers(noStore).send({ message: tx.status === 'FAILED' ? 'Payment declined' : 'Offer accepted', transaction: publicTransactionView(tx, config, null) });
    },
  );

  app.post(
    '/api/checkout/offers/:id/decline',
    {
      schema: {
        tags,
        operationId: 'declineCheckoutOffer',
        summary: 'Decline an upsell or downsell (public)',
        description: `Declining an upsell offers its checkout's downsell, if it has one (nextOfferId). ${offerTail}`,
        params: IdParams,
        response: { 200: DeclineResponse, ...errors(404, 409, 429) },
      },
      onRequest: admit,
    },
    async (req, reply) => reply.headers(noStore).send({ message: 'Offer declined', nextOfferId: await declineOffer(db, req.params.id, config.checkoutLimits.upsellMinutes) }),
  );
}
