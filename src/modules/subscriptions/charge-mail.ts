// The "charge issued" e-mail of a cycle's PIX or boleto, sent once per charge. A boleto a bank
// registers after the transaction is stored (payments/boleto-issuing.ts) has no linha digitável when
// its charge is attached to the cycle, and e-mailing only its link would send the subscriber to a page
// still waiting for the bank: so its e-mail waits for the numbers. Of the two moments (the charge
// attached to its cycle: attachIssued; the numbers recorded: the boletoIssued hook), the second one
// sends it. Both hold the transaction's row lock while they look at the other, so with any number of
// workers exactly one sees both done.
import type { Trx } from '../../db/index.ts';
import type { Subscription, SubscriptionPlan, Transaction } from '../../db/types.ts';
import { spDate } from '../../payments/calendar.ts';
import type { TransactionHooks } from '../transactions/hooks.ts';
import { mail, planOf, UNPAID, type EngineDeps } from './cycles.ts';

/** Queues the e-mail of an issued PIX or boleto (`tx` as stored, with its code or line). */
export async function mailCharge(deps: Pick<EngineDeps, 'config'>, trx: Trx, sub: Subscription, plan: SubscriptionPlan, tx: Transaction, now: Date): Promise<void> {
  await mail(deps, trx, sub, plan, now, {
    kind: 'charge_issued',
    amountCents: tx.charged_cents,
    dueDate: tx.due_date ?? spDate(tx.expires_at ?? now),
    method: sub.payment_method as 'PIX' | 'BOLETO',
    pixCode: tx.pix_qr_code,
    boletoLine: tx.boleto_line,
    payUrl: sub.payment_method === 'PIX' ? `${deps.config.checkoutUrl}/checkout/${tx.id}` : `${deps.config.checkoutUrl}/boleto/${tx.id}`,
  });
}

/** The attempt's transaction, locked (the boletoIssued hook holds it while it records the numbers). */
export function lockCharge(trx: Trx, id: string): Promise<Transaction> {
  return trx.selectFrom('transactions').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

/**
 * The hook: a cycle's boleto got its numbers. E-mailed here when its charge was already attached to
 * the cycle (the attempt ended with it); while the attempt is still in flight, attachIssued e-mails it
 * (it waits for this commit on the transaction's lock, then sees the numbers). Nothing for a cycle
 * paid or withdrawn meanwhile.
 */
export function boletoIssuedHook(deps: Pick<EngineDeps, 'config'>): Pick<TransactionHooks, 'boletoIssued'> {
  return {
    async boletoIssued(trx, tx, now) {
      if (!tx.subscription_cycle_id || !tx.subscription_id) return;
      const cycle = await trx.selectFrom('subscription_cycles').select(['status', 'transaction_id', 'charge_tx_id']).where('id', '=', tx.subscription_cycle_id).executeTakeFirst();
      if (!cycle || !(UNPAID as readonly string[]).includes(cycle.status) || cycle.charge_tx_id === tx.id || cycle.transaction_id !== tx.id) return;
      const sub = (await trx.selectFrom('subscriptions').selectAll().where('id', '=', tx.subscription_id).executeTakeFirstOrThrow()) as Subscription;
      await mailCharge(deps, trx, sub, await planOf(trx, sub.plan_id), tx, now);
    },
  };
}
