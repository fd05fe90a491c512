// The cycle store: the SQL that the engine's parts (the sweep's steps, issuing, the payment hook)
// and the service share over subscriptions, their plans and their cycles. Writes run in the
// caller's transaction, on the subscription row it locked (lockSubscription). A charge attempt's id
// and lease are chosen here (claimAttempt, insertPeriodCycle), before any provider call.
import type { FastifyBaseLogger } from 'fastify';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db, Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, Subscription, SubscriptionCycle, SubscriptionPlan } from '../../db/types.ts';
import { badRequest } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { queueEmail } from '../../mail/outbox.ts';
import type { MailMessage } from '../../mail/templates.ts';
import { discountFor, releaseSubscriptionCoupon } from '../coupons/service.ts';
import type { EventLog, EventType } from '../events/service.ts';
import type { TransactionDeps } from '../transactions/service.ts';
import { agenda, leaseEnd } from './agenda.ts';
import { manageUrl } from './links.ts';
import { subscriptionEventData } from './view.ts';

/** What the engine's parts work with (the service's and the sweep's dependencies include it). */
export interface EngineDeps {
  db: Db;
  config: Config;
  events: EventLog;
  transactions: TransactionDeps;
  log: FastifyBaseLogger;
}

/** A cycle still to be paid. */
export const UNPAID = ['OPEN', 'PAST_DUE'] as const;

export const scopeOf = (s: { user_id: string; livemode: boolean }): Scope => ({ userId: s.user_id, livemode: s.livemode });

export function lockSubscription(trx: Trx, id: string) {
  return trx.selectFrom('subscriptions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function planOf(db: Db | Trx, id: string) {
  return db.selectFrom('subscription_plans').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Plans already read, by id: a sweep reads the plans of all the subscriptions it claimed in one
 * statement and its steps take them from here. A plan changed meanwhile (a price) is seen as it was
 * when the sweep started, as if the sweep had run a moment earlier: a price change applies from the
 * next period, and nothing a step decides on a plan is guarded by its row (seats are counted by SQL).
 */
export type Plans = Map<string, SubscriptionPlan>;

/** The plan, from `plans` when it is there (else read, and kept there). */
export async function planFrom(db: Db | Trx, plans: Plans, id: string): Promise<SubscriptionPlan> {
  let plan = plans.get(id);
  if (!plan) plans.set(id, (plan = await planOf(db, id)));
  return plan;
}

export function unpaidCycles(db: Db | Trx, subscriptionId: string) {
  return db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', subscriptionId).where('status', 'in', UNPAID).orderBy('number').execute();
}

export async function recordEvent(deps: Pick<EngineDeps, 'events'>, trx: Trx, sub: Subscription, type: EventType, extra: Record<string, unknown> = {}) {
  await deps.events.record(trx, scopeOf(sub), [{ type, data: { ...subscriptionEventData(sub), ...extra } }]);
}

/** Queues one of the subscriber's e-mails (in `trx`), with the signed self-service link. */
export async function mail(deps: Pick<EngineDeps, 'config'>, trx: Trx, sub: Subscription, plan: SubscriptionPlan, now: Date, message: DistributiveOmit<MailMessage, 'merchantName' | 'customerName' | 'planName' | 'manageUrl'>) {
  const merchant = await trx.selectFrom('users').select('name').where('id', '=', sub.user_id).executeTakeFirstOrThrow();
  const full = { ...message, merchantName: merchant.name, customerName: sub.client_name, planName: plan.name, manageUrl: manageUrl(deps.config, sub.id, now) } as MailMessage;
  await queueEmail(trx, scopeOf(sub), sub.client_email, full, sub.id, now);
}
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export const updateCardUrl = (config: Config, sub: Subscription, now: Date) => `${manageUrl(config, sub.id, now)}#cartao`;

/**
 * Takes a seat on a plan: the race-safe maxSubscribers check (one guarded UPDATE: concurrent
 * subscribers queue on the plan row and each sees the count the previous one left).
 */
export async function claimSeat(trx: Trx, planId: string, opts: { activeOnly: boolean }): Promise<SubscriptionPlan | undefined> {
  let q = trx
    .updateTable('subscription_plans')
    .set((eb) => ({ subscriber_count: eb('subscriber_count', '+', 1) }))
    .where('id', '=', planId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('max_subscribers', 'is', null), eb('subscriber_count', '<', eb.ref('max_subscribers'))]));
  if (opts.activeOnly) q = q.where('status', '=', 'ACTIVE');
  return q.returningAll().executeTakeFirst();
}

/** Gives the subscription's seat on its plan back (it ended). */
export async function releaseSeat(trx: Trx, planId: string) {
  await trx
    .updateTable('subscription_plans')
    .set((eb) => ({ subscriber_count: eb('subscriber_count', '-', 1) }))
    .where('id', '=', planId)
    .where('subscriber_count', '>', 0)
    .execute();
}

/** Starts a pause in the pause history (the metrics count a month's pauses from it). */
export async function openPause(trx: Trx, sub: Subscription, now: Date, reason: string | null) {
  await trx.insertInto('subscription_pauses').values({ id: uuidv7(now.getTime()), subscription_id: sub.id, user_id: sub.user_id, livemode: sub.livemode, started_at: now, ended_at: null, reason }).execute();
}

/** Ends the subscription's open pause, if any (resumed, or ended while paused). */
export async function closePause(trx: Trx, subscriptionId: string, now: Date) {
  await trx.updateTable('subscription_pauses').set({ ended_at: now }).where('subscription_id', '=', subscriptionId).where('ended_at', 'is', null).execute();
}

/** Withdraws the subscription's unpaid cycles (VOID); returns their transactions, to cancel after commit. */
export async function voidUnpaid(trx: Trx, subscriptionId: string, now: Date): Promise<string[]> {
  const voided = await trx
    .updateTable('subscription_cycles')
    .set({ status: 'VOID', voided_at: now, next_retry_at: null, charge_tx_id: null, charge_until: null, updated_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID)
    .returning('transaction_id')
    .execute();
  return voided.map((v) => v.transaction_id).filter((t): t is string => !!t);
}

/** Ends a subscription now: CANCELLED (or EXPIRED), seat back, unpaid cycles void; returns the transactions to cancel after commit. */
export async function endSubscription(
  deps: Pick<EngineDeps, 'events' | 'config'>,
  trx: Trx,
  sub: Subscription,
  plan: SubscriptionPlan,
  now: Date,
  how: { status: 'CANCELLED' | 'EXPIRED'; reason: string | null; endedAt?: Date },
): Promise<{ sub: Subscription; pending: string[] }> {
  const pending = await voidUnpaid(trx, sub.id, now);
  if (sub.status === 'PAUSED') await closePause(trx, sub.id, how.endedAt ?? now);
  const ended = await trx
    .updateTable('subscriptions')
    .set({
      status: how.status,
      cancelled_at: how.status === 'CANCELLED' ? now : null,
      cancel_reason: how.reason,
      ended_at: how.endedAt ?? now,
      next_action_at: null,
      pending_plan_id: null,
      updated_at: now,
    })
    .where('id', '=', sub.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await releaseSeat(trx, sub.plan_id);
  if (sub.coupon_id) await releaseSubscriptionCoupon(trx, sub.user_id, sub.id);
  if (how.status === 'CANCELLED') {
    await recordEvent(deps, trx, ended, 'subscription.cancelled');
    await mail(deps, trx, ended, plan, now, { kind: 'cancelled', endedAt: ended.ended_at!, reason: how.reason });
  } else {
    // Ended before it was ever paid for (the first charge not paid, not issued, the authorisation
    // refused): the merchant hears of it too; the customer, who never paid, gets no e-mail.
    await recordEvent(deps, trx, ended, 'subscription.expired');
  }
  return { sub: ended, pending };
}

/** The cycles an agenda is made of: the unpaid ones, and those from the current period's end on (issued ahead). */
export async function cyclesForAgenda(trx: Trx, sub: Subscription) {
  return trx
    .selectFrom('subscription_cycles')
    .selectAll()
    .where('subscription_id', '=', sub.id)
    .where((eb) => eb.or([eb('status', 'in', UNPAID), eb('period_start', '>=', sub.current_period_end)]))
    .orderBy('number')
    .execute();
}

/**
 * Writes when the sweep must look at the subscription next (after any change to it). `known.sub`:
 * the row as it stands now, when the caller holds it (its last write's RETURNING); `known.plans`:
 * plans already read.
 */
export async function reschedule(trx: Trx, subscriptionId: string, known: { sub?: Subscription; plans?: Plans } = {}): Promise<Subscription> {
  const sub = known.sub ?? ((await trx.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow()) as Subscription);
  const plan = await planFrom(trx, known.plans ?? new Map(), sub.plan_id);
  const next = agenda(sub, plan, await cyclesForAgenda(trx, sub))[0]?.at ?? null;
  return trx
    .updateTable('subscriptions')
    .set({ next_action_at: next && new Date(next.getTime() - sub.clock_offset_ms) }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
}

/**
 * The subscription's columns for the metrics' price of a period cycle made now: unchanged, the price
 * has held since it was set; a new one holds from the period's start (once the cycle exists).
 */
export function priceColumns(eb: ExpressionBuilder<DB, 'subscriptions'>, plan: SubscriptionPlan, p: { start: Date }, now: Date) {
  return {
    price_since: eb.case().when('price_cents', '=', plan.amount_cents).then(eb.ref('price_since')).else(new Date(Math.max(p.start.getTime(), now.getTime()))).end(),
    price_cents: plan.amount_cents,
  };
}

/** What counting an attempt writes on its cycle (claimAttempt), also when the cycle is inserted counted. */
const attemptColumns = (sub: Pick<Subscription, 'clock_offset_ms'>, now: Date) => ({ last_attempt_at: now, next_retry_at: null, charge_tx_id: uuidv7(), charge_until: leaseEnd(sub, now), updated_at: now });

/**
 * Inserts the cycle of a period (its amount: the plan's price now; the coupon on the first one).
 * `claimed`: with its first attempt counted (claimAttempt), the charge to follow. `priceSet`: the
 * caller already wrote the price columns (priceColumns) on the subscription.
 */
export async function insertPeriodCycle(
  trx: Trx,
  sub: Subscription,
  plan: SubscriptionPlan,
  p: { start: Date; end: Date },
  due: Date,
  now: Date,
  discountCents = 0,
  opts: { claimed?: boolean; priceSet?: boolean } = {},
): Promise<SubscriptionCycle> {
  if (!opts.priceSet) await trx.updateTable('subscriptions').set((eb) => priceColumns(eb, plan, p, now)).where('id', '=', sub.id).execute();
  return trx
    .insertInto('subscription_cycles')
    .values((eb) => ({
      id: uuidv7(now.getTime()),
      subscription_id: sub.id,
      user_id: sub.user_id,
      livemode: sub.livemode,
      // The next period number (the subscription is locked: nobody else inserts one meanwhile).
      number: eb
        .selectFrom('subscription_cycles')
        .select(sql<number>`coalesce(max(number), 0) + 1`.as('n'))
        .where('subscription_id', '=', sub.id)
        .where('kind', '=', 'PERIOD'),
      kind: 'PERIOD',
      period_start: p.start,
      period_end: p.end,
      due_at: due,
      amount_cents: plan.amount_cents,
      discount_cents: Math.min(discountCents, plan.amount_cents),
      status: 'OPEN',
      created_at: now,
      updated_at: now,
      ...(opts.claimed ? { attempts: 1, ...attemptColumns(sub, now) } : {}),
    }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Counts an attempt on the cycle (on its locked subscription): from here the charge is decided. The
 * attempt's transaction id is chosen now (the provider's idempotency key) and the attempt is left to
 * this worker for CHARGE_LEASE_MS; after that the sweep finishes it with the same id (recover).
 */
export async function claimAttempt(trx: Trx, sub: Pick<Subscription, 'clock_offset_ms'>, cycle: SubscriptionCycle, now: Date): Promise<SubscriptionCycle> {
  const claimed = await trx
    .updateTable('subscription_cycles')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), ...attemptColumns(sub, now) }))
    .where('id', '=', cycle.id)
    .where('charge_tx_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!claimed) throw badRequest('INVALID_STATE_TRANSITION', 'A charge of this cycle is already under way', [{ field: 'status', message: 'wait for the outcome of the charge under way' }]);
  return claimed;
}

/** Ends the cycle's attempt in flight `txId` (its transaction is recorded on the cycle); false if it had ended already. */
export async function endAttempt(trx: Trx, cycleId: string, txId: string, now: Date): Promise<boolean> {
  const ended = await trx
    .updateTable('subscription_cycles')
    .set({ transaction_id: txId, charge_tx_id: null, charge_until: null, updated_at: now })
    .where('id', '=', cycleId)
    .where('charge_tx_id', '=', txId)
    .executeTakeFirst();
  return ended.numUpdatedRows > 0n;
}

/** The coupon's discount for the subscription's next period cycle: its first `subscriptionCycles` (default 1) charges. */
export async function firstDiscount(trx: Trx, sub: Subscription, plan: SubscriptionPlan): Promise<number> {
  if (!sub.coupon_id) return 0;
  const coupon = await trx.selectFrom('coupons').selectAll().where('id', '=', sub.coupon_id).executeTakeFirst();
  if (!coupon) return 0;
  const { n } = await trx
    .selectFrom('subscription_cycles')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('subscription_id', '=', sub.id)
    .where('kind', '=', 'PERIOD')
    .executeTakeFirstOrThrow();
  return Number(n) < (coupon.subscription_cycles ?? 1) ? discountFor(coupon, plan.amount_cents) : 0;
}
