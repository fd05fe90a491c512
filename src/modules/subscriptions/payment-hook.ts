// What a cycle does when its transaction changes status (the transaction hook, wired in deps.ts),
// inside that change's database transaction: paid, the cycle is paid and its subscription renewed
// or made ACTIVE; failed or expired, the dunning starts or goes on. And when a cycle's boleto gets
// its numbers from its bank, it is e-mailed (charge-mail.ts).
import type { Trx } from '../../db/index.ts';
import type { Subscription, Transaction } from '../../db/types.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import { HARD_DECLINES } from '../../payments/connector.ts';
import { redeemSubscriptionCoupon } from '../coupons/service.ts';
import type { TransactionHooks } from '../transactions/hooks.ts';
import { retryDaysOf } from './agenda.ts';
import { boletoIssuedHook } from './charge-mail.ts';
import { lockSubscription, mail, planOf, recordEvent, reschedule, unpaidCycles, updateCardUrl, type EngineDeps } from './cycles.ts';
import { manageUrl } from './links.ts';

/** A cycle paid (`tx`, or nothing to collect), on its locked subscription `locked` (the row as locked). */
export async function markPaid(deps: Pick<EngineDeps, 'events' | 'config'>, trx: Trx, locked: Subscription, cycleId: string, tx: Transaction | null, now: Date) {
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

/** The hook: a subscription cycle's transaction was paid, failed or expired (or its boleto issued). */
export function subscriptionHooks(deps: Pick<EngineDeps, 'events' | 'config'>): TransactionHooks {
  return {
    ...boletoIssuedHook(deps),
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
