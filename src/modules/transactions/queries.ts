// The transactions table's SQL: the one-statement creation, locks and lookups, the lists, and the
// public pages' reads (QR image, boleto, checkout status). No rules here: service.ts decides.
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

/**
 * SQL another layer adds to the creation statement (the Idempotency-Key with its response, see
 * http/idempotency.ts): a CTE body made from the row as it will be stored, which reads the
 * inserted transaction as `t` and returns one text column; the statement returns that text.
 */
export type Attachment = (row: Transaction) => RawBuilder<unknown>;

/**
 * Text rendered from the row before the statement runs, with the two values only the client upsert
 * knows put in by the statement: the client's id (`client_id` of the row holds the id the upsert
 * inserts with, a fresh random UUID found nowhere else) and its phone (rendered as a fresh random
 * mark, replaced by the stored phone as JSON: digits, spaces, + ( ) -, nothing JSON escapes).
 */
export function renderedByStatement(row: Transaction, render: (row: Transaction) => string): RawBuilder<string> {
  const phoneMark = uuidv7();
  return sql<string>`replace(replace(${render({ ...row, client_phone: phoneMark })}::text, ${row.client_id}::text, t.client_id::text),
        ${`"${phoneMark}"`}::text, COALESCE(to_json(t.client_phone)::text, 'null'))`;
}

/**
 * Creation in ONE statement, so one round trip and no BEGIN/COMMIT (a statement is atomic): the
 * client upsert, the transaction, its transaction.created event with the event's fan-out (see
 * EventLog), the payment link's use count, and the attachment, as data-modifying CTEs. The display
 * id is a random 10 characters; on the rare clash within the merchant the whole statement fails and
 * is run again with another one. Returns the stored row, or with an attachment only its text (the
 * caller answers with that text: the row is not sent back).
 */
export async function insertCreation(db: Db, events: EventLog, draft: Transaction, link: PaymentLink | null): Promise<Transaction> {
  const { fanout: _, attached: __, ...tx } = await runCreation(db, events, draft, link, null);
  return tx;
}

export async function insertCreationWith(db: Db, events: EventLog, draft: Transaction, link: PaymentLink | null, attach: Attachment): Promise<string> {
  return (await runCreation(db, events, draft, link, attach)).attached!;
}

async function runCreation(db: Db, events: EventLog, draft: Transaction, link: PaymentLink | null, attach: Attachment | null) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = { ...draft, display_id: shortCode(10) };
    try {
      // Its text depends only on the case (with or without a link, a postback URL, an attachment):
      // a prepared statement on PostgreSQL, one per case (see prepared()).
      const query = creationStatement(events, row, link, attach).compile(db);
      prepared('tx_create', query.sql);
      const { rows } = await db.executeQuery(query);
      return rows[0];
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'transactions_user_display') continue;
      throw err;
    }
  }
  throw new Error('could not allocate a display id');
}

/** The creation statement for one row (its display id drawn); exported for the benchmark's SQL floor. */
export function creationStatement(events: EventLog, r: Transaction, link: PaymentLink | null, attach: Attachment | null = null) {
  const scope: Scope = { userId: r.user_id, livemode: r.livemode };
  const at = r.created_at.toISOString();
  // The payload is eventData of the row as stored; the client's id is put in by the statement.
  const data = JSON.stringify(eventData(r));
  const ev = events.writes(
    scope,
    { postbackUrls: r.postback_url !== null, postbackLookups: false },
    sql`SELECT ${uuidv7(r.created_at.getTime())}::uuid, 'transaction.created'::text, replace(${data}::text, ${r.client_id}::text, t.client_id::text)::json,
      ${r.created_at}::timestamptz, ${at}::text, t.postback_url, NULL::uuid FROM t`,
  );
  const linkUse = link
    ? sql`,
    link_use AS (UPDATE payment_links SET times_used = times_used + 1 WHERE user_id = ${scope.userId}::uuid AND id = ${link.id}::uuid AND EXISTS (SELECT 1 FROM t))`
    : sql``;
  const attached = attach
    ? sql`,
    attached AS (${attach(r)})`
    : sql``;
  return sql<Transaction & { fanout: unknown; attached?: string }>`
    WITH c AS (${upsertClientSql(scope, r.client_id, r.created_at, { name: r.client_name, email: r.client_email, document: r.client_document, phone: r.client_phone })}),
    t AS (
      INSERT INTO transactions (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status, payment_method,
        client_id, client_name, client_email, client_document, client_phone, installments, installment_cents, card_brand, card_last4,
        pix_txid, pix_qr_code, boleto_barcode, boleto_line, due_date, expires_at, metadata, tracking_params, postback_url, provider,
        payment_link_id, coupon_id, discount_cents, affiliate_link_id, address, subscription_id, subscription_cycle_id, created_at, updated_at)
      SELECT ${r.id}::uuid, ${r.user_id}::uuid, ${r.livemode}::boolean, ${r.display_id}::text, ${r.product}::text, ${r.amount_cents}::bigint,
        ${r.charged_cents}::bigint, ${r.fee_cents}::bigint, ${r.status}::text, ${r.payment_method}::text,
        c.id, c.name, c.email, c.document, COALESCE(${r.client_phone}::text, c.phone), ${r.installments}::integer, ${r.installment_cents}::bigint,
        ${r.card_brand}::text, ${r.card_last4}::text, ${r.pix_txid}::text, ${r.pix_qr_code}::text, ${r.boleto_barcode}::text, ${r.boleto_line}::text,
        ${r.due_date}::date, ${r.expires_at}::timestamptz, ${JSON.stringify(r.metadata)}::jsonb, ${JSON.stringify(r.tracking_params)}::jsonb,
        ${r.postback_url}::text, ${r.provider}::text, ${r.payment_link_id}::uuid, ${r.coupon_id}::uuid, ${r.discount_cents}::bigint, ${r.affiliate_link_id}::uuid,
        ${r.address === null ? null : JSON.stringify(r.address)}::jsonb, ${r.subscription_id}::uuid, ${r.subscription_cycle_id}::uuid, ${r.created_at}::timestamptz, ${r.updated_at}::timestamptz
      FROM c
      RETURNING *
    ),
    ${ev.ctes}${linkUse}${attached}
    SELECT ${attach ? sql`(SELECT * FROM attached) AS attached` : sql`t.*`}, ${ev.result} AS fanout FROM t`;
}

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
  if (column === 'created_at') return createdAtPage(cursors, query, q);
  return keysetPage(cursors, query, { by: q.orderBy, column, direction: q.orderDirection, limit: q.limit, cursor: q.cursor, value: (row) => row[column] });
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
  return { tx: tx as Transaction, merchantName: merchant_name, redirectUrl: link_redirect_url, pixelCode: link_pixel_code };
}

export async function transactionStatus(db: Executor, id: string) {
  const row = await db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Transaction');
  return row;
}
