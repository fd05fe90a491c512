// What paying a payment link's transaction changes besides the money: a transaction hook (see
// transactions/hooks.ts; wired by deps.ts), run by the PAID transition inside its database
// transaction, on the locked transaction row:
//   - the link's stock goes down by one with a guarded update (never below zero) and salesCount up;
//     when no stock is left the sale does not happen: the transition becomes FAILED OUT_OF_STOCK;
//   - the customer's open cart abandonments of that link are marked recovered.
// Nothing is reserved at checkout, so a PENDING transaction that never gets paid holds no stock.
import { sql } from 'kysely';
import type { Trx } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';

export const OUT_OF_STOCK = 'OUT_OF_STOCK';

/** Before PAID: the link's sale, or OUT_OF_STOCK when it cannot happen. */
export async function recordLinkSale(trx: Trx, tx: Transaction, now: Date): Promise<string | null> {
  if (tx.payment_link_id) {
    const sold = await trx
      .updateTable('payment_links')
      .set({
        sales_count: sql`sales_count + 1`,
        stock_quantity: sql`CASE WHEN stock_enabled THEN stock_quantity - 1 ELSE stock_quantity END`,
      })
      .where('user_id', '=', tx.user_id)
      .where('id', '=', tx.payment_link_id)
      .where((eb) => eb.or([eb('stock_enabled', '=', false), eb('stock_quantity', '>', 0)]))
      .returning('id')
      .executeTakeFirst();
    if (!sold) return OUT_OF_STOCK;
    await trx
      .updateTable('cart_abandonments')
      .set({ recovered_at: now, transaction_id: tx.id, updated_at: now })
      .where('user_id', '=', tx.user_id)
      .where('link_id', '=', tx.payment_link_id)
      .where('recovered_at', 'is', null)
      .where((eb) => eb.or([eb('client_email', '=', tx.client_email), eb('client_document', '=', tx.client_document)]))
      .execute();
  }
  return null;
}
