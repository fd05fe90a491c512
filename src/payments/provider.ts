// The payment-provider seam: every way money comes in (PIX, boleto, card) and goes back (refunds)
// passes through a PaymentProvider, and whatever a provider reports later (a webhook, a poll, a
// sandbox simulation) comes back as ProviderEvents that the transactions module applies.
// Development (test) transactions always use the sandbox (payments/sandbox.ts); production ones the
// provider the operator configured (PAYMENT_PROVIDER), or are refused. Payout providers (withdrawals)
// are chosen beside them: createProviders (payments/registry.ts) is the one place a provider is chosen.
import type { LatePayment } from './late-payment.ts';
import { FINAL_DEBIT_REASONS } from './pix-api/reasons.ts';
import { AppError } from '../http/errors.ts';
import type { CardInput } from './card.ts';
import type { PayoutProvider } from './payouts.ts';

export type CardDeclineReason = 'CARD_DECLINED' | 'INSUFFICIENT_FUNDS' | 'EXPIRED_CARD' | 'INCORRECT_CVV' | 'PROCESSING_ERROR' | 'STOLEN_CARD';

/**
 * Declines that no retry can turn into an approval (the issuer blocked the card, or it expired; a
 * Pix Automático debit the PSP rejected for good): a subscription's dunning does not retry them.
 */
export const HARD_DECLINES: ReadonlySet<string> = new Set<string>([...(['STOLEN_CARD', 'EXPIRED_CARD'] satisfies CardDeclineReason[]), ...FINAL_DEBIT_REASONS]);

/** Who pays, as providers need it on a charge (the document normalised: digits, or CNPJ letters). */
export interface Payer {
  name: string;
  email: string;
  document: string;
}

export interface PixRequest {
  /** Our transaction id: a provider derives its charge id (txid) from it, so a retry finds the same charge. */
  transactionId: string;
  amountCents: number;
  expiresAt: Date;
  payer: Payer;
  description: string;
  /** São Paulo date (YYYY-MM-DD) the merchant gave as the due date, if any: a provider may make a charge with a due date. */
  dueDate?: string;
  /** With `dueDate`: the charge stays payable that many days after it, with a fine and interest (API Pix cobv). */
  latePayment?: LatePayment;
  /** A Pix Automático subscription's charge (modules/subscriptions): what kind it is. */
  automatic?: PixAutomaticoCharge;
}

/**
 * Pix Automático charges. `first`: the first payment, which also asks the payer to authorise the
 * recurring debits (API Pix journey 3: an immediate charge with the authorisation attached; the
 * provider returns the authorisation's id). `cycle`: a period's automatic debit under an approved
 * authorisation, on its due date (no BR Code: the payer's bank debits it). `retry`: a new attempt
 * of a cycle's debit that failed, on `date`, under the same charge (`txid`).
 */
export type PixAutomaticoCharge =
  | { kind: 'first'; contract: string; object: string; periodicity: 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL'; firstDebitDate: string }
  | { kind: 'cycle'; recurrenceId: string; dueDate: string }
  | { kind: 'retry'; recurrenceId: string; txid: string; date: string };

export interface PixCharge {
  /** The charge id in the BR Code (25-35 alphanumerics); null for a retry of a debit (its charge is the first attempt's). */
  txid: string | null;
  /** The BR Code the payer copies or scans ("pix copia e cola"); null for an automatic debit (Pix Automático). */
  brCode: string | null;
  /** Pix Automático `first`: the authorisation the provider created (idRec). */
  recurrenceId?: string;
}

export interface BoletoRequest {
  transactionId: string;
  amountCents: number;
  /** São Paulo calendar date, YYYY-MM-DD. */
  dueDate: string;
  payer: Payer;
}

export interface BoletoCharge {
  barcode: string;
  digitableLine: string;
}

export interface CardChargeRequest {
  /**
   * Our reference for this charge: the transaction id, chosen before the call. Providers must treat
   * it as an idempotency key (the same reference never charges twice).
   */
  reference: string;
  card: CardInput;
  /** What the customer pays in total (instalment interest included). */
  amountCents: number;
  installments: number;
  /** false: authorise only; the money is taken by captureCard later (or released by voidCard). */
  capture: boolean;
}

/** A card authorisation to capture (all or part) or to void, by the references of its charge. */
export interface AuthorizationRequest {
  transactionId: string;
  /** The provider's reference of the authorisation (CardResult.reference). */
  paymentReference: string | null;
  /** For a capture: how much to take (at most what was authorised). */
  amountCents?: number;
}

/** A pending PIX or boleto charge to withdraw (the merchant cancelled the order). */
export interface CancelRequest {
  transactionId: string;
  paymentMethod: 'PIX' | 'BOLETO';
  /** The PIX charge id. */
  txid: string | null;
}

export type ProviderResult = { ok: true } | { ok: false; reason: string; message: string };

/** A card kept by the provider for later charges (subscriptions): the PAN and CVV stay with it. */
export interface CardToken {
  token: string;
  brand: string;
  last4: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
}

export interface TokenChargeRequest {
  /** As CardChargeRequest.reference: the transaction id, an idempotency key. */
  reference: string;
  token: string;
  amountCents: number;
}

export type CardResult = { approved: true; reference: string } | { approved: false; reason: CardDeclineReason; message: string };

export interface RefundRequest {
  /** Our refund id, chosen before the call; an idempotency key like CardChargeRequest.reference. */
  refundId: string;
  transactionId: string;
  paymentMethod: 'PIX' | 'BOLETO' | 'CARD';
  /** The provider's own reference of the payment (card charge id), when it gave one. */
  paymentReference: string | null;
  amountCents: number;
}

/**
 * `pending`: the provider accepted the refund and reports its outcome later (the refund row stays
 * PENDING with the provider's reference until then).
 */
export type RefundResult = { ok: true; reference: string; pending?: boolean } | { ok: false; reason: string; message: string };

/** A payment's fate as a provider reports it, to be applied by the transactions module. */
export interface ProviderEvent {
  transactionId: string;
  outcome: 'PAID' | 'FAILED' | 'EXPIRED';
  /** For FAILED: why. */
  reason?: string;
  /**
   * The provider's id of the payment (a PIX end-to-end id), stored as the transaction's
   * provider_ref when it becomes PAID: one payment id pays one transaction, once.
   */
  reference?: string;
  /**
   * For PAID, when the provider reports it: the amount paid, which must equal the amount charged
   * (or be what a PIX's late-payment terms allow on `paidAt`).
   */
  amountCents?: number;
  /** For PAID, when the provider reports it: when the payer paid. */
  paidAt?: Date;
}

export interface PaymentProvider {
  readonly name: string;
  createPix(req: PixRequest): Promise<PixCharge>;
  createBoleto(req: BoletoRequest): Promise<BoletoCharge>;
  /** Authorises and captures a card payment of amountCents. */
  chargeCard(req: CardChargeRequest): Promise<CardResult>;
  /** Takes an authorised amount (all or part). Idempotent per transaction. */
  captureCard(req: AuthorizationRequest): Promise<ProviderResult>;
  /** Releases an authorisation (cancelled, or past its time). Idempotent per transaction. */
  voidCard(req: AuthorizationRequest): Promise<ProviderResult>;
  /** Withdraws a pending PIX or boleto charge, so it can no longer be paid. */
  cancelCharge(req: CancelRequest): Promise<ProviderResult>;
  refund(req: RefundRequest): Promise<RefundResult>;
  /**
   * Keeps a card for later charges and returns its token (no charge is made). Optional: a provider
   * without stored cards cannot take card subscriptions. The card was validated (Luhn, expiry) by
   * the caller; a provider may still refuse it (a rejection with the field and reason).
   */
  tokenizeCard?(card: CardInput): Promise<CardToken>;
  /** Charges a stored card once per reference (a merchant-initiated recurring charge: no CVV). */
  chargeToken?(req: TokenChargeRequest): Promise<CardResult>;
  /**
   * The outcome of the card charge made with this reference (chargeCard / chargeToken), or null when
   * the provider made none. Re-driving a charge whose outcome was never recorded (a crash, a call
   * that never answered) asks this first and charges only when none was made (with the same
   * reference, so a charge made meanwhile is still not made twice). Absent: the re-drive relies on
   * the reference's idempotency alone.
   */
  findCharge?(reference: string): Promise<CardResult | null>;
  /**
   * Turns a notification from the provider into the status changes it reports. A provider that can
   * be lied to confirms each one with its own API before returning it; the sandbox's notifications
   * are the merchant's own simulations (POST /api/v1/transactions/{id}/simulate).
   */
  parseCallback(body: unknown): Promise<ProviderEvent[]>;
  /** Pix Automático: withdraws an authorisation (the subscription ended); absent = the provider keeps none. */
  cancelMandate?(recurrenceId: string): Promise<void>;
  /** Whether Pix Automático subscriptions can be taken (absent = no). */
  readonly pixAutomatico?: boolean;
  /** Whether this provider takes payments of a method; absent = every method. Others are refused (503) before anything is written. */
  accepts?(method: 'PIX' | 'BOLETO' | 'CARD'): boolean;
  /** Days after payment within which a refund can still be sent; absent = no limit. */
  readonly refundWindowDays?: number;
  /**
   * true: pending charges of this provider are expired by its own sweep, which asks the provider
   * first (a payment may have arrived unnotified); the generic expiry sweep leaves them alone.
   */
  readonly expiresOwnCharges?: boolean;
}

export interface Providers {
  sandbox: PaymentProvider;
  /** null: production payments are refused (503) until an operator configures PAYMENT_PROVIDER. */
  production: PaymentProvider | null;
}

export interface PayoutProviders {
  sandbox: PayoutProvider;
  /** null: production withdrawals wait for an operator (manual payout, /api/admin/withdrawals). */
  production: PayoutProvider | null;
}

/** The 503 for a method a production provider does not offer yet (asked before anything is written). */
export function methodNotOffered(method: 'PIX' | 'BOLETO' | 'CARD'): AppError {
  const what = { PIX: 'PIX', BOLETO: 'Boleto', CARD: 'Card' }[method];
  return new AppError(503, `${what} payments are not available in production yet: this gateway does not take them with its configured provider. Use a development key to test ${what} payments.`);
}
