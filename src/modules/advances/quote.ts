// What an advance covers and costs: the quote (pure arithmetic over receivables, nearest settlement
// first) and the receivables read for it, without locks (a simulation) or locked (a completion).
import { sql } from 'kysely';
import type { Executor, Trx } from '../../db/index.ts';
import { badRequest } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS } from '../../payments/calendar.ts';

export interface Candidate {
  id: string;
  transaction_id: string;
  installment_number: number;
  amount_cents: number;
  settle_at: Date;
}

export interface QuoteItem {
  receivableId: string;
  transactionId: string;
  installmentNumber: number;
  settleAt: Date;
  days: number;
  amountCents: number;
  feeCents: number;
  /** The whole receivable is covered (it becomes ADVANCED); otherwise it is reduced by amountCents. */
  whole: boolean;
}

export interface Quote {
  amountCents: number;
  feeCents: number;
  netAmountCents: number;
  feePercentage: number;
  items: QuoteItem[];
}

/** Days until settlement, each started day counting, at least 1. */
export function daysUntil(settleAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((settleAt.getTime() - now.getTime()) / DAY_MS));
}

/** amount x monthlyBp/10000 x days/30, rounded half up, in integer arithmetic. */
export function advanceFee(amountCents: number, monthlyBp: number, days: number): number {
  return Math.floor((amountCents * monthlyBp * days + 150_000) / 300_000);
}

export const percentage = (fee: number, amount: number) => (amount > 0 ? Math.round((fee * 10_000) / amount) / 100 : 0);

/** Covers `target` cents with the candidates in the order given (nearest settlement first). */
export function quote(candidates: Candidate[], target: number, monthlyBp: number, now: Date): Quote {
  const items: QuoteItem[] = [];
  let left = target;
  for (const r of candidates) {
    if (left <= 0) break;
    if (r.amount_cents <= 0) continue;
    const part = Math.min(left, r.amount_cents);
    const days = daysUntil(r.settle_at, now);
    items.push({ receivableId: r.id, transactionId: r.transaction_id, installmentNumber: r.installment_number, settleAt: r.settle_at, days, amountCents: part, feeCents: advanceFee(part, monthlyBp, days), whole: part === r.amount_cents });
    left -= part;
  }
  const amountCents = target - left;
  const feeCents = items.reduce((s, i) => s + i.feeCents, 0);
  return { amountCents, feeCents, netAmountCents: amountCents - feeCents, feePercentage: percentage(feeCents, amountCents), items };
}

/** Receivables that can be advanced, nearest settlement first (no locks). */
function advanceable(db: Executor, scope: Scope, now: Date) {
  return db
    .selectFrom('receivables')
    .select(['id', 'transaction_id', 'installment_number', 'amount_cents', 'settle_at'])
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('status', '=', 'PENDING')
    .where('settle_at', '>', now)
    .where('amount_cents', '>', 0);
}

export async function availableToAdvance(db: Executor, scope: Scope, now: Date): Promise<number> {
  const row = await advanceable(db, scope, now)
    .clearSelect()
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), sql<number>`0`).as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Just the receivables needed to cover `target`, nearest first (a running sum, no locks). */
export async function candidatesFor(db: Executor, scope: Scope, target: number, now: Date): Promise<Candidate[]> {
  const { rows } = await sql<Candidate & { running: string | number }>`
    SELECT id, transaction_id, installment_number, amount_cents, settle_at, running FROM (
      SELECT id, transaction_id, installment_number, amount_cents, settle_at,
             sum(amount_cents) OVER (ORDER BY settle_at, id) AS running
      FROM receivables
      WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND status = 'PENDING'
        AND settle_at > ${now} AND amount_cents > 0
    ) r
    WHERE running - amount_cents < ${target}
    ORDER BY settle_at, id`.execute(db);
  return rows.map((r) => ({ id: r.id, transaction_id: r.transaction_id, installment_number: Number(r.installment_number), amount_cents: Number(r.amount_cents), settle_at: new Date(r.settle_at) }));
}

/**
 * The quote of an advance of `amount`, over receivables locked for it (the transactions first, then
 * the receivables, so a refund of the same transaction cannot interleave). The candidates are read
 * without locks; a receivable settled or refunded before it is locked drops out, so they are read
 * again (the next reading reaches further) until the locked ones cover the amount.
 */
export async function lockedQuote(trx: Trx, scope: Scope, amount: number, monthlyBp: number, now: Date): Promise<Quote> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const candidates = await candidatesFor(trx, scope, amount, now);
    if (!candidates.length) break;
    const txIds = [...new Set(candidates.map((c) => c.transaction_id))].sort();
    await trx.selectFrom('transactions').select('id').where('id', 'in', txIds).orderBy('id').forUpdate().execute();
    const locked = await trx
      .selectFrom('receivables')
      .select(['id', 'transaction_id', 'installment_number', 'amount_cents', 'settle_at'])
      .where('id', 'in', candidates.map((c) => c.id))
      .where('status', '=', 'PENDING')
      .where('settle_at', '>', now)
      .orderBy('settle_at')
      .orderBy('id')
      .forUpdate()
      .execute();
    const q = quote(locked, amount, monthlyBp, now);
    if (q.amountCents === amount) return q;
  }
  throw badRequest('INSUFFICIENT_BALANCE', 'The receivables no longer cover this advance (settled or refunded since it was requested); reject it', [
    { field: 'amountCents', message: `${amount} cents are no longer available to advance` },
  ]);
}
