// Payments: the orchestration of creating (PIX, boleto, card), charging, refunding, applying what a
// provider reports, expiring and settling. Rules that need no I/O are in draft.ts and states.ts, the
// SQL in queries.ts; this file decides the order of things and never sees HTTP.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import { inTx, type Db } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { PaymentLink, Transaction } from '../../db/types.ts';
import { AppError, badRequest, forbidden, notFound, validation } from '../../http/errors.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import { assertCallableUrl } from '../../http/ssrf.ts';
import type { CardInput } from '../../payments/card.ts';
import { validateCard } from '../../payments/card.ts';
import type { CardResult, PaymentProvider, ProviderEvent, Providers } from '../../payments/provider.ts';
import type { FeeSchedule } from '../fees/schedule.ts';
import { findOwnLink } from '../payment-links/service.ts';
import { buildDraft, checkInput, type CheckoutExtras, type CreateInput } from './draft.ts';
import { findTransaction, getTransaction, insertCreation, lockExpired, lockTransaction, type Attachment } from './queries.ts';
import { applyChange, type Change, type StateDeps } from './states.ts';

export type { CheckoutExtras, CreateInput } from './draft.ts';

/** What payments need (built once by deps.ts). */
export interface TransactionDeps extends StateDeps {
  db: Db;
  config: Config;
  providers: Providers;
  cursors: Cursors;
  fees: FeeSchedule;
  log: FastifyBaseLogger;
}

/** Limits around a card charge made by a customer (checkout/limits.ts). */
export interface CardGuard {
  /** Before anything is written: 429 when the caller may not try a card now; counts the attempt. */
  before(): Promise<void>;
  /** After the provider declined the card. */
  declined(): Promise<void>;
}

export interface CreateOptions {
  /** Card-testing limits of the public checkout; applied to production charges only. */
  cardGuard?: CardGuard;
  /**
   * Called once the transaction is recorded and before a card is charged: the caller binds its
   * Idempotency-Key to it, so that no retry can make a second transaction (and a second charge).
   */
  recorded?: (tx: Transaction) => Promise<void>;
}

/** The provider that takes this environment's payments (503 when production has none). */
export function providerFor(deps: TransactionDeps, livemode: boolean): PaymentProvider {
  const provider = livemode ? deps.providers.production : deps.providers.sandbox;
  if (!provider) {
    throw new AppError(503, 'Production payments are not available: no payment provider is configured for this gateway (PAYMENT_PROVIDER). Use a development key to test.');
  }
  return provider;
}

/** Creates the transaction (and charges the card, when one is given); returns it as stored. */
export async function createTransaction(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras = {}, opts: CreateOptions = {}): Promise<Transaction> {
  const { tx, provider, card } = await create(deps, scope, input, extras, opts.cardGuard, null);
  if (!card) return tx;
  await opts.recorded?.(tx);
  return charge(deps, tx, provider, card, opts.cardGuard);
}

/**
 * Creates the transaction with `attach` written by the creation statement itself (the Idempotency-Key
 * with its response); returns the attachment's text. Not for a card charged at once: what it answers
 * is known only after the charge.
 */
export async function createTransactionWith(deps: TransactionDeps, scope: Scope, input: CreateInput, attach: Attachment): Promise<string> {
  if (input.card) throw new Error('a card charge cannot be answered by its creation statement');
  const { attached } = await create(deps, scope, input, {}, undefined, attach);
  return attached!;
}

async function create(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras, cardGuard: CardGuard | undefined, attach: Attachment | null) {
  const { config } = deps;
  const now = new Date();
  let link: PaymentLink | null = extras.link ?? null;
  if (!link && input.paymentLinkId) {
    link = await findOwnLink(deps.db, scope, input.paymentLinkId);
    if (!link) throw validation('paymentLinkId', 'is not a payment link of this merchant and environment');
  }
  // Nothing is reserved here: the guarded decrement at PAID decides (see payment-links/sale.ts).
  if (link?.stock_enabled && (link.stock_quantity ?? 0) <= 0) {
    throw badRequest('INSUFFICIENT_STOCK', 'This payment link is sold out', [{ field: 'paymentLinkId', message: 'no stock left' }]);
  }
  const checked = checkInput(input, link, config, now);
  if (input.postbackUrl) await assertCallableUrl(input.postbackUrl, 'postbackUrl', { allowPrivate: config.webhooks.allowPrivateTargets });
  const provider = providerFor(deps, scope.livemode);
  const fees = await deps.fees.of(scope.userId);
  const guard = input.card && scope.livemode ? cardGuard : undefined;
  await guard?.before();

  const id = uuidv7(now.getTime());
  const payer = { name: checked.clientName, email: checked.clientEmail, document: checked.document };
  const pix = input.paymentMethod === 'PIX' ? await provider.createPix({ transactionId: id, amountCents: checked.chargedCents, expiresAt: checked.expiresAt!, payer, description: checked.product }) : null;
  const boleto = input.paymentMethod === 'BOLETO' ? await provider.createBoleto({ transactionId: id, amountCents: checked.chargedCents, dueDate: checked.dueDate!, payer }) : null;
  const draft = buildDraft({ id, scope, input, checked, fees, provider: provider.name, pix, boleto, extras: { ...extras, link: link ?? undefined }, now });
  const { tx, attached } = await insertCreation(deps.db, deps.events, draft, link, attach);
  return { tx, attached, provider, card: input.card ?? null };
}

/**
 * Charges a recorded PENDING card transaction, with the transaction id as the provider's reference
 * (it never charges one reference twice), and applies the outcome. No database transaction stays
 * open across the provider call. When recording the outcome fails after the provider answered, the
 * transaction is answered as it is stored (PENDING, its card claimed): it can never be charged
 * again, by a retry of the request or otherwise, and the failure is logged for reconciliation.
 */
function charge(deps: TransactionDeps, tx: Transaction, provider: PaymentProvider, card: CardInput, guard: CardGuard | undefined): Promise<Transaction> {
  return recordCharge(deps, tx, () => provider.chargeCard({ reference: tx.id, card, amountCents: tx.charged_cents, installments: tx.installments }), guard);
}

/** The provider call of a recorded charge, then its outcome applied (see charge). */
async function recordCharge(deps: TransactionDeps, tx: Transaction, call: () => Promise<CardResult>, guard: CardGuard | undefined): Promise<Transaction> {
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  let result: CardResult;
  try {
    result = await call();
  } catch (err) {
    deps.log.error({ err, transactionId: tx.id }, 'card charge: no answer from the provider; the transaction stays PENDING until it reports the outcome');
    return tx;
  }
  if (!result.approved && tx.livemode) await guard?.declined();
  const change: Change = result.approved ? { to: 'PAID' } : { to: 'FAILED', reason: result.reason };
  try {
    return await changeStatus(deps, scope, tx.id, change, result.approved ? result.reference : null);
  } catch (err) {
    deps.log.error({ err, transactionId: tx.id, outcome: change.to }, 'card charge: the outcome could not be recorded; answering the stored state');
    return (await findTransaction(deps.db, tx.id).catch(() => undefined)) ?? tx;
  }
}

/**
 * Creates a card transaction and charges a card the provider keeps (a subscription's token):
 * recorded first with the card's brand and last 4 claimed, charged with the transaction id as the
 * reference, exactly as a card given at creation (see charge).
 */
export async function chargeStoredCard(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras & { storedCard: NonNullable<CheckoutExtras['storedCard']> }, token: string): Promise<Transaction> {
  if (input.paymentMethod !== 'CARD' || input.card) throw new Error('a stored-card charge is a CARD payment without card data');
  const { tx, provider } = await create(deps, scope, input, extras, undefined, null);
  if (!provider.chargeToken) throw new AppError(503, `The payment provider (${provider.name}) does not keep cards: card subscriptions are not available`);
  return recordCharge(deps, tx, () => provider.chargeToken!({ reference: tx.id, token, amountCents: tx.charged_cents }), undefined);
}

/**
 * Pays a PENDING card transaction created without card data (its hosted page, `paymentUrl`). The
 * card is claimed on the row first (brand + last4 written where none is), so two submissions can
 * never charge twice; the charge then goes the same way as a card given at creation.
 */
export async function payPendingCard(deps: TransactionDeps, id: string, card: CardInput, cardGuard?: CardGuard): Promise<Transaction> {
  const now = new Date();
  const tx = await findTransaction(deps.db, id);
  if (!tx) throw notFound('Transaction');
  const notPayable = () => badRequest('INVALID_STATE_TRANSITION', 'This payment cannot be paid by card now', [{ field: 'status', message: 'only a PENDING card payment without a card yet can be paid here' }]);
  if (tx.payment_method !== 'CARD' || tx.status !== 'PENDING' || tx.card_last4) throw notPayable();
  const checked = validateCard(card, now);
  if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
  const provider = providerFor(deps, tx.livemode);
  const guard = tx.livemode ? cardGuard : undefined;
  await guard?.before();
  const claimed = await deps.db
    .updateTable('transactions')
    .set({ card_brand: checked.brand, card_last4: checked.last4, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where('card_last4', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!claimed) throw notPayable();
  return charge(deps, claimed, provider, card, guard);
}

/** Locks the transaction and applies one status change (state machine, hooks, ledger, events). */
export function changeStatus(deps: TransactionDeps, scope: Scope, id: string, change: Change, providerRef: string | null = null): Promise<Transaction> {
  return inTx(deps.db, async (trx) => {
    const tx = await lockTransaction(trx, scope, id);
    if (!tx) throw notFound('Transaction');
    const applied = await applyChange(deps, trx, tx, change);
    if (providerRef === null) return applied;
    return trx.updateTable('transactions').set({ provider_ref: providerRef }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });
}

/**
 * Applies what a provider reported (a notification, a poll, a sandbox simulation) to transactions
 * of this scope. An event for a transaction the provider does not hold is refused.
 */
export async function applyProviderEvents(deps: TransactionDeps, scope: Scope, provider: PaymentProvider, events: ProviderEvent[]): Promise<Transaction[]> {
  const out: Transaction[] = [];
  for (const e of events) {
    const change: Change = e.outcome === 'FAILED' ? { to: 'FAILED', reason: e.reason ?? 'PROVIDER_FAILURE' } : { to: e.outcome };
    const applied = await inTx(deps.db, async (trx) => {
      const tx = await lockTransaction(trx, scope, e.transactionId);
      if (!tx || tx.provider !== provider.name) throw notFound('Transaction');
      return applyChange(deps, trx, tx, change);
    });
    out.push(applied);
  }
  return out;
}

/** Sandbox: the merchant plays the provider and reports an outcome (development keys only). */
export async function simulate(deps: TransactionDeps, scope: Scope, id: string, outcome: 'PAID' | 'FAILED' | 'EXPIRED'): Promise<Transaction> {
  if (scope.livemode) throw forbidden('Simulation is only available with development (test) keys');
  const sandbox = deps.providers.sandbox;
  const [applied] = await applyProviderEvents(deps, scope, sandbox, await sandbox.parseCallback({ transactionId: id, outcome }));
  return applied;
}

/**
 * Refunds a paid transaction, fully or in part. The money moves and a refund row (PENDING) is
 * written in one database transaction; then the payment's provider is asked to send the money back
 * with the refund id as its idempotency key, and the row records what it answered.
 */
export async function refundTransaction(deps: TransactionDeps, scope: Scope, id: string, amountCents: number | undefined): Promise<Transaction> {
  const { tx, refundId, amount } = await inTx(deps.db, async (trx) => {
    const locked = await lockTransaction(trx, scope, id);
    if (!locked) throw notFound('Transaction');
    if (locked.status !== 'PAID' && locked.status !== 'PARTIALLY_REFUNDED') {
      throw badRequest('INVALID_STATE_TRANSITION', `A ${locked.status} transaction cannot be refunded`, [{ field: 'status', message: 'only PAID or PARTIALLY_REFUNDED transactions can be refunded' }]);
    }
    const refundable = locked.charged_cents - locked.refunded_cents;
    const amount = amountCents ?? refundable;
    if (amount > refundable) {
      throw badRequest('REFUND_EXCEEDS_PAID', 'Refund exceeds what is left to refund', [{ field: 'amountCents', message: `at most ${refundable} cents can still be refunded` }]);
    }
    const refunded = await applyChange(deps, trx, locked, { to: amount === refundable ? 'REFUNDED' : 'PARTIALLY_REFUNDED', amountCents: amount });
    const now = new Date();
    const refundId = uuidv7(now.getTime());
    await trx
      .insertInto('refunds')
      .values({ id: refundId, user_id: scope.userId, livemode: scope.livemode, transaction_id: id, amount_cents: amount, status: 'PENDING', provider: locked.provider, created_at: now, updated_at: now })
      .execute();
    return { tx: refunded, refundId, amount };
  });
  await sendRefund(deps, tx, refundId, amount);
  return tx;
}

/** Asks the payment's provider to return a recorded refund and records its answer on the refund row. */
async function sendRefund(deps: TransactionDeps, tx: Transaction, refundId: string, amountCents: number): Promise<void> {
  const provider = tx.livemode ? deps.providers.production : deps.providers.sandbox;
  try {
    if (!provider || provider.name !== tx.provider) throw new Error(`the payment's provider (${tx.provider}) is not configured`);
    const result = await provider.refund({ refundId, transactionId: tx.id, paymentMethod: tx.payment_method, paymentReference: tx.provider_ref, amountCents });
    await deps.db
      .updateTable('refunds')
      .set(result.ok ? { status: 'SUCCEEDED', provider_ref: result.reference, updated_at: new Date() } : { status: 'FAILED', failure_reason: result.reason, updated_at: new Date() })
      .where('id', '=', refundId)
      .execute();
    if (!result.ok) deps.log.error({ refundId, transactionId: tx.id, reason: result.reason }, 'refund refused by the provider: the money was taken from the merchant and must be returned to the customer by hand');
  } catch (err) {
    deps.log.error({ err, refundId, transactionId: tx.id }, 'refund: no answer from the provider; the refund stays PENDING');
  }
}

/** Expires PENDING PIX and boleto transactions whose expiresAt has passed. Safe with many workers. */
export async function expireDue(deps: TransactionDeps, now = new Date(), batch = 100): Promise<number> {
  return inTx(deps.db, async (trx) => {
    const due = await lockExpired(trx, now, batch);
    for (const tx of due) await applyChange(deps, trx, tx, { to: 'EXPIRED' }, now);
    return due.length;
  });
}

/** Moves card instalments whose settlement date has come from receivable to available. */
export async function settleDue(deps: Pick<TransactionDeps, 'db' | 'ledger'>, now = new Date(), batch = 100): Promise<number> {
  return inTx(deps.db, async (trx) => {
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
      await deps.ledger.post(
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

export { getTransaction, listTransactions } from './queries.ts';
