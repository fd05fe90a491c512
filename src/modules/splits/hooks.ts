// The money of a split: each recipient's share booked in the sale's own PAID journal (where the
// sale's money lands, settling with it: a card's instalments), and taken back in proportion in the
// journal of each refund or chargeback, from the recipient's unsettled instalments of the sale
// first, then from its available balance, which may go negative: its next sales pay it back first;
// given back (to available) when that money returns to the seller (a refund not made, a chargeback won).
import type { Trx } from '../../db/index.ts';
import { uuidv7Ordered } from '../../db/ids.ts';
import type { Transaction, TransactionSplit } from '../../db/types.ts';
import { shareReversal, splitShares } from '../../payments/splits.ts';
import type { EventLog, EventType } from '../events/service.ts';
import type { Split, TransactionHooks } from '../transactions/hooks.ts';
import { mayHoldReceivables, takeInstalments } from '../transactions/states.ts';
import { partiesOf, shareView } from './views.ts';

/** The transaction hooks deps.ts wires: the shares on PAID, their reversal on a refund or chargeback. */
export function splitHooks(events: EventLog): TransactionHooks {
  return {
    async paidSplits(trx, tx, net, now, settles): Promise<Split[]> {
      if (!tx.split?.length) return [];
      const { shares } = splitShares(tx.split, { chargedCents: tx.charged_cents, feeCents: tx.fee_cents });
      let left = net;
      const rows = tx.split.map((r, i) => {
        const amount = Math.min(shares[i].amountCents, left);
        left -= amount;
        return {
          id: uuidv7Ordered(),
          transaction_id: tx.id,
          user_id: tx.user_id,
          recipient_id: r.userId,
          livemode: tx.livemode,
          basis: r.basis ?? ('NET' as const),
          fixed_cents: r.fixedCents ?? null,
          percentage_bp: r.percentageBp ?? null,
          charge_fees: r.chargeFees ?? false,
          amount_cents: amount,
          fee_cents: shares[i].feeCents,
          status: 'PAID' as const,
          account: settles,
          created_at: now,
          updated_at: now,
        };
      });
      const inserted = await trx.insertInto('transaction_splits').values(rows).onConflict((oc) => oc.columns(['transaction_id', 'recipient_id']).doNothing()).returningAll().execute();
      await recordShares(trx, events, tx, inserted, 'transaction.split_received');
      return inserted.filter((s) => s.amount_cents > 0).map((s) => ({ userId: s.recipient_id, amountCents: s.amount_cents }));
    },

    async refundSplits(trx, tx, amountCents, now): Promise<Split[]> {
      if (!tx.split?.length) return [];
      const shares = await trx.selectFrom('transaction_splits').selectAll().where('transaction_id', '=', tx.id).where('status', '<>', 'REVERSED').orderBy('recipient_id').forUpdate().execute();
      const out: Split[] = [];
      const reversed: TransactionSplit[] = [];
      for (const share of shares) {
        const take = shareReversal({ amountCents: share.amount_cents, reversedCents: share.reversed_cents }, { chargedCents: tx.charged_cents, refundedCents: tx.refunded_cents }, amountCents);
        if (take === 0) continue;
        const fromReceivable = mayHoldReceivables(tx) ? await takeInstalments(trx, tx.id, share.recipient_id, take) : 0;
        out.push({ userId: share.recipient_id, account: 'receivable', amountCents: -fromReceivable }, { userId: share.recipient_id, account: 'available', amountCents: -(take - fromReceivable) });
        const total = share.reversed_cents + take;
        const status = total >= share.amount_cents ? ('REVERSED' as const) : ('PARTIALLY_REVERSED' as const);
        reversed.push(await trx.updateTable('transaction_splits').set({ reversed_cents: total, status, updated_at: now }).where('id', '=', share.id).returningAll().executeTakeFirstOrThrow());
      }
      await recordShares(trx, events, tx, reversed, 'transaction.split_reversed');
      return out.filter((s) => s.amountCents !== 0);
    },

    async restoredSplits(trx, tx, now): Promise<Split[]> {
      if (!tx.split?.length) return [];
      const shares = await trx.selectFrom('transaction_splits').selectAll().where('transaction_id', '=', tx.id).where('reversed_cents', '>', 0).orderBy('recipient_id').forUpdate().execute();
      const out: Split[] = [];
      const restored: TransactionSplit[] = [];
      for (const share of shares) {
        // What stays taken back: the share of what stays refunded.
        const due = shareReversal({ amountCents: share.amount_cents, reversedCents: 0 }, { chargedCents: tx.charged_cents, refundedCents: tx.refunded_cents }, 0);
        const give = share.reversed_cents - due;
        if (give <= 0) continue;
        out.push({ userId: share.recipient_id, account: 'available', amountCents: give });
        const status = due === 0 ? ('PAID' as const) : ('PARTIALLY_REVERSED' as const);
        restored.push(await trx.updateTable('transaction_splits').set({ reversed_cents: due, status, updated_at: now }).where('id', '=', share.id).returningAll().executeTakeFirstOrThrow());
      }
      await recordShares(trx, events, tx, restored, 'transaction.split_received');
      return out;
    },
  };
}

/** Each recipient's event about its share (the seller's own webhooks carry the transaction's). */
async function recordShares(trx: Trx, events: EventLog, tx: Transaction, shares: TransactionSplit[], type: EventType): Promise<void> {
  if (!shares.length) return;
  const parties = await partiesOf(trx, [tx.user_id, ...shares.map((s) => s.recipient_id)]);
  for (const s of shares) await events.record(trx, { userId: s.recipient_id, livemode: s.livemode }, [{ type, data: shareView({ ...s, ...saleOf(tx) }, parties) }]);
}

const saleOf = (tx: Transaction) => ({ display_id: tx.display_id, product: tx.product, payment_method: tx.payment_method, installments: tx.installments, charged_cents: tx.charged_cents });
