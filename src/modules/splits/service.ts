// What each side reads of splits: the shares received or sent, a sale's shares, and the seller's
// summary of a period (gross, fees, what went to each recipient, its own part).
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import { validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS, endOfSpDay, spDate, startOfSpDay } from '../../payments/calendar.ts';
import type { ListSharesQuery, SummaryQuery } from './schemas.ts';
import { partiesOf, shareView, type ShareRow } from './views.ts';

function sharesOf(db: Executor, scope: Scope) {
  return db
    .selectFrom('transaction_splits as s')
    .innerJoin('transactions as t', 't.id', 's.transaction_id')
    .where('s.livemode', '=', scope.livemode)
    .selectAll('s')
    .select(['t.display_id', 't.product', 't.payment_method', 't.installments', 't.charged_cents']);
}

async function views(db: Executor, rows: ShareRow[]) {
  const parties = await partiesOf(db, rows.flatMap((r) => [r.user_id, r.recipient_id]));
  return rows.map((r) => shareView(r, parties));
}

/** The caller's shares: received (other merchants' sales) or sent (its own sales'), newest first. */
export async function listShares(db: Executor, scope: Scope, q: Static<typeof ListSharesQuery>) {
  const received = (q.role ?? 'received') === 'received';
  let base = sharesOf(db, scope).where(received ? 's.recipient_id' : 's.user_id', '=', scope.userId);
  if (q.status) base = base.where('s.status', '=', q.status);
  if (q.walletId) {
    const other = await db.selectFrom('users').select('id').where('wallet_id', '=', q.walletId.toLowerCase()).executeTakeFirst();
    base = base.where(received ? 's.user_id' : 's.recipient_id', '=', other?.id ?? scope.userId);
  }
  const [{ total }, rows] = await Promise.all([
    base.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.orderBy('s.created_at', 'desc').orderBy('s.id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: await views(db, rows), meta: pageInfo(q.page, q.limit, Number(total)) };
}

/** The shares of one of the caller's sales (its seller's view); undefined when the sale is not the caller's. */
export async function transactionShares(db: Executor, scope: Scope, transactionId: string) {
  const own = await db.selectFrom('transactions').select('id').where('id', '=', transactionId).where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).executeTakeFirst();
  if (!own) return undefined;
  const rows = await sharesOf(db, scope).where('s.transaction_id', '=', transactionId).orderBy('s.created_at').orderBy('s.id').execute();
  return { data: await views(db, rows) };
}

const SOLD = ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'CHARGEBACK'] as const;

/**
 * The seller's sales paid in a period (São Paulo days): what shoppers paid, refunds, the fees kept,
 * what each recipient got (net of reversals), and its own part.
 */
export async function splitSummary(db: Executor, scope: Scope, q: Static<typeof SummaryQuery>) {
  const to = q.to ?? spDate(new Date());
  const from = q.from ?? spDate(new Date(startOfSpDay(to).getTime() - 29 * DAY_MS));
  if (from > to) throw validation('from', 'must not be after to');
  const range = { from: startOfSpDay(from), to: endOfSpDay(to) };
  const sales = db
    .selectFrom('transactions as t')
    .where('t.user_id', '=', scope.userId)
    .where('t.livemode', '=', scope.livemode)
    .where('t.status', 'in', SOLD)
    .where('t.paid_at', '>=', range.from)
    .where('t.paid_at', '<=', range.to);
  const totals = await sales
    .select([
      sql<string>`count(*)`.as('sales'),
      sql<string>`coalesce(sum(t.charged_cents), 0)`.as('gross'),
      sql<string>`coalesce(sum(t.refunded_cents), 0)`.as('refunded'),
      sql<string>`coalesce(sum(t.fee_cents), 0)`.as('fees'),
      sql<string>`coalesce(sum((SELECT coalesce(sum(r.fee_returned_cents), 0) FROM refunds r WHERE r.transaction_id = t.id AND r.status <> 'FAILED')), 0)`.as('fee_returned'),
    ])
    .executeTakeFirstOrThrow();
  const byRecipient = await sales
    .innerJoin('transaction_splits as s', 's.transaction_id', 't.id')
    .select(['s.recipient_id', sql<string>`count(*)`.as('sales'), sql<string>`sum(s.amount_cents)`.as('amount'), sql<string>`sum(s.reversed_cents)`.as('reversed')])
    .groupBy('s.recipient_id')
    .execute();
  const parties = await partiesOf(db, byRecipient.map((r) => r.recipient_id));
  const recipients = byRecipient
    .map((r) => ({ ...parties.get(r.recipient_id)!, sales: Number(r.sales), amountCents: Number(r.amount), reversedCents: Number(r.reversed) }))
    .sort((a, b) => b.amountCents - b.reversedCents - (a.amountCents - a.reversedCents));
  const splitCents = recipients.reduce((n, r) => n + r.amountCents - r.reversedCents, 0);
  const grossCents = Number(totals.gross);
  const refundedCents = Number(totals.refunded);
  const feeCents = Number(totals.fees) - Number(totals.fee_returned);
  return { from, to, sales: Number(totals.sales), grossCents, refundedCents, feeCents, splitCents, netCents: grossCents - refundedCents - feeCents - splitCents, recipients };
}
