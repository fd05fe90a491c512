// Payments: create (PIX, boleto, card), read, list, refund, sandbox simulation, expiry.
import type { Static } from '@sinclair/typebox';
import type { Insertable } from 'kysely';
import type { Config } from '../../config.ts';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { shortCode, uuidv7 } from '../../db/ids.ts';
import type { Transaction, TransactionsTable } from '../../db/types.ts';
import { AppError, badRequest, forbidden, notFound, validation } from '../../http/errors.ts';
import type { Cursors } from '../../http/pagination.ts';
import { requiredText, sanitizeJson, sanitizeText } from '../../http/sanitize.ts';
import type { Scope } from '../../http/scope.ts';
import { assertCallableUrl } from '../../http/ssrf.ts';
import { buildBoleto } from '../../payments/boleto.ts';
import { priceTableInstallments, validateCard } from '../../payments/card.ts';
import { paymentFee } from '../../payments/fees.ts';
import { buildBrCode, newTxid } from '../../payments/pix.ts';
import type { PaymentProvider, Providers } from '../../payments/provider.ts';
import { normalizeDocument, upsertClientByDocument } from '../clients/service.ts';
import { recordEvents } from '../events/service.ts';
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
}

type CreateInput = Static<typeof CreateTransactionBody>;

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

export async function createTransaction(deps: TxDeps, scope: Scope, input: CreateInput): Promise<Transaction> {
  const { config } = deps;
  const now = new Date();
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

  let charged = input.amountCents;
  let installmentCents: number | null = null;
  if (input.paymentMethod === 'CARD') {
    const plan = priceTableInstallments({
      amountCents: input.amountCents,
      installments,
      interestFreeInstallments: config.card.interestFreeInstallments,
      monthlyInterestRatePercent: config.card.monthlyInterestBp / 100,
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

  const created = await inTx(deps.db, async (trx) => {
    const client = await upsertClientByDocument(trx, scope, { name: clientName, email: input.clientEmail, document, phone: input.clientPhone });
    const row = {
      id,
      user_id: scope.userId,
      livemode: scope.livemode,
      product: sanitizeText(input.product) || 'Pagamento',
      amount_cents: input.amountCents,
      charged_cents: charged,
      fee_cents: paymentFee(config.fees, input.paymentMethod, charged),
      status: 'PENDING' as const,
      payment_method: input.paymentMethod,
      client_id: client.id,
      client_name: client.name,
      client_email: client.email,
      client_document: client.document,
      client_phone: input.clientPhone ?? client.phone,
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
      metadata: JSON.stringify(metadata),
      tracking_params: JSON.stringify(input.trackingParams ?? {}),
      postback_url: input.postbackUrl ?? null,
      provider: provider.name,
      created_at: now,
      updated_at: now,
    };
    const tx = await insertWithDisplayId(trx, row);
    await recordEvents(trx, scope, [{ type: 'transaction.created', data: eventData(tx) }]);
    return tx;
  });

  if (!input.card) return created;
  // The card is charged after the PENDING transaction is committed: no database transaction stays
  // open across a provider call. The outcome is then applied like any other status change.
  const result = await provider.chargeCard(input.card, charged, installments);
  const change: Change = result.approved ? { to: 'PAID' } : { to: 'FAILED', reason: result.reason };
  return changeStatus(deps.db, scope, id, change);
}

/** Inserts with a random 10-character display id, drawing again on the rare clash within the merchant. */
async function insertWithDisplayId(trx: Trx, row: Omit<Insertable<TransactionsTable>, 'display_id'>): Promise<Transaction> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const tx = await trx
      .insertInto('transactions')
      .values({ ...row, display_id: shortCode(10) })
      .onConflict((oc) => oc.columns(['user_id', 'display_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (tx) return tx;
  }
  throw new Error('could not allocate a display id');
}

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
  const order = `${q.orderBy}:${q.orderDirection}`;
  const column = ORDER_COLUMNS[q.orderBy];
  const desc = q.orderDirection === 'desc';
  let query = deps.db.selectFrom('transactions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.status) query = query.where('status', '=', q.status);
  const method = q.paymentMethod ?? q.method;
  if (method) query = query.where('payment_method', '=', method);
  if (q.clientId) query = query.where('client_id', '=', q.clientId);
  if (q.createdFrom) query = query.where('created_at', '>=', new Date(q.createdFrom));
  if (q.createdTo) query = query.where('created_at', '<=', new Date(q.createdTo));
  if (q.cursor) {
    const c = deps.cursors.decode(q.cursor, order);
    const value = column === 'created_at' ? new Date(String(c.value)) : c.value;
    if (column === 'created_at' && Number.isNaN((value as Date).getTime())) throw badRequest('INVALID_CURSOR', 'Invalid cursor');
    query = query.where((eb) => eb(eb.refTuple(column, 'id'), desc ? '<' : '>', eb.tuple(value as never, c.id)));
  }
  const rows = await query
    .orderBy(column, desc ? 'desc' : 'asc')
    .orderBy('id', desc ? 'desc' : 'asc')
    .limit(q.limit + 1)
    .execute();
  const hasMore = rows.length > q.limit;
  const page = hasMore ? rows.slice(0, q.limit) : rows;
  const last = page[page.length - 1];
  const lastValue = last ? (column === 'created_at' ? last.created_at.toISOString() : last[column]) : null;
  return {
    rows: page,
    pagination: {
      limit: q.limit,
      cursor: q.cursor ?? null,
      hasMore,
      nextCursor: hasMore && last ? deps.cursors.encode({ order, value: lastValue as string | number, id: last.id }) : null,
    },
  };
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

