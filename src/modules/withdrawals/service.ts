// Withdrawals: PIX payouts of the available balance.
//
//   request   PENDING      available -amount, reserved +amount        withdrawal.requested
//   cancel    CANCELLED    reserved -amount, available +amount        (PENDING only)
//   job       PROCESSING   (no money moves; processedAt, externalId)
//   payout ok COMPLETED    reserved -amount, external +net, fees +fee withdrawal.completed
//   payout ko FAILED       reserved -amount, available +amount        withdrawal.failed
//
// Every journal is posted in the same database transaction as the status change (balance.updated
// comes with it). The payout job never holds a database transaction across the provider call:
// it claims rows (PENDING -> PROCESSING) and commits, calls the provider, then records the outcome
// in a new transaction guarded by the status, so an operator or another worker that got there
// first wins and the late one does nothing.
import type { Static } from '@sinclair/typebox';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Withdrawal, WithdrawalStatus } from '../../db/types.ts';
import { badRequest, forbidden, notFound, ownAccount, validation } from '../../http/errors.ts';
import type { Answer } from '../../http/idempotency.ts';
import { pageInfo } from '../../http/pagination.ts';
import { sanitizeText } from '../../http/sanitize.ts';
import { likePattern, type Scope } from '../../http/scope.ts';
import type { ConnectorLog } from '../../payments/connector.ts';
import type { ConnectorRegistry } from '../../payments/registry.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import type { EventLog } from '../events/service.ts';
import type { FeeSchedule } from '../fees/schedule.ts';
import { requireApprovedKyc } from '../kyc/service.ts';
import { getBalance, lockAccount, originBalanceNames, type Ledger } from '../ledger/service.ts';
import { checkDestination, destinationLabel, failureCode, failureWords, maskedDestination } from './destination.ts';
import type { ReviewRules } from '../../config.ts';
import { alertOwner } from './new-destination.ts';
import { decideHold } from './review.ts';
import type { AdminWithdrawalsQuery, CreateWithdrawalBody, ListWithdrawalsQuery } from './schemas.ts';

export function withdrawalView(w: Withdrawal) {
  return {
    id: w.id,
    userId: w.user_id,
    amountCents: w.amount_cents,
    feeCents: w.fee_cents,
    netAmount: w.net_amount_cents,
    status: w.status,
    pixKeyType: w.pix_key_type,
    pixKey: w.pix_key,
    bankAccount: w.bank_account,
    description: w.description,
    externalId: w.external_id,
    failureReason: failureWords(w.failure_reason),
    failureCode: failureCode(w.failure_reason),
    holdReason: w.hold,
    holdUntil: w.hold_until,
    approvedAt: w.approved_at,
    createdAt: w.created_at,
    updatedAt: w.updated_at,
    processedAt: w.processed_at,
    completedAt: w.completed_at,
    failedAt: w.failed_at,
  };
}

export function adminWithdrawalView(w: Withdrawal) {
  return { ...withdrawalView(w), livemode: w.livemode, provider: w.provider, payoutAttempts: w.payout_attempts, nextAttemptAt: w.next_attempt_at, lastError: w.last_error };
}

/** Event payload: the view with CPF/CNPJ keys and the holder's document masked (spec: documents are masked in payloads). */
function eventData(w: Withdrawal) {
  return { ...withdrawalView(w), ...maskedDestination(w), livemode: w.livemode };
}

/** The audit entry of a change to a withdrawal: its view before and after (documents masked by recordAudit). */
export function auditWithdrawal(trx: Trx, actor: Actor, action: string, before: Withdrawal | null, after: Withdrawal) {
  const entry = { userId: after.user_id, livemode: after.livemode, objectType: 'withdrawal', objectId: after.id };
  return recordAudit(trx, actor, { ...entry, action, before: before && withdrawalView(before), after: withdrawalView(after) });
}

export async function walletBalance(db: Executor, scope: Scope) {
  const b = await getBalance(db, scope);
  return { availableBalanceCents: b.availableCents, pendingBalanceCents: b.receivableCents, reservedCents: b.reservedCents, ...originBalanceNames(b) };
}

/** What withdrawals need besides the database (built by deps.ts). */
export interface WithdrawalDeps {
  db: Db;
  fees: FeeSchedule;
  events: EventLog;
  ledger: Ledger;
  /** The payout connectors (development: the sandbox; production: PAYOUT_PROVIDER, or none: operators pay by hand). */
  connectors: ConnectorRegistry;
  /** A payout whose outcome is unknown this long is asked about by the janitor (followPayouts). */
  janitorGraceSeconds: number;
  /** Production withdrawals held for an operator: above `aboveCents` (0: none), or past `dailyLimitCents` a day (null: no limit). */
  review: ReviewRules;
  /** The dashboard's address (BASE_URL/dashboard), for links in the merchant's e-mails. */
  dashboardUrl: string;
  log: ConnectorLog;
}

export async function requestWithdrawal(deps: WithdrawalDeps, scope: Scope, input: Static<typeof CreateWithdrawalBody>, actor: Actor, answer?: Answer<Withdrawal>): Promise<Withdrawal> {
  const { db, fees } = deps;
  const destination = checkDestination(input);
  const fee = (await fees.of(scope.userId)).withdrawalCents;
  if (input.amountCents <= fee) throw validation('amountCents', `must be more than the withdrawal fee (${fee} cents)`);
  if (scope.livemode) await requireApprovedKyc(db, scope.userId, 'A production withdrawal');
  const description = input.description === undefined ? null : sanitizeText(input.description) || null;

  return inTx(db, async (trx) => {
    // The lock on the available account serialises this merchant's withdrawals (and refunds).
    const available = await lockAccount(trx, scope, 'available');
    if (available < input.amountCents) {
      throw badRequest('INSUFFICIENT_BALANCE', 'Available balance does not cover this withdrawal', [
        { field: 'amountCents', message: `needs ${input.amountCents} cents available, the balance is ${available}` },
      ]);
    }
    const now = new Date();
    const held = await decideHold(trx, scope, input.amountCents, destination, deps.review, now);
    const w = await trx
      .insertInto('withdrawals')
      .values({
        id: uuidv7(now.getTime()),
        user_id: scope.userId,
        livemode: scope.livemode,
        amount_cents: input.amountCents,
        fee_cents: fee,
        net_amount_cents: input.amountCents - fee,
        status: 'PENDING',
        ...destination,
        bank_account: destination.bank_account && JSON.stringify(destination.bank_account),
        hold: held.hold,
        hold_until: held.holdUntil,
        description,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await deps.ledger.post(trx, scope, {
      kind: 'withdrawal',
      referenceType: 'withdrawal',
      referenceId: w.id,
      description: `Withdrawal to ${destinationLabel(w)} requested`,
      postings: [
        { account: 'available', amount: -w.amount_cents },
        { account: 'reserved', amount: w.amount_cents },
      ],
    });
    await deps.events.record(trx, scope, [{ type: 'withdrawal.requested', data: eventData(w) }]);
    await auditWithdrawal(trx, actor, 'withdrawal.created', null, w);
    if (held.newDestination) await alertOwner(trx, scope, w, deps.dashboardUrl);
    await answer?.(trx, w);
    return w;
  });
}

export async function getWithdrawal(db: Executor, scope: Scope, id: string): Promise<Withdrawal> {
  const w = await db.selectFrom('withdrawals').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).executeTakeFirst();
  if (!w) throw notFound('Withdrawal');
  return w;
}

export async function listWithdrawals(db: Executor, scope: Scope, q: Static<typeof ListWithdrawalsQuery>) {
  let base = db.selectFrom('withdrawals').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.status) base = base.where('status', '=', q.status);
  if (q.search) {
    const pattern = likePattern(q.search);
    base = base.where((eb) => eb.or([eb('pix_key', 'ilike', pattern), eb('description', 'ilike', pattern)]));
  }
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: rows, meta: pageInfo(q.page, q.limit, Number(total)) };
}

const transitionError = (from: WithdrawalStatus, to: WithdrawalStatus, hint: string) =>
  badRequest('INVALID_STATE_TRANSITION', `A ${from} withdrawal cannot be moved to ${to}`, [{ field: 'status', message: `${from} -> ${to} is not allowed; ${hint}` }]);

/** PENDING -> CANCELLED, funds back to available. The row lock decides a race with the payout job. */
export async function cancelWithdrawal(deps: WithdrawalDeps, scope: Scope, id: string, actor: Actor): Promise<Withdrawal> {
  return inTx(deps.db, async (trx) => {
    const w = await trx.selectFrom('withdrawals').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!w) throw notFound('Withdrawal');
    if (w.status !== 'PENDING') throw transitionError(w.status, 'CANCELLED', 'only a PENDING withdrawal can be cancelled');
    const now = new Date();
    const updated = await trx.updateTable('withdrawals').set({ status: 'CANCELLED', cancelled_at: now, updated_at: now }).where('id', '=', w.id).returningAll().executeTakeFirstOrThrow();
    await deps.ledger.post(trx, scope, {
      kind: 'withdrawal_cancelled',
      referenceType: 'withdrawal',
      referenceId: w.id,
      description: 'Withdrawal cancelled: funds returned',
      postings: [
        { account: 'reserved', amount: -w.amount_cents },
        { account: 'available', amount: w.amount_cents },
      ],
    });
    await auditWithdrawal(trx, actor, 'withdrawal.cancelled', w, updated);
    return updated;
  });
}

export type Outcome = { status: 'COMPLETED' } | { status: 'FAILED'; reason: string };

/** Columns written with the final status (what the PSP or the operator said of the payout). */
export type FinalColumns = Partial<Pick<Withdrawal, 'provider' | 'processed_at' | 'external_id' | 'hold' | 'hold_until' | 'next_attempt_at' | 'last_error'>>;

/** Records a payout's outcome on a locked row: status (with `columns`), journal and event together. */
export async function finish(deps: WithdrawalDeps, trx: Trx, w: Withdrawal, outcome: Outcome, columns: FinalColumns = {}): Promise<Withdrawal> {
  const scope: Scope = { userId: w.user_id, livemode: w.livemode };
  const now = new Date();
  const ref = { referenceType: 'withdrawal', referenceId: w.id };
  if (outcome.status === 'COMPLETED') {
    const updated = await trx.updateTable('withdrawals').set({ ...columns, status: 'COMPLETED', completed_at: now, updated_at: now }).where('id', '=', w.id).returningAll().executeTakeFirstOrThrow();
    await deps.ledger.post(trx, scope, {
      kind: 'withdrawal_paid',
      ...ref,
      description: `Withdrawal paid to ${destinationLabel(w)}`,
      postings: [
        { account: 'reserved', amount: -w.amount_cents },
        { account: 'external', amount: w.net_amount_cents },
        { account: 'fees', amount: w.fee_cents },
      ],
    });
    await deps.events.record(trx, scope, [{ type: 'withdrawal.completed', data: eventData(updated) }]);
    return updated;
  }
  const updated = await trx
    .updateTable('withdrawals')
    .set({ ...columns, status: 'FAILED', failed_at: now, failure_reason: outcome.reason, updated_at: now })
    .where('id', '=', w.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await deps.ledger.post(trx, scope, {
    kind: 'withdrawal_failed',
    ...ref,
    description: `Withdrawal failed (${outcome.reason}): funds returned`,
    postings: [
      { account: 'reserved', amount: -w.amount_cents },
      { account: 'available', amount: w.amount_cents },
    ],
  });
  await deps.events.record(trx, scope, [{ type: 'withdrawal.failed', data: eventData(updated) }]);
  return updated;
}

// ---------------------------------------------------------------------------------------------
// Operators

/** An operator lets a held withdrawal go: the payout job sends it on its next run. */
/** An operator lets a held withdrawal go (a new destination's hold too, before its time): the payout job sends it on its next run. */
export async function approveWithdrawal(deps: { db: Db }, actor: Actor & { id: string }, id: string): Promise<Withdrawal> {
  const operatorId = actor.id;
  return inTx(deps.db, async (trx) => {
    const w = await trx.selectFrom('withdrawals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!w) throw notFound('Withdrawal');
    if (w.user_id === operatorId) throw ownAccount();
    if (w.status !== 'PENDING' || w.hold === null) {
      const why = w.status !== 'PENDING' ? `it is ${w.status}` : 'it is not held for review';
      throw badRequest('INVALID_STATE_TRANSITION', 'This withdrawal is not waiting for approval', [{ field: 'status', message: `only a PENDING withdrawal held for review can be approved; ${why}` }]);
    }
    const now = new Date();
    const approved = await trx.updateTable('withdrawals').set({ hold: null, hold_until: null, approved_at: now, approved_by: operatorId, updated_at: now }).where('id', '=', w.id).returningAll().executeTakeFirstOrThrow();
    await auditWithdrawal(trx, actor, 'withdrawal.approved', w, approved);
    return approved;
  });
}

export async function adminListWithdrawals(db: Executor, q: Static<typeof AdminWithdrawalsQuery>) {
  let base = db.selectFrom('withdrawals').where('livemode', '=', (q.environment ?? 'production') === 'production');
  base = q.status ? base.where('status', '=', q.status) : base.where('status', 'in', ['PENDING', 'PROCESSING']);
  if (q.userId) base = base.where('user_id', '=', q.userId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: rows.map(adminWithdrawalView), meta: pageInfo(q.page, q.limit, Number(total)) };
}

/**
 * An operator settles a production withdrawal by hand (PENDING or PROCESSING): COMPLETED with the
 * transfer's reference, or FAILED with a reason (funds back to available).
 */
export async function settleByHand(deps: WithdrawalDeps, actor: Actor & { id: string }, id: string, outcome: { status: 'COMPLETED'; externalId?: string } | { status: 'FAILED'; reason: string }): Promise<Withdrawal> {
  return inTx(deps.db, async (trx) => {
    const w = await trx.selectFrom('withdrawals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!w) throw notFound('Withdrawal');
    if (w.user_id === actor.id) throw ownAccount();
    if (!w.livemode) {
      throw badRequest('INVALID_STATE_TRANSITION', 'Development withdrawals are paid by the sandbox, not by hand', [{ field: 'livemode', message: 'only production withdrawals can be settled by an operator' }]);
    }
    const reason = outcome.status === 'FAILED' ? sanitizeText(outcome.reason) : '';
    if (outcome.status === 'FAILED' && !reason) throw validation('reason', 'must contain text');
    const externalId = outcome.status === 'COMPLETED' ? outcome.externalId : undefined;
    const done = await settleNow(deps, trx, w, outcome.status === 'COMPLETED' ? { status: 'COMPLETED' } : { status: 'FAILED', reason }, w.provider ?? 'manual', externalId);
    await auditWithdrawal(trx, actor, outcome.status === 'COMPLETED' ? 'withdrawal.completed_by_operator' : 'withdrawal.failed_by_operator', w, done);
    return done;
  });
}

/**
 * Sandbox: the merchant plays the PSP and settles a development withdrawal not yet settled
 * (PENDING or PROCESSING), so it can build for withdrawal.failed; the payout job's late answer
 * then changes nothing (it is guarded by the status).
 */
export async function simulateWithdrawal(deps: WithdrawalDeps, scope: Scope, id: string, outcome: Outcome, actor: Actor): Promise<Withdrawal> {
  return inTx(deps.db, async (trx) => {
    const w = await trx.selectFrom('withdrawals').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!w) throw notFound('Withdrawal');
    if (w.livemode) throw forbidden('Simulation is only available with development (test) keys');
    const done = await settleNow(deps, trx, w, outcome, 'sandbox');
    await auditWithdrawal(trx, actor, 'withdrawal.simulated', w, done);
    return done;
  });
}

/** PENDING or PROCESSING -> the outcome, on a locked row, its provider, processing time and reference kept or made. */
async function settleNow(deps: WithdrawalDeps, trx: Trx, w: Withdrawal, outcome: Outcome, provider: string, externalId?: string): Promise<Withdrawal> {
  if (w.status !== 'PENDING' && w.status !== 'PROCESSING') throw transitionError(w.status, outcome.status, 'only PENDING or PROCESSING withdrawals can be settled');
  return finish(deps, trx, w, outcome, {
    provider: w.provider ?? provider,
    processed_at: w.processed_at ?? new Date(),
    external_id: externalId || w.external_id || `${provider}_${w.id.replace(/-/g, '')}`,
    hold: null,
    hold_until: null,
    next_attempt_at: null,
  });
}
