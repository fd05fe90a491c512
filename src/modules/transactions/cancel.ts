// Cancellation of what can still be called off, at the connector that made it.
import type { Transaction } from '../../db/types.ts';
import { badRequest } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { changeStatus } from './provider-events.ts';
import { getTransaction } from './queries.ts';
import type { TransactionDeps } from './types.ts';

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
  const result =
    tx.status === 'AUTHORIZED'
      ? await deps.connectors.of(tx.provider, 'CARD').voidCard({ transactionId: tx.id, paymentReference: tx.provider_ref })
      : tx.payment_method === 'CARD'
        ? { ok: true as const }
        : await deps.connectors.of(tx.provider, tx.payment_method).cancelCharge({ transactionId: tx.id, paymentMethod: tx.payment_method, txid: tx.pix_txid, boletoRef: tx.boleto_ref });
  if (!result.ok) throw badRequest('INVALID_STATE_TRANSITION', 'The provider refused to cancel this payment', [{ field: 'status', message: result.message }]);
  return changeStatus(deps, scope, id, { to: 'CANCELLED' });
}

