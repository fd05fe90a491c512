// A boleto its bank issues after the transaction was stored (payments/inter): the bank's id of it
// first, then its numbers. ISSUING -> ISSUED is not a status change (the payment stays PENDING), but
// merchants wait for it, so it is told as transaction.updated with the boleto's numbers, and the
// hooks' boletoIssued runs in the same commit (a subscription e-mails its cycle's boleto then).
import type { BoletoCharge } from '../../payments/connector.ts';
import type { TransactionDeps } from './types.ts';
import { eventData } from './view.ts';

/**
 * Records `ref` (and, once issued, the numbers) on a PENDING boleto of `connector` still without
 * numbers, whose ref is unset or the same; returns whether it changed anything.
 */
export async function recordBoleto(deps: Pick<TransactionDeps, 'db' | 'events' | 'hooks'>, connector: string, transactionId: string, ref: string, issued: BoletoCharge | null): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    const numbers = issued ? { boleto_barcode: issued.barcode, boleto_line: issued.digitableLine, boleto_pix: issued.pixCode } : {};
    const row = await trx
      .updateTable('transactions')
      .set({ boleto_ref: ref, ...numbers, updated_at: now })
      .where('id', '=', transactionId)
      .where('provider', '=', connector)
      .where('payment_method', '=', 'BOLETO')
      .where('status', '=', 'PENDING')
      .where('boleto_barcode', 'is', null)
      .where((eb) => eb.or([eb('boleto_ref', 'is', null), eb('boleto_ref', '=', ref)]))
      .returningAll()
      .executeTakeFirst();
    if (!row) return false;
    if (!issued) return true;
    await deps.events.record(trx, { userId: row.user_id, livemode: row.livemode }, [{ type: 'transaction.updated', data: eventData(row) }]);
    // Once: the update above matches only a boleto still without numbers (a second worker's finds none).
    for (const hook of deps.hooks) await hook.boletoIssued?.(trx, row, now);
    return true;
  });
}
