// How a subscription and its cycles are shown: to the merchant (API), and in event payloads.
import type { Static } from '@sinclair/typebox';
import type { Subscription, SubscriptionCycle, Transaction } from '../../db/types.ts';
import { maskDocument } from '../../payments/documents.ts';
import type { ClientAddressView } from './schemas.ts';

export function cycleView(c: SubscriptionCycle) {
  return {
    id: c.id,
    number: c.number,
    kind: c.kind,
    periodStart: c.period_start,
    periodEnd: c.period_end,
    dueAt: c.due_at,
    amountCents: c.amount_cents - c.discount_cents,
    discountCents: c.discount_cents,
    status: c.status,
    attempts: c.attempts,
    nextRetryAt: c.next_retry_at,
    failureReason: c.failure_reason,
    transactionId: c.transaction_id,
    paidAt: c.paid_at,
  };
}

interface PaymentView {
  transactionId: string;
  status: string;
  amountCents: number;
  pixCode: string | null;
  boletoLine: string | null;
  paymentUrl: string;
}

export function subscriptionView(s: Subscription, extra: { cycles?: SubscriptionCycle[]; payment?: Transaction | null; checkoutUrl?: string } = {}) {
  const view = {
    id: s.id,
    planId: s.plan_id,
    clientId: s.client_id,
    client: { name: s.client_name, email: s.client_email, document: maskDocument(s.client_document) },
    status: s.status,
    paymentMethod: s.payment_method,
    card: s.card_last4 ? { brand: s.card_brand, last4: s.card_last4, expMonth: s.card_exp_month, expYear: s.card_exp_year } : null,
    pixAutomatico: s.payment_method === 'PIX_AUTOMATICO' ? { recurrenceId: s.pix_rec_id, status: s.pix_rec_status } : null,
    currentPeriodStart: s.current_period_start,
    currentPeriodEnd: s.current_period_end,
    trialEnd: s.trial_end,
    cancelAtPeriodEnd: s.cancel_at_period_end,
    cancelledAt: s.cancelled_at,
    cancelReason: s.cancel_reason,
    pausedAt: s.paused_at,
    resumesAt: s.resumes_at,
    endedAt: s.ended_at,
    pendingPlanId: s.pending_plan_id,
    couponId: s.coupon_id,
    clientAddress: s.client_address as Static<typeof ClientAddressView> | null,
    metadata: s.metadata,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
  const out: typeof view & { cycles?: ReturnType<typeof cycleView>[]; payment?: PaymentView | null } = view;
  if (extra.cycles) out.cycles = extra.cycles.map(cycleView);
  if (extra.payment !== undefined) {
    const tx = extra.payment;
    out.payment =
      // An automatic debit (Pix Automático: a PIX without a code) has nothing to pay by hand.
      tx && tx.status === 'PENDING' && !(tx.payment_method === 'PIX' && !tx.pix_qr_code)
        ? {
            transactionId: tx.id,
            status: tx.status,
            amountCents: tx.charged_cents,
            pixCode: tx.pix_qr_code,
            boletoLine: tx.boleto_line,
            paymentUrl: tx.payment_method === 'BOLETO' ? `${extra.checkoutUrl}/boleto/${tx.id}` : `${extra.checkoutUrl}/checkout/${tx.id}`,
          }
        : null;
  }
  return out;
}

/** Event payload of a subscription: the API view without the document, address, metadata and pause/plan-change details. */
export function subscriptionEventData(s: Subscription) {
  const { client: _client, clientAddress: _address, metadata: _metadata, pausedAt: _p, resumesAt: _r, endedAt: _e, pendingPlanId: _pp, couponId: _c, createdAt: _ca, updatedAt: _ua, card, ...rest } = subscriptionView(s);
  return { ...rest, clientEmail: s.client_email, ...(card ? { card: { brand: card.brand, last4: card.last4 } } : {}) };
}
