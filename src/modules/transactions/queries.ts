// The payment core's store: the SQL of transactions, refunds and receivables (locks and lookups,
// the lists, the public pages' reads, what the janitor and the sweeps look for); the creation
// statement is in creation-statement.ts. No rules here: the operation files decide.
import type { Static } from '@sinclair/typebox';
import type { Executor, Trx } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';
import { notFound } from '../../http/errors.ts';
import { createdAtPage, keysetPage, type Cursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import type { ListTransactionsQuery } from './schemas.ts';

export async function getTransaction(db: Executor, scope: Scope, id: string): Promise<Transaction> {
  const tx = await db.selectFrom('transactions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).executeTakeFirst();
  if (!tx) throw notFound('Transaction');
  return tx;
}

/** The refunds of a transaction of this scope, oldest first. */
export function refundsOf(db: Executor, scope: Scope, transactionId: string) {
  return db
    .selectFrom('refunds')
    .select(['id', 'amount_cents', 'status', 'failure_reason', 'items', 'created_at', 'updated_at'])
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A transaction by id alone: the public pages and the provider callbacks know nothing else. */
export function findTransaction(db: Executor, id: string): Promise<Transaction | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

const ORDER_COLUMNS = { createdAt: 'created_at', amountCents: 'amount_cents', status: 'status' } as const;

export async function listTransactions(db: Executor, cursors: Cursors, scope: Scope, q: Static<typeof ListTransactionsQuery>) {
  const column = ORDER_COLUMNS[q.orderBy];
  let query = db.selectFrom('transactions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.status) query = query.where('status', '=', q.status);
  const method = q.paymentMethod ?? q.method;
  if (method) query = query.where('payment_method', '=', method);
  if (q.clientId) query = query.where('client_id', '=', q.clientId);
  if (q.createdFrom) query = query.where('created_at', '>=', new Date(q.createdFrom));
  if (q.createdTo) query = query.where('created_at', '<=', new Date(q.createdTo));
  const pages = cursors.of('transactions', scope);
  if (column === 'created_at') return createdAtPage(pages, query, q);
  return keysetPage(pages, query, { by: q.orderBy, column, direction: q.orderDirection, limit: q.limit, cursor: q.cursor, value: (row) => row[column] });
}

/**
 * PENDING PIX and boleto transactions past their expiry, locked for the expiry sweep (skipping those
 * another worker holds), except those of providers that expire their own charges.
 */
export function lockExpired(trx: Trx, now: Date, batch: number, exceptProviders: string[] = []) {
  let q = trx.selectFrom('transactions').selectAll().where('status', '=', 'PENDING').where('expires_at', '<', now);
  if (exceptProviders.length) q = q.where('provider', 'not in', exceptProviders);
  return q.orderBy('expires_at').limit(batch).forUpdate().skipLocked().execute();
}

// ---------------------------------------------------------------------------------------------
// Public pages

/** The BR Code of a PIX charge by its txid (the QR image route). */
export async function pixCodeByTxid(db: Executor, txid: string): Promise<string | null> {
  const row = await db.selectFrom('transactions').select('pix_qr_code').where('pix_txid', '=', txid).executeTakeFirst();
  return row?.pix_qr_code ?? null;
}

/** A boleto transaction with its merchant's name, for the printable page, its Pix QR and its bank's PDF. */
export function boletoForPage(db: Executor, id: string) {
  return db
    .selectFrom('transactions')
    .innerJoin('users', 'users.id', 'transactions.user_id')
    .select([
      'transactions.id',
      'transactions.display_id',
      'transactions.product',
      'transactions.charged_cents',
      'transactions.status',
      'transactions.boleto_barcode',
      'transactions.boleto_line',
      'transactions.boleto_ref',
      'transactions.boleto_pix',
      'transactions.paid_with',
      'transactions.provider',
      'transactions.due_date',
      'transactions.expires_at',
      'transactions.client_name',
      'transactions.client_document',
      'transactions.livemode',
      'users.name as merchant_name',
    ])
    .where('transactions.id', '=', id)
    .where('transactions.payment_method', '=', 'BOLETO')
    .executeTakeFirst();
}

export interface CheckoutPageData {
  tx: Transaction;
  merchantName: string;
  redirectUrl: string | null;
  pixelCode: string | null;
  /** Of what is refunded, the part the provider has not confirmed returned yet (a devolução in processing). */
  refundPendingCents: number;
}

/** A transaction for its public payment page (by id), with its merchant's name and its link's redirect. */
export async function findForCheckoutPage(db: Executor, id: string): Promise<CheckoutPageData | null> {
  const row = await db
    .selectFrom('transactions as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('payment_links as l', 'l.id', 't.payment_link_id')
    .selectAll('t')
    .select(['u.name as merchant_name', 'l.redirect_url as link_redirect_url', 'l.meta_pixel_code as link_pixel_code'])
    .where('t.id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const { merchant_name, link_redirect_url, link_pixel_code, ...tx } = row;
  // A refund is returned to the customer once its provider says so (SUCCEEDED); until then it is on
  // its way (one the provider did not make is FAILED and no longer counted as refunded at all).
  const unconfirmed =
    tx.refunded_cents > 0
      ? await db.selectFrom('refunds').select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount_cents'), eb.lit(0)).as('cents')).where('transaction_id', '=', id).where('status', '=', 'PENDING').executeTakeFirstOrThrow()
      : { cents: 0 };
  return { tx: tx as Transaction, merchantName: merchant_name, redirectUrl: link_redirect_url, pixelCode: link_pixel_code, refundPendingCents: Number(unconfirmed.cents) };
}

/** What a payment page polls: the status, and for a boleto whether its bank has given the numbers. */
export async function transactionStatus(db: Executor, id: string) {
  const row = await db.selectFrom('transactions').select(['status', 'payment_method', 'boleto_barcode']).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Transaction');
  return row;
}

/** A PENDING refund of a locked transaction, owed to the connector that made the payment. */
export async function insertRefund(
  trx: Trx,
  r: { id: string; scope: Scope; transaction: Transaction; amountCents: number; feeReturnedCents: number; now: Date; pix: { pixKeyType: string; pixKey: string; payoutProvider: string } | null; items?: number[] },
): Promise<void> {
  await trx
    .insertInto('refunds')
    .values({
      id: r.id,
      user_id: r.scope.userId,
      livemode: r.scope.livemode,
      transaction_id: r.transaction.id,
      amount_cents: r.amountCents,
      fee_returned_cents: r.feeReturnedCents,
      status: 'PENDING',
      provider: r.transaction.provider,
      pix_key_type: r.pix?.pixKeyType ?? null,
      pix_key: r.pix?.pixKey ?? null,
      payout_provider: r.pix?.payoutProvider ?? null,
      items: r.items ? JSON.stringify(r.items) : null,
      created_at: r.now,
      updated_at: r.now,
    })
    .execute();
}

/** A connector's answer on a still-PENDING refund: SUCCEEDED, or PENDING with its reference. */
export async function markRefundAnswered(db: Executor, scope: Scope, refundId: string, status: 'PENDING' | 'SUCCEEDED', providerRef: string): Promise<void> {
  await db.updateTable('refunds').set({ status, provider_ref: providerRef, updated_at: new Date() }).where('user_id', '=', scope.userId).where('id', '=', refundId).where('status', '=', 'PENDING').execute();
}

export async function refundScope(db: Executor, refundId: string): Promise<Scope | null> {
  const row = await db.selectFrom('refunds').select(['user_id', 'livemode']).where('id', '=', refundId).executeTakeFirst();
  return row ? { userId: row.user_id, livemode: row.livemode } : null;
}

/** A still-PENDING refund marked FAILED; undefined when it was settled meanwhile. */
export function failRefund(trx: Trx, scope: Scope, refundId: string, reason: string) {
  return trx.updateTable('refunds').set({ status: 'FAILED', failure_reason: reason, updated_at: new Date() }).where('user_id', '=', scope.userId).where('id', '=', refundId).where('status', '=', 'PENDING').returningAll().executeTakeFirst();
}

/** A locked transaction's refunded amount and status after a refund was undone. */
export function setRefunded(trx: Trx, tx: Transaction, refundedCents: number, status: 'PAID' | 'PARTIALLY_REFUNDED' | 'CHARGEBACK'): Promise<Transaction> {
  return trx
    .updateTable('transactions')
    .set({ refunded_cents: refundedCents, status, ...(refundedCents === 0 ? { refunded_at: null } : {}), updated_at: new Date() })
    .where('user_id', '=', tx.user_id)
    .where('id', '=', tx.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Card charges recorded (card claimed) whose outcome never was, untouched since `before` (the janitor's). */
export function stuckCardCharges(db: Executor, before: Date, limit: number): Promise<Transaction[]> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('status', '=', 'PENDING')
    .where('payment_method', '=', 'CARD')
    .where('card_last4', 'is not', null)
    .where('updated_at', '<', before)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

/** Refunds no connector answered (no reference), untouched since `before`, with what their payment says. */
export function stuckRefunds(db: Executor, before: Date, limit: number) {
  return db
    .selectFrom('refunds as r')
    .innerJoin('transactions as t', 't.id', 'r.transaction_id')
    .select(['r.id', 'r.provider', 'r.amount_cents', 'r.transaction_id', 'r.livemode', 'r.pix_key_type', 'r.pix_key', 'r.payout_provider', 't.payment_method', 't.provider_ref', 't.display_id'])
    .where('r.status', '=', 'PENDING')
    // A Pix refund's outcome is the payout's: followed here until it is settled (its notification goes to the payout's connector).
    .where((eb) => eb.or([eb('r.provider_ref', 'is', null), eb('r.pix_key', 'is not', null)]))
    .where('r.updated_at', '<', before)
    .orderBy('r.updated_at')
    .limit(limit)
    .execute();
}

/** Moves a row to the back of the janitor's queue (asked again after the grace period). */
export async function touch(db: Executor, table: 'transactions' | 'refunds', id: string, now: Date): Promise<void> {
  await db.updateTable(table).set({ updated_at: now }).where('id', '=', id).where('status', '=', 'PENDING').execute();
}

/** Card authorisations past their time, oldest first. */
export function expiredAuthorizations(db: Executor, now: Date, limit: number): Promise<Transaction[]> {
  return db.selectFrom('transactions').selectAll().where('status', '=', 'AUTHORIZED').where('expires_at', '<', now).orderBy('expires_at').limit(limit).execute();
}

/** Card instalments due to settle, locked (another sweep skips them). */
export function lockDueInstalments(trx: Trx, now: Date, limit: number) {
  return trx
    .selectFrom('receivables')
    .select(['id', 'user_id', 'livemode', 'transaction_id', 'installment_number', 'amount_cents'])
    .where('status', '=', 'PENDING')
    .where('settle_at', '<=', now)
    .orderBy('settle_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function markSettled(trx: Trx, receivableId: string, now: Date): Promise<void> {
  await trx.updateTable('receivables').set({ status: 'SETTLED', settled_at: now }).where('id', '=', receivableId).execute();
}

/** Claims a PENDING card payment for a card (brand, last 4) and the connector that will charge it; undefined when one already is. */
export function claimCard(db: Executor, tx: Transaction, card: { brand: string; last4: string; connector: string }, now: Date): Promise<Transaction | undefined> {
  return db
    .updateTable('transactions')
    .set({ card_brand: card.brand, card_last4: card.last4, provider: card.connector, updated_at: now })
    .where('user_id', '=', tx.user_id)
    .where('id', '=', tx.id)
    .where('status', '=', 'PENDING')
    .where('card_last4', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
