// Payments: create (PIX, boleto, card), read, list, refund, sandbox simulation, expiry.
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import { inTx, prepared, type Db, type Executor } from '../../db/index.ts';
import { shortCode, uuidv7 } from '../../db/ids.ts';
import type { PaymentLink, Transaction } from '../../db/types.ts';
import { AppError, badRequest, forbidden, notFound, validation } from '../../http/errors.ts';
import { keysetPage, type Cursors } from '../../http/pagination.ts';
import { requiredText, sanitizeJson, sanitizeText } from '../../http/sanitize.ts';
import { storeKeySql, type RequestKey } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import { assertCallableUrl } from '../../http/ssrf.ts';
import { buildBoleto } from '../../payments/boleto.ts';
import { priceTableInstallments, validateCard } from '../../payments/card.ts';
import { paymentFee } from '../../payments/fees.ts';
import { buildBrCode, newTxid } from '../../payments/pix.ts';
import type { PaymentProvider, Providers } from '../../payments/provider.ts';
import { normalizeDocument, normalizeEmail, upsertClientSql } from '../clients/service.ts';
import { eventWrites } from '../events/service.ts';
import type { FeeSchedule } from '../fees.ts';
import { findOwnLink } from '../payment-links/service.ts';
import { postJournal } from '../ledger/service.ts';
import type { CreateTransactionBody, ListTransactionsQuery } from './schemas.ts';
import { MAX_METADATA_BYTES } from './schemas.ts';
import { applyChange, DAY_MS, lockTransaction, type Change } from './states.ts';
import { eventData } from './view.ts';

export interface TxDeps {
  db: Db;
  config: Config;
  providers: Providers;
  cursors: Cursors;
  fees: FeeSchedule;
}

type CreateInput = Static<typeof CreateTransactionBody>;

/** What the public checkout adds to a creation (the API path sets only paymentLinkId in the body). */
export interface CheckoutExtras {
  /** The payment link being paid (already checked by the checkout: active, in stock, method allowed). */
  link?: PaymentLink;
  couponId?: string;
  discountCents?: number;
  address?: Record<string, string> | null;
  /** Card-testing limits of the public checkout; applied to production charges only. */
  cardGuard?: CardGuard;
}

/** Limits around a card charge made by a customer (checkout/limits.ts). */
export interface CardGuard {
  /** Before anything is written: 429 when the caller may not try a card now; counts the attempt. */
  before(): Promise<void>;
  /** After the provider declined the card. */
  declined(): Promise<void>;
}

/** Brazil has had no daylight saving time since 2019: São Paulo is UTC-3 all year. */
const SP_OFFSET_MS = 3 * 3600_000;
export const spDate = (d: Date) => new Date(d.getTime() - SP_OFFSET_MS).toISOString().slice(0, 10);
const endOfSpDay = (date: string) => new Date(`${date}T23:59:59.999-03:00`);
const MAX_DUE_DAYS = 365;

function providerFor(deps: TxDeps, scope: Scope): PaymentProvider {
  const provider = scope.livemode ? deps.providers.production : deps.providers.sandbox;
  if (!provider) {
    throw new AppError(503, 'Production payments are not available: no payment provider is configured for this gateway (PAYMENT_PROVIDER). Use a development key to test.');
  }
  return provider;
}

/** When a PIX code expires / the boleto's due date, from the optional dueDate field. */
function schedule(input: CreateInput, now: Date, config: Config): { expiresAt: Date | null; dueDate: string | null } {
  const raw = input.dueDate;
  const dateOnly = raw !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(raw);
  if (input.paymentMethod === 'CARD') {
    if (raw !== undefined) throw validation('dueDate', 'is not used for card payments');
    return { expiresAt: null, dueDate: null };
  }
  const latest = now.getTime() + MAX_DUE_DAYS * DAY_MS;
  if (input.paymentMethod === 'PIX') {
    const expiresAt = raw === undefined ? new Date(now.getTime() + config.pix.ttlSeconds * 1000) : dateOnly ? endOfSpDay(raw) : new Date(raw);
    if (expiresAt.getTime() <= now.getTime()) throw validation('dueDate', 'must be in the future');
    if (expiresAt.getTime() > latest) throw validation('dueDate', `must be within ${MAX_DUE_DAYS} days`);
    return { expiresAt, dueDate: null };
  }
  const dueDate = raw === undefined ? spDate(new Date(now.getTime() + config.boleto.defaultDueDays * DAY_MS)) : dateOnly ? raw : spDate(new Date(raw));
  if (dueDate < spDate(now)) throw validation('dueDate', 'must not be in the past');
  if (endOfSpDay(dueDate).getTime() > latest + DAY_MS) throw validation('dueDate', `must be within ${MAX_DUE_DAYS} days`);
  return { expiresAt: endOfSpDay(dueDate), dueDate };
}

/** 25-digit boleto free field ("nosso número") derived from the transaction id's random bits. */
function boletoFreeField(id: string): string {
  return (BigInt('0x' + id.replace(/-/g, '').slice(12)) % 10n ** 25n).toString().padStart(25, '0');
}

/**
 * A creation whose response is stored under its Idempotency-Key by the creation statement itself
 * (see http/idempotency.ts, inline keys): `render` gives the response's JSON text for the row.
 */
export interface StoredCreation {
  key: RequestKey;
  status: number;
  render: (tx: Transaction) => string;
}

export async function createTransaction(deps: TxDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras = {}): Promise<Transaction> {
  return (await create(deps, scope, input, extras, null)) as Transaction;
}

/**
 * Creates the transaction and stores its response under the request's key, both in the creation
 * statement; returns the response text. Not for a card charged at once: its response is known only
 * after the charge. The statement fails with keyTaken(err) if the key is already stored.
 */
export async function createTransactionStored(deps: TxDeps, scope: Scope, input: CreateInput, stored: StoredCreation, extras: CheckoutExtras = {}): Promise<string> {
  if (input.card) throw new Error('a card charge cannot store its response in the creation statement');
  return (await create(deps, scope, input, extras, stored)) as string;
}

/** The transaction created (and charged, with a card); with `stored`, the response text instead. */
async function create(deps: TxDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras, stored: StoredCreation | null): Promise<Transaction | string> {
  const { config } = deps;
  const now = new Date();
  let link = extras.link ?? null;
  if (!link && input.paymentLinkId) {
    link = await findOwnLink(deps.db, scope, input.paymentLinkId);
    if (!link) throw validation('paymentLinkId', 'is not a payment link of this merchant and environment');
  }
  // Nothing is reserved here: the guarded decrement at PAID decides (see checkout/sale.ts).
  if (link?.stock_enabled && (link.stock_quantity ?? 0) <= 0) {
    throw badRequest('INSUFFICIENT_STOCK', 'This payment link is sold out', [{ field: 'paymentLinkId', message: 'no stock left' }]);
  }
  if (link && input.installments !== undefined && input.installments > link.settings.maxInstallments) {
    throw validation('installments', `this payment link allows at most ${link.settings.maxInstallments} instalments`);
  }
  const document = normalizeDocument(input.clientDocument, 'clientDocument');
  const clientName = requiredText(input.clientName, 'clientName');
  const installments = input.installments ?? 1;
  if (input.paymentMethod !== 'CARD') {
    if (input.installments !== undefined && input.installments !== 1) throw validation('installments', 'only card payments take installments');
    if (input.card) throw validation('card', 'is only for paymentMethod CARD');
  }
  let card: { brand: string; last4: string } | null = null;
  if (input.card) {
    const checked = validateCard(input.card, now);
    if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
    card = { brand: checked.brand, last4: checked.last4 };
  }
  const metadata = sanitizeJson(input.metadata ?? {}) as Record<string, unknown>;
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) throw validation('metadata', `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  const { expiresAt, dueDate } = schedule(input, now, config);
  if (input.postbackUrl) await assertCallableUrl(input.postbackUrl, 'postbackUrl', { allowPrivate: config.webhooks.allowPrivateTargets });
  const provider = providerFor(deps, scope);
  const fees = await deps.fees.of(scope.userId);
  const guard = input.card && scope.livemode ? extras.cardGuard : undefined;
  await guard?.before();

  let charged = input.amountCents;
  let installmentCents: number | null = null;
  if (input.paymentMethod === 'CARD') {
    // A link's settings replace the gateway's interest terms; a single payment never carries interest.
    const plan = priceTableInstallments({
      amountCents: input.amountCents,
      installments,
      interestFreeInstallments: link ? Math.max(1, link.settings.interestFreeInstallments) : config.card.interestFreeInstallments,
      monthlyInterestRatePercent: link ? link.settings.interestRate : config.card.monthlyInterestBp / 100,
    });
    charged = plan.totalCents;
    installmentCents = plan.installmentCents;
  }

  const id = uuidv7(now.getTime());
  let pix: { txid: string; code: string } | null = null;
  if (input.paymentMethod === 'PIX') {
    const txid = newTxid();
    pix = { txid, code: buildBrCode({ pixKey: config.pix.key, merchantName: config.pix.merchantName, merchantCity: config.pix.merchantCity, amountCents: charged, txid }) };
  }
  const boleto = input.paymentMethod === 'BOLETO' ? buildBoleto({ bankCode: config.boleto.bankCode, dueDate: dueDate!, amountCents: charged, freeField: boletoFreeField(id) }) : null;

  // The row as it will be stored; only the client's id (and its stored phone, when none is given)
  // comes from the client upsert of the same statement. Text as PostgreSQL will hold it (UTF-8: a
  // lone surrogate becomes U+FFFD), JSON with jsonb's key order: what RETURNING gives back.
  const clientId = uuidv7(now.getTime());
  const draft: Transaction = {
    id,
    user_id: scope.userId,
    livemode: scope.livemode,
    display_id: '',
    product: (sanitizeText(input.product) || 'Pagamento').toWellFormed(),
    amount_cents: input.amountCents,
    charged_cents: charged,
    fee_cents: paymentFee(fees, input.paymentMethod, charged),
    refunded_cents: 0,
    status: 'PENDING',
    payment_method: input.paymentMethod,
    client_id: clientId,
    client_name: clientName.toWellFormed(),
    client_email: normalizeEmail(input.clientEmail).toWellFormed(),
    client_document: document,
    client_phone: input.clientPhone ?? null,
    installments,
    installment_cents: installmentCents,
    card_brand: card?.brand ?? null,
    card_last4: card?.last4 ?? null,
    pix_txid: pix?.txid ?? null,
    pix_qr_code: pix?.code ?? null,
    boleto_barcode: boleto?.barcode ?? null,
    boleto_line: boleto?.digitableLine ?? null,
    due_date: dueDate,
    expires_at: expiresAt,
    payment_link_id: link?.id ?? null,
    coupon_id: extras.couponId ?? null,
    discount_cents: extras.discountCents ?? 0,
    address: extras.address ?? null,
    metadata: jsonbOrdered(metadata) as Record<string, unknown>,
    tracking_params: jsonbOrdered(input.trackingParams ?? {}) as Record<string, string>,
    postback_url: input.postbackUrl ?? null,
    provider: provider.name,
    failure_reason: null,
    paid_at: null,
    failed_at: null,
    expired_at: null,
    refunded_at: null,
    created_at: now,
    updated_at: now,
  };
  const created = await insertCreation(deps.db, scope, draft, link, stored);

  if (typeof created === 'string' || !input.card) return created;
  // The card is charged after the PENDING transaction is committed: no database transaction stays
  // open across a provider call. The outcome is then applied like any other status change.
  const result = await provider.chargeCard(input.card, charged, installments);
  const change: Change = result.approved ? { to: 'PAID' } : { to: 'FAILED', reason: result.reason };
  const outcome = await changeStatus(deps.db, scope, id, change);
  if (!result.approved) await guard?.declined();
  return outcome;
}

/**
 * Pays a PENDING card transaction created without card data (its hosted page, `paymentUrl`). The
 * card is claimed on the row first (brand + last4 written where none is), so two submissions can
 * never charge twice; the outcome then goes through the same transition as any other payment.
 */
export async function payPendingCard(deps: TxDeps, id: string, card: NonNullable<CreateInput['card']>, cardGuard?: CardGuard): Promise<Transaction> {
  const now = new Date();
  const tx = await deps.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!tx) throw notFound('Transaction');
  const notPayable = () => badRequest('INVALID_STATE_TRANSITION', 'This payment cannot be paid by card now', [{ field: 'status', message: 'only a PENDING card payment without a card yet can be paid here' }]);
  if (tx.payment_method !== 'CARD' || tx.status !== 'PENDING' || tx.card_last4) throw notPayable();
  const checked = validateCard(card, now);
  if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  const provider = providerFor(deps, scope);
  const guard = tx.livemode ? cardGuard : undefined;
  await guard?.before();
  const claimed = await deps.db
    .updateTable('transactions')
    .set({ card_brand: checked.brand, card_last4: checked.last4, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where('card_last4', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!claimed) throw notPayable();
  const result = await provider.chargeCard(card, tx.charged_cents, tx.installments);
  const paid = await changeStatus(deps.db, scope, id, result.approved ? { to: 'PAID' } : { to: 'FAILED', reason: result.reason });
  if (!result.approved) await guard?.declined();
  return paid;
}

/**
 * Creation in ONE statement, so one round trip and no BEGIN/COMMIT (a statement is atomic): the
 * client upsert, the transaction, its transaction.created event with the event's webhook
 * deliveries (see recordEvents), and the payment link's use count, as data-modifying CTEs.
 * The display id is a random 10 characters; on the rare clash within the merchant the whole
 * statement fails and is run again with another one.
 */
async function insertCreation(db: Db, scope: Scope, draft: Transaction, link: PaymentLink | null, stored: StoredCreation | null): Promise<Transaction | string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = { ...draft, display_id: shortCode(10) };
    try {
      return await runCreation(db, scope, row, link, stored);
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'transactions_user_display') continue;
      throw err;
    }
  }
  throw new Error('could not allocate a display id');
}

async function runCreation(db: Db, scope: Scope, r: Transaction, link: PaymentLink | null, stored: StoredCreation | null): Promise<Transaction | string> {
  // Its text depends only on the case (with or without a link, a postback URL, a stored
  // response): a prepared statement on PostgreSQL, one per case (see prepared()).
  const query = creationStatement(scope, r, link, stored).compile(db);
  prepared('tx_create', query.sql);
  const { rows } = await db.executeQuery(query);
  if (stored) return (rows[0] as unknown as { response: string }).response;
  const { fanout: _, ...tx } = rows[0];
  return tx;
}

/**
 * The creation statement for one row (its display id drawn); exported for the benchmark's SQL
 * floor. With `stored`, it also inserts the request's idempotency key with the response rendered
 * from the row, and selects that response instead of the row.
 */
export function creationStatement(scope: Scope, r: Transaction, link: PaymentLink | null, stored: StoredCreation | null = null) {
  const at = r.created_at.toISOString();
  // The payload is eventData of the row as stored; the client's id is put in by the statement
  // (`client_id` holds the id the upsert inserts with, a fresh random UUID found nowhere else).
  const data = JSON.stringify(eventData(r));
  const events = eventWrites(
    scope,
    { postbackUrls: r.postback_url !== null, postbackLookups: false },
    sql`SELECT ${uuidv7(r.created_at.getTime())}::uuid, 'transaction.created'::text, replace(${data}::text, ${r.client_id}::text, t.client_id::text)::json,
      ${r.created_at}::timestamptz, ${at}::text, t.postback_url, NULL::uuid FROM t`,
  );
  const linkUse = link
    ? sql`,
    link_use AS (UPDATE payment_links SET times_used = times_used + 1 WHERE user_id = ${scope.userId}::uuid AND id = ${link.id}::uuid AND EXISTS (SELECT 1 FROM t))`
    : sql``;
  // The response is rendered before the statement runs; the two values only the client upsert
  // knows are put in by it, as in the event: the client's id (`client_id`, see above) and its phone
  // (rendered as a fresh random mark, replaced by the stored phone as JSON: digits, spaces,
  // + ( ) -, nothing JSON escapes).
  const phoneMark = stored && uuidv7();
  const respond = stored
    ? sql`,
    idem AS (${storeKeySql(
      stored.key,
      stored.status,
      sql`replace(replace(${stored.render({ ...r, client_phone: phoneMark })}::text, ${r.client_id}::text, t.client_id::text),
        ${`"${phoneMark}"`}::text, COALESCE(to_json(t.client_phone)::text, 'null'))`,
      sql`t`,
    )})`
    : sql``;
  return sql<Transaction & { fanout: unknown }>`
    WITH c AS (${upsertClientSql(scope, r.client_id, r.created_at, { name: r.client_name, email: r.client_email, document: r.client_document, phone: r.client_phone })}),
    t AS (
      INSERT INTO transactions (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status, payment_method,
        client_id, client_name, client_email, client_document, client_phone, installments, installment_cents, card_brand, card_last4,
        pix_txid, pix_qr_code, boleto_barcode, boleto_line, due_date, expires_at, metadata, tracking_params, postback_url, provider,
        payment_link_id, coupon_id, discount_cents, address, created_at, updated_at)
      SELECT ${r.id}::uuid, ${r.user_id}::uuid, ${r.livemode}::boolean, ${r.display_id}::text, ${r.product}::text, ${r.amount_cents}::bigint,
        ${r.charged_cents}::bigint, ${r.fee_cents}::bigint, ${r.status}::text, ${r.payment_method}::text,
        c.id, c.name, c.email, c.document, COALESCE(${r.client_phone}::text, c.phone), ${r.installments}::integer, ${r.installment_cents}::bigint,
        ${r.card_brand}::text, ${r.card_last4}::text, ${r.pix_txid}::text, ${r.pix_qr_code}::text, ${r.boleto_barcode}::text, ${r.boleto_line}::text,
        ${r.due_date}::date, ${r.expires_at}::timestamptz, ${JSON.stringify(r.metadata)}::jsonb, ${JSON.stringify(r.tracking_params)}::jsonb,
        ${r.postback_url}::text, ${r.provider}::text, ${r.payment_link_id}::uuid, ${r.coupon_id}::uuid, ${r.discount_cents}::bigint,
        ${r.address === null ? null : JSON.stringify(r.address)}::jsonb, ${r.created_at}::timestamptz, ${r.updated_at}::timestamptz
      FROM c
      RETURNING *
    ),
    ${events.ctes}${linkUse}${respond}
    SELECT ${stored ? sql`(SELECT response_body FROM idem) AS response` : sql`t.*`}, ${events.result} AS fanout FROM t`;
}

/**
 * A JSON value with its object keys in jsonb's order (shorter first, then bytewise in UTF-8),
 * i.e. as PostgreSQL gives a jsonb value back; values are unchanged.
 */
function jsonbOrdered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrdered);
  if (!value || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort(jsonbKeyOrder);
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = jsonbOrdered((value as Record<string, unknown>)[k]);
  return out;
}
const jsonbKeyOrder = (a: string, b: string) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Locks the transaction and applies one status change (state machine, ledger, events). */
export function changeStatus(db: Executor, scope: Scope, id: string, change: Change): Promise<Transaction> {
  return inTx(db, async (trx) => {
    const tx = await lockTransaction(trx, scope, id);
    if (!tx) throw notFound('Transaction');
    return applyChange(trx, tx, change);
  });
}

export async function getTransaction(db: Executor, scope: Scope, id: string): Promise<Transaction> {
  const tx = await db.selectFrom('transactions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).executeTakeFirst();
  if (!tx) throw notFound('Transaction');
  return tx;
}

export async function refundTransaction(db: Db, scope: Scope, id: string, amountCents: number | undefined): Promise<Transaction> {
  return inTx(db, async (trx) => {
    const tx = await lockTransaction(trx, scope, id);
    if (!tx) throw notFound('Transaction');
    if (tx.status !== 'PAID' && tx.status !== 'PARTIALLY_REFUNDED') {
      throw badRequest('INVALID_STATE_TRANSITION', `A ${tx.status} transaction cannot be refunded`, [{ field: 'status', message: 'only PAID or PARTIALLY_REFUNDED transactions can be refunded' }]);
    }
    const refundable = tx.charged_cents - tx.refunded_cents;
    const amount = amountCents ?? refundable;
    if (amount > refundable) {
      throw badRequest('REFUND_EXCEEDS_PAID', 'Refund exceeds what is left to refund', [{ field: 'amountCents', message: `at most ${refundable} cents can still be refunded` }]);
    }
    return applyChange(trx, tx, { to: amount === refundable ? 'REFUNDED' : 'PARTIALLY_REFUNDED', amountCents: amount });
  });
}

export async function simulate(db: Db, scope: Scope, id: string, outcome: 'PAID' | 'FAILED' | 'EXPIRED'): Promise<Transaction> {
  if (scope.livemode) throw forbidden('Simulation is only available with development (test) keys');
  const change: Change = outcome === 'FAILED' ? { to: 'FAILED', reason: 'SIMULATED_FAILURE' } : { to: outcome };
  return changeStatus(db, scope, id, change);
}

const ORDER_COLUMNS = { createdAt: 'created_at', amountCents: 'amount_cents', status: 'status' } as const;

export async function listTransactions(deps: TxDeps, scope: Scope, q: Static<typeof ListTransactionsQuery>) {
  const column = ORDER_COLUMNS[q.orderBy];
  let query = deps.db.selectFrom('transactions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.status) query = query.where('status', '=', q.status);
  const method = q.paymentMethod ?? q.method;
  if (method) query = query.where('payment_method', '=', method);
  if (q.clientId) query = query.where('client_id', '=', q.clientId);
  if (q.createdFrom) query = query.where('created_at', '>=', new Date(q.createdFrom));
  if (q.createdTo) query = query.where('created_at', '<=', new Date(q.createdTo));
  return keysetPage(deps.cursors, query, {
    by: q.orderBy,
    column,
    direction: q.orderDirection,
    limit: q.limit,
    cursor: q.cursor,
    value: (row) => row[column],
    timestamp: column === 'created_at',
  });
}

/** Expires PENDING PIX and boleto transactions whose expiresAt has passed. Safe with many workers. */
export async function expireDue(db: Db, now = new Date(), batch = 100): Promise<number> {
  return inTx(db, async (trx) => {
    const due = await trx
      .selectFrom('transactions')
      .selectAll()
      .where('status', '=', 'PENDING')
      .where('expires_at', '<', now)
      .orderBy('expires_at')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .execute();
    for (const tx of due) await applyChange(trx, tx, { to: 'EXPIRED' }, now);
    return due.length;
  });
}

/** Moves card instalments whose settlement date has come from receivable to available. */
export async function settleDue(db: Db, now = new Date(), batch = 100): Promise<number> {
  return inTx(db, async (trx) => {
    const due = await trx
      .selectFrom('receivables')
      .select(['id', 'user_id', 'livemode', 'transaction_id', 'installment_number', 'amount_cents'])
      .where('status', '=', 'PENDING')
      .where('settle_at', '<=', now)
      .orderBy('settle_at')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .execute();
    // Post merchant by merchant in one global order (not in due order): each journal locks that
    // merchant's accounts until commit, so two sweeps whose batches hold the same merchants in
    // opposite due order would otherwise deadlock. The sort is stable: due order within a merchant.
    const merchantKey = (r: (typeof due)[number]) => `${r.user_id}:${r.livemode ? 1 : 0}`;
    due.sort((a, b) => (merchantKey(a) < merchantKey(b) ? -1 : merchantKey(a) > merchantKey(b) ? 1 : 0));
    for (const r of due) {
      await trx.updateTable('receivables').set({ status: 'SETTLED', settled_at: now }).where('id', '=', r.id).execute();
      await postJournal(
        trx,
        { userId: r.user_id, livemode: r.livemode },
        {
          kind: 'settlement',
          referenceType: 'transaction',
          referenceId: r.transaction_id,
          description: `Card instalment ${r.installment_number} settled`,
          postings: [
            { account: 'receivable', amount: -r.amount_cents },
            { account: 'available', amount: r.amount_cents },
          ],
        },
      );
    }
    return due.length;
  });
}

/** Deletes idempotency records past their 24 h life. */
export async function purgeIdempotencyKeys(db: Db, now = new Date()): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).executeTakeFirst();
  return Number(res.numDeletedRows);
}

