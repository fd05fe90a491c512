// The money of a split: each recipient's share booked in the sale's own PAID journal (where the
// sale's money lands, settling with it: a card's instalments), and taken back in proportion in the
// journal of each refund or chargeback, from the recipient's unsettled instalments of the sale
// first, then from its available balance, which may go negative: its next sales pay it back first;
// given back (to available) when that money returns to the seller (a refund not made, a chargeback won).
import { flushDeferred } from '../../db/deferred.ts';
import type { Trx } from '../../db/index.ts';
import { uuidv7Ordered } from '../../db/ids.ts';
import type { Transaction, TransactionSplit, TransactionSplitRule } from '../../db/types.ts';
import { shareReversal, splitShares } from '../../payments/splits.ts';
import type { EventType } from '../events/service.ts';
import type { SaleAccount, Split, TransactionHooks } from '../transactions/hooks.ts';
import { mayHoldReceivables, takeInstalments } from '../transactions/states.ts';
import { partiesCache, shareView } from './views.ts';

/** The transaction hooks deps.ts wires: the shares on PAID, their reversal on a refund or chargeback, their return. */
export function splitHooks(): TransactionHooks {
  const parties = partiesCache();
  /** Each share as a Split carrying its recipient's event (recorded with the change's). */
  const withEvents = async (trx: Trx, tx: Transaction, shares: TransactionSplit[], type: EventType, split: (s: TransactionSplit) => Omit<Split, 'events'>[]): Promise<Split[]> => {
    if (!shares.length) return [];
    const known = await parties(trx, [tx.user_id, ...shares.map((s) => s.recipient_id)]);
    return shares.flatMap((s) => {
      const [first, ...rest] = split(s);
      // Zero moves nothing; the first carries the recipient's event even so.
      return [{ ...first, events: [{ type, data: shareView({ ...s, ...saleOf(tx) }, known) }] }, ...rest.filter((x) => x.amountCents !== 0)];
    });
  };
  return {
    async paidSplits(trx, tx, net, now, settles): Promise<Split[]> {
      if (!tx.split?.length) return [];
      const rows = shareRows(tx, tx.split, net, now, settles);
      // The shares' rows are written by the payment journal's own statement (the first split carries them).
      return withEvents(trx, tx, rows, 'transaction.split_received', (s) => [
        { userId: s.recipient_id, amountCents: s.amount_cents, ...(s === rows[0] && { rows: [{ table: 'transaction_splits', values: rows }] }) },
      ]);
    },

    async refundSplits(trx, tx, amountCents, now): Promise<Split[]> {
      if (!tx.split?.length) return [];
      // The shares are written with the PAID journal, which a batch may still hold (db/deferred.ts).
      await flushDeferred(trx);
      const shares = await trx.selectFrom('transaction_splits').selectAll().where('transaction_id', '=', tx.id).where('status', '<>', 'REVERSED').orderBy('recipient_id').forUpdate().execute();
      const taken = new Map<string, { receivable: number; available: number }>();
      const reversed: TransactionSplit[] = [];
      for (const share of shares) {
        const take = shareReversal({ amountCents: share.amount_cents, reversedCents: share.reversed_cents }, { chargedCents: tx.charged_cents, refundedCents: tx.refunded_cents }, amountCents);
        if (take === 0) continue;
        const fromReceivable = mayHoldReceivables(tx) ? await takeInstalments(trx, tx.id, share.recipient_id, take) : 0;
        taken.set(share.id, { receivable: fromReceivable, available: take - fromReceivable });
        const total = share.reversed_cents + take;
        const status = total >= share.amount_cents ? ('REVERSED' as const) : ('PARTIALLY_REVERSED' as const);
        reversed.push(await trx.updateTable('transaction_splits').set({ reversed_cents: total, status, updated_at: now }).where('id', '=', share.id).returningAll().executeTakeFirstOrThrow());
      }
      return withEvents(trx, tx, reversed, 'transaction.split_reversed', (s) => {
        const t = taken.get(s.id)!;
        return [
          { userId: s.recipient_id, account: 'available', amountCents: -t.available },
          { userId: s.recipient_id, account: 'receivable', amountCents: -t.receivable },
        ];
      });
    },

    async restoredSplits(trx, tx, now): Promise<Split[]> {
      if (!tx.split?.length) return [];
      await flushDeferred(trx);
      const shares = await trx.selectFrom('transaction_splits').selectAll().where('transaction_id', '=', tx.id).where('reversed_cents', '>', 0).orderBy('recipient_id').forUpdate().execute();
      const given = new Map<string, number>();
      const restored: TransactionSplit[] = [];
      for (const share of shares) {
        // What stays taken back: the share of what stays refunded.
        const due = shareReversal({ amountCents: share.amount_cents, reversedCents: 0 }, { chargedCents: tx.charged_cents, refundedCents: tx.refunded_cents }, 0);
        if (share.reversed_cents - due <= 0) continue;
        given.set(share.id, share.reversed_cents - due);
        const status = due === 0 ? ('PAID' as const) : ('PARTIALLY_REVERSED' as const);
        restored.push(await trx.updateTable('transaction_splits').set({ reversed_cents: due, status, updated_at: now }).where('id', '=', share.id).returningAll().executeTakeFirstOrThrow());
      }
      return withEvents(trx, tx, restored, 'transaction.split_received', (s) => [{ userId: s.recipient_id, account: 'available', amountCents: given.get(s.id)! }]);
    },
  };
}

const saleOf = (tx: Transaction) => ({ display_id: tx.display_id, product: tx.product, payment_method: tx.payment_method, installments: tx.installments, charged_cents: tx.charged_cents });

/** Each recipient's share of a paid sale as its row: the rule's shares, never more than `net` in all. */
function shareRows(tx: Transaction, rule: TransactionSplitRule, net: number, now: Date, settles: SaleAccount): TransactionSplit[] {
  const { shares } = splitShares(rule, { chargedCents: tx.charged_cents, feeCents: tx.fee_cents });
  let left = net;
  return rule.map((r, i) => {
    const amount = Math.min(shares[i].amountCents, left);
    left -= amount;
    return {
      id: uuidv7Ordered(),
      transaction_id: tx.id,
      user_id: tx.user_id,
      recipient_id: r.userId,
      livemode: tx.livemode,
      basis: r.basis ?? 'NET',
      fixed_cents: r.fixedCents ?? null,
      percentage_bp: r.percentageBp ?? null,
      charge_fees: r.chargeFees ?? false,
      amount_cents: amount,
      fee_cents: shares[i].feeCents,
      reversed_cents: 0,
      status: 'PAID',
      account: settles,
      created_at: now,
      updated_at: now,
    };
  });
}
