// Capture of an authorised card payment, by the connector that authorised it.
import type { Transaction } from '../../db/types.ts';
import { badRequest, notFound, validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { paymentFee } from '../../payments/fees.ts';
import { lockTransaction } from './changed-rows.ts';
import { getTransaction } from './queries.ts';
import { applyChange } from './states.ts';
import type { TransactionDeps } from './types.ts';

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
  const result = await deps.connectors.of(tx.provider, 'CARD').captureCard({ transactionId: tx.id, paymentReference: tx.provider_ref, amountCents: amount });
  if (!result.ok) throw badRequest('INVALID_STATE_TRANSITION', 'The card issuer refused the capture', [{ field: 'status', message: result.message }]);
  const partial = amount < tx.charged_cents ? { chargedCents: amount, feeCents: paymentFee(await deps.fees.of(scope.userId), 'CARD', amount) } : undefined;
  return deps.changes.run(scope, async (trx) => {
    const locked = await lockTransaction(trx, scope, id);
    if (!locked) throw notFound('Transaction');
    if (locked.status !== 'AUTHORIZED') throw notCapturable(locked);
    return applyChange(deps, trx, locked, { to: 'PAID', settled: partial });
  });
}

