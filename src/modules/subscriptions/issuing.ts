// Issuing a cycle's payment: the charge of a claimed attempt (a card by its token, a PIX or boleto
// e-mailed with its page), made after the step that claimed it committed, so no lock is held
// across a provider call; what follows a failure to issue; and withdrawing the charges of cycles
// that were voided.
import { inTx, type Db } from '../../db/index.ts';
import type { Subscription, SubscriptionCycle, SubscriptionPlan, Transaction } from '../../db/types.ts';
import { AppError } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS, spDate } from '../../payments/calendar.ts';
import type { PixAutomaticoCharge } from '../../payments/connector.ts';
import { findTransaction } from '../transactions/queries.ts';
import { cancelTransaction, changeStatus, chargeStoredCard, createTransaction, redriveStoredCharge, type CreateInput } from '../transactions/service.ts';
import { INCOMPLETE_TTL_MS, leaseEnd, PIX_AUTOMATICO_RETRY_WINDOW_DAYS } from './agenda.ts';
import { endAttempt, endSubscription, lockSubscription, planOf, recordEvent, reschedule, scopeOf, UNPAID, type EngineDeps } from './cycles.ts';
import { lockCharge, mailCharge } from './charge-mail.ts';
import { markPaid } from './payment-hook.ts';
import { pixPeriodicity } from './plans.ts';
import { resolveSplit } from '../splits/rule.ts';

/** A charge whose issuing failed (the provider or the database refused) is tried again after this. */
const ISSUE_FAILED_RETRY_MS = 3600_000;

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
    // Every charge is split by the plan's rule as it stands (a recipient no longer allowed left out).
    split: await resolveSplit(deps.db, sub.user_id, plan.split, false),
    // The coupon is redeemed (its use counted) by the first charge; later discounted charges carry only the discount.
    ...(cycle.discount_cents > 0 ? { discountCents: cycle.discount_cents, ...(cycle.number === 1 && sub.coupon_id ? { couponId: sub.coupon_id } : {}) } : {}),
    // A boleto carries the payer's address given when subscribing (a bank that registers boletos refuses one without).
    ...(sub.payment_method === 'BOLETO' && sub.client_address ? { address: sub.client_address } : {}),
  };
  if (sub.payment_method === 'CARD') {
    if (!sub.card_token) throw new Error(`subscription ${sub.id}: a card subscription without a card token`);
    // The first charge of a subscription not in trial is made while the subscriber signs up (INCOMPLETE): customer-initiated.
    const kind = sub.status === 'INCOMPLETE' ? 'SIGNUP' : 'RENEWAL';
    if (!recorded) {
      const stored = { ...extras, storedCard: { brand: sub.card_brand ?? 'CARD', last4: sub.card_last4 ?? '0000' } };
      return chargeStoredCard(deps.transactions, scope, input, stored, sub.card_token, kind, { id: txId }).catch((err) => recordedMeanwhile(deps, txId, err));
    }
    if (recorded.status === 'PENDING') return redriveStoredCharge(deps.transactions, recorded, sub.card_token, kind);
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
 * worker finishing the same attempt finds it ended and sends nothing. A boleto its bank has not
 * registered yet (no line) is e-mailed when its numbers are recorded instead (charge-mail.ts).
 */
async function attachIssued(deps: EngineDeps, sub: Subscription, plan: SubscriptionPlan, cycle: SubscriptionCycle, created: Transaction, now: Date, recurrenceId: string | null) {
  await inTx(deps.db, async (trx) => {
    // A boleto as it stands, under its lock: the bank's numbers may have been recorded meanwhile.
    const tx = sub.payment_method === 'BOLETO' ? await lockCharge(trx, created.id) : created;
    if (!(await endAttempt(trx, cycle.id, tx.id, now))) return;
    if (recurrenceId) {
      // The authorisation exists from now (subscription.created, before the PSP was asked, had none).
      const withRec = await trx.updateTable('subscriptions').set({ pix_rec_id: recurrenceId, pix_rec_status: 'CRIADA', updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
      await recordEvent(deps, trx, withRec as Subscription, 'subscription.mandate_updated');
    }
    // An automatic debit has nothing to pay by hand: the payer's bank tells them of it (Pix Automático rules).
    if (sub.payment_method === 'PIX_AUTOMATICO' && !tx.pix_qr_code) return;
    // A line that does not exist yet is not sent: the boletoIssued hook e-mails it with its numbers.
    if (sub.payment_method === 'BOLETO' && !tx.boleto_line) return;
    await mailCharge(deps, trx, sub, plan, tx, now);
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
  // biome-ignore lint/complexity/useMathMinMax: São Paulo dates compared as YYYY-MM-DD text, not numbers
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
    // The authorisation is the connector's that made the first charge carrying it.
    const first = await deps.db
      .selectFrom('transactions as t')
      .innerJoin('subscription_cycles as c', 'c.id', 't.subscription_cycle_id')
      .select('t.provider')
      .where('c.subscription_id', '=', sub.id)
      .orderBy('t.created_at')
      .executeTakeFirst();
    const connector = first ? deps.transactions.connectors.of(first.provider, 'PIX_AUTOMATICO') : deps.transactions.connectors.forNew(sub.livemode, 'PIX_AUTOMATICO');
    await connector.cancelMandate(sub.pix_rec_id);
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
    if (sub?.status !== 'INCOMPLETE') return null;
    const { pending } = await endSubscription(deps, trx, sub, await planOf(trx, sub.plan_id), now, { status: 'EXPIRED', reason: FIRST_CHARGE_NOT_ISSUED });
    await trx.deleteFrom('emails').where('user_id', '=', sub.user_id).where('related_id', '=', sub.id).where('status', '=', 'QUEUED').execute();
    await reschedule(trx, sub.id);
    return { pending, scope: { userId: sub.user_id, livemode: sub.livemode } };
  });
  if (out?.pending.length) await withdrawPending(deps, out.scope, out.pending);
}
