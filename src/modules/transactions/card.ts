// Card charges: a card given at creation or on the hosted page, or a card the connector keeps (a
// subscription's token). The transaction is recorded first with its card claimed, then charged with
// its id as the connector's reference, so no retry, crash or second submission charges twice; an
// outcome never recorded is settled by the janitor (janitor.ts) or a subscription's re-drive.
import type { Transaction } from '../../db/types.ts';
import { AppError, badRequest, notFound, validation } from '../../http/errors.ts';
import type { Answer } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import { validateCard, type CardInput } from '../../payments/card.ts';
import type { CardResult, Connector, TokenChargeKind } from '../../payments/connector.ts';
import type { RailConnector } from '../../payments/registry.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import { finishAttempt } from './attempts.ts';
import { chargeOverChain, finish, type Charged } from './failover.ts';
import { lookupResult } from './lookup.ts';
import { prepare } from './prepare.ts';
import type { CheckoutExtras, CreateInput } from './draft.ts';
import { changeStatus } from './provider-events.ts';
import { claimCard, findTransaction, getTransaction } from './queries.ts';
import type { Change } from './states.ts';
import type { CardGuard, CreateOptions, TransactionDeps } from './types.ts';

/**
 * Charges a recorded PENDING card transaction over the failover chain (failover.ts), with the
 * transaction id as the provider's reference (it never charges one reference twice), and applies
 * the outcome. No database transaction stays open across the provider call. When recording the
 * outcome fails after the provider answered, the transaction is answered as it is stored (PENDING,
 * its card claimed): it can never be charged again, by a retry of the request or otherwise, and
 * the failure is logged for reconciliation.
 */
export function chargeCard(deps: TransactionDeps, tx: Transaction, card: CardInput, capture: boolean, guard: CardGuard | undefined, extra: ChargeExtras = {}): Promise<Transaction> {
  const req = { reference: tx.id, card, amountCents: tx.charged_cents, installments: tx.installments, capture };
  return recordCharge(deps, tx, () => chargeOverChain(deps, tx, req, extra.firstTry), capture, guard, extra.answer);
}

/** What a charge made with its transaction's creation brings: its first try recorded with it, the request's answer to store with the outcome. */
export interface ChargeExtras {
  firstTry?: string;
  answer?: Answer<Transaction>;
}

/**
 * The provider call of a recorded charge, then its outcome applied (see charge), with the try that
 * answered finished in the same commit (finished alone when the outcome is not recorded), and the
 * request's `answer` stored there too when given.
 */
async function recordCharge(deps: TransactionDeps, tx: Transaction, call: () => Promise<Charged>, capture: boolean, guard: CardGuard | undefined, answer?: Answer<Transaction>): Promise<Transaction> {
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  let charged: Charged;
  try {
    charged = await call();
  } catch (err) {
    deps.log.error({ err, transactionId: tx.id }, 'card charge: no answer from the provider; the transaction stays PENDING until the janitor asks the provider for the outcome');
    return tx;
  }
  const { result, attempt } = charged;
  const finishAlone = async () => attempt && (await finish(deps, attempt.id, attempt.end));
  if (result.approved && tx.livemode) await guard?.approved().catch(async (err: unknown) => {
    await finishAlone();
    throw err;
  });
  const authorizedUntil = new Date(Date.now() + deps.config.card.authorizationTtlDays * DAY_MS);
  const change: Change = !result.approved ? { to: 'FAILED', reason: result.reason } : capture ? { to: 'PAID' } : { to: 'AUTHORIZED', until: authorizedUntil };
  try {
    return await changeStatus(deps, scope, tx.id, change, result.approved ? result.reference : null, async (trx, applied) => {
      if (attempt) await finishAttempt(trx, attempt.id, attempt.end);
      await answer?.(trx, applied);
    });
  } catch (err) {
    await finishAlone();
    deps.log.error({ err, transactionId: tx.id, outcome: change.to }, 'card charge: the outcome could not be recorded; answering the stored state');
    return (await findTransaction(deps.db, tx.id).catch(() => undefined)) ?? tx;
  }
}

/**
 * Creates a card transaction and charges a card the provider keeps (a subscription's token, a saved card):
 * recorded first with the card's brand and last 4 claimed, charged with the transaction id as the
 * reference, exactly as a card given at creation (see charge).
 */
export async function chargeStoredCard(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras & { storedCard: NonNullable<CheckoutExtras['storedCard']> }, token: string, kind: TokenChargeKind, opts: Pick<CreateOptions, 'id' | 'recorded'> = {}): Promise<Transaction> {
  if (input.paymentMethod !== 'CARD' || input.card) throw new Error('a stored-card charge is a CARD payment without card data');
  const { draft, connector } = await prepare(deps, scope, input, extras, opts);
  if (!(connector as RailConnector<'CARD'>).chargeToken) throw noStoredCards(connector);
  const tx = await deps.creations.insert(draft);
  await opts.recorded?.(tx);
  return recordCharge(deps, tx, async () => ({ result: await tokenCharge(connector as RailConnector<'CARD'>, tx, token, kind) }), true, undefined);
}

/** The 503 of a provider that keeps no cards (no card subscriptions). */
export const noStoredCards = (connector: Connector) => new AppError(503, `The payment provider (${connector.name}) does not keep cards: card subscriptions are not available`);

function tokenCharge(connector: RailConnector<'CARD'>, tx: Transaction, token: string, kind: TokenChargeKind): Promise<CardResult> {
  if (!connector.chargeToken) throw noStoredCards(connector);
  return connector.chargeToken({ reference: tx.id, token, amountCents: tx.charged_cents, kind });
}

/**
 * Finishes a stored-card charge that was recorded (PENDING, its card claimed) but whose outcome
 * never was: its worker crashed, or the provider did not answer. The provider is asked for the
 * outcome of the transaction's reference first and charged (with that same reference) only when it
 * made no charge; the outcome is applied as for any charge. Returns the transaction as stored.
 */
export async function redriveStoredCharge(deps: TransactionDeps, tx: Transaction, token: string, kind: TokenChargeKind): Promise<Transaction> {
  if (tx.payment_method !== 'CARD' || tx.status !== 'PENDING' || !tx.card_last4) return tx;
  const connector = deps.connectors.of(tx.provider, 'CARD');
  return recordCharge(deps, tx, async () => ({ result: lookupResult(await connector.findCharge(tx.id, 'CARD')) ?? (await tokenCharge(connector, tx, token, kind)) }), true, undefined);
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
  // The connector that takes the livemode's card payments now (the transaction was recorded without one charged).
  const connector = deps.connectors.forNew(tx.livemode, 'CARD');
  const guard = tx.livemode ? cardGuard : undefined;
  await guard?.before();
  const claimed = await claimCard(deps.db, tx, { brand: checked.brand, last4: checked.last4, connector: connector.name }, now);
  if (!claimed) throw notPayable();
  return chargeCard(deps, claimed, card, opts.capture ?? true, guard);
}

