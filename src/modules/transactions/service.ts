// Payments: the orchestration of creating (PIX, boleto, card), charging, refunding, applying what a
// provider reports, expiring and settling. Rules that need no I/O are in draft.ts and states.ts, the
// SQL in queries.ts; this file decides the order of things and never sees HTTP.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import { inTx, type Db } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { PaymentLink, PaymentMethod, Transaction } from '../../db/types.ts';
import { AppError, badRequest, forbidden, notFound, validation } from '../../http/errors.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import { assertCallableUrl } from '../../http/ssrf.ts';
import type { CardInput } from '../../payments/card.ts';
import { validateCard } from '../../payments/card.ts';
import { methodNotOffered, type CardResult, type PaymentProvider, type PixCharge, type ProviderEvent, type Providers, type RefundResult } from '../../payments/provider.ts';
import type { FeeSchedule } from '../fees/schedule.ts';
import { assertPayable, findOwnLink } from '../payment-links/service.ts';
import { buildDraft, checkInput, type CheckoutExtras, type CreateInput } from './draft.ts';
import type { ChangeWriter } from './changes.ts';
import type { CreationWriter, KeyAttachment } from './creation.ts';
import { findTransaction, getTransaction, lockExpired, lockTransaction } from './queries.ts';
import { eventData, refundView } from './view.ts';
import { DAY_MS, spDate } from '../../payments/calendar.ts';
import { explainsLatePayment } from '../../payments/late-payment.ts';
import { paymentFee } from '../../payments/fees.ts';
import { applyChange, feeReturned, type Change, type StateDeps } from './states.ts';

export type { CheckoutExtras, CreateInput } from './draft.ts';

/** What payments need (built once by deps.ts). */
export interface TransactionDeps extends StateDeps {
  db: Db;
  config: Config;
  providers: Providers;
  cursors: Cursors;
  fees: FeeSchedule;
  log: FastifyBaseLogger;
  /** Writes new transactions, in batches (creation.ts). */
  creations: CreationWriter;
  /** Runs status changes, one merchant's in batches (changes.ts). */
  changes: ChangeWriter;
}

/** Limits around a card charge made by a customer (checkout/limits.ts). */
export interface CardGuard {
  /** Before anything is written: 429 when the caller may not try a card now; counts the attempt as a decline until approved. */
  before(): Promise<void>;
  /** After the provider approved the card: the attempt was no decline. */
  approved(): Promise<void>;
}

export interface CreateOptions {
  /** Card-testing limits of the public checkout; applied to production charges only. */
  cardGuard?: CardGuard;
  /**
   * Called once the transaction is recorded, before a card is charged: the caller binds what must
   * follow it (its Idempotency-Key, so that no retry can make a second transaction and a second
   * charge; its coupon reservation, so that a declined card gives the use back).
   */
  recorded?: (tx: Transaction) => Promise<void>;
  /** Told what the provider made of a PIX before anything is written (Pix Automático: the authorisation's id). */
  pixCharged?: (pix: PixCharge) => void;
  /**
   * The transaction's id, chosen by the caller beforehand (a subscription cycle's attempt): the
   * provider's reference for the charge, so that issuing the same attempt again finds the same charge.
   */
  id?: string;
}

/** The provider of an environment; with `method`, for a new payment of that method (refused if not offered). */
/** The provider that takes this environment's payments (503 when production has none). */
export function providerFor(deps: TransactionDeps, livemode: boolean, method?: PaymentMethod): PaymentProvider {
  const provider = livemode ? deps.providers.production : deps.providers.sandbox;
  if (!provider) {
    throw new AppError(503, 'Production payments are not available: no payment provider is configured for this gateway (PAYMENT_PROVIDER). Use a development key to test.');
  }
  // A provider that takes only some methods (production PIX through a PSP's API Pix): the others
  // are refused here, before anything is written.
  if (method && provider.accepts && !provider.accepts(method)) throw methodNotOffered(method);
  return provider;
}

/** Creates the transaction (and charges the card, when one is given); returns it as stored. */
export async function createTransaction(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras = {}, opts: CreateOptions = {}): Promise<Transaction> {
  const { draft, provider, card } = await prepare(deps, scope, input, extras, opts);
  const tx = await deps.creations.insert(draft);
  await opts.recorded?.(tx);
  return card ? charge(deps, tx, provider, card, input.capture ?? true, opts.cardGuard) : tx;
}

/**
 * Creates the transaction with its Idempotency-Key and response written by the creation statement
 * itself; returns the response text. Throws KeyTaken when the key is taken (nothing is written). Not
 * for a card charged at once: what it answers is known only after the charge.
 */
export async function createTransactionWith(deps: TransactionDeps, scope: Scope, input: CreateInput, attach: KeyAttachment): Promise<string> {
  if (input.card) throw new Error('a card charge cannot be answered by its creation statement');
  const { draft } = await prepare(deps, scope, input, {}, {});
  return deps.creations.insertWith(draft, attach);
}

/** Everything before the creation statement: the request checked, the provider's charge, the row to store. */
async function prepare(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras, { cardGuard, pixCharged, id: givenId }: Pick<CreateOptions, 'cardGuard' | 'pixCharged' | 'id'>) {
  const { config } = deps;
  const now = new Date();
  let link: PaymentLink | null = extras.link ?? null;
  if (!link && input.paymentLinkId) {
    link = await findOwnLink(deps.db, scope, input.paymentLinkId);
    if (!link) throw validation('paymentLinkId', 'is not a payment link of this merchant and environment');
  }
  // Inactive, expired or sold out: refused as the checkout refuses it. Nothing is reserved here:
  // the guarded decrement at PAID decides (see payment-links/sale.ts).
  if (link) assertPayable(link, 'paymentLinkId', now);
  const checked = checkInput(input, link, config, now);
  if (input.capture !== undefined && input.paymentMethod !== 'CARD') throw validation('capture', 'is only for card payments');
  if (input.capture === false && !input.card) throw validation('capture', 'an authorisation needs the card: send card, or authorise later with POST /api/v1/transactions/{id}/process');
  if (input.postbackUrl) await assertCallableUrl(input.postbackUrl, 'postbackUrl', { allowPrivate: config.webhooks.allowPrivateTargets });
  const provider = providerFor(deps, scope.livemode, input.paymentMethod);
  const fees = await deps.fees.of(scope.userId);
  const guard = input.card && scope.livemode ? cardGuard : undefined;
  await guard?.before();

  const id = givenId ?? uuidv7(now.getTime());
  const payer = { name: checked.clientName, email: checked.clientEmail, document: checked.document };
  // A PIX dueDate given as a date is a due date the provider may charge with (API Pix: cobv).
  const pixDueDate = input.paymentMethod === 'PIX' && input.dueDate && /^\d{4}-\d{2}-\d{2}$/.test(input.dueDate) ? { dueDate: input.dueDate, ...(checked.latePayment ? { latePayment: checked.latePayment } : {}) } : {};
  const automatic = extras.pixAutomatico ? { automatic: extras.pixAutomatico } : {};
  const pix = input.paymentMethod === 'PIX' ? await provider.createPix({ transactionId: id, amountCents: checked.chargedCents, expiresAt: checked.expiresAt!, payer, description: checked.product, ...pixDueDate, ...automatic }) : null;
  if (pix) pixCharged?.(pix);
  const boleto = input.paymentMethod === 'BOLETO' ? await provider.createBoleto({ transactionId: id, amountCents: checked.chargedCents, dueDate: checked.dueDate!, payer }) : null;
  const draft = buildDraft({ id, scope, input, checked, fees, provider: provider.name, pix, boleto, extras: { ...extras, link: link ?? undefined }, now });
  return { draft, provider, card: input.card ?? null };
}

/**
 * Charges a recorded PENDING card transaction, with the transaction id as the provider's reference
 * (it never charges one reference twice), and applies the outcome. No database transaction stays
 * open across the provider call. When recording the outcome fails after the provider answered, the
 * transaction is answered as it is stored (PENDING, its card claimed): it can never be charged
 * again, by a retry of the request or otherwise, and the failure is logged for reconciliation.
 */
function charge(deps: TransactionDeps, tx: Transaction, provider: PaymentProvider, card: CardInput, capture: boolean, guard: CardGuard | undefined): Promise<Transaction> {
  return recordCharge(deps, tx, () => provider.chargeCard({ reference: tx.id, card, amountCents: tx.charged_cents, installments: tx.installments, capture }), capture, guard);
}

/** The provider call of a recorded charge, then its outcome applied (see charge). */
async function recordCharge(deps: TransactionDeps, tx: Transaction, call: () => Promise<CardResult>, capture: boolean, guard: CardGuard | undefined): Promise<Transaction> {
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  let result: CardResult;
  try {
    result = await call();
  } catch (err) {
    deps.log.error({ err, transactionId: tx.id }, 'card charge: no answer from the provider; the transaction stays PENDING until it reports the outcome');
    return tx;
  }
  if (result.approved && tx.livemode) await guard?.approved();
  const authorizedUntil = new Date(Date.now() + deps.config.card.authorizationTtlDays * DAY_MS);
  const change: Change = !result.approved ? { to: 'FAILED', reason: result.reason } : capture ? { to: 'PAID' } : { to: 'AUTHORIZED', until: authorizedUntil };
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
export async function chargeStoredCard(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras & { storedCard: NonNullable<CheckoutExtras['storedCard']> }, token: string, opts: Pick<CreateOptions, 'id'> = {}): Promise<Transaction> {
  if (input.paymentMethod !== 'CARD' || input.card) throw new Error('a stored-card charge is a CARD payment without card data');
  const { draft, provider } = await prepare(deps, scope, input, extras, opts);
  if (!provider.chargeToken) throw noStoredCards(provider);
  const tx = await deps.creations.insert(draft);
  return recordCharge(deps, tx, () => tokenCharge(provider, tx, token), true, undefined);
}

/** The 503 of a provider that keeps no cards (no card subscriptions). */
export const noStoredCards = (provider: PaymentProvider) => new AppError(503, `The payment provider (${provider.name}) does not keep cards: card subscriptions are not available`);

function tokenCharge(provider: PaymentProvider, tx: Transaction, token: string): Promise<CardResult> {
  if (!provider.chargeToken) throw noStoredCards(provider);
  return provider.chargeToken({ reference: tx.id, token, amountCents: tx.charged_cents });
}

/**
 * Finishes a stored-card charge that was recorded (PENDING, its card claimed) but whose outcome
 * never was: its worker crashed, or the provider did not answer. The provider is asked for the
 * outcome of the transaction's reference first and charged (with that same reference) only when it
 * made no charge; the outcome is applied as for any charge. Returns the transaction as stored.
 */
export async function redriveStoredCharge(deps: TransactionDeps, tx: Transaction, token: string): Promise<Transaction> {
  if (tx.payment_method !== 'CARD' || tx.status !== 'PENDING' || !tx.card_last4) return tx;
  const provider = providerOf(deps, tx);
  return recordCharge(deps, tx, async () => (await provider.findCharge?.(tx.id)) ?? tokenCharge(provider, tx, token), true, undefined);
}

/**
 * Pays a PENDING card transaction created without card data (its hosted page, `paymentUrl`). The
 * card is claimed on the row first (brand + last4 written where none is), so two submissions can
 * never charge twice; the charge then goes the same way as a card given at creation.
 */
export async function payPendingCard(deps: TransactionDeps, id: string, card: CardInput, cardGuard?: CardGuard, opts: { scope?: Scope; capture?: boolean } = {}): Promise<Transaction> {
  const now = new Date();
  const tx = opts.scope ? await getTransaction(deps.db, opts.scope, id) : await findTransaction(deps.db, id);
  if (!tx) throw notFound('Transaction');
  const notPayable = () => badRequest('INVALID_STATE_TRANSITION', 'This payment cannot be paid by card now', [{ field: 'status', message: 'only a PENDING card payment without a card yet can be paid here' }]);
  if (tx.payment_method !== 'CARD' || tx.status !== 'PENDING' || tx.card_last4) throw notPayable();
  const checked = validateCard(card, now);
  if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
  const provider = providerFor(deps, tx.livemode, 'CARD');
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
  return charge(deps, claimed, provider, card, opts.capture ?? true, guard);
}

/** Locks the transaction and applies one status change (state machine, hooks, ledger, events). */
export function changeStatus(deps: TransactionDeps, scope: Scope, id: string, change: Change, providerRef: string | null = null): Promise<Transaction> {
  return deps.changes.run(scope, async (trx) => {
    const tx = await lockTransaction(trx, scope, id);
    if (!tx) throw notFound('Transaction');
    const applied = await applyChange(deps, trx, tx, change);
    if (providerRef === null) return applied;
    return trx.updateTable('transactions').set({ provider_ref: providerRef }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });
}

/**
 * Applies what a provider reported (a notification, a poll, a sandbox simulation) to transactions
 * of this scope. An event for a transaction the provider does not hold is refused. A PAID that
 * carries the provider's payment reference stores it: the same reference again changes nothing,
 * another one on a paid transaction is a second payment (409, for a person to refund), and a PAID
 * whose reported amount differs from the amount charged is refused (409), unless it is a PIX with
 * a due date paid late for what its terms allow that day: the payment is then booked for what was
 * paid (fine and interest included), with the fee on that.
 */
export async function applyProviderEvents(deps: TransactionDeps, scope: Scope, provider: PaymentProvider, events: ProviderEvent[]): Promise<Transaction[]> {
  const out: Transaction[] = [];
  for (const e of events) {
    const reported: Change = e.outcome === 'FAILED' ? { to: 'FAILED', reason: e.reason ?? 'PROVIDER_FAILURE' } : { to: e.outcome };
    const applied = await deps.changes.run(scope, async (trx) => {
      let change = reported;
      const tx = await lockTransaction(trx, scope, e.transactionId);
      if (!tx || tx.provider !== provider.name) throw notFound('Transaction');
      if (e.outcome === 'PAID' && e.reference !== undefined) {
        if (tx.provider_ref === e.reference) return tx;
        if (tx.provider_ref !== null) throw new AppError(409, `Transaction ${tx.id} is already paid by another payment (${tx.provider_ref}); ${e.reference} must be returned to the payer`);
      }
      if (e.outcome === 'PAID' && e.amountCents !== undefined && e.amountCents !== tx.charged_cents) {
        const late = tx.late_payment && tx.due_date && e.paidAt && explainsLatePayment(tx.charged_cents, tx.late_payment, tx.due_date, spDate(e.paidAt), e.amountCents);
        if (!late) throw new AppError(409, `The provider reports ${e.amountCents} cents paid for transaction ${tx.id}, which charged ${tx.charged_cents}`);
        change = { to: 'PAID', settled: { chargedCents: e.amountCents, feeCents: paymentFee(await deps.fees.of(tx.user_id, trx), tx.payment_method, e.amountCents) } };
      }
      const changed = await applyChange(deps, trx, tx, change);
      if (e.outcome !== 'PAID' || e.reference === undefined) return changed;
      return trx.updateTable('transactions').set({ provider_ref: e.reference }).where('id', '=', tx.id).returningAll().executeTakeFirstOrThrow();
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
  const { tx, refundId, amount } = await deps.changes.run(scope, async (trx) => {
    const locked = await lockTransaction(trx, scope, id);
    if (!locked) throw notFound('Transaction');
    if (locked.status !== 'PAID' && locked.status !== 'PARTIALLY_REFUNDED') {
      throw badRequest('INVALID_STATE_TRANSITION', `A ${locked.status} transaction cannot be refunded`, [{ field: 'status', message: 'only PAID or PARTIALLY_REFUNDED transactions can be refunded' }]);
    }
    const provider = scope.livemode ? deps.providers.production : deps.providers.sandbox;
    const windowDays = provider?.name === locked.provider ? provider.refundWindowDays : undefined;
    if (windowDays !== undefined && locked.paid_at && Date.now() - locked.paid_at.getTime() > windowDays * DAY_MS) {
      throw badRequest('REFUND_WINDOW_CLOSED', `This payment can no longer be refunded through the provider: refunds are accepted up to ${windowDays} days after payment`, [{ field: 'status', message: `paid more than ${windowDays} days ago` }]);
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
      .values({
        id: refundId,
        user_id: scope.userId,
        livemode: scope.livemode,
        transaction_id: id,
        amount_cents: amount,
        fee_returned_cents: feeReturned(locked, amount),
        status: 'PENDING',
        provider: locked.provider,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { tx: refunded, refundId, amount };
  });
  // A provider that refuses at once undoes the refund: the answer is the transaction as that left it.
  return (await sendRefund(deps, tx, refundId, amount)) ?? tx;
}

/**
 * Asks the payment's provider to return a recorded refund and records its answer on the refund row;
 * returns the transaction when the provider refused it (the refund undone), else null.
 */
async function sendRefund(deps: TransactionDeps, tx: Transaction, refundId: string, amountCents: number): Promise<Transaction | null> {
  const provider = tx.livemode ? deps.providers.production : deps.providers.sandbox;
  try {
    if (!provider || provider.name !== tx.provider) throw new Error(`the payment's provider (${tx.provider}) is not configured`);
    const result = await provider.refund({ refundId, transactionId: tx.id, paymentMethod: tx.payment_method, paymentReference: tx.provider_ref, amountCents });
    return await recordRefund(deps, refundId, tx.id, result);
  } catch (err) {
    deps.log.error({ err, refundId, transactionId: tx.id }, 'refund: no answer from the provider; the refund stays PENDING');
    return null;
  }
}

/** The provider a stored transaction was made with (its environment's), or 503 if it is not configured any more. */
function providerOf(deps: TransactionDeps, tx: Transaction): PaymentProvider {
  const provider = providerFor(deps, tx.livemode);
  if (provider.name !== tx.provider) throw new AppError(503, `The provider of this payment (${tx.provider}) is not configured on this gateway`);
  return provider;
}

const notCapturable = (tx: Transaction) =>
  badRequest('INVALID_STATE_TRANSITION', `A ${tx.status} transaction cannot be captured`, [{ field: 'status', message: 'only an AUTHORIZED card payment can be captured' }]);

/**
 * Captures an authorised card payment, all of it or `amountCents` of it (the rest of the hold is
 * released): the provider takes the money, then the payment becomes PAID with its journal. The fee
 * is the merchant's card fee on what was captured.
 */
export async function captureTransaction(deps: TransactionDeps, scope: Scope, id: string, amountCents?: number): Promise<Transaction> {
  const tx = await getTransaction(deps.db, scope, id);
  if (tx.status !== 'AUTHORIZED') throw notCapturable(tx);
  const amount = amountCents ?? tx.charged_cents;
  if (amount > tx.charged_cents) throw validation('amountCents', `at most the ${tx.charged_cents} cents authorised`);
  const result = await providerOf(deps, tx).captureCard({ transactionId: tx.id, paymentReference: tx.provider_ref, amountCents: amount });
  if (!result.ok) throw badRequest('INVALID_STATE_TRANSITION', 'The card issuer refused the capture', [{ field: 'status', message: result.message }]);
  const partial = amount < tx.charged_cents ? { chargedCents: amount, feeCents: paymentFee(await deps.fees.of(scope.userId), 'CARD', amount) } : undefined;
  return deps.changes.run(scope, async (trx) => {
    const locked = await lockTransaction(trx, scope, id);
    if (!locked) throw notFound('Transaction');
    if (locked.status !== 'AUTHORIZED') throw notCapturable(locked);
    return applyChange(deps, trx, locked, { to: 'PAID', settled: partial });
  });
}

/**
 * Cancels what can still be called off: an authorised card payment (the hold is voided) or a
 * pending one (a PIX or boleto charge is withdrawn at the provider; a card payment not yet tried).
 * A paid payment is refunded instead (400).
 */
export async function cancelTransaction(deps: TransactionDeps, scope: Scope, id: string): Promise<Transaction> {
  const tx = await getTransaction(deps.db, scope, id);
  const cancellable = tx.status === 'AUTHORIZED' || (tx.status === 'PENDING' && !(tx.payment_method === 'CARD' && tx.card_last4));
  if (!cancellable) {
    throw badRequest('INVALID_STATE_TRANSITION', `A ${tx.status} transaction cannot be cancelled`, [
      { field: 'status', message: tx.status === 'PAID' || tx.status === 'PARTIALLY_REFUNDED' ? 'a paid transaction is refunded instead' : 'only PENDING or AUTHORIZED transactions can be cancelled' },
    ]);
  }
  const provider = providerOf(deps, tx);
  const result =
    tx.status === 'AUTHORIZED'
      ? await provider.voidCard({ transactionId: tx.id, paymentReference: tx.provider_ref })
      : tx.payment_method === 'CARD'
        ? { ok: true as const }
        : await provider.cancelCharge({ transactionId: tx.id, paymentMethod: tx.payment_method, txid: tx.pix_txid });
  if (!result.ok) throw badRequest('INVALID_STATE_TRANSITION', 'The provider refused to cancel this payment', [{ field: 'status', message: result.message }]);
  return changeStatus(deps, scope, id, { to: 'CANCELLED' });
}

/**
 * Records a provider's answer about a refund on its row (still PENDING: a pending answer keeps it
 * so, with the provider's reference, until the provider reports the outcome). A refund the
 * provider did not make is FAILED and undone in the same commit: the money is back in the
 * merchant's available balance, the transaction's refunded amount and status as before it, and
 * the merchant is told (transaction.refund_failed) and may refund again.
 */
export async function recordRefund(deps: Pick<TransactionDeps, 'db' | 'log' | 'events' | 'ledger' | 'changes'>, refundId: string, transactionId: string, result: RefundResult): Promise<Transaction | null> {
  if (result.ok) {
    const set = { status: result.pending ? ('PENDING' as const) : ('SUCCEEDED' as const), provider_ref: result.reference, updated_at: new Date() };
    await deps.db.updateTable('refunds').set(set).where('id', '=', refundId).where('status', '=', 'PENDING').execute();
    return null;
  }
  const row = await deps.db.selectFrom('refunds').select(['user_id', 'livemode']).where('id', '=', refundId).executeTakeFirst();
  if (!row) return null;
  const scope: Scope = { userId: row.user_id, livemode: row.livemode };
  const undone = await deps.changes.run(scope, async (trx) => {
    // The transaction first, as every refund locks it: two answers about one refund take turns.
    const tx = await lockTransaction(trx, scope, transactionId);
    const failed = tx && (await trx.updateTable('refunds').set({ status: 'FAILED', failure_reason: result.reason, updated_at: new Date() }).where('id', '=', refundId).where('status', '=', 'PENDING').returningAll().executeTakeFirst());
    if (!tx || !failed) return null;
    const refundedCents = tx.refunded_cents - failed.amount_cents;
    // The fee comes back as refunds return it (in proportion to what stays refunded), so that the
    // refunds that stand return exactly the sale's fee, whatever order they were made and undone in.
    const fee = feeReturned({ ...tx, refunded_cents: refundedCents }, failed.amount_cents);
    await deps.ledger.postAll(trx, scope, [
      {
        kind: 'refund_reversal',
        referenceType: 'transaction',
        referenceId: tx.id,
        description: `Refund of ${tx.display_id} not made: funds returned`,
        postings: [
          { account: 'external', amount: -failed.amount_cents },
          { account: 'fees', amount: fee },
          { account: 'available', amount: failed.amount_cents - fee },
        ],
      },
    ]);
    const status = refundedCents === 0 ? ('PAID' as const) : ('PARTIALLY_REFUNDED' as const);
    const updated = await trx
      .updateTable('transactions')
      .set({ refunded_cents: refundedCents, status, ...(refundedCents === 0 ? { refunded_at: null } : {}), updated_at: new Date() })
      .where('id', '=', tx.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const data = eventData(updated, tx.status);
    await deps.events.record(trx, scope, [...(status === tx.status ? [] : [{ type: 'transaction.updated' as const, data }]), { type: 'transaction.refund_failed', data: { ...data, refund: refundView(failed) } }]);
    return updated;
  });
  if (undone) deps.log.warn({ refundId, transactionId, reason: result.reason, detail: result.message }, 'refund not made by the provider: the money is back in the merchant\'s available balance');
  return undone;
}

/**
 * Authorisations past their time (CARD_AUTHORIZATION_TTL_DAYS) are voided at the provider and
 * become EXPIRED. The provider is called outside any database transaction; the status change is
 * guarded, so a capture that won the race stands.
 */
export async function expireAuthorizations(deps: TransactionDeps, now = new Date(), batch = 50): Promise<number> {
  const due = await deps.db.selectFrom('transactions').selectAll().where('status', '=', 'AUTHORIZED').where('expires_at', '<', now).orderBy('expires_at').limit(batch).execute();
  for (const tx of due) {
    try {
      await providerOf(deps, tx).voidCard({ transactionId: tx.id, paymentReference: tx.provider_ref });
      await inTx(deps.db, async (trx) => {
        const locked = await lockTransaction(trx, { userId: tx.user_id, livemode: tx.livemode }, tx.id);
        if (locked?.status === 'AUTHORIZED') await applyChange(deps, trx, locked, { to: 'EXPIRED' }, now);
      });
    } catch (err) {
      deps.log.error({ err, transactionId: tx.id }, 'authorisation expiry failed; retried on the next sweep');
    }
  }
  return due.length;
}

/** Expires PENDING PIX and boleto transactions whose expiresAt has passed. Safe with many workers. */
export async function expireDue(deps: TransactionDeps, now = new Date(), batch = 100): Promise<number> {
  // A provider that expires its own charges asks itself first (a payment may be on its way).
  const own = [deps.providers.production, deps.providers.sandbox].filter((p) => p?.expiresOwnCharges).map((p) => p!.name);
  return inTx(deps.db, async (trx) => {
    const due = await lockExpired(trx, now, batch, own);
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
