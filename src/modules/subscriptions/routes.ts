// Subscriptions over HTTP, merchant side: each route mounted under /api/subscriptions and
// /api/v1/subscriptions (one handler, both paths), with an API key (subscriptions:read / :write) or
// a dashboard token. Operations without a required body accept a request with no body at all.
import type { HttpApp } from '../../http/app-type.ts';
import type { Db, Executor } from '../../db/index.ts';
import type { Subscription } from '../../db/types.ts';
import { answerWithin } from '../../http/idempotency.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { SubscriptionDeps } from './service.ts';
import { emptyBodyIsObject, errors, IdParams } from '../../http/schemas.ts';
import { validation } from '../../http/errors.ts';
import { findPlan } from './plans.ts';
import {
  CancelBody,
  ChangePlanBody,
  ChangePlanResponse,
  CreateSubscriptionBody,
  EmptyBody,
  ListSubscriptionsQuery,
  opId,
  PauseBody,
  PREFIXES,
  READ,
  SimulateBody,
  SubscriptionListResponse,
  SubscriptionResponse,
  WRITE,
} from './schemas.ts';
import {
  cancelSubscription,
  changePlan,
  fullView,
  getSubscription,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
  retrySubscription,
  simulate,
} from './service.ts';
import { subscribe } from './subscribe.ts';
import { subscriptionView } from './view.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of subscriptionRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface SubscriptionRouteDeps {
  db: Db;
  reads: ReadRouter;
  cursors: Cursors;
  subscriptions: SubscriptionDeps;
}

export default async function subscriptionRoutes(app: HttpApp, opts: SubscriptionRouteDeps) {
  const { db, reads, cursors } = opts;
  const deps = opts.subscriptions;
  const tags = ['Subscriptions'];
  const optionalBody = { preValidation: emptyBodyIsObject };

  for (const prefix of PREFIXES) {
    app.post(
      prefix,
      {
        config: WRITE,
        schema: {
          tags,
          operationId: opId(prefix, 'createSubscription'),
          summary: 'Subscribe a client to a plan',
          description:
            'clientId, or a nested client (created or matched by document). paymentMethod CARD (CREDIT_CARD accepted) with card, PIX or BOLETO. With a trial: TRIALING, nothing charged. Without: INCOMPLETE until the first charge is paid (a card is charged at once; a PIX or boleto is issued and e-mailed). ' +
            "BOLETO takes clientAddress (the payer's address, copied to every cycle's boleto), required where the environment's bank registers boletos (production keys): 400 naming clientAddress without it, nothing written. A production boleto is registered by the bank a few seconds after it is created: payment.boletoLine is null until then, and the subscriber is e-mailed once it is there. " +
            '400 PLAN_UNAVAILABLE (inactive plan), PLAN_FULL (maxSubscribers reached), INVALID_COUPON.',
          body: CreateSubscriptionBody,
          response: { 201: SubscriptionResponse, ...errors(400, 401, 403, 503) },
        },
      },
      async (req, reply) => {
        const plan = await findPlan(db, req.auth, req.body.planId);
        if (!plan) throw validation('planId', 'is not a plan of this merchant and environment');
        const body = async (s: Subscription, from: Executor = db) => ({ message: 'Subscription created', subscription: await fullView({ ...deps, db: from }, s) });
        // Stored with the subscription: a retry after a crash replays it rather than subscribing again.
        const sub = await subscribe(deps, plan, req.body, { answer: answerWithin(req, reply, 201, body) });
        return reply.code(201).send(await body(sub));
      },
    );

    app.get(
      prefix,
      { config: READ, schema: { tags, operationId: opId(prefix, 'listSubscriptions'), summary: 'List subscriptions (cursor)', querystring: ListSubscriptionsQuery, response: { 200: SubscriptionListResponse, ...errors(400, 401, 403) } } },
      async (req) => {
        const { rows, pagination } = await listSubscriptions(await reads.for(req.auth), cursors, req.auth, req.query);
        return { message: 'OK', subscriptions: rows.map((s) => subscriptionView(s)), pagination };
      },
    );

    app.get(
      `${prefix}/:id`,
      { config: READ, schema: { tags, operationId: opId(prefix, 'getSubscription'), summary: 'Get a subscription with its cycles', params: IdParams, response: { 200: SubscriptionResponse, ...errors(401, 403, 404) } } },
      async (req) => ({ message: 'OK', subscription: await fullView(deps, await getSubscription(db, req.auth, req.params.id)) }),
    );

    app.patch(
      `${prefix}/:id/cancel`,
      {
        config: WRITE,
        ...optionalBody,
        schema: {
          tags,
          operationId: opId(prefix, 'cancelSubscription'),
          summary: 'Cancel a subscription (now, or at the end of its period)',
          description: 'Body optional: {"atPeriodEnd": true} keeps it until its period ends; reason is kept. Unpaid charges are withdrawn. 400 INVALID_STATE_TRANSITION when already ended.',
          params: IdParams,
          body: CancelBody,
          response: { 200: SubscriptionResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ message: 'Subscription cancelled', subscription: await fullView(deps, await cancelSubscription(deps, req.auth, req.params.id, req.body ?? {})) }),
    );

    app.patch(
      `${prefix}/:id/pause`,
      {
        config: WRITE,
        ...optionalBody,
        schema: {
          tags,
          operationId: opId(prefix, 'pauseSubscription'),
          summary: 'Pause a subscription',
          description: 'ACTIVE or PAST_DUE only. Nothing is billed while paused (unpaid charges are withdrawn); resumesAt (optional) resumes it by itself. Resuming starts a new period.',
          params: IdParams,
          body: PauseBody,
          response: { 200: SubscriptionResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ message: 'Subscription paused', subscription: await fullView(deps, await pauseSubscription(deps, req.auth, req.params.id, req.body?.resumesAt)) }),
    );

    app.patch(
      `${prefix}/:id/resume`,
      {
        config: WRITE,
        ...optionalBody,
        schema: {
          tags,
          operationId: opId(prefix, 'resumeSubscription'),
          summary: 'Resume a paused subscription',
          description: 'A new period starts now and is charged (card) or issued (PIX, boleto).',
          params: IdParams,
          body: EmptyBody,
          response: { 200: SubscriptionResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ message: 'Subscription resumed', subscription: await fullView(deps, await resumeSubscription(deps, req.auth, req.params.id)) }),
    );

    app.post(
      `${prefix}/:id/retry`,
      {
        config: WRITE,
        ...optionalBody,
        schema: {
          tags,
          operationId: opId(prefix, 'retrySubscription'),
          summary: 'Retry the failed charge now',
          description: 'PAST_DUE or INCOMPLETE with a failed charge: a card is charged again by its token; a new PIX or boleto is issued and e-mailed.',
          params: IdParams,
          body: EmptyBody,
          response: { 200: SubscriptionResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ message: 'Charge retried', subscription: await fullView(deps, await retrySubscription(deps, req.auth, req.params.id)) }),
    );

    app.post(
      `${prefix}/:id/change-plan`,
      {
        config: WRITE,
        schema: {
          tags,
          operationId: opId(prefix, 'changeSubscriptionPlan'),
          summary: 'Change plan (upgrade now with proration, downgrade at period end)',
          description: 'preview: true answers the amounts and changes nothing. Both plans must bill on the same interval.',
          params: IdParams,
          body: ChangePlanBody,
          response: { 200: ChangePlanResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const preview = req.body.preview === true;
        const change = await changePlan(deps, req.auth, req.params.id, req.body.planId, preview);
        const subscription = await fullView(deps, await getSubscription(db, req.auth, req.params.id));
        return { message: preview ? 'Plan change preview' : change.effective === 'NOW' ? 'Plan changed' : 'Plan change scheduled for the end of the period', preview, change, subscription };
      },
    );

    app.post(
      `${prefix}/:id/simulate`,
      {
        config: WRITE,
        schema: {
          tags,
          operationId: opId(prefix, 'simulateSubscription'),
          summary: "Move a subscription's clock forward (development only)",
          description:
            'Runs everything that falls due in those days, day by day, exactly as the jobs would: trial end, renewals (test cards decide card outcomes), PIX/boleto issue and expiry, retries, final actions; PIX_AUTOMATICO debits are paid on their due date. ' +
            '`pixAutomatico` (applied first) plays the payer of a PIX_AUTOMATICO subscription: APPROVE or REJECT the authorisation, PAYER_CANCEL it, or INSUFFICIENT_FUNDS to fail the pending debit. 403 with a production key.',
          params: IdParams,
          body: SimulateBody,
          response: { 200: SubscriptionResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const message = [req.body.pixAutomatico && `Simulated ${req.body.pixAutomatico}`, req.body.advanceDays && `Advanced ${req.body.advanceDays} days`].filter(Boolean).join('; ');
        // The clock moves in many steps: a retry of an interrupted request (same Idempotency-Key)
        // resumes towards the day the first one set, never moves it further.
        const sub = await simulate(deps, req.auth, req.params.id, req.body.advanceDays, req.body.pixAutomatico, req.idempotency?.key);
        return { message, subscription: await fullView(deps, sub) };
      },
    );
  }
}
