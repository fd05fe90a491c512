// Cielo's words and Cofre's: our transaction id as MerchantOrderId, our card brands as Cielo's,
// Cielo's sale Status and ReturnCode as a charge's state and a decline reason. Pure.
// Sources (the fake in test/fake-cielo/ cites the same pages):
// - Status: https://docs.cielo.com.br/ecommerce-cielo-en/reference/credit-card-transaction-status-list
// - ReturnCode: https://docs.cielo.com.br/ecommerce-cielo-en/page/return-codes-abecs and the sandbox
//   table https://docs.cielo.com.br/ecommerce-cielo-en/reference/credit-card-in-sandbox-1
import type { CardBrand, CardInput } from '../card.ts';
import type { CardDeclineReason, ChargeLookup } from '../connector.ts';

export const CIELO_PROVIDER = 'cielo';

/** Payment.Status of a sale. */
export const STATUS = { NotFinished: 0, Authorized: 1, PaymentConfirmed: 2, Denied: 3, Voided: 10, Refunded: 11, Pending: 12, Aborted: 13 } as const;

/** A sale's Payment as Cielo answers it (the fields we read). */
export interface CieloPayment {
  PaymentId?: unknown;
  Status?: unknown;
  ReturnCode?: unknown;
  ReturnMessage?: unknown;
  Amount?: unknown;
  CapturedAmount?: unknown;
  VoidedAmount?: unknown;
}

/** A sale (POST /1/sales answer, GET /1/sales/{PaymentId}). */
export interface CieloSale {
  MerchantOrderId?: unknown;
  Payment?: CieloPayment;
}

export const PAYMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** MerchantOrderId: a-z, A-Z, 0-9 only (at most 50), so our transaction id without its hyphens. */
export function orderIdFor(transactionId: string): string {
  return transactionId.replace(/-/g, '');
}

/** Our transaction id from a MerchantOrderId we sent (hyphens put back); null when it is not one of ours. */
export function transactionIdOf(orderId: unknown): string | null {
  if (typeof orderId !== 'string' || !/^[0-9a-f]{32}$/i.test(orderId)) return null;
  const h = orderId.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** CreditCard.Brand as Cielo names it (Visa / Master / Amex / Elo / Diners / Hipercard). */
export const BRANDS: Record<CardBrand, string> = { VISA: 'Visa', MASTERCARD: 'Master', AMEX: 'Amex', ELO: 'Elo', DINERS: 'Diners', HIPERCARD: 'Hipercard' };

/** CreditCard.ExpirationDate: MM/YYYY. */
export function expirationOf(card: Pick<CardInput, 'expMonth' | 'expYear'>): string {
  const year = Number(card.expYear);
  return `${String(Number(card.expMonth)).padStart(2, '0')}/${year < 100 ? 2000 + year : year}`;
}

/** The card's number as Cielo takes it: digits only. */
export const digits = (n: string) => n.replace(/[\s-]/g, '');

/** Cielo's ReturnCode, numeric ones without leading zeros ("05" and "5" are the same code). */
function normalise(code: unknown): string {
  const s = String(code ?? '').trim().toUpperCase();
  return /^\d+$/.test(s) ? String(Number(s)) : s;
}

/**
 * ReturnCode -> decline reason. 51 insufficient funds (ABECS); 54 expired (ABECS) and 57, which
 * Cielo's sandbox table names "Expired Card"; 77 cancelled and 78 blocked card; 59 suspected fraud
 * (ABECS); 12, 14 and 56 card data wrong (ABECS "check the card data") and 70 "Problems with the
 * Credit Card" (sandbox); N7 security code; 4 "redo the transaction", 80 and 99 time-outs: try again.
 */
const DECLINES: Record<string, CardDeclineReason> = {
  '51': 'INSUFFICIENT_FUNDS',
  '54': 'EXPIRED_CARD',
  '57': 'EXPIRED_CARD',
  '77': 'STOLEN_CARD',
  '78': 'STOLEN_CARD',
  '59': 'SUSPECTED_FRAUD',
  '12': 'INVALID_CARD',
  '14': 'INVALID_CARD',
  '56': 'INVALID_CARD',
  '70': 'INVALID_CARD',
  N7: 'INCORRECT_CVV',
  '4': 'PROCESSING_ERROR',
  '80': 'PROCESSING_ERROR',
  '99': 'PROCESSING_ERROR',
};

/** A declined sale's reason and a short message (Cielo's ReturnMessage is about the card, never its data). */
export function declineOf(p: CieloPayment): { reason: CardDeclineReason; message: string } {
  const code = normalise(p.ReturnCode);
  const reason = DECLINES[code] ?? 'CARD_DECLINED';
  const said = typeof p.ReturnMessage === 'string' ? p.ReturnMessage.slice(0, 120) : 'Not Authorized';
  return { reason, message: `Cielo ${code || '?'}: ${said}` };
}

/** A sale's state as a charge lookup; `capture` false: an authorisation is what was asked. */
export function lookupOf(p: CieloPayment): ChargeLookup {
  const reference = String(p.PaymentId);
  switch (p.Status) {
    case STATUS.PaymentConfirmed:
      return { status: 'PAID', reference };
    case STATUS.Authorized:
      return { status: 'AUTHORIZED', reference };
    case STATUS.Denied:
    case STATUS.Aborted:
      return { status: 'FAILED', ...declineOf(p) };
    case STATUS.Voided:
    case STATUS.Refunded:
      return { status: 'CANCELLED' };
    default:
      return { status: 'PENDING' };
  }
}

/** Cents from an Amount field; null when it is not a whole non-negative number. */
export function centsOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
}
