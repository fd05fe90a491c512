// Time-based work on payments: authorisations past their time voided, pending charges expired,
// card instalments settled into the available balance. Safe with many workers.
import { inTx } from '../../db/index.ts';
import { lockTransaction } from './changed-rows.ts';
import { expiredAuthorizations, lockDueInstalments, lockExpired, markSettled } from './queries.ts';
import { applyChange } from './states.ts';
import type { TransactionDeps } from './types.ts';

/**
 * Authorisations past their time (CARD_AUTHORIZATION_TTL_DAYS) are voided at the provider and
 * become EXPIRED. The provider is called outside any database transaction; the status change is
 * guarded, so a capture that won the race stands.
 */
export async function expireAuthorizations(deps: TransactionDeps, now = new Date(), batch = 50): Promise<number> {
  const due = await expiredAuthorizations(deps.db, now, batch);
  for (const tx of due) {
    try {
      await deps.connectors.of(tx.provider, 'CARD').voidCard({ transactionId: tx.id, paymentReference: tx.provider_ref });
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
  const own = deps.connectors.expiringOwnCharges();
  return inTx(deps.db, async (trx) => {
    const due = await lockExpired(trx, now, batch, own);
    for (const tx of due) await applyChange(deps, trx, tx, { to: 'EXPIRED' }, now);
    return due.length;
  });
}

/** Moves card instalments whose settlement date has come from receivable to available. */
export async function settleDue(deps: Pick<TransactionDeps, 'db' | 'ledger'>, now = new Date(), batch = 100): Promise<number> {
  return inTx(deps.db, async (trx) => {
    const due = await lockDueInstalments(trx, now, batch);
    // Post merchant by merchant in one global order (not in due order): each journal locks that
    // merchant's accounts until commit, so two sweeps whose batches hold the same merchants in
    // opposite due order would otherwise deadlock. The sort is stable: due order within a merchant.
    const merchantKey = (r: (typeof due)[number]) => `${r.user_id}:${r.livemode ? 1 : 0}`;
    due.sort((a, b) => (merchantKey(a) < merchantKey(b) ? -1 : merchantKey(a) > merchantKey(b) ? 1 : 0));
    for (const r of due) {
      await markSettled(trx, r.id, now);
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
