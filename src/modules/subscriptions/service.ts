// Subscriptions: reading, and the merchant's and subscriber's operations (cancel, pause, resume,
// retry, card update, plan change, simulation); subscribing is subscribe.ts. Time-based work is the
// engine's (sweep.ts); every operation here that moves a subscription runs on its locked row, on
// the subscription's clock.
import type { Static } from '@sinclair/typebox';
import { inTx, type Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Subscription, SubscriptionStatus, SubscriptionCycle, SubscriptionPlan } from '../../db/types.ts';
import { AppError, badRequest, forbidden, notFound, validation } from '../../http/errors.ts';
import { createdAtPage, type Cursors } from '../../http/pagination.ts';
import { sanitizeOptional } from '../../http/sanitize.ts';
import type { Scope } from '../../http/scope.ts';
import type { CardInput } from '../../payments/card.ts';
import { normalizeEmail } from '../clients/service.ts';
import { changeStatus, simulate as simulateTransaction, type CardGuard } from '../transactions/service.ts';
import { clockOf, type Step } from './agenda.ts';
import { claimAttempt, claimSeat, endSubscription, lockSubscription, openPause, planOf, recordEvent, releaseSeat, reschedule, voidUnpaid, type EngineDeps } from './cycles.ts';
import { cancelPending, issueCharge, releaseMandate } from './issuing.ts';
import { advance, performStep } from './sweep.ts';
import type { PlanDeps } from './plans.ts';
import { simulatePixAutomatico, type PixAutomaticoSimulation } from './pix-automatico.ts';
import { tokenize } from './subscribe.ts';
import { subscriptionView } from './view.ts';
import type { CancelBody, ListSubscriptionsQuery } from './schemas.ts';

export interface SubscriptionDeps extends EngineDeps, PlanDeps {}

const DAY_MS = 86_400_000;
const invalidState = (message: string) => badRequest('INVALID_STATE_TRANSITION', message, [{ field: 'status', message }]);

/** The subscription with its cycles (newest first) and its open charge, as the API shows it. */
export async function fullView(deps: Pick<SubscriptionDeps, 'db' | 'config'>, sub: Subscription) {
  const cycles = await deps.db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', sub.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute();
  const open = cycles.find((c) => (c.status === 'OPEN' || c.status === 'PAST_DUE') && c.transaction_id);
  const payment = open ? ((await deps.db.selectFrom('transactions').selectAll().where('id', '=', open.transaction_id!).executeTakeFirst()) ?? null) : null;
  return subscriptionView(sub, { cycles, payment, checkoutUrl: deps.config.checkoutUrl });
}

// ---------------------------------------------------------------------------------------------
// Reading

function owned(db: Executor, scope: Scope) {
  return db.selectFrom('subscriptions').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
}

export async function getSubscription(db: Executor, scope: Scope, id: string): Promise<Subscription> {
  const sub = await owned(db, scope).selectAll().where('id', '=', id).executeTakeFirst();
  if (!sub) throw notFound('Subscription');
  return sub as Subscription;
}

export async function listSubscriptions(db: Executor, cursors: Cursors, scope: Scope, q: Static<typeof ListSubscriptionsQuery>) {
  let base = owned(db, scope).selectAll();
  if (q.status) base = base.where('status', '=', q.status as SubscriptionStatus);
  if (q.planId) base = base.where('plan_id', '=', q.planId);
  if (q.clientId) base = base.where('client_id', '=', q.clientId);
  if (q.clientEmail) base = base.where('client_email', '=', normalizeEmail(q.clientEmail));
  return createdAtPage(cursors.of('subscriptions', scope), base, q);
}

// ---------------------------------------------------------------------------------------------
// Operations on one subscription (merchant or subscriber)

/** Runs `fn` on the locked subscription of this scope, on its clock; cancels voided charges after commit. */
async function onLocked<T>(deps: SubscriptionDeps, scope: Scope, id: string, fn: (trx: Parameters<Parameters<typeof inTx>[1]>[0], sub: Subscription, plan: SubscriptionPlan, now: Date) => Promise<{ result: T; cancel?: string[] }>): Promise<T> {
  const { result, cancel } = await inTx(deps.db, async (trx) => {
    const sub = (await lockSubscription(trx, id)) as Subscription | undefined;
    if (!sub || sub.user_id !== scope.userId || sub.livemode !== scope.livemode) throw notFound('Subscription');
    const out = await fn(trx, sub, await planOf(trx, sub.plan_id), clockOf(sub, new Date()));
    await reschedule(trx, id);
    return out;
  });
  if (cancel?.length) await cancelPending(deps, scope, cancel);
  return result;
}

export async function cancelSubscription(deps: SubscriptionDeps, scope: Scope, id: string, body: Static<typeof CancelBody>): Promise<Subscription> {
  await onLocked(deps, scope, id, async (trx, sub, plan, now) => {
    if (sub.status === 'CANCELLED' || sub.status === 'EXPIRED') throw invalidState(`A ${sub.status} subscription cannot be cancelled`);
    const reason = sanitizeOptional(body.reason) || null;
    const atEnd = body.atPeriodEnd === true && (sub.status === 'ACTIVE' || sub.status === 'TRIALING' || sub.status === 'PAST_DUE');
    if (atEnd) {
      if (sub.cancel_at_period_end) throw invalidState('This subscription is already set to cancel at the end of its period');
      const scheduled = await trx.updateTable('subscriptions').set({ cancel_at_period_end: true, cancel_reason: reason, pending_plan_id: null, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
      // The merchant hears of it now (the subscriber's own page cancels at the period's end by default).
      await recordEvent(deps, trx, scheduled as Subscription, 'subscription.cancel_scheduled');
      return { result: null };
    }
    const { pending } = await endSubscription(deps, trx, sub, plan, now, { status: 'CANCELLED', reason });
    return { result: null, cancel: pending };
  });
  await releaseMandate(deps, id);
  return getSubscription(deps.db, scope, id);
}

export async function pauseSubscription(deps: SubscriptionDeps, scope: Scope, id: string, resumesAtRaw: string | undefined): Promise<Subscription> {
  await onLocked(deps, scope, id, async (trx, sub, _plan, now) => {
    if (sub.status !== 'ACTIVE' && sub.status !== 'PAST_DUE') throw invalidState(`A ${sub.status} subscription cannot be paused (only ACTIVE or PAST_DUE)`);
    const resumesAt = resumesAtRaw ? new Date(resumesAtRaw) : null;
    if (resumesAt && resumesAt.getTime() <= now.getTime()) throw validation('resumesAt', 'must be in the future');
    // Nothing is billed while paused: unpaid charges are withdrawn.
    const voided = await voidUnpaid(trx, id, now);
    const paused = await trx
      .updateTable('subscriptions')
      .set({ status: 'PAUSED', paused_at: now, resumes_at: resumesAt, cancel_at_period_end: false, pending_plan_id: null, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await openPause(trx, paused as Subscription, now, null);
    await recordEvent(deps, trx, paused as Subscription, 'subscription.paused', { resumesAt });
    return { result: null, cancel: voided };
  });
  return getSubscription(deps.db, scope, id);
}

/** Runs a step the caller asks for (resume, retry) the way the sweep runs its steps. */
async function requestStep(deps: SubscriptionDeps, scope: Scope, id: string, choose: (sub: Subscription, plan: SubscriptionPlan) => Step): Promise<Subscription> {
  const owner = await getSubscription(deps.db, scope, id);
  await performStep(deps, owner.id, new Date(), (sub, plan) => choose(sub, plan));
  return getSubscription(deps.db, scope, id);
}

export function resumeSubscription(deps: SubscriptionDeps, scope: Scope, id: string): Promise<Subscription> {
  return requestStep(deps, scope, id, (sub) => {
    if (sub.status !== 'PAUSED') throw invalidState(`A ${sub.status} subscription cannot be resumed (only PAUSED)`);
    return { kind: 'resume' };
  });
}

/** Charges the oldest unpaid cycle again now (a card by its token; a new PIX or boleto). */
export async function retrySubscription(deps: SubscriptionDeps, scope: Scope, id: string): Promise<Subscription> {
  const owner = await getSubscription(deps.db, scope, id);
  const unpaid = await deps.db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', owner.id).where('status', 'in', ['OPEN', 'PAST_DUE']).orderBy('number').execute();
  return requestStep(deps, scope, id, (sub) => {
    if (sub.status !== 'PAST_DUE' && sub.status !== 'INCOMPLETE') throw invalidState(`A ${sub.status} subscription has no failed charge to retry (only PAST_DUE or INCOMPLETE)`);
    const cycle = unpaid.find((c) => c.status === 'PAST_DUE' || c.failure_reason);
    if (!cycle) throw invalidState('No failed charge to retry: the open charge is still awaiting payment');
    // A card declined for good (stolen, expired) is not charged again: only a new card retries it.
    if (cycle.hard_declined && sub.payment_method === 'CARD') throw invalidState(`The card was declined for good (${cycle.failure_reason}): update the card to charge again`);
    return { kind: 'retry', cycle };
  });
}

/** Replaces the card (a new provider token); an unpaid charge is retried with it at once. */
export async function updateCard(deps: SubscriptionDeps, scope: Scope, id: string, card: CardInput, cardGuard?: CardGuard): Promise<Subscription> {
  const current = await getSubscription(deps.db, scope, id);
  if (current.payment_method !== 'CARD') throw invalidState('This subscription is not paid by card');
  if (current.status === 'CANCELLED' || current.status === 'EXPIRED') throw invalidState(`A ${current.status} subscription takes no card`);
  const guard = scope.livemode ? cardGuard : undefined;
  await guard?.before();
  const token = await tokenize(deps, scope.livemode, card, { email: current.client_email }, new Date());
  await guard?.approved(); // the issuer accepted the card: the attempt was no decline
  await onLocked(deps, scope, id, async (trx, _sub, _plan, now) => {
    await trx
      .updateTable('subscriptions')
      .set({ card_token: token.token, card_brand: token.brand, card_last4: token.last4, card_exp_month: token.expMonth, card_exp_year: token.expYear, updated_at: now })
      .where('id', '=', id)
      .execute();
    // A new card is worth a new try, even after a hard decline of the old one.
    await trx.updateTable('subscription_cycles').set({ hard_declined: false, updated_at: now }).where('subscription_id', '=', id).where('status', 'in', ['OPEN', 'PAST_DUE']).execute();
    return { result: null };
  });
  const after = await getSubscription(deps.db, scope, id);
  if (after.status === 'PAST_DUE' || after.status === 'INCOMPLETE') {
    try {
      return await retrySubscription(deps, scope, id);
    } catch (err) {
      if (!(err instanceof AppError)) throw err; // nothing to retry: the card is simply saved
    }
  }
  return after;
}

/**
 * Plan change. An upgrade (a dearer plan) takes effect now with a prorated charge for the days
 * left of the period; a downgrade (or an equal price) takes effect at the period's end. Both plans
 * must bill on the same cadence (the billing dates do not move). `preview` computes, changes nothing.
 */
export async function changePlan(deps: SubscriptionDeps, scope: Scope, id: string, planId: string, preview: boolean) {
  let charge: { sub: Subscription; plan: SubscriptionPlan; cycle: SubscriptionCycle; now: Date } | null = null;
  const change = await onLocked(deps, scope, id, async (trx, sub, plan, now) => {
    if (sub.status !== 'ACTIVE' && sub.status !== 'TRIALING') throw invalidState(`A ${sub.status} subscription cannot change plans (only ACTIVE or TRIALING)`);
    const target = await trx.selectFrom('subscription_plans').selectAll().where('id', '=', planId).where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('deleted_at', 'is', null).executeTakeFirst();
    if (!target) throw validation('planId', 'is not a plan of this merchant and environment');
    if (target.id === plan.id) throw validation('planId', 'is the current plan');
    if (target.status !== 'ACTIVE') throw badRequest('PLAN_UNAVAILABLE', 'This plan is not taking new subscribers', [{ field: 'planId', message: 'the plan is inactive' }]);
    if (target.interval !== plan.interval || target.interval_count !== plan.interval_count) throw validation('planId', 'must bill on the same interval and intervalCount as the current plan');
    const start = sub.current_period_start.getTime();
    const end = sub.current_period_end.getTime();
    const periodDays = Math.max(1, Math.round((end - start) / DAY_MS));
    const remainingDays = Math.min(periodDays, Math.max(0, Math.ceil((end - now.getTime()) / DAY_MS)));
    const upgrade = target.amount_cents > plan.amount_cents;
    // A Pix Automático debit is one per period, scheduled days ahead: there is no prorated charge now.
    if (upgrade && sub.status === 'ACTIVE' && sub.payment_method === 'PIX_AUTOMATICO') {
      throw validation('planId', 'a PIX_AUTOMATICO subscription cannot upgrade mid-period (no prorated charge can be debited now): schedule the change by cancelling at the period end and subscribing again, or change to a cheaper plan');
    }
    if (target.payment_methods.includes('PIX_AUTOMATICO') === false && sub.payment_method === 'PIX_AUTOMATICO') throw validation('planId', 'the target plan does not accept PIX_AUTOMATICO');
    // A trial is not billed: an upgrade during one only switches the plan.
    const prorationCents = upgrade && sub.status === 'ACTIVE' ? Math.floor(((target.amount_cents - plan.amount_cents) * remainingDays) / periodDays) : 0;
    const result = {
      kind: upgrade ? ('UPGRADE' as const) : ('DOWNGRADE' as const),
      effective: upgrade ? ('NOW' as const) : ('PERIOD_END' as const),
      fromPlanId: plan.id,
      toPlanId: target.id,
      prorationCents,
      nextAmountCents: target.amount_cents,
      remainingDays,
      periodDays,
    };
    if (preview) return { result };
    if (!upgrade) {
      await trx.updateTable('subscriptions').set({ pending_plan_id: target.id, updated_at: now }).where('id', '=', id).execute();
      return { result };
    }
    if (!(await claimSeat(trx, target.id, { activeOnly: true }))) throw badRequest('PLAN_FULL', 'This plan has reached its maximum number of subscribers', [{ field: 'planId', message: 'the plan is full' }]);
    await releaseSeat(trx, plan.id);
    const moved = (await trx.updateTable('subscriptions').set({ plan_id: target.id, pending_plan_id: null, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow()) as Subscription;
    if (prorationCents > 0) {
      const cycle = await trx
        .insertInto('subscription_cycles')
        .values({
          id: uuidv7(now.getTime()),
          subscription_id: id,
          user_id: sub.user_id,
          livemode: sub.livemode,
          number: sub.period_index + 1,
          kind: 'PRORATION',
          period_start: now,
          period_end: sub.current_period_end,
          due_at: now,
          amount_cents: prorationCents,
          status: 'OPEN',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      charge = { sub: moved, plan: target, cycle: await claimAttempt(trx, moved, cycle, now), now };
    }
    return { result };
  });
  if (charge) {
    const c = charge as { sub: Subscription; plan: SubscriptionPlan; cycle: SubscriptionCycle; now: Date };
    await issueCharge(deps, c.sub, c.plan, c.cycle, c.now);
  }
  return change;
}

/**
 * Development only: moves the subscription's clock `days` ahead and runs everything that falls
 * due, as the jobs would (its PIX and boletos past their expiry expire first, as the expiry job
 * would have done on that day).
 */
export async function simulate(deps: SubscriptionDeps, scope: Scope, id: string, days: number | undefined, pixAutomatico?: PixAutomaticoSimulation, requestKey?: string): Promise<Subscription> {
  if (scope.livemode) throw forbidden('Simulation is only available with development (test) keys');
  if (pixAutomatico) await simulatePixAutomatico(deps, scope, await getSubscription(deps.db, scope, id), pixAutomatico);
  if (!days) return getSubscription(deps.db, scope, id);
  const sub = await getSubscription(deps.db, scope, id);
  const wallNow = new Date();
  const target = await clockTarget(deps.db, sub, sub.clock_offset_ms + days * DAY_MS, requestKey);
  // Day by day, so each day's expiries, issues and retries happen in the order they would. A retry
  // that finds the clock already at its target still runs that day once: the first may have died in it.
  let offset = sub.clock_offset_ms;
  do {
    offset = Math.min(offset + DAY_MS, target);
    await deps.db.updateTable('subscriptions').set({ clock_offset_ms: offset }).where('user_id', '=', scope.userId).where('id', '=', id).execute();
    const now = new Date(wallNow.getTime() + offset);
    if (sub.payment_method === 'PIX_AUTOMATICO') {
      // The payer's bank debits a scheduled Pix Automático charge on its due date (unless INSUFFICIENT_FUNDS was simulated first).
      const debits = await deps.db
        .selectFrom('transactions')
        .select('id')
        .where('subscription_id', '=', id)
        .where('status', '=', 'PENDING')
        .where('pix_qr_code', 'is', null)
        .where('expires_at', '<=', new Date(now.getTime() + DAY_MS))
        .execute();
      for (const tx of debits) await simulateTransaction(deps.transactions, scope, tx.id, 'PAID').catch(() => {});
    }
    const expired = await deps.db.selectFrom('transactions').select('id').where('subscription_id', '=', id).where('status', '=', 'PENDING').where('expires_at', '<=', now).execute();
    for (const tx of expired) {
      await changeStatus(deps.transactions, scope, tx.id, { to: 'EXPIRED' }).catch(() => {});
    }
    await advance(deps, id, wallNow);
  } while (offset < target);
  return getSubscription(deps.db, scope, id);
}

/**
 * Where a simulation moves the clock: `wanted`, or, for a retry of the request (same
 * Idempotency-Key) that set a target before it was interrupted, that same target.
 */
async function clockTarget(db: Executor, sub: Subscription, wanted: number, requestKey: string | undefined): Promise<number> {
  if (!requestKey) return wanted;
  // Never behind the clock: a simulation without a key may have moved it past that target since.
  if (sub.clock_target_key === requestKey && sub.clock_target_ms !== null) return Math.max(Number(sub.clock_target_ms), sub.clock_offset_ms);
  await db.updateTable('subscriptions').set({ clock_target_ms: wanted, clock_target_key: requestKey }).where('user_id', '=', sub.user_id).where('id', '=', sub.id).execute();
  return wanted;
}

