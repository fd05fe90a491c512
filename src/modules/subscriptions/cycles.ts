// The billing engine: what falls due for a subscription (trial end, a PIX or boleto issued ahead of
// its due date, a period renewal, a dunning retry, the final action, an unpaid first charge
// expiring, a pause ending), the charges it issues, and what a cycle's payment does to its
// subscription (the transaction hook).
//
// Time: every step takes `now` (the job runner's clock, or a simulated one); nothing here reads
// the wall clock for a decision. Concurrency: a step runs on the subscription row locked FOR UPDATE;
// a charge is issued after that transaction commits (no lock is held across a provider call), with
// the cycle's attempt counted first, so a step decided once charges once. The sweep claims due
// subscriptions with SKIP LOCKED and a lease, so any number of workers share them.
import type { FastifyBaseLogger } from 'fastify';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Config } from '../../config.ts';
import { inTx, type Db, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, Subscription, SubscriptionCycle, SubscriptionPlan, Transaction } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { queueEmail } from '../../mail/outbox.ts';
import type { MailMessage } from '../../mail/templates.ts';
import { DAY_MS, spDate } from '../../payments/calendar.ts';
import { HARD_DECLINES } from '../../payments/provider.ts';
import { discountFor, redeemSubscriptionCoupon, releaseSubscriptionCoupon } from '../coupons/service.ts';
import type { EventLog, EventType } from '../events/service.ts';
import type { TransactionHooks } from '../transactions/hooks.ts';
import { cancelTransaction, changeStatus, chargeStoredCard, createTransaction, providerFor, redriveStoredCharge, type CreateInput, type TransactionDeps } from '../transactions/service.ts';
import { findTransaction } from '../transactions/queries.ts';
import type { PixAutomaticoCharge } from '../../payments/provider.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import { cadenceLabel, period, type Cadence } from './calendar.ts';
import { dunningWithDefaults, pixPeriodicity } from './plans.ts';
import { manageUrl } from './links.ts';
import { subscriptionEventData } from './view.ts';

export interface EngineDeps {
  db: Db;
  config: Config;
  events: EventLog;
  transactions: TransactionDeps;
  log: FastifyBaseLogger;
}

/** An unpaid first charge expires after this long (card and PIX); a boleto's at the end of its due date. */
export const INCOMPLETE_TTL_MS = 23 * 3600_000;
/** subscription.trial_will_end is sent this long before the trial ends. */
export const TRIAL_WILL_END_MS = 3 * DAY_MS;
/** How long a claimed subscription is left to its worker before another may claim it. */
const LEASE_MS = 5 * 60_000;
/**
 * How long a counted charge attempt is left to the worker issuing it (the provider's answer
 * included) before the sweep finishes it instead (a crash, an answer that never came).
 */
export const CHARGE_LEASE_MS = 5 * 60_000;
/**
 * When the lease of an attempt counted at `now` (the subscription's clock) ends: on the wall clock,
 * because it is a worker's time to finish, which a simulated jump of the subscription's clock must
 * not cut short (two simulations racing took over each other's attempts and charged them twice).
 */
export const leaseEnd = (sub: Pick<Subscription, 'clock_offset_ms'>, now: Date) => new Date(now.getTime() - sub.clock_offset_ms + CHARGE_LEASE_MS);
/** A charge whose issuing failed (the provider or the database refused) is tried again after this. */
const ISSUE_FAILED_RETRY_MS = 3600_000;
/** Subscriptions a sweep advances at once (bounded by half the pool). */
const SWEEP_LANES = 8;
/** Steps one subscription may take in one go (a simulation of a year of daily billing stays bounded). */
const MAX_STEPS = 500;

const UNPAID = ['OPEN', 'PAST_DUE'] as const;
const cadence = (p: SubscriptionPlan): Cadence => ({ interval: p.interval, intervalCount: p.interval_count });
const scopeOf = (s: { user_id: string; livemode: boolean }): Scope => ({ userId: s.user_id, livemode: s.livemode });

// ---------------------------------------------------------------------------------------------
// Reading and small writes shared by the steps, the hook and the service

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
async function closePause(trx: Trx, subscriptionId: string, now: Date) {
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

/** Cancels the still-PENDING transactions of voided cycles (after the subscription's change committed). */
export async function cancelPending(deps: EngineDeps, scope: Scope, ids: string[]) {
  // A scheduled automatic debit (Pix Automático, a charge of its own) is withdrawn at the provider
  // first: the payer's bank would otherwise still debit it (a retry cannot be: the standard forbids
  // cancelling a charge on or after its first attempt's date).
  const debits = ids.length ? await deps.db.selectFrom('transactions').select('id').where('id', 'in', ids).where('payment_method', '=', 'PIX').where('pix_qr_code', 'is', null).where('pix_txid', 'is not', null).execute() : [];
  const withdrawn = new Set(debits.map((d) => d.id));
  if (withdrawn.size) await withdrawPending(deps, scope, [...withdrawn]);
  for (const id of ids.filter((i) => !withdrawn.has(i))) {
    await changeStatus(deps.transactions, scope, id, { to: 'CANCELLED' }).catch((err) => {
      // Already paid, failed or expired meanwhile: nothing to cancel.
      deps.log.debug({ err, transactionId: id }, 'subscription: a voided cycle\'s transaction was no longer pending');
    });
  }
}

// ---------------------------------------------------------------------------------------------
// When the sweep must look at a subscription next

function unpaidTime(sub: Subscription, cycles: SubscriptionCycle[]): Date {
  // The first charge: card and PIX expire after 23 h, a boleto at the end of its due date.
  if (sub.payment_method === 'BOLETO') {
    const c = cycles.find((x) => x.number === 1);
    if (c) return new Date(c.due_at.getTime() + DAY_MS);
  }
  return new Date(sub.created_at.getTime() + INCOMPLETE_TTL_MS);
}

const daysBefore = (sub: Subscription, plan: SubscriptionPlan) =>
  sub.payment_method === 'PIX' ? plan.dunning.pixDaysBefore : sub.payment_method === 'BOLETO' ? plan.dunning.boletoDaysBefore : sub.payment_method === 'PIX_AUTOMATICO' ? dunningWithDefaults(plan.dunning).pixAutomaticoDaysBefore : 0;

/**
 * The retries of a failed cycle, in days after its first failure. Pix Automático (politicaRetentativa
 * PERMITE_3R_7D): at most 3, each asked for the next day and within 7 days of the due date, so the
 * plan's retry days up to 6 and the first 3 of them.
 */
export const PIX_AUTOMATICO_MAX_RETRIES = 3;
export const PIX_AUTOMATICO_RETRY_WINDOW_DAYS = 7;
export function retryDaysOf(sub: Pick<Subscription, 'payment_method'>, plan: SubscriptionPlan): number[] {
  if (sub.payment_method !== 'PIX_AUTOMATICO') return plan.dunning.retryDays;
  return plan.dunning.retryDays.filter((d) => d <= PIX_AUTOMATICO_RETRY_WINDOW_DAYS - 1).slice(0, PIX_AUTOMATICO_MAX_RETRIES);
}

/** Whether the cycle of the period starting at `start` exists among the cycles given. */
const issuedFor = (cycles: SubscriptionCycle[], start: Date) => cycles.some((c) => c.kind === 'PERIOD' && c.period_start.getTime() >= start.getTime());

export type Step =
  | { kind: 'resume' }
  | { kind: 'expire' }
  | { kind: 'trial_will_end' }
  | { kind: 'issue' }
  | { kind: 'roll' }
  | { kind: 'retry'; cycle: SubscriptionCycle }
  | { kind: 'final'; cycle: SubscriptionCycle }
  | { kind: 'recover'; cycle: SubscriptionCycle };

/** Retries left after `attempts` charges of a cycle (the first charge is attempt 1). */
const retriesLeft = (retryDays: number[], c: SubscriptionCycle) => (c.hard_declined ? 0 : Math.max(0, retryDays.length - (c.attempts - 1)));

/**
 * Everything that can fall due for a subscription, with its time; `cycles` are its unpaid cycles
 * plus (for the PIX/boleto issue check) the next period's. Pure.
 */
export function agenda(sub: Subscription, plan: SubscriptionPlan, cycles: SubscriptionCycle[]): { at: Date; step: Step }[] {
  const out: { at: Date; step: Step }[] = [];
  const ahead = daysBefore(sub, plan) * DAY_MS;
  // A charge attempt whose worker did not finish it in time (crashed, or no answer from the provider).
  for (const c of cycles) {
    if (c.charge_until && (c.status === 'OPEN' || c.status === 'PAST_DUE')) out.push({ at: new Date(c.charge_until.getTime() + sub.clock_offset_ms), step: { kind: 'recover', cycle: c } });
  }
  switch (sub.status) {
    case 'PAUSED':
      if (sub.resumes_at) out.push({ at: sub.resumes_at, step: { kind: 'resume' } });
      break;
    case 'INCOMPLETE':
      out.push({ at: unpaidTime(sub, cycles), step: { kind: 'expire' } });
      break;
    case 'TRIALING': {
      const end = sub.trial_end ?? sub.current_period_end;
      if (!sub.trial_will_end_sent && end.getTime() - TRIAL_WILL_END_MS > sub.created_at.getTime()) out.push({ at: new Date(end.getTime() - TRIAL_WILL_END_MS), step: { kind: 'trial_will_end' } });
      if (ahead && !issuedFor(cycles, end)) out.push({ at: new Date(end.getTime() - ahead), step: { kind: 'issue' } });
      out.push({ at: end, step: { kind: 'roll' } });
      break;
    }
    case 'ACTIVE':
    case 'PAST_DUE':
      for (const c of cycles) {
        if (c.next_retry_at && (c.status === 'PAST_DUE' || c.status === 'OPEN')) out.push({ at: c.next_retry_at, step: retriesLeft(retryDaysOf(sub, plan), c) > 0 ? { kind: 'retry', cycle: c } : { kind: 'final', cycle: c } });
      }
      if (ahead && !sub.cancel_at_period_end && !issuedFor(cycles, sub.current_period_end)) out.push({ at: new Date(sub.current_period_end.getTime() - ahead), step: { kind: 'issue' } });
      out.push({ at: sub.current_period_end, step: { kind: 'roll' } });
      break;
  }
  // Chronological; at the same instant, in the order pushed (e.g. an issue before the roll it feeds).
  return out.map((x, i) => ({ ...x, i })).sort((a, b) => a.at.getTime() - b.at.getTime() || a.i - b.i);
}

async function cyclesForAgenda(trx: Trx, sub: Subscription) {
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

// ---------------------------------------------------------------------------------------------
// Issuing a cycle's charge

/**
 * The subscription's columns for the metrics' price of a period cycle made now: unchanged, the price
 * has held since it was set; a new one holds from the period's start (once the cycle exists).
 */
function priceColumns(eb: ExpressionBuilder<DB, 'subscriptions'>, plan: SubscriptionPlan, p: { start: Date }, now: Date) {
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
async function endAttempt(trx: Trx, cycleId: string, txId: string, now: Date): Promise<boolean> {
  const ended = await trx
    .updateTable('subscription_cycles')
    .set({ transaction_id: txId, charge_tx_id: null, charge_until: null, updated_at: now })
    .where('id', '=', cycleId)
    .where('charge_tx_id', '=', txId)
    .executeTakeFirst();
  return ended.numUpdatedRows > 0n;
}

/**
 * Issues the charge of a claimed cycle attempt: a card charged by its token, or a PIX / boleto
 * (e-mailed with the hosted page link). The money takes the ordinary transaction path, with the
 * attempt's transaction id (claimAttempt) as the provider's reference. `recovering`: the attempt
 * was counted by a worker that did not finish it (crash, no answer); what that worker recorded is
 * finished (a card's outcome asked of the provider by the same reference, a PIX or boleto attached
 * and e-mailed), and what it did not record is issued with the same id, so never twice.
 */
export async function issueCharge(deps: EngineDeps, sub: Subscription, plan: SubscriptionPlan, cycle: SubscriptionCycle, now: Date, recovering = false): Promise<Transaction | null> {
  const scope = scopeOf(sub);
  // The attempt is this worker's while its lease is the one it was given: taking it (a fresh lease)
  // is one guarded update before any provider call, so of two workers holding one attempt (one took
  // it over when the other's lease ended) one goes on and the other stops here. Nothing to charge
  // either when a cancel or pause withdrew the cycle, or the attempt ended. (A cancel that commits
  // from here on finds the charge under way and lets it finish: decided before it.)
  if (!(await takeAttempt(deps.db, sub, cycle, now))) return null;
  const txId = cycle.charge_tx_id!;
  const recorded = recovering ? await findTransaction(deps.db, txId) : undefined;
  const amount = cycle.amount_cents - cycle.discount_cents;
  if (amount <= 0) {
    // Fully discounted: nothing to collect; the cycle is paid as it is.
    await inTx(deps.db, async (trx) => {
      await markPaid(deps, trx, (await lockSubscription(trx, sub.id)) as Subscription, cycle.id, null, now);
    });
    return null;
  }
  const input: CreateInput = {
    product: `Assinatura ${plan.name}`,
    amountCents: amount,
    clientName: sub.client_name,
    clientEmail: sub.client_email,
    clientDocument: sub.client_document,
    ...(sub.client_phone ? { clientPhone: sub.client_phone } : {}),
    // A Pix Automático cycle is paid by PIX: an ordinary PIX transaction (fees, ledger, webhooks).
    paymentMethod: sub.payment_method === 'PIX_AUTOMATICO' ? 'PIX' : sub.payment_method,
    metadata: { subscriptionId: sub.id, cycleNumber: cycle.number },
  };
  const extras = {
    subscription: { id: sub.id, cycleId: cycle.id },
    // The affiliate the subscription was sold through: its program decides whether renewals pay it.
    affiliateLinkId: sub.affiliate_link_id,
    // The coupon is redeemed (its use counted) by the first charge; later discounted charges carry only the discount.
    ...(cycle.discount_cents > 0 ? { discountCents: cycle.discount_cents, ...(cycle.number === 1 && sub.coupon_id ? { couponId: sub.coupon_id } : {}) } : {}),
  };
  if (sub.payment_method === 'CARD') {
    if (!sub.card_token) throw new Error(`subscription ${sub.id}: a card subscription without a card token`);
    if (!recorded) {
      const stored = { ...extras, storedCard: { brand: sub.card_brand ?? 'CARD', last4: sub.card_last4 ?? '0000' } };
      return chargeStoredCard(deps.transactions, scope, input, stored, sub.card_token, { id: txId }).catch((err) => recordedMeanwhile(deps, txId, err));
    }
    if (recorded.status === 'PENDING') return redriveStoredCharge(deps.transactions, recorded, sub.card_token);
    // Its outcome was recorded (the hook ended the attempt with it): nothing left to do.
    await inTx(deps.db, (trx) => endAttempt(trx, cycle.id, txId, now));
    return recorded;
  }
  if (recorded) {
    await attachIssued(deps, sub, plan, cycle, recorded, now, null);
    return recorded;
  }
  // A Pix Automático charge is made at the PSP with ids it chooses (a second authorisation or debit
  // could follow a blind retry): one whose worker stopped before recording it is given up instead.
  if (recovering && sub.payment_method === 'PIX_AUTOMATICO') throw new Error(`subscription ${sub.id}: an interrupted Pix Automático charge is not sent again blindly`);
  // PIX expires, and a boleto falls due, on the cycle's due date (São Paulo); never before tomorrow
  // for a retry or a late issue, and 23 h after the first charge of a subscription.
  const today = spDate(now);
  let due = spDate(cycle.due_at);
  if (cycle.attempts > 1 || due < today) due = spDate(new Date(now.getTime() + DAY_MS));
  const first = cycle.number === 1 && sub.status === 'INCOMPLETE';
  if (first) due = sub.payment_method === 'PIX' || sub.payment_method === 'PIX_AUTOMATICO' ? new Date(sub.created_at.getTime() + INCOMPLETE_TTL_MS).toISOString() : due;
  let automatic: PixAutomaticoCharge | undefined;
  if (sub.payment_method === 'PIX_AUTOMATICO') {
    automatic = first ? firstAutomatic(sub, plan) : await automaticDebit(deps, sub, cycle, now);
    if (automatic.kind === 'cycle') due = automatic.dueDate;
    if (automatic.kind === 'retry') due = automatic.date;
  }
  let recurrenceId: string | undefined;
  const tx = await createTransaction(deps.transactions, scope, { ...input, dueDate: due }, { ...extras, ...(automatic ? { pixAutomatico: automatic } : {}) }, { id: txId, pixCharged: (pix) => (recurrenceId = pix.recurrenceId) }).catch(
    (err) => ((recurrenceId = undefined), recordedMeanwhile(deps, txId, err)),
  );
  await attachIssued(deps, sub, plan, cycle, tx, now, recurrenceId ?? null);
  return tx;
}

/** Takes the claimed attempt `cycle` for issuing (see issueCharge): false when it is no longer this worker's. */
async function takeAttempt(db: Db, sub: Subscription, cycle: SubscriptionCycle, now: Date): Promise<boolean> {
  if (!cycle.charge_tx_id || !cycle.charge_until) return false;
  // The lease's end is also the attempt's owner token: a take writes a new one, so a takeover that
  // read the one before finds it gone (on one injected clock, claim and take would write the same).
  const until = new Date(Math.max(leaseEnd(sub, now).getTime(), cycle.charge_until.getTime() + 1));
  const taken = await db
    .updateTable('subscription_cycles')
    .set({ charge_until: until, updated_at: now })
    .where('id', '=', cycle.id)
    .where('status', 'in', UNPAID)
    .where('charge_tx_id', '=', cycle.charge_tx_id)
    .where('charge_until', '=', cycle.charge_until)
    .executeTakeFirst();
  return taken.numUpdatedRows > 0n;
}

/**
 * The attempt's transaction when its creation lost to the same id (a worker that took the attempt
 * over once this one's lease ended recorded it first): already issued, by that worker, so nothing
 * is charged or sent here. Any other error is rethrown.
 */
async function recordedMeanwhile(deps: EngineDeps, txId: string, err: unknown): Promise<Transaction> {
  const e = err as { code?: string; constraint?: string };
  const recorded = e.code === '23505' && e.constraint === 'transactions_pkey' ? await findTransaction(deps.db, txId) : undefined;
  if (!recorded) throw err;
  deps.log.warn({ transactionId: txId }, 'subscription: the charge attempt was issued by the worker that took it over');
  return recorded;
}

/**
 * Records an issued PIX / boleto on its cycle (ending the attempt) and e-mails it, once: a second
 * worker finishing the same attempt finds it ended and sends nothing.
 */
async function attachIssued(deps: EngineDeps, sub: Subscription, plan: SubscriptionPlan, cycle: SubscriptionCycle, tx: Transaction, now: Date, recurrenceId: string | null) {
  await inTx(deps.db, async (trx) => {
    if (!(await endAttempt(trx, cycle.id, tx.id, now))) return;
    if (recurrenceId) {
      // The authorisation exists from now (subscription.created, before the PSP was asked, had none).
      const withRec = await trx.updateTable('subscriptions').set({ pix_rec_id: recurrenceId, pix_rec_status: 'CRIADA', updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
      await recordEvent(deps, trx, withRec as Subscription, 'subscription.mandate_updated');
    }
    // An automatic debit has nothing to pay by hand: the payer's bank tells them of it (Pix Automático rules).
    if (sub.payment_method === 'PIX_AUTOMATICO' && !tx.pix_qr_code) return;
    await mail(deps, trx, sub, plan, now, {
      kind: 'charge_issued',
      amountCents: tx.charged_cents,
      dueDate: tx.due_date ?? spDate(tx.expires_at ?? now),
      method: sub.payment_method as 'PIX' | 'BOLETO',
      pixCode: tx.pix_qr_code,
      boletoLine: tx.boleto_line,
      payUrl: sub.payment_method === 'PIX' ? `${deps.config.checkoutUrl}/checkout/${tx.id}` : `${deps.config.checkoutUrl}/boleto/${tx.id}`,
    });
  });
}

/** Pix Automático's first charge: an immediate PIX carrying the authorisation (journey 3). */
function firstAutomatic(sub: Subscription, plan: SubscriptionPlan): PixAutomaticoCharge {
  const periodicity = pixPeriodicity(plan.interval, plan.interval_count);
  if (!periodicity) throw new Error(`plan ${plan.id}: PIX_AUTOMATICO on a cadence without an API Pix periodicity`);
  return { kind: 'first', contract: sub.id.replace(/-/g, ''), object: plan.name, periodicity, firstDebitDate: spDate(sub.current_period_end) };
}

/**
 * A cycle's automatic debit: a retry of the cycle's charge at the PSP when one was made (asked
 * for the next day, within 7 days of the due date), else a new one due on the cycle's date (at
 * least 2 days ahead, as the PSP requires). The authorisation must be approved.
 */
async function automaticDebit(deps: EngineDeps, sub: Subscription, cycle: SubscriptionCycle, now: Date): Promise<PixAutomaticoCharge> {
  const current = await deps.db.selectFrom('subscriptions').select(['pix_rec_id', 'pix_rec_status']).where('id', '=', sub.id).executeTakeFirstOrThrow();
  if (!current.pix_rec_id || current.pix_rec_status !== 'APROVADA') {
    throw new AppError(409, `Subscription ${sub.id}: its Pix Automático authorisation is ${current.pix_rec_status ?? 'missing'}, not APROVADA: the debit cannot be scheduled`);
  }
  const made = await deps.db.selectFrom('transactions').select('pix_txid').where('subscription_cycle_id', '=', cycle.id).where('pix_txid', 'is not', null).orderBy('created_at').executeTakeFirst();
  if (made?.pix_txid) {
    const date = spDate(new Date(now.getTime() + DAY_MS));
    const last = spDate(new Date(cycle.due_at.getTime() + PIX_AUTOMATICO_RETRY_WINDOW_DAYS * DAY_MS));
    if (date > last) throw new AppError(409, `Subscription ${sub.id}: a Pix Automático debit can be retried up to ${PIX_AUTOMATICO_RETRY_WINDOW_DAYS} days after its due date`);
    return { kind: 'retry', recurrenceId: current.pix_rec_id, txid: made.pix_txid, date };
  }
  const earliest = spDate(new Date(now.getTime() + 2 * DAY_MS));
  const dueDate = spDate(cycle.due_at) < earliest ? earliest : spDate(cycle.due_at);
  return { kind: 'cycle', recurrenceId: current.pix_rec_id, dueDate };
}

/**
 * After a subscription ended (cancelled, expired): its Pix Automático authorisation still alive at
 * the provider is withdrawn, so that no debit follows. A failure is logged and tried again by the
 * next end-of-step (the authorisation's state stays as the provider last reported it).
 */
export async function releaseMandate(deps: EngineDeps, subscriptionId: string): Promise<void> {
  const sub = await deps.db.selectFrom('subscriptions').select(['id', 'status', 'livemode', 'payment_method', 'pix_rec_id', 'pix_rec_status']).where('id', '=', subscriptionId).executeTakeFirst();
  if (!sub?.pix_rec_id || (sub.status !== 'CANCELLED' && sub.status !== 'EXPIRED') || (sub.pix_rec_status !== 'CRIADA' && sub.pix_rec_status !== 'APROVADA')) return;
  try {
    await providerFor(deps.transactions, sub.livemode).cancelMandate?.(sub.pix_rec_id);
    await deps.db.updateTable('subscriptions').set({ pix_rec_status: 'CANCELADA' }).where('id', '=', sub.id).where('pix_rec_status', 'in', ['CRIADA', 'APROVADA']).execute();
  } catch (err) {
    deps.log.error({ err, subscriptionId, recurrenceId: sub.pix_rec_id }, 'subscription: the Pix Automático authorisation could not be withdrawn at the provider');
  }
}

/** Withdraws pending charges at their provider, then cancels them here (a PIX that could still be paid). */
export async function withdrawPending(deps: EngineDeps, scope: Scope, ids: string[]) {
  for (const id of ids) {
    await cancelTransaction(deps.transactions, scope, id).catch((err) => {
      deps.log.warn({ err, transactionId: id }, 'subscription: a voided cycle\'s charge could not be withdrawn (paid, or no longer pending)');
    });
  }
}

// ---------------------------------------------------------------------------------------------
// What a cycle's payment does (the transaction hook, wired in deps.ts)

/** A cycle paid (`tx`, or nothing to collect), on its locked subscription `locked` (the row as locked). */
async function markPaid(deps: Pick<EngineDeps, 'events' | 'config'>, trx: Trx, locked: Subscription, cycleId: string, tx: Transaction | null, now: Date) {
  const paid = await trx
    .updateTable('subscription_cycles')
    .set({ status: 'PAID', paid_at: now, ...(tx ? { transaction_id: tx.id } : {}), next_retry_at: null, charge_tx_id: null, charge_until: null, updated_at: now })
    .where('id', '=', cycleId)
    .returningAll()
    .executeTakeFirstOrThrow();
  let sub = locked;
  if (paid.kind === 'PERIOD' && paid.number === 1 && sub.coupon_id) await redeemSubscriptionCoupon(trx, { ...sub, coupon_id: sub.coupon_id }, tx, now);
  // Its first paid charge is when it first held a place (the metrics' activation).
  if (!sub.activated_at) sub = await trx.updateTable('subscriptions').set({ activated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
  const plan = await planOf(trx, sub.plan_id);
  if (paid.kind === 'PERIOD' && (sub.status === 'INCOMPLETE' || sub.status === 'PAST_DUE')) {
    const others = (await unpaidCycles(trx, sub.id)).filter((c) => c.status === 'PAST_DUE');
    if (!others.length) {
      sub = await trx.updateTable('subscriptions').set({ status: 'ACTIVE', updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
    }
  }
  if (paid.kind === 'PERIOD' && !(paid.number === 1 && sub.trial_end === null)) {
    await recordEvent(deps, trx, sub, 'subscription.renewed', { cycle: { id: paid.id, number: paid.number, amountCents: paid.amount_cents - paid.discount_cents, transactionId: paid.transaction_id } });
  }
  if (tx) {
    await mail(deps, trx, sub, plan, now, { kind: 'receipt', amountCents: tx.charged_cents, paidAt: now, periodEnd: paid.period_end, method: tx.payment_method, cardLast4: tx.card_last4 });
  }
  await reschedule(trx, sub.id, { sub, plans: new Map([[plan.id, plan]]) });
}

/** A cycle's charge failed or expired, on its locked subscription `sub` (the row as locked). */
async function markFailed(deps: Pick<EngineDeps, 'events' | 'config'>, trx: Trx, sub: Subscription, cycleId: string, tx: Transaction, now: Date) {
  const cycle = await trx.selectFrom('subscription_cycles').selectAll().where('id', '=', cycleId).forUpdate().executeTakeFirstOrThrow();
  if (cycle.status !== 'OPEN' && cycle.status !== 'PAST_DUE') return; // paid by another charge, or void
  if (cycle.transaction_id && cycle.transaction_id !== tx.id && tx.status !== 'FAILED') return; // an older charge expiring
  const plan = await planOf(trx, sub.plan_id);
  const reason = tx.status === 'EXPIRED' ? 'EXPIRED' : (tx.failure_reason ?? 'CARD_DECLINED');
  // The attempt in flight ends with its charge's outcome.
  const ended = tx.id === cycle.charge_tx_id ? { charge_tx_id: null, charge_until: null } : {};
  // Retries count from the charge that failed (a card) or the due date that passed (PIX, boleto), on
  // the clock that issued it: so a simulated month behaves as a real one.
  let at = tx.status === 'EXPIRED' ? (tx.expires_at ?? now) : (cycle.last_attempt_at ?? now);
  // A Pix Automático debit fails on (or after) its due date, which its retries count from.
  if (sub.payment_method === 'PIX_AUTOMATICO' && at.getTime() < cycle.due_at.getTime()) at = cycle.due_at;
  if (sub.status === 'INCOMPLETE') {
    // The first charge: no dunning. The subscriber may pay again (another card, the retry) until it expires.
    await trx.updateTable('subscription_cycles').set({ failure_reason: reason, transaction_id: tx.id, ...ended, updated_at: now }).where('id', '=', cycle.id).execute();
    return;
  }
  const first = cycle.first_failed_at ?? at;
  const hard = cycle.hard_declined || HARD_DECLINES.has(reason);
  const done = cycle.attempts - 1; // retries already made
  const retryDays = retryDaysOf(sub, plan);
  // The next retry; with none left (or a hard decline), the final action when the last retry would have run.
  const nextAt = !hard && done < retryDays.length ? first.getTime() + retryDays[done] * DAY_MS : Math.max(at.getTime(), first.getTime() + (retryDays.at(-1) ?? 0) * DAY_MS);
  await trx
    .updateTable('subscription_cycles')
    .set({ status: 'PAST_DUE', failure_reason: reason, hard_declined: hard, first_failed_at: first, next_retry_at: new Date(nextAt), transaction_id: tx.id, ...ended, updated_at: now })
    .where('id', '=', cycle.id)
    .execute();
  let current = sub;
  if (sub.status === 'ACTIVE' || sub.status === 'TRIALING') {
    current = await trx.updateTable('subscriptions').set({ status: 'PAST_DUE', updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
    await recordEvent(deps, trx, current, 'subscription.past_due', { cycle: { id: cycle.id, number: cycle.number, failureReason: reason } });
  }
  if (!cycle.first_failed_at) {
    // The first failure of this cycle: tell the subscriber once, with the way to fix it.
    const willRetry = !hard && retryDays.length > 0 && (sub.payment_method === 'CARD' || sub.payment_method === 'PIX_AUTOMATICO');
    await mail(deps, trx, current, plan, now, {
      kind: 'payment_failed',
      amountCents: cycle.amount_cents - cycle.discount_cents,
      reason,
      nextRetryAt: willRetry ? new Date(nextAt) : null,
      updateCardUrl: sub.payment_method === 'CARD' ? updateCardUrl(deps.config, sub, now) : manageUrl(deps.config, sub.id, now),
    });
  }
  await reschedule(trx, sub.id, { sub: current, plans: new Map([[plan.id, plan]]) });
}

/** The hook: a subscription cycle's transaction was paid, failed or expired. */
export function subscriptionHooks(deps: Pick<EngineDeps, 'events' | 'config'>): TransactionHooks {
  return {
    async afterChange(trx, before, after, now) {
      if (!after.subscription_cycle_id || before.status === after.status || before.status !== 'PENDING') return;
      // Lock order everywhere: the transaction (held by the caller), then the subscription, then its cycle.
      const locked = (await lockSubscription(trx, after.subscription_id!)) as Subscription | undefined;
      if (!locked) return;
      if (after.status === 'PAID') await markPaid(deps, trx, locked, after.subscription_cycle_id, after, now);
      else if (after.status === 'FAILED' || after.status === 'EXPIRED') await markFailed(deps, trx, locked, after.subscription_cycle_id, after, now);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The steps and the sweep

/**
 * Runs one due step of a locked subscription (`cycles`: those its agenda was made of); returns a
 * cycle to charge after commit (`recovering`: an attempt to finish), if any, and the subscription's
 * row when the step's last write returned it.
 */
async function runStep(
  deps: EngineDeps,
  trx: Trx,
  sub: Subscription,
  plan: SubscriptionPlan,
  plans: Plans,
  cycles: SubscriptionCycle[],
  step: Step,
  now: Date,
): Promise<{ charge?: SubscriptionCycle; recovering?: boolean; cancel?: string[]; sub?: Subscription }> {
  const c = cadence(plan);
  switch (step.kind) {
    case 'resume': {
      // A new period starts on resuming: the paused time is not billed.
      const p = period(now, c, 0);
      const resumed = await trx
        .updateTable('subscriptions')
        .set({ status: 'ACTIVE', paused_at: null, resumes_at: null, anchor_at: now, period_index: 0, current_period_start: p.start, current_period_end: p.end, updated_at: now })
        .where('id', '=', sub.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await closePause(trx, sub.id, now);
      await recordEvent(deps, trx, resumed, 'subscription.resumed');
      return { charge: await insertPeriodCycle(trx, resumed, plan, p, now, now, 0, { claimed: true }) };
    }
    case 'expire': {
      const { pending } = await endSubscription(deps, trx, sub, plan, now, { status: 'EXPIRED', reason: 'FIRST_PAYMENT_NOT_MADE' });
      return { cancel: pending };
    }
    case 'trial_will_end': {
      const s = await trx.updateTable('subscriptions').set({ trial_will_end_sent: true, updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
      await recordEvent(deps, trx, s, 'subscription.trial_will_end');
      return {};
    }
    case 'issue': {
      // PIX / boleto: the next period's charge, N days ahead of its due date (the period's start).
      const target = sub.pending_plan_id ? await planFrom(trx, plans, sub.pending_plan_id) : plan;
      const k = sub.period_index + 1;
      const p = sub.status === 'TRIALING' ? period(sub.anchor_at, c, 0) : period(sub.anchor_at, c, k);
      return { charge: await insertPeriodCycle(trx, sub, target, p, p.start, now, await firstDiscount(trx, sub, target), { claimed: true }) };
    }
    case 'roll': {
      if (sub.cancel_at_period_end) {
        const { pending } = await endSubscription(deps, trx, sub, plan, now, { status: 'CANCELLED', reason: sub.cancel_reason, endedAt: sub.current_period_end });
        return { cancel: pending };
      }
      let target = sub.pending_plan_id ? await planFrom(trx, plans, sub.pending_plan_id) : plan;
      if (target.id !== plan.id) {
        // The downgrade takes effect and its seat moves with it; a plan that filled up meanwhile keeps the subscriber where it is.
        if (await claimSeat(trx, target.id, { activeOnly: false })) await releaseSeat(trx, plan.id);
        else target = plan;
      }
      const k = sub.period_index + 1;
      const p = period(sub.anchor_at, c, k);
      // The period's cycle, if its PIX / boleto was issued ahead (among the agenda's cycles: those from the current period's end on).
      const existing =
        p.start.getTime() >= sub.current_period_end.getTime()
          ? cycles.find((x) => x.kind === 'PERIOD' && x.period_start.getTime() === p.start.getTime())
          : await trx.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', sub.id).where('kind', '=', 'PERIOD').where('period_start', '=', p.start).executeTakeFirst();
      const rolled = await trx
        .updateTable('subscriptions')
        .set((eb) => ({
          plan_id: target.id,
          pending_plan_id: null,
          period_index: k,
          current_period_start: p.start,
          current_period_end: p.end,
          status: sub.status === 'TRIALING' ? 'ACTIVE' : sub.status,
          updated_at: now,
          ...(existing ? {} : priceColumns(eb, target, p, now)),
        }))
        .where('id', '=', sub.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (rolled.card_exp_year && rolled.card_exp_month) {
        // Warn once per period when the card expires before the period's charge of the next one.
        const expiresAt = Date.UTC(rolled.card_exp_year, rolled.card_exp_month, 1);
        if (expiresAt <= p.end.getTime()) {
          await mail(deps, trx, rolled, target, now, { kind: 'card_expiring', brand: rolled.card_brand ?? '', last4: rolled.card_last4 ?? '', expMonth: rolled.card_exp_month, expYear: rolled.card_exp_year, updateCardUrl: updateCardUrl(deps.config, rolled, now) });
        }
      }
      if (existing) return { sub: rolled }; // PIX / boleto issued ahead
      const charge = await insertPeriodCycle(trx, rolled, target, p, p.start, now, await firstDiscount(trx, rolled, target), { claimed: true, priceSet: true });
      return { charge, sub: rolled };
    }
    case 'retry':
      return { charge: await claimAttempt(trx, sub, step.cycle, now) };
    case 'recover': {
      // The attempt's worker did not finish it in time: this worker takes it over (a fresh lease, the
      // same transaction id), so a second recoverer finds nothing due; the attempt is not counted again.
      // Guarded by the lease that ended: a worker that took the attempt meanwhile (takeAttempt) keeps it.
      const taken = await trx
        .updateTable('subscription_cycles')
        .set({ charge_until: leaseEnd(sub, now), updated_at: now })
        .where('id', '=', step.cycle.id)
        .where('charge_tx_id', '=', step.cycle.charge_tx_id)
        .where('charge_until', '=', step.cycle.charge_until)
        .returningAll()
        .executeTakeFirst();
      deps.log.warn({ subscriptionId: sub.id, cycleId: step.cycle.id, transactionId: step.cycle.charge_tx_id }, 'subscription: finishing a charge attempt its worker left unfinished');
      return taken ? { charge: taken, recovering: true } : {};
    }
    case 'final': {
      const action = plan.dunning.finalAction;
      if (action === 'CANCEL') {
        const { pending } = await endSubscription(deps, trx, sub, plan, now, { status: 'CANCELLED', reason: 'PAYMENT_FAILED' });
        return { cancel: pending };
      }
      await trx.updateTable('subscription_cycles').set({ status: 'UNCOLLECTIBLE', next_retry_at: null, updated_at: now }).where('id', '=', step.cycle.id).execute();
      if (action === 'PAUSE') {
        const paused = await trx.updateTable('subscriptions').set({ status: 'PAUSED', paused_at: now, resumes_at: null, updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
        await openPause(trx, paused as Subscription, now, 'PAYMENT_FAILED');
        await recordEvent(deps, trx, paused, 'subscription.paused', { reason: 'PAYMENT_FAILED' });
      }
      return {};
    }
  }
}

/** The coupon's discount for the subscription's next period cycle: its first `subscriptionCycles` (default 1) charges. */
async function firstDiscount(trx: Trx, sub: Subscription, plan: SubscriptionPlan): Promise<number> {
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

/**
 * Issuing a claimed attempt failed with an error. Its transaction recorded, the attempt stays in
 * flight and the sweep finishes it once its lease ends (same id). Otherwise it is given up: it stays
 * counted and the cycle is tried again in an hour as a new attempt (a provider outage is not a
 * decline; a refusal that lasts runs the dunning to its end; an INCOMPLETE first charge has no
 * retries and expires).
 */
export async function issueFailed(deps: EngineDeps, subscriptionId: string, cycle: SubscriptionCycle, now: Date, err: unknown) {
  deps.log.error({ err, subscriptionId, cycleId: cycle.id }, 'subscription: issuing a charge failed');
  await inTx(deps.db, async (trx) => {
    await lockSubscription(trx, subscriptionId);
    if (cycle.charge_tx_id && (await findTransaction(trx, cycle.charge_tx_id))) return;
    await trx
      .updateTable('subscription_cycles')
      .set({ next_retry_at: new Date(now.getTime() + ISSUE_FAILED_RETRY_MS), charge_tx_id: null, charge_until: null, updated_at: now })
      .where('id', '=', cycle.id)
      .where('charge_tx_id', '=', cycle.charge_tx_id)
      .where('status', 'in', UNPAID)
      .execute();
    await reschedule(trx, subscriptionId);
  });
}

/** cancelReason of a subscription whose subscribe request failed to issue its first charge. */
export const FIRST_CHARGE_NOT_ISSUED = 'FIRST_CHARGE_NOT_ISSUED';

/**
 * A subscribe request whose first charge could not be issued answers the error, and nothing of it
 * stays live: the subscription is EXPIRED at once (FIRST_CHARGE_NOT_ISSUED, seat and coupon given
 * back), so that no charge reaches a customer an hour later who was told it failed; its welcome
 * e-mail, if not sent yet, is not sent. A transaction recorded before the failure is withdrawn.
 */
export async function abandonSubscribe(deps: EngineDeps, subscriptionId: string, now: Date, err: unknown) {
  deps.log.error({ err, subscriptionId }, 'subscription: the first charge could not be issued; the subscription ends with its request');
  const out = await inTx(deps.db, async (trx) => {
    const sub = (await lockSubscription(trx, subscriptionId)) as Subscription | undefined;
    if (!sub || sub.status !== 'INCOMPLETE') return null;
    const { pending } = await endSubscription(deps, trx, sub, await planOf(trx, sub.plan_id), now, { status: 'EXPIRED', reason: FIRST_CHARGE_NOT_ISSUED });
    await trx.deleteFrom('emails').where('user_id', '=', sub.user_id).where('related_id', '=', sub.id).where('status', '=', 'QUEUED').execute();
    await reschedule(trx, sub.id);
    return { pending, scope: { userId: sub.user_id, livemode: sub.livemode } };
  });
  if (out?.pending.length) await withdrawPending(deps, out.scope, out.pending);
}

/** The subscription's own clock: the wall clock plus its simulation offset (development). */
export const clockOf = (sub: Pick<Subscription, 'clock_offset_ms'>, wallNow: Date) => new Date(wallNow.getTime() + sub.clock_offset_ms);

/** Picks the step to run on a locked subscription (null: none); may throw a 400 to refuse. */
export type Chooser = (sub: Subscription, plan: SubscriptionPlan, agenda: { at: Date; step: Step }[], now: Date) => Step | null;

/** The sweep's choice: the earliest step that is due. */
const firstDue: Chooser = (_sub, _plan, items, now) => items.find((x) => x.at.getTime() <= now.getTime())?.step ?? null;

/**
 * Runs one step of a subscription, on its clock: chosen and applied on the locked row, its charge
 * (if any) issued after that commit, the transactions of voided cycles cancelled. Returns the
 * subscription after the step, or null when no step was chosen.
 */
export async function performStep(deps: EngineDeps, id: string, wallNow: Date, choose: Chooser, plans: Plans = new Map()): Promise<Subscription | null> {
  const done = await inTx(deps.db, async (trx) => {
    const sub = (await lockSubscription(trx, id)) as Subscription | undefined;
    if (!sub) return null;
    const now = clockOf(sub, wallNow);
    const plan = await planFrom(trx, plans, sub.plan_id);
    const cycles = await cyclesForAgenda(trx, sub);
    const step = choose(sub, plan, agenda(sub, plan, cycles), now);
    if (!step) {
      await reschedule(trx, id, { sub, plans });
      return null;
    }
    const result = await runStep(deps, trx, sub, plan, plans, cycles, step, now);
    return { ...result, sub: await reschedule(trx, id, { sub: result.sub, plans }), now };
  });
  if (!done) return null;
  if (done.cancel?.length) await cancelPending(deps, scopeOf(done.sub), done.cancel);
  if (done.sub.payment_method === 'PIX_AUTOMATICO') await releaseMandate(deps, id);
  if (done.charge) {
    const cycle = done.charge;
    try {
      await issueCharge(deps, done.sub, await planFrom(deps.db, plans, done.sub.plan_id), cycle, done.now, done.recovering);
    } catch (err) {
      await issueFailed(deps, id, cycle, done.now, err);
      throw err;
    }
  }
  // After a charge, its outcome (the hook) rescheduled the subscription: read it again.
  if (!done.charge) return done.sub;
  return (await deps.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

/** Runs everything due for one subscription (on its clock), step by step, until nothing is; returns the steps run. */
export async function advance(deps: EngineDeps, id: string, wallNow: Date, plans: Plans = new Map()): Promise<number> {
  let steps = 0;
  for (let sub = await performStep(deps, id, wallNow, firstDue, plans); sub && ++steps < MAX_STEPS; sub = await performStep(deps, id, wallNow, firstDue, plans)) {
    // Its next step (rescheduled after this one, in wall-clock time) is not due yet: nothing more to run now.
    if (!sub.next_action_at || sub.next_action_at.getTime() > wallNow.getTime()) break;
  }
  return steps;
}

/** The sweep: claims due subscriptions (SKIP LOCKED, with a lease) and advances each. */
export async function advanceDue(deps: EngineDeps, now: Date, batch = 50): Promise<number> {
  const claimed = await deps.db
    .updateTable('subscriptions')
    .set({ next_action_at: new Date(now.getTime() + LEASE_MS) })
    .where('id', 'in', (eb) =>
      eb.selectFrom('subscriptions').select('id').where('next_action_at', '<=', now).orderBy('next_action_at').limit(batch).forUpdate().skipLocked(),
    )
    .returning(['id', 'plan_id', 'pending_plan_id'])
    .execute();
  // Their plans in one statement, for all their steps (see Plans).
  const planIds = [...new Set(claimed.flatMap((c) => (c.pending_plan_id ? [c.plan_id, c.pending_plan_id] : [c.plan_id])))];
  const plans: Plans = new Map(planIds.length ? (await deps.db.selectFrom('subscription_plans').selectAll().where('id', 'in', planIds).execute()).map((p) => [p.id, p]) : []);
  // Several at once (each on its own locked row; a step holds at most two connections), so that a
  // worker is not idle while PostgreSQL answers one subscription's statements.
  let next = 0;
  const lane = async () => {
    while (next < claimed.length) {
      const { id } = claimed[next++];
      try {
        await advance(deps, id, now, plans);
      } catch (err) {
        deps.log.error({ err, subscriptionId: id }, 'subscription: advancing failed; retried after the lease');
      }
    }
  };
  const lanes = Math.max(1, Math.min(SWEEP_LANES, Math.floor(deps.config.databasePoolSize / 2)));
  await Promise.all(Array.from({ length: Math.min(lanes, claimed.length) }, lane));
  return claimed.length;
}

