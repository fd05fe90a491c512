// Late sales after a failover: a connector that did not answer and whose lookup said it made no sale
// may still have made one (the acquirer finished after the lookup). Once JANITOR_GRACE_SECONDS have
// passed, every such try of a charge that left that connector is asked again by our reference; a
// sale found there is released there (an authorisation voided, a capture refunded in full) so the
// customer is not charged twice. Cofre never recorded that sale: no ledger journal moves.
import type { ChargeLookup, ProviderResult, RefundResult } from '../../payments/connector.ts';
import type { TransactionDeps } from './types.ts';

/** Asks the unchecked tries; returns how many it looked at. */
export async function recheckFailedOver(deps: TransactionDeps, now = new Date(), batch = 50): Promise<number> {
  const before = new Date(now.getTime() - deps.config.janitorGraceSeconds * 1000);
  const tries = await deps.db
    .selectFrom('card_attempts as a')
    .innerJoin('transactions as t', 't.id', 'a.transaction_id')
    .select(['a.id', 'a.connector', 'a.transaction_id', 'a.reason', 't.charged_cents'])
    .where('a.outcome', '=', 'UNAVAILABLE')
    .where('a.checked_at', 'is', null)
    .whereRef('a.connector', '!=', 't.provider')
    .where('a.created_at', '<', before)
    .orderBy('a.created_at')
    .limit(batch)
    .execute();
  for (const a of tries) {
    try {
      const connector = deps.connectors.of(a.connector, 'CARD');
      const found = await connector.findCharge(a.transaction_id, 'CARD');
      let note = 'rechecked: no sale there';
      if (found?.status === 'AUTHORIZED' || found?.status === 'PAID') {
        const released = await release(deps, a, found);
        note = `rechecked: a late sale there was ${released.ok ? 'released' : `NOT released (${released.message}): reverse it by hand`}`;
        const log = released.ok ? deps.log.warn.bind(deps.log) : deps.log.error.bind(deps.log);
        log({ transactionId: a.transaction_id, connector: a.connector, reference: found.reference, released: released.ok }, 'card failover: a connector that had not answered made the sale late; released there');
      }
      await deps.db.updateTable('card_attempts').set({ checked_at: now, reason: `${a.reason ?? ''}; ${note}`.slice(0, 400), updated_at: now }).where('id', '=', a.id).execute();
    } catch (err) {
      deps.log.warn({ err, transactionId: a.transaction_id, connector: a.connector }, 'card failover: could not recheck a connector for a late sale; asked again later');
    }
  }
  return tries.length;
}

/** Voids a late authorisation, refunds a late capture (the try's id as the refund's idempotency key). */
async function release(deps: TransactionDeps, a: { id: string; connector: string; transaction_id: string; charged_cents: number }, found: Extract<ChargeLookup, { reference: string }>): Promise<ProviderResult | RefundResult> {
  const connector = deps.connectors.of(a.connector, 'CARD');
  if (found.status === 'AUTHORIZED') return connector.voidCard({ transactionId: a.transaction_id, paymentReference: found.reference });
  return connector.refund({ refundId: a.id, transactionId: a.transaction_id, paymentMethod: 'CARD', paymentReference: found.reference, amountCents: a.charged_cents });
}
