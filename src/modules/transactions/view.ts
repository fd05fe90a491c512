// How a transaction is shown: to its merchant (API) and in event payloads (documents masked).
import type { Static } from '@sinclair/typebox';
import type { CardAttempt, Chargeback, Refund, Transaction, TransactionItem, TransactionSplitRule, TransactionStatus } from '../../db/types.ts';
import { maskDocument } from '../../payments/documents.ts';
import { ADOPTED } from './attempts.ts';
import type { ChargebackView } from './chargeback-schemas.ts';
import type { AttemptView, BoletoView, RefundView, TransactionView } from './schemas.ts';

export interface Urls {
  baseUrl: string;
  checkoutUrl: string;
}

export function transactionView(tx: Transaction, urls: Urls): Static<typeof TransactionView> {
  const view: Static<typeof TransactionView> = {
    id: tx.id,
    displayId: tx.display_id,
    product: tx.product,
    amountCents: tx.amount_cents,
    chargedCents: tx.charged_cents,
    discountCents: tx.discount_cents,
    paymentLinkId: tx.payment_link_id,
    couponId: tx.coupon_id,
    feeCents: tx.fee_cents,
    netAmountCents: tx.charged_cents - tx.fee_cents,
    refundedCents: tx.refunded_cents,
    status: tx.status,
    paymentMethod: tx.payment_method,
    installments: tx.installments,
    client: { id: tx.client_id, name: tx.client_name, email: tx.client_email, document: tx.client_document, phone: tx.client_phone },
    trackingParams: tx.tracking_params,
    metadata: tx.metadata,
    postbackUrl: tx.postback_url,
    failureReason: tx.failure_reason,
    expiresAt: tx.expires_at,
    authorizedAt: tx.authorized_at,
    capturedAt: tx.captured_at,
    cancelledAt: tx.cancelled_at,
    paidAt: tx.paid_at,
    refundedAt: tx.refunded_at,
    createdAt: tx.created_at,
    updatedAt: tx.updated_at,
    livemode: tx.livemode,
  };
  if (tx.subscription_id) view.subscriptionId = tx.subscription_id;
  if (tx.items) view.items = itemsView(tx.items);
  if (tx.parent_transaction_id) view.parentTransactionId = tx.parent_transaction_id;
  if (tx.split) view.split = splitRule(tx.split);
  if (tx.address) view.address = tx.address as NonNullable<Static<typeof TransactionView>['address']>;
  if (tx.payment_method === 'PIX' && tx.pix_qr_code && tx.pix_txid) {
    view.pix = { qrCode: tx.pix_qr_code, qrCodeImage: `${urls.baseUrl}/pix/${tx.pix_txid}/qr.png`, txid: tx.pix_txid, expiresAt: tx.expires_at ?? tx.created_at };
    if (tx.late_payment && tx.due_date) Object.assign(view.pix, { dueDate: tx.due_date, latePayment: tx.late_payment });
  }
  if (tx.payment_method === 'BOLETO') view.boleto = boletoView(tx, urls);
  if (tx.paid_with) view.paidWith = tx.paid_with;
  if (tx.payment_method === 'CARD') {
    view.card = {
      brand: tx.card_brand,
      last4: tx.card_last4,
      installmentCents: tx.installment_cents ?? tx.charged_cents,
      interestCents: tx.charged_cents - tx.amount_cents,
    };
    if (tx.status === 'PENDING' && !tx.card_last4) view.paymentUrl = `${urls.checkoutUrl}/checkout/${tx.id}`;
  }
  return view;
}

/** What an order line costs the shopper. */
/** The split rule a sale was made with, as it was given (each recipient's share: GET /api/v1/transactions/{id}/splits). */
const splitRule = (rule: TransactionSplitRule) => rule.map(({ userId: _, ...r }) => r);

export const lineCents = (l: TransactionItem) => l.unitPriceCents * l.quantity - l.discountCents;
export const itemsView = (items: TransactionItem[]) => items.map((l) => ({ ...l, totalCents: lineCents(l) }));

/** Event payload: what a webhook receiver needs, with the document masked and cards as brand + last4. */
export function eventData(tx: Transaction, previousStatus?: TransactionStatus): Record<string, unknown> {
  return {
    id: tx.id,
    displayId: tx.display_id,
    status: tx.status,
    ...(previousStatus && previousStatus !== tx.status ? { previousStatus } : {}),
    amountCents: tx.amount_cents,
    chargedCents: tx.charged_cents,
    feeCents: tx.fee_cents,
    netAmountCents: tx.charged_cents - tx.fee_cents,
    refundedCents: tx.refunded_cents,
    paymentMethod: tx.payment_method,
    installments: tx.installments,
    product: tx.product,
    clientId: tx.client_id,
    clientName: tx.client_name,
    clientEmail: tx.client_email,
    clientDocument: maskDocument(tx.client_document),
    ...(tx.payment_method === 'CARD' && tx.card_last4 ? { card: { brand: tx.card_brand, last4: tx.card_last4 } } : {}),
    paymentLinkId: tx.payment_link_id,
    couponId: tx.coupon_id,
    ...(tx.subscription_id ? { subscriptionId: tx.subscription_id } : {}),
    ...(tx.items ? { items: itemsView(tx.items) } : {}),
    ...(tx.parent_transaction_id ? { parentTransactionId: tx.parent_transaction_id } : {}),
    ...(tx.split ? { split: splitRule(tx.split) } : {}),
    discountCents: tx.discount_cents,
    metadata: tx.metadata,
    trackingParams: tx.tracking_params,
    failureReason: tx.failure_reason,
    ...(tx.payment_method === 'BOLETO' ? { boleto: { status: tx.boleto_barcode ? 'ISSUED' : 'ISSUING', barcode: tx.boleto_barcode, digitableLine: tx.boleto_line, dueDate: tx.due_date } } : {}),
    ...(tx.paid_with ? { paidWith: tx.paid_with } : {}),
    livemode: tx.livemode,
    createdAt: tx.created_at.toISOString(),
    updatedAt: tx.updated_at.toISOString(),
    expiresAt: tx.expires_at ? tx.expires_at.toISOString() : null,
    authorizedAt: tx.authorized_at ? tx.authorized_at.toISOString() : null,
    capturedAt: tx.captured_at ? tx.captured_at.toISOString() : null,
    cancelledAt: tx.cancelled_at ? tx.cancelled_at.toISOString() : null,
    paidAt: tx.paid_at ? tx.paid_at.toISOString() : null,
    refundedAt: tx.refunded_at ? tx.refunded_at.toISOString() : null,
  };
}

/**
 * A boleto: ISSUING until its bank gave the numbers (a bank that issues after the transaction is
 * stored), then ISSUED with the barcode, the line and, for a hybrid boleto, its Pix code and QR.
 */
export function boletoView(tx: Transaction, urls: Pick<Urls, 'checkoutUrl'>): Static<typeof BoletoView> {
  const page = { dueDate: tx.due_date ?? '', url: `${urls.checkoutUrl}/boleto/${tx.id}` };
  if (!tx.boleto_barcode) return { status: 'ISSUING', ...page };
  return {
    status: 'ISSUED',
    barcode: tx.boleto_barcode,
    digitableLine: tx.boleto_line ?? '',
    ...page,
    ...(tx.boleto_pix ? { pixCode: tx.boleto_pix, pixQrCodeImage: `${urls.checkoutUrl}/boleto/${tx.id}/qr.png` } : {}),
    ...(tx.boleto_ref ? { pdfUrl: `${urls.checkoutUrl}/boleto/${tx.id}.pdf` } : {}),
  };
}

/** A refund as its transaction lists it (GET /api/v1/transactions/{id}, the refund's answer, transaction.refund_failed). */
export function refundView(r: Pick<Refund, 'id' | 'amount_cents' | 'status' | 'failure_reason' | 'created_at' | 'updated_at'> & { items?: number[] | null }): Static<typeof RefundView> {
  return { id: r.id, amountCents: r.amount_cents, status: r.status, failureReason: r.failure_reason, ...(r.items ? { items: r.items } : {}), createdAt: r.created_at, updatedAt: r.updated_at };
}

/** A chargeback case as its transaction shows it (GET, the dispute's answer, the chargeback events). */
export function chargebackView(c: Chargeback): Static<typeof ChargebackView> {
  return {
    id: c.id,
    caseId: c.case_id,
    status: c.status,
    response: c.response,
    amountCents: c.amount_cents,
    feeReturnedCents: c.fee_returned_cents,
    reasonCode: c.reason_code,
    reason: c.reason,
    respondBy: c.respond_by,
    openedAt: c.opened_at,
    respondedAt: c.responded_at,
    closedAt: c.closed_at,
    evidence: c.evidence_text === null ? null : { text: c.evidence_text, files: c.evidence_files ?? [] },
  };
}

/** A card charge's tries as its transaction lists them: only once it went past one answered try. */
export function attemptsView(attempts: CardAttempt[]): Array<Static<typeof AttemptView>> | null {
  const plain = attempts.length === 1 && (attempts[0].outcome === 'APPROVED' || attempts[0].outcome === 'DECLINED') && !attempts[0].reason?.startsWith(ADOPTED);
  if (!attempts.length || plain) return null;
  return attempts.map((a) => ({ connector: a.connector, outcome: a.outcome, returnCode: a.return_code, reason: a.reason, latencyMs: a.latency_ms, createdAt: a.created_at }));
}
