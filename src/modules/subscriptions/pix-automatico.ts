// Pix Automático: what the payer's authorisation of recurring debits (a "recorrência" at the PSP,
// idRec) does to its subscription, whoever reports its state (the PSP's webhookrec, confirmed with
// GET /rec/{idRec}, or a sandbox simulation), and the sandbox's simulations of the journey.
//
// The authorisation's state drives the subscription (docs/decisions.md):
// - APROVADA: recorded; the cycles are debited automatically from then on.
// - REJEITADA or EXPIRADA (the payer refused, or never answered): a subscription whose first charge
//   is unpaid ends (EXPIRED, its charge withdrawn); one already paid keeps the period it paid for
//   and is set to cancel at its end (nothing after it can be collected).
// - CANCELADA by the payer or their bank (or the PSP): the subscription is CANCELLED now; its
//   pending debits are void (the PSP cancels them with the authorisation).
// - CANCELADA by us (USUARIO_RECEBEDOR): the subscription ended here first; only recorded.
import { inTx } from '../../db/index.ts';
import type { MandateStatus, Subscription } from '../../db/types.ts';
import { badRequest } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { mandateEndReason } from '../../payments/pix-automatico.ts';
import { changeStatus } from '../transactions/service.ts';
import { endSubscription, lockSubscription, planOf, recordEvent, reschedule, type EngineDeps } from './cycles.ts';
import { cancelPending, withdrawPending } from './issuing.ts';

export interface MandateReport {
  recurrenceId: string;
  status: MandateStatus;
  /** CANCELADA: who asked (USUARIO_PAGADOR, PSP_PAGADOR, USUARIO_RECEBEDOR, PSP_RECEBEDOR). */
  cancelledBy?: string | null;
}


/**
 * Applies an authorisation's state to its subscription (found by idRec), once: a state already
 * recorded changes nothing. Returns the subscription, or null when no subscription has this idRec.
 */
export async function applyMandate(deps: EngineDeps, report: MandateReport, wallNow = new Date()): Promise<Subscription | null> {
  const out = await inTx(deps.db, async (trx) => {
    const found = await trx.selectFrom('subscriptions').select('id').where('pix_rec_id', '=', report.recurrenceId).executeTakeFirst();
    if (!found) return null;
    let sub = (await lockSubscription(trx, found.id)) as Subscription;
    if (sub.pix_rec_status === report.status) return { sub, pending: [] as string[], withdraw: false };
    // A final state is final: an out-of-order report of an earlier one changes nothing.
    if (sub.pix_rec_status && sub.pix_rec_status !== 'CRIADA' && !(sub.pix_rec_status === 'APROVADA' && report.status === 'CANCELADA')) return { sub, pending: [] as string[], withdraw: false };
    const now = new Date(wallNow.getTime() + sub.clock_offset_ms);
    sub = (await trx.updateTable('subscriptions').set({ pix_rec_status: report.status, updated_at: now }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow()) as Subscription;
    let pending: string[] = [];
    let withdraw = false;
    let scheduled = false;
    const live = sub.status !== 'CANCELLED' && sub.status !== 'EXPIRED';
    const byUs = report.status === 'CANCELADA' && report.cancelledBy === 'USUARIO_RECEBEDOR';
    if (live && report.status !== 'APROVADA' && !byUs) {
      const plan = await planOf(trx, sub.plan_id);
      const reason = mandateEndReason(report.status, report.cancelledBy);
      if (report.status === 'CANCELADA') {
        ({ pending } = await endSubscription(deps, trx, sub, plan, now, { status: 'CANCELLED', reason }));
      } else if (sub.status === 'INCOMPLETE') {
        ({ pending } = await endSubscription(deps, trx, sub, plan, now, { status: 'EXPIRED', reason }));
        withdraw = true;
      } else if (!sub.cancel_at_period_end) {
        await trx.updateTable('subscriptions').set({ cancel_at_period_end: true, cancel_reason: reason, pending_plan_id: null, updated_at: now }).where('id', '=', sub.id).execute();
        scheduled = true;
      }
    }
    // Sent with the subscription as the new state left it (EXPIRED, or set to cancel at its
    // period's end, with the reason), so that a merchant following webhooks learns all of it.
    const after = await reschedule(trx, sub.id);
    if (scheduled) await recordEvent(deps, trx, after, 'subscription.cancel_scheduled');
    await recordEvent(deps, trx, after, 'subscription.mandate_updated');
    return { sub: after, pending, withdraw };
  });
  if (!out) return null;
  const scope: Scope = { userId: out.sub.user_id, livemode: out.sub.livemode };
  // The first charge (still payable at the PSP) is withdrawn there; debits die with the authorisation.
  if (out.withdraw) await withdrawPending(deps, scope, out.pending);
  else if (out.pending.length) await cancelPending(deps, scope, out.pending);
  return (await deps.db.selectFrom('subscriptions').selectAll().where('id', '=', out.sub.id).executeTakeFirst()) as Subscription;
}

export type PixAutomaticoSimulation = 'APPROVE' | 'REJECT' | 'PAYER_CANCEL' | 'INSUFFICIENT_FUNDS';

const invalidState = (message: string) => badRequest('INVALID_STATE_TRANSITION', message, [{ field: 'pixAutomatico', message }]);

/**
 * Sandbox: plays the payer and their bank for a PIX_AUTOMATICO subscription (development keys;
 * the caller checked the scope). APPROVE / REJECT answer the authorisation; PAYER_CANCEL withdraws
 * it later; INSUFFICIENT_FUNDS fails the pending automatic debit, as a bank would on its date.
 */
export async function simulatePixAutomatico(deps: EngineDeps, scope: Scope, sub: Subscription, what: PixAutomaticoSimulation): Promise<void> {
  if (sub.payment_method !== 'PIX_AUTOMATICO') throw invalidState('This subscription is not paid by PIX_AUTOMATICO');
  if (what === 'INSUFFICIENT_FUNDS') {
    const pending = await deps.db
      .selectFrom('transactions')
      .select('id')
      .where('subscription_id', '=', sub.id)
      .where('status', '=', 'PENDING')
      .where('pix_qr_code', 'is', null)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    if (!pending) throw invalidState('No automatic debit is pending: advance the clock until a cycle\'s debit is scheduled (it is sent a few days before its due date)');
    await changeStatus(deps.transactions, scope, pending.id, { to: 'FAILED', reason: 'INSUFFICIENT_FUNDS' });
    return;
  }
  if (!sub.pix_rec_id) throw invalidState('This subscription has no authorisation yet');
  const status = sub.pix_rec_status;
  if ((what === 'APPROVE' || what === 'REJECT') && status !== 'CRIADA') throw invalidState(`The authorisation is ${status}: only one awaiting the payer (CRIADA) can be approved or rejected`);
  if (what === 'PAYER_CANCEL' && status !== 'CRIADA' && status !== 'APROVADA') throw invalidState(`The authorisation is ${status}: it can no longer be cancelled`);
  const report: MandateReport =
    what === 'APPROVE' ? { recurrenceId: sub.pix_rec_id, status: 'APROVADA' } : what === 'REJECT' ? { recurrenceId: sub.pix_rec_id, status: 'REJEITADA' } : { recurrenceId: sub.pix_rec_id, status: 'CANCELADA', cancelledBy: 'USUARIO_PAGADOR' };
  await applyMandate(deps, report);
}
