// The transactions table's SQL: locks and lookups, the lists, and the public pages' reads (QR
// image, boleto, checkout status); the creation statement is in creation.ts. No rules here:
// service.ts decides.
import type { Static } from '@sinclair/typebox';
import { sql, type RawBuilder } from 'kysely';
import { prepared, type Db, type Executor, type Trx } from '../../db/index.ts';
import { shortCode, uuidv7 } from '../../db/ids.ts';
import type { PaymentLink, Transaction } from '../../db/types.ts';
import { notFound } from '../../http/errors.ts';
import { createdAtPage, keysetPage, type Cursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import { upsertClientSql } from '../clients/service.ts';
import type { EventLog } from '../events/service.ts';
import type { ListTransactionsQuery } from './schemas.ts';
import { eventData } from './view.ts';

/** Locks a transaction row of this tenant for a status change. */
export function lockTransaction(trx: Trx, scope: Scope, id: string) {
  return trx
    .selectFrom('transactions')
    .selectAll()
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function getTransaction(db: Executor, scope: Scope, id: string): Promise<Transaction> {
  const tx = await db.selectFrom('transactions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).executeTakeFirst();
  if (!tx) throw notFound('Transaction');
  return tx;
}

/** The refunds of a transaction of this scope, oldest first. */
export function refundsOf(db: Executor, scope: Scope, transactionId: string) {
  return db
    .selectFrom('refunds')
    .select(['id', 'amount_cents', 'status', 'failure_reason', 'created_at', 'updated_at'])
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

/** A boleto transaction with its merchant's name, for the printable page. */
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
      'transactions.due_date',
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

export async function transactionStatus(db: Executor, id: string) {
  const row = await db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Transaction');
  return row;
}
