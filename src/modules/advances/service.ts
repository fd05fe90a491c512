// Advances (antecipação): card receivables not yet settled are paid out now, for a fee.
//
// What can be advanced: the merchant's PENDING receivables (this environment) whose settlement
// date is still ahead. An advance of X cents covers them nearest settlement first; the last one
// is split when X ends inside it (the rest keeps its date). The fee of each part is the monthly
// rate (FEE_ADVANCE_MONTHLY_BP) x the days until its settlement / 30, each started day counting.
//
//   create    PENDING                                                advance.created
//   approve   APPROVED -> COMPLETED (one database transaction):       advance.approved
//             covered receivables ADVANCED (or reduced, when split),
//             journal receivable -amount, available +net, fees +fee  balance.updated
//   reject    REJECTED (operator, with a reason)                     advance.rejected
//   cancel    CANCELLED (merchant, PENDING only)
//
// Only one advance PENDING or APPROVED per merchant and environment (a partial unique index
// decides races). In development, approval is automatic, in the creating transaction.
import type { Static } from '@sinclair/typebox';
import { inTx, inTxRetried, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Advance, AdvanceItem, AdvanceStatus } from '../../db/types.ts';
import { badRequest, notFound, ownAccount, validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { requiredText, sanitizeText } from '../../http/sanitize.ts';
import type { Scope } from '../../http/scope.ts';
import type { EventLog } from '../events/service.ts';
import type { FeeSchedule } from '../fees/schedule.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import { requireApprovedKyc } from '../kyc/service.ts';
import type { Ledger } from '../ledger/service.ts';
import { availableToAdvance, candidatesFor, lockedQuote, percentage, quote, type QuoteItem } from './quote.ts';
import type { AdminAdvancesQuery, ListAdvancesQuery } from './schemas.ts';

// The quote's arithmetic, where the wallet's unit tests find it.
export { advanceFee, daysUntil, quote, type Candidate } from './quote.ts';

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

const itemView = (i: QuoteItem | AdvanceItem) =>
  'receivableId' in i
    ? { receivableId: i.receivableId, transactionId: i.transactionId, installmentNumber: i.installmentNumber, settleAt: i.settleAt, days: i.days, amountCents: i.amountCents, feeCents: i.feeCents }
    : { receivableId: i.receivable_id, transactionId: i.transaction_id, installmentNumber: i.installment_number, settleAt: i.settle_at, days: i.days, amountCents: i.amount_cents, feeCents: i.fee_cents };

export function advanceView(a: Advance, items?: AdvanceItem[]) {
  return {
    id: a.id,
    userId: a.user_id,
    amountCents: a.amount_cents,
    feeCents: a.fee_cents,
    netAmountCents: a.net_amount_cents,
    feePercentage: percentage(a.fee_cents, a.amount_cents),
    status: a.status,
    reason: a.reason,
    decisionReason: a.decision_reason,
    createdAt: a.created_at,
    updatedAt: a.updated_at,
    approvedAt: a.approved_at,
    completedAt: a.completed_at,
    rejectedAt: a.rejected_at,
    cancelledAt: a.cancelled_at,
    ...(items ? { receivables: items.map(itemView) } : {}),
  };
}

const eventData = (a: Advance) => ({ ...advanceView(a), livemode: a.livemode });

function overAvailable(available: number) {
  return badRequest('INSUFFICIENT_BALANCE', available > 0 ? 'The amount is more than can be advanced now' : 'There are no card receivables to advance', [
    { field: 'amountCents', message: `at most ${available} cents can be advanced now` },
  ]);
}

export interface AdvanceDeps {
  db: Db;
  fees: FeeSchedule;
  events: EventLog;
  ledger: Ledger;
}

/** What an advance of `amountCents` (omitted: everything) would cost now. */
export async function simulateAdvance(deps: AdvanceDeps, scope: Scope, amountCents: number | undefined) {
  const now = new Date();
  const available = await availableToAdvance(deps.db, scope, now);
  const target = amountCents ?? available;
  if (target > available || target <= 0) throw overAvailable(available);
  const { advanceMonthlyBp } = await deps.fees.of(scope.userId);
  const q = quote(await candidatesFor(deps.db, scope, target, now), target, advanceMonthlyBp, now);
  return {
    availableToAdvanceCents: available,
    monthlyFeePercentage: advanceMonthlyBp / 100,
    amountCents: q.amountCents,
    feeCents: q.feeCents,
    netAmountCents: q.netAmountCents,
    feePercentage: q.feePercentage,
    receivables: q.items.map(itemView),
  };
}

const alreadyActive = () =>
  badRequest('ADVANCE_ALREADY_ACTIVE', 'An advance is already PENDING or APPROVED; wait for it to finish or cancel it', [{ field: 'status', message: 'one advance PENDING or APPROVED at a time' }]);

async function activeAdvance(db: Executor, scope: Scope) {
  return db.selectFrom('advances').select('id').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('status', 'in', ['PENDING', 'APPROVED']).executeTakeFirst();
}

/** The audit entry of a change to an advance: its view before and after. */
function auditAdvance(trx: Trx, actor: Actor, action: string, before: Advance | null, after: Advance, items?: AdvanceItem[]) {
  const entry = { userId: after.user_id, livemode: after.livemode, objectType: 'advance', objectId: after.id };
  return recordAudit(trx, actor, { ...entry, action, before: before && advanceView(before), after: advanceView(after, items) });
}

export async function createAdvance(deps: AdvanceDeps, scope: Scope, input: { amountCents?: number; reason: string }, actor: Actor): Promise<{ advance: Advance; items: AdvanceItem[] }> {
  const reason = requiredText(input.reason, 'reason');
  if (scope.livemode) await requireApprovedKyc(deps.db, scope.userId, 'A production advance');
  if (await activeAdvance(deps.db, scope)) throw alreadyActive();
  const now = new Date();
  const available = await availableToAdvance(deps.db, scope, now);
  const target = input.amountCents ?? available;
  if (target > available || target <= 0) throw overAvailable(available);
  const q = quote(await candidatesFor(deps.db, scope, target, now), target, (await deps.fees.of(scope.userId)).advanceMonthlyBp, now);
  // Receivables settled or refunded between the two reads: never advance less than asked, silently.
  if (q.amountCents < target) throw overAvailable(q.amountCents);
  if (q.netAmountCents <= 0) throw validation('amountCents', 'the fee would take the whole amount; advance more');
  try {
    // A development advance completes at once: its locks on the sales race their refunds (a batch
    // of one merchant's refunds locks its sales in its own order), so a lost deadlock runs again.
    return await inTxRetried(deps.db, async (trx) => {
      const advance = await trx
        .insertInto('advances')
        .values({
          id: uuidv7(now.getTime()),
          user_id: scope.userId,
          livemode: scope.livemode,
          amount_cents: q.amountCents,
          fee_cents: q.feeCents,
          net_amount_cents: q.netAmountCents,
          status: 'PENDING',
          reason,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await deps.events.record(trx, scope, [{ type: 'advance.created', data: eventData(advance) }]);
      // Development: approved at once, by the system (one entry: the advance as the request left it).
      const done = scope.livemode ? { advance, items: [] } : await complete(deps, trx, advance, null, 'Approved automatically (development)');
      await auditAdvance(trx, actor, 'advance.created', null, done.advance, done.items);
      return done;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyActive();
    throw err;
  }
}

/**
 * APPROVED -> COMPLETED on a locked PENDING advance: covers the amount with the receivables as they
 * are now (locking the transactions, then the receivables, so a refund of the same transaction
 * cannot interleave), writes the items, moves the money and records the events.
 */
async function complete(deps: AdvanceDeps, trx: Trx, advance: Advance, operatorId: string | null, decisionReason: string | null): Promise<{ advance: Advance; items: AdvanceItem[] }> {
  const scope: Scope = { userId: advance.user_id, livemode: advance.livemode };
  const now = new Date();
  const { advanceMonthlyBp } = await deps.fees.of(advance.user_id, trx);
  const q = await lockedQuote(trx, scope, advance.amount_cents, advanceMonthlyBp, now);
  if (q.netAmountCents <= 0) throw validation('amountCents', 'the fee would take the whole amount');

  const approved = await trx
    .updateTable('advances')
    .set({ status: 'APPROVED', fee_cents: q.feeCents, net_amount_cents: q.netAmountCents, decided_by: operatorId, decision_reason: decisionReason, approved_at: now, updated_at: now })
    .where('id', '=', advance.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const items = await trx
    .insertInto('advance_items')
    .values(
      q.items.map((i) => ({
        id: uuidv7(now.getTime()),
        user_id: advance.user_id,
        advance_id: advance.id,
        receivable_id: i.receivableId,
        transaction_id: i.transactionId,
        installment_number: i.installmentNumber,
        amount_cents: i.amountCents,
        fee_cents: i.feeCents,
        days: i.days,
        settle_at: i.settleAt,
        created_at: now,
      })),
    )
    .returningAll()
    .execute();
  for (const i of q.items) {
    await trx
      .updateTable('receivables')
      .set((eb) => (i.whole ? { status: 'ADVANCED' as const, settled_at: now } : { amount_cents: eb('amount_cents', '-', i.amountCents) }))
      .where('id', '=', i.receivableId)
      .execute();
  }
  await deps.ledger.post(trx, scope, {
    kind: 'advance',
    referenceType: 'advance',
    referenceId: advance.id,
    description: `Advance of ${q.items.length} card instalment(s)`,
    postings: [
      { account: 'receivable', amount: -q.amountCents },
      { account: 'available', amount: q.netAmountCents },
      { account: 'fees', amount: q.feeCents },
    ],
  });
  const completed = await trx
    .updateTable('advances')
    .set({ status: 'COMPLETED', completed_at: now, updated_at: now })
    .where('id', '=', approved.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await deps.events.record(trx, scope, [{ type: 'advance.approved', data: { ...eventData(completed), receivables: items.map(itemView) } }]);
  items.sort((a, b) => a.settle_at.getTime() - b.settle_at.getTime() || (a.receivable_id < b.receivable_id ? -1 : 1));
  return { advance: completed, items };
}

function lockAdvance(trx: Trx, id: string, scope?: Scope) {
  let q = trx.selectFrom('advances').selectAll().where('id', '=', id);
  if (scope) q = q.where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  return q.forUpdate().executeTakeFirst();
}

const transitionError = (from: AdvanceStatus, to: AdvanceStatus) =>
  badRequest('INVALID_STATE_TRANSITION', `A ${from} advance cannot be moved to ${to}`, [{ field: 'status', message: `${from} -> ${to} is not allowed; only PENDING advances can be decided or cancelled` }]);

export async function cancelAdvance(db: Db, scope: Scope, id: string, actor: Actor): Promise<Advance> {
  return inTx(db, async (trx) => {
    const a = await lockAdvance(trx, id, scope);
    if (!a) throw notFound('Advance');
    if (a.status !== 'PENDING') throw transitionError(a.status, 'CANCELLED');
    const now = new Date();
    const cancelled = await trx.updateTable('advances').set({ status: 'CANCELLED', cancelled_at: now, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await auditAdvance(trx, actor, 'advance.cancelled', a, cancelled);
    return cancelled;
  });
}

export async function getAdvance(db: Executor, scope: Scope | null, id: string): Promise<{ advance: Advance; items: AdvanceItem[] }> {
  let q = db.selectFrom('advances').selectAll().where('id', '=', id);
  if (scope) q = q.where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  const advance = await q.executeTakeFirst();
  if (!advance) throw notFound('Advance');
  const items = await db.selectFrom('advance_items').selectAll().where('user_id', '=', advance.user_id).where('advance_id', '=', id).orderBy('settle_at').orderBy('receivable_id').execute();
  return { advance, items };
}

export async function listAdvances(db: Executor, scope: Scope, q: Static<typeof ListAdvancesQuery>) {
  let base = db.selectFrom('advances').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.status) base = base.where('status', '=', q.status);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { rows, pagination: pageInfo(q.page, q.limit, Number(total)) };
}

// ---------------------------------------------------------------------------------------------
// Operators

export async function adminListAdvances(db: Executor, q: Static<typeof AdminAdvancesQuery>) {
  let base = db.selectFrom('advances').where('livemode', '=', (q.environment ?? 'production') === 'production').where('status', '=', q.status ?? 'PENDING');
  if (q.userId) base = base.where('user_id', '=', q.userId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: rows.map((a) => ({ ...advanceView(a), livemode: a.livemode })), meta: pageInfo(q.page, q.limit, Number(total)) };
}

export async function approveAdvance(deps: AdvanceDeps, actor: Actor & { id: string }, id: string, reason: string | undefined) {
  const operatorId = actor.id;
  return inTxRetried(deps.db, async (trx) => {
    const a = await lockAdvance(trx, id);
    if (!a) throw notFound('Advance');
    if (a.user_id === operatorId) throw ownAccount();
    if (a.status !== 'PENDING') throw transitionError(a.status, 'APPROVED');
    const done = await complete(deps, trx, a, operatorId, reason === undefined ? null : sanitizeText(reason) || null);
    await auditAdvance(trx, actor, 'advance.approved', a, done.advance, done.items);
    return done;
  });
}

export async function rejectAdvance(deps: AdvanceDeps, actor: Actor & { id: string }, id: string, reason: string) {
  const operatorId = actor.id;
  const why = sanitizeText(reason);
  if (!why) throw validation('reason', 'must contain text: the merchant is told why');
  return inTx(deps.db, async (trx) => {
    const a = await lockAdvance(trx, id);
    if (!a) throw notFound('Advance');
    if (a.user_id === operatorId) throw ownAccount();
    if (a.status !== 'PENDING') throw transitionError(a.status, 'REJECTED');
    const now = new Date();
    const rejected = await trx
      .updateTable('advances')
      .set({ status: 'REJECTED', decided_by: operatorId, decision_reason: why, rejected_at: now, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await deps.events.record(trx, { userId: a.user_id, livemode: a.livemode }, [{ type: 'advance.rejected', data: eventData(rejected) }]);
    await auditAdvance(trx, actor, 'advance.rejected', a, rejected);
    return rejected;
  });
}
