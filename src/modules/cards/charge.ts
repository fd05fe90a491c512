// One-click purchase: a card transaction paid with a saved card (`cardId`) instead of card data. The
// card must be this merchant's, this environment's and the transaction's client's (the client a
// creation names is the one with its clientDocument: the creation's client upsert, clients/service.ts);
// it is charged on the connector that keeps it, as a subscription's token is (chargeStoredCard).
import type { Transaction } from '../../db/types.ts';
import { validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { normalizeDocument } from '../clients/service.ts';
import { chargeStoredCard, type CheckoutExtras, type CreateInput, type CreateOptions, type TransactionDeps } from '../transactions/service.ts';
import { savedCardFor } from './service.ts';

/** Creates the transaction and charges the saved card `cardId`; 400 on `cardId` when the card cannot pay for it. */
export async function chargeSavedCard(deps: TransactionDeps, scope: Scope, cardId: string, input: CreateInput, extras: CheckoutExtras, opts: CreateOptions): Promise<Transaction> {
  if (input.paymentMethod !== 'CARD') throw validation('cardId', 'is only for paymentMethod CARD');
  if (input.card) throw validation('cardId', 'send card or cardId, not both');
  if (input.installments !== undefined && input.installments !== 1) throw validation('installments', 'a saved card is charged in a single payment');
  if (input.capture === false) throw validation('capture', 'a saved card is charged at once: capture false needs card data');
  const card = await savedCardFor(deps.db, scope, cardId, { document: normalizeDocument(input.clientDocument, 'clientDocument') });
  const storedCard = { brand: card.brand, last4: card.last4, connector: card.connector };
  return chargeStoredCard(deps, scope, input, { ...extras, storedCard }, card.token, 'ONE_CLICK', { recorded: opts.recorded });
}
