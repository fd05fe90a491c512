// The sweep: runs what fell due (agenda.ts) on each subscription's locked row, one step at a time,
// then issues the charge a step claimed once that commits (no lock is held across a provider call),
// so a step decided once charges once. It claims due subscriptions with SKIP LOCKED and a lease, so
// any number of workers share them. performStep also runs the steps a request asks for (resume,
// retry) and the development clock's simulation.
import { inTx, type Trx } from '../../db/index.ts';
import type { Subscription, SubscriptionCycle, SubscriptionPlan } from '../../db/types.ts';
import { agenda, clockOf, leaseEnd, type Step } from './agenda.ts';
import { period, type Cadence } from './calendar.ts';
import {
  claimAttempt,
  claimSeat,
  closePause,
  cyclesForAgenda,
  endSubscription,
  firstDiscount,
  insertPeriodCycle,
  mail,
  openPause,
  planFrom,
  priceColumns,
  recordEvent,
  releaseSeat,
  reschedule,
  scopeOf,
  lockSubscription,
  updateCardUrl,
  type EngineDeps,
  type Plans,
} from './cycles.ts';
import { cancelPending, issueCharge, issueFailed, releaseMandate } from './issuing.ts';

/** How long a claimed subscription is left to its worker before another may claim it. */
const LEASE_MS = 5 * 60_000;
/** Subscriptions a sweep advances at once (bounded by half the pool). */
const SWEEP_LANES = 8;
/** Steps one subscription may take in one go (a simulation of a year of daily billing stays bounded). */
const MAX_STEPS = 500;

const cadence = (p: SubscriptionPlan): Cadence => ({ interval: p.interval, intervalCount: p.interval_count });

/**
 * What a step leaves to do after its commit: a cycle to charge (`recovering`: an attempt to
 * finish), transactions of voided cycles to cancel; and the subscription's row when the step's last
 * write returned it.
 */
type StepResult = { charge?: SubscriptionCycle; recovering?: boolean; cancel?: string[]; sub?: Subscription };

/** Runs one due step of a locked subscription (`cycles`: those its agenda was made of). */
async function runStep(deps: EngineDeps, trx: Trx, sub: Subscription, plan: SubscriptionPlan, plans: Plans, cycles: SubscriptionCycle[], step: Step, now: Date): Promise<StepResult> {
  switch (step.kind) {
    case 'resume':
      return resume(deps, trx, sub, plan, now);
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
      const p = sub.status === 'TRIALING' ? period(sub.anchor_at, cadence(plan), 0) : period(sub.anchor_at, cadence(plan), sub.period_index + 1);
      return { charge: await insertPeriodCycle(trx, sub, target, p, p.start, now, await firstDiscount(trx, sub, target), { claimed: true }) };
    }
    case 'roll':
      return roll(deps, trx, sub, plan, plans, cycles, now);
    case 'retry':
      return { charge: await claimAttempt(trx, sub, step.cycle, now) };
    case 'recover':
      return recover(deps, trx, sub, step.cycle, now);
    case 'final':
      return finalAction(deps, trx, sub, plan, step.cycle, now);
  }
}

/** A paused subscription resumes: a new period starts (the paused time is not billed), charged now. */
async function resume(deps: EngineDeps, trx: Trx, sub: Subscription, plan: SubscriptionPlan, now: Date): Promise<StepResult> {
  const p = period(now, cadence(plan), 0);
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

/**
 * The period ends: cancelled if so scheduled; else the next period starts (on the pending plan of a
 * downgrade), charged now unless its PIX / boleto was issued ahead.
 */
async function roll(deps: EngineDeps, trx: Trx, sub: Subscription, plan: SubscriptionPlan, plans: Plans, cycles: SubscriptionCycle[], now: Date): Promise<StepResult> {
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
  const p = period(sub.anchor_at, cadence(plan), k);
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

/**
 * An attempt whose worker did not finish it in time: this worker takes it over (a fresh lease, the
 * same transaction id) and finishes it (issueCharge), so a second recoverer finds nothing due; the
 * attempt is not counted again.
 */
async function recover(deps: EngineDeps, trx: Trx, sub: Subscription, cycle: SubscriptionCycle, now: Date): Promise<StepResult> {
  // Guarded by the lease that ended: a worker that took the attempt meanwhile (takeAttempt) keeps it.
  const taken = await trx
    .updateTable('subscription_cycles')
    .set({ charge_until: leaseEnd(sub, now), updated_at: now })
    .where('id', '=', cycle.id)
    .where('charge_tx_id', '=', cycle.charge_tx_id)
    .where('charge_until', '=', cycle.charge_until)
    .returningAll()
    .executeTakeFirst();
  deps.log.warn({ subscriptionId: sub.id, cycleId: cycle.id, transactionId: cycle.charge_tx_id }, 'subscription: finishing a charge attempt its worker left unfinished');
  return taken ? { charge: taken, recovering: true } : {};
}

/** No retry left for a failed cycle: the plan's final action (cancel, pause, or leave it past due). */
async function finalAction(deps: EngineDeps, trx: Trx, sub: Subscription, plan: SubscriptionPlan, cycle: SubscriptionCycle, now: Date): Promise<StepResult> {
  const action = plan.dunning.finalAction;
  if (action === 'CANCEL') {
    const { pending } = await endSubscription(deps, trx, sub, plan, now, { status: 'CANCELLED', reason: 'PAYMENT_FAILED' });
    return { cancel: pending };
  }
  await trx.updateTable('subscription_cycles').set({ status: 'UNCOLLECTIBLE', next_retry_at: null, updated_at: now }).where('id', '=', cycle.id).execute();
  if (action === 'PAUSE') {
    const paused = await trx.updateTable('subscriptions').set({ status: 'PAUSED', paused_at: now, resumes_at: null, updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
    await openPause(trx, paused as Subscription, now, 'PAYMENT_FAILED');
    await recordEvent(deps, trx, paused, 'subscription.paused', { reason: 'PAYMENT_FAILED' });
  }
  return {};
}

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
