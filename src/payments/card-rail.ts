// The card rail's half of the connector seam (connector.ts): what a card charge, a kept card, a
// capture or void, and an acquirer's chargeback look like to a connector and to the payment core.
import type { CardInput } from './card.ts';
import { FINAL_DEBIT_REASONS } from './pix-automatico.ts';

export type CardDeclineReason =
  | 'CARD_DECLINED'
  | 'INSUFFICIENT_FUNDS'
  | 'EXPIRED_CARD'
  | 'INCORRECT_CVV'
  | 'PROCESSING_ERROR'
  | 'STOLEN_CARD'
  /** The issuer suspects fraud (ABECS 59): card schemes forbid retrying it. */
  | 'SUSPECTED_FRAUD'
  /** The card's number or data is wrong (ABECS 12, 14, 56): no retry of that card can succeed. */
  | 'INVALID_CARD';

/**
 * Declines that no retry can turn into an approval (the issuer blocked the card, it expired, its
 * data is wrong, or the issuer suspects fraud; a Pix Automático debit the PSP rejected for good): a
 * subscription's dunning does not retry them.
 */
export const HARD_DECLINES: ReadonlySet<string> = new Set<string>([...(['STOLEN_CARD', 'EXPIRED_CARD', 'SUSPECTED_FRAUD', 'INVALID_CARD'] satisfies CardDeclineReason[]), ...FINAL_DEBIT_REASONS]);

export interface CardChargeRequest {
  /** Our reference for this charge: the transaction id, chosen before the call, an idempotency key (never charged twice). */
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
  /** The connector's reference of the authorisation (CardResult.reference). */
  paymentReference: string | null;
  /** For a capture: how much to take (at most what was authorised). */
  amountCents?: number;
}

/** A card kept by the connector for later charges (subscriptions): the PAN and CVV stay with it. */
export interface CardToken {
  token: string;
  brand: string;
  last4: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
}

/**
 * Why a stored card is charged, as card schemes want it told (Mastercard's initiator indicator,
 * e.Rede's `subscription`): `ONE_CLICK` the shopper pays now with a card saved earlier
 * (customer-initiated); `SIGNUP` a subscription's first charge while the subscriber signs up
 * (customer-initiated, recurring); `RENEWAL` a later charge the merchant makes on its schedule
 * (merchant-initiated, recurring).
 */
export type TokenChargeKind = 'ONE_CLICK' | 'SIGNUP' | 'RENEWAL';

export interface TokenChargeRequest {
  /** As CardChargeRequest.reference: the transaction id, an idempotency key. */
  reference: string;
  token: string;
  amountCents: number;
  kind: TokenChargeKind;
}

/** Who the kept card belongs to, for a connector whose vault wants it (e.Rede's token service asks an e-mail). */
export interface CardHolder {
  email: string;
}

/** `code`: the connector's own answer code, when it has one (kept on the charge's attempt, e.g. e.Rede's returnCode). */
export type CardResult = { approved: true; reference: string; code?: string } | { approved: false; reason: CardDeclineReason; message: string; code?: string };

/**
 * A chargeback as an acquirer reports it (a notification, a lookup, the sandbox), applied by the
 * payment core with ConnectorCore.applyChargeback. OPENED: the cardholder disputed the payment and
 * the acquirer debited `amountCents`; WON / LOST: the acquirer's decision after the merchant's
 * answer (or without one). Reports are idempotent by `caseId`: the same report again changes
 * nothing, and an outcome for a case never reported opened opens it first.
 */
export interface ChargebackReport {
  /** Our transaction id (the charge's reference). */
  transactionId: string;
  /** The acquirer's own id of the dispute case, as its chargeback API or notification gives it (1-100 characters). */
  caseId: string;
  status: 'OPENED' | 'WON' | 'LOST';
  /** What the acquirer debited (capped at what is left of the payment; absent: all that is left). */
  amountCents?: number;
  /** The card scheme's reason code as the acquirer gives it (e.g. Visa 10.4, Mastercard 4837). */
  reasonCode?: string;
  /** Its text, for the merchant. */
  reason?: string;
  /** Until when the acquirer takes the merchant's answer. */
  respondBy?: Date;
}

/** A merchant's answer to an open chargeback, forwarded by CardRail.disputeChargeback. */
export interface DisputeRequest {
  transactionId: string;
  caseId: string;
  /** The connector's reference of the payment (CardResult.reference). */
  paymentReference: string | null;
  action: 'ACCEPT' | 'CONTEST';
  /** CONTEST: the merchant's case (what was sold, delivered, agreed). */
  text?: string;
  /** CONTEST: evidence documents (PDF, PNG, JPEG), passed through, never stored. */
  files?: { name: string; contentType: 'application/pdf' | 'image/png' | 'image/jpeg'; content: Buffer }[];
}


/**
 * Connections an acquirer's client keeps open at most. A card payment holds one for the acquirer's
 * whole answer (150 ms to seconds), so this, not the CPU, caps card payments per second: 50 allowed
 * only 333/s at 150 ms. The gateway's own HTTP concurrency is what bounds it in practice.
 */
export const ACQUIRER_SOCKETS = 256;
