// What paying a payment link's transaction changes besides the money: a transaction hook (see
// transactions/hooks.ts; wired by deps.ts), run by the PAID transition inside its database
// transaction, on the locked transaction row:
//   - the link's stock goes down by one with a guarded update (never below zero) and salesCount up;
//     when no stock is left the sale does not happen: the transition becomes FAILED OUT_OF_STOCK;
//   - the customer's open cart abandonments of that link are marked recovered.
//   - each order line's product with stock enabled goes down by its quantity (checked first, under the
//     products' row locks: all of an order's stock is taken, or none and OUT_OF_STOCK);
// Nothing is reserved at checkout, so a PENDING transaction that never gets paid holds no stock.
import { sql } from 'kysely';
import type { Trx } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';

export const OUT_OF_STOCK = 'OUT_OF_STOCK';

/** Before PAID: the link's sale, or OUT_OF_STOCK when it cannot happen. */
export async function recordLinkSale(trx: Trx, tx: Transaction, now: Date): Promise<string | null> {
  if (tx.payment_link_id) {
    const stocked = await lockItemStock(trx, tx);
    if (!stocked) return OUT_OF_STOCK;
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
    for (const [id, quantity] of stocked) {
      await trx.updateTable('products').set({ stock_quantity: sql`stock_quantity - ${quantity}` }).where('user_id', '=', tx.user_id).where('id', '=', id).execute();
    }
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

/**
 * The order lines' products that keep stock, locked (in id order: no deadlock between two orders),
 * with the quantity each needs; null when one has too little.
 */
async function lockItemStock(trx: Trx, tx: Transaction): Promise<Map<string, number> | null> {
  const need = new Map<string, number>();
  for (const l of tx.items ?? []) if (l.productId) need.set(l.productId, (need.get(l.productId) ?? 0) + l.quantity);
  if (!need.size) return need;
  const rows = await trx
    .selectFrom('products')
    .select(['id', 'stock_quantity'])
    .where('user_id', '=', tx.user_id)
    .where('id', 'in', [...need.keys()])
    .where('stock_enabled', '=', true)
    .orderBy('id')
    .forUpdate()
    .execute();
  const stocked = new Map<string, number>();
  for (const r of rows) {
    const quantity = need.get(r.id) ?? 0;
    if ((r.stock_quantity ?? 0) < quantity) return null;
    stocked.set(r.id, quantity);
  }
  return stocked;
}
