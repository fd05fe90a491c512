// Public subscription routes (no credentials): the plan as its page shows it, the subscription
// checkout (limited like the payment-link checkout: per IP, and production cards against card
// testing), and the subscriber's self-service over a signed, expiring link (?t=...), whose
// actions are rate limited per subscription.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';
import type { SubscriptionDeps } from './service.ts';
import { notFound } from '../../http/errors.ts';
import { enforce } from '../../http/ratelimit.ts';
import { emptyBodyIsObject, errors, IdParams, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { AFF_COOKIE, parseClicks, withBodyCode } from '../affiliates/attribution.ts';
import { cardGuard, checkoutAdmission } from '../checkout/limits.ts';
import { cookie } from '../coupons/limits.ts';
import { CardData } from '../transactions/schemas.ts';
import { manageUrl, verifyLinkToken } from './links.ts';
import { findPublicPlan, publicPlanView } from './plans.ts';
import { CheckoutSubscriptionBody, PlanIdParams, PublicPlanResponse, SubscriptionView } from './schemas.ts';
import { cancelSubscription, fullView, pauseSubscription, retrySubscription, updateCard } from './service.ts';
import { subscribe } from './subscribe.ts';
import type { Subscription } from '../../db/types.ts';

/** Self-service actions per subscription per 10 minutes. */
const SELF_ACTIONS_PER_WINDOW = 10;
const SELF_WINDOW_MS = 600_000;

const PublicSubscription = Type.Object({
  id: Uuid,
  status: Type.String(),
  planId: Uuid,
  paymentMethod: Type.String(),
  card: Nullable(Type.Object({ brand: Nullable(Type.String()), last4: Nullable(Type.String()), expMonth: Nullable(Type.Integer()), expYear: Nullable(Type.Integer()) })),
  trialEnd: Nullable(Timestamp),
  currentPeriodEnd: Timestamp,
  cancelAtPeriodEnd: Type.Boolean(),
  payment: Type.Optional(SubscriptionView.properties.payment),
  manageUrl: Type.String({ description: 'Signed self-service link (expires)' }),
});
const PublicSubscriptionResponse = Type.Object({ message: Type.String(), subscription: PublicSubscription });
const TokenQuery = Type.Object({ t: Type.String({ maxLength: 200 }) });
const SelfCancelBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })), atPeriodEnd: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/** The options of publicSubscriptionRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface PublicSubscriptionRouteDeps {
  db: Db;
  config: Config;
  limiter: RateLimiter;
  subscriptions: SubscriptionDeps;
}

export default async function publicSubscriptionRoutes(app: HttpApp, opts: PublicSubscriptionRouteDeps) {
  const { db, config, limiter } = opts;
  const deps = opts.subscriptions;
  const tags = ['Public'];
  const noStore = { 'Cache-Control': 'no-store' };

  const publicView = async (sub: Subscription) => {
    const v = await fullView(deps, sub);
    return {
      id: v.id,
      status: v.status,
      planId: v.planId,
      paymentMethod: v.paymentMethod,
      card: v.card,
      trialEnd: v.trialEnd,
      currentPeriodEnd: v.currentPeriodEnd,
      cancelAtPeriodEnd: v.cancelAtPeriodEnd,
      payment: v.payment,
      manageUrl: manageUrl(config, sub.id, new Date()),
    };
  };

  /** The subscription a valid link points to (404 otherwise: an invalid link reveals nothing), rate limited. */
  const linked = async (req: FastifyRequest, action: boolean) => {
    const { id } = req.params as { id: string };
    if (!verifyLinkToken(config, id, (req.query as { t: string }).t)) throw notFound('Subscription');
    const sub = await db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!sub) throw notFound('Subscription');
    if (action) await enforce(limiter, `subscription-self:${sub.id}`, SELF_WINDOW_MS, SELF_ACTIONS_PER_WINDOW, 'Too many changes to this subscription; try again later');
    return sub as Subscription;
  };
  const scopeOf = (s: Subscription) => ({ userId: s.user_id, livemode: s.livemode });

  app.get(
    '/api/subscriptions/public/:planId',
    {
      schema: {
        tags,
        operationId: 'getPublicPlan',
        summary: 'A plan as its subscription page shows it (public)',
        description: 'Nothing private: no subscriber counts or limits. Inactive or full plans answer available: false with the reason; unknown or deleted ones 404.',
        params: PlanIdParams,
        response: { 200: PublicPlanResponse, ...errors(404) },
      },
    },
    async (req) => {
      const plan = await findPublicPlan(db, req.params.planId);
      if (!plan) throw notFound('Plan');
      return { message: 'OK', plan: publicPlanView(plan, plan.merchant_name) };
    },
  );

  app.post(
    '/api/subscriptions/checkout',
    {
      schema: {
        tags,
        operationId: 'checkoutSubscription',
        summary: 'Subscribe to a plan (public)',
        description:
          'In the plan\'s environment. CARD (CREDIT_CARD accepted) needs card: kept as a provider token, charged at once unless the plan has a trial. PIX and BOLETO: the first charge is issued (payment.pixCode / boletoLine / paymentUrl) and e-mailed. BOLETO takes clientAddress, required where the bank registers boletos (production): each cycle\'s boleto carries it; such a boleto\'s boletoLine is null until the bank has registered it, and it is e-mailed then. ' +
          'Refusals: 404 unknown plan; 400 PLAN_UNAVAILABLE, PLAN_FULL, INVALID_COUPON, VALIDATION_ERROR. Limited per IP, and production cards per IP and device (429 with Retry-After).',
        body: CheckoutSubscriptionBody,
        response: { 201: PublicSubscriptionResponse, ...errors(400, 404, 429, 503) },
      },
      onRequest: checkoutAdmission(limiter, config.checkoutLimits),
    },
    async (req, reply) => {
      const plan = await findPublicPlan(db, req.body.planId);
      if (!plan) throw notFound('Plan');
      const b = req.body;
      const sub = await subscribe(
        deps,
        plan,
        {
          client: { name: b.clientName, email: b.clientEmail, document: b.clientDocument, ...(b.clientPhone ? { phone: b.clientPhone } : {}) },
          paymentMethod: b.paymentMethod,
          card: b.card,
          couponCode: b.couponCode,
          clientAddress: b.clientAddress,
          affiliateClicks: withBodyCode(parseClicks(cookie(req, AFF_COOKIE)), b.affiliateCode, new Date()),
        },
        { cardGuard: cardGuard(limiter, config.checkoutLimits, req) },
      );
      return reply.code(201).headers(noStore).send({ message: 'Subscription created', subscription: await publicView(sub) });
    },
  );

  // Self-service over the signed link.
  const selfSchema = (operationId: string, summary: string, body?: object) => ({
    schema: { tags, operationId, summary, params: IdParams, querystring: TokenQuery, ...(body ? { body } : {}), response: { 200: PublicSubscriptionResponse, ...errors(400, 404, 429, 503) } },
  });

  app.get('/api/subscriptions/self/:id', selfSchema('getSelfSubscription', 'The subscription behind a self-service link (public, signed link)'), async (req, reply) =>
    reply.headers(noStore).send({ message: 'OK', subscription: await publicView(await linked(req, false)) }),
  );

  app.post('/api/subscriptions/self/:id/card', selfSchema('updateSelfSubscriptionCard', 'Update the card (signed link)', Type.Object({ card: CardData }, { additionalProperties: false })), async (req, reply) => {
    const sub = await linked(req, true);
    const after = await updateCard(deps, scopeOf(sub), sub.id, (req.body as { card: never }).card, cardGuard(limiter, config.checkoutLimits, req));
    return reply.headers(noStore).send({ message: 'Card updated', subscription: await publicView(after) });
  });

  app.post('/api/subscriptions/self/:id/pause', { preValidation: emptyBodyIsObject, ...selfSchema('pauseSelfSubscription', 'Pause (signed link)', Type.Object({}, { additionalProperties: false })) }, async (req, reply) => {
    const sub = await linked(req, true);
    return reply.headers(noStore).send({ message: 'Subscription paused', subscription: await publicView(await pauseSubscription(deps, scopeOf(sub), sub.id, undefined)) });
  });

  app.post('/api/subscriptions/self/:id/cancel', { preValidation: emptyBodyIsObject, ...selfSchema('cancelSelfSubscription', 'Cancel with a reason (signed link)', SelfCancelBody) }, async (req, reply) => {
    const sub = await linked(req, true);
    const body = req.body as { reason?: string; atPeriodEnd?: boolean };
    return reply.headers(noStore).send({ message: 'Subscription cancelled', subscription: await publicView(await cancelSubscription(deps, scopeOf(sub), sub.id, { reason: body.reason, atPeriodEnd: body.atPeriodEnd ?? true })) });
  });

  app.post('/api/subscriptions/self/:id/retry', { preValidation: emptyBodyIsObject, ...selfSchema('retrySelfSubscription', 'Pay the failed charge again (signed link)', Type.Object({}, { additionalProperties: false })) }, async (req, reply) => {
    const sub = await linked(req, true);
    return reply.headers(noStore).send({ message: 'Charge retried', subscription: await publicView(await retrySubscription(deps, scopeOf(sub), sub.id)) });
  });
}
