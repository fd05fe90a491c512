// What Cielo's API checks, as its public reference states it (pages cited in server.ts), and the
// sandbox's outcome by the card number's last digit. Each broken rule answers Cielo's error list
// `[{ "Code": n, "Message": "..." }]` with the documented code where the error table has one
// (100-126); rules the table has no code for answer Code 0 ("Internal error"), naming the field.
import type { IncomingHttpHeaders } from 'node:http';
import type { Answer, CieloState } from './types.ts';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** CreditCard.Brand values the reference lists. */
export const BRANDS = ['Visa', 'Master', 'Amex', 'Elo', 'Aura', 'JCB', 'Diners', 'Discover', 'Hipercard', 'Hiper'];

export const error = (code: number, message: string, status = 400): Answer => ({ status, body: [{ Code: code, Message: message }] });

/** Headers every call carries: MerchantId (GUID), MerchantKey, RequestId (GUID), Content-Type application/json. */
export function checkHeaders(s: CieloState, h: IncomingHttpHeaders): Answer | null {
  const merchantId = String(h.merchantid ?? '');
  if (!merchantId) return error(101, 'MerchantId is required');
  if (!GUID.test(merchantId)) return error(114, 'The provided MerchantId is not in correct format');
  if (merchantId !== s.merchantId || String(h.merchantkey ?? '') !== s.merchantKey) return { status: 401, body: [{ Code: 115, Message: 'The provided MerchantId was not found' }] };
  if (!GUID.test(String(h.requestid ?? ''))) return error(100, 'RequestId is required');
  if (!String(h['content-type'] ?? '').startsWith('application/json')) return error(0, 'Content-Type must be application/json');
  return null;
}

/** The mod-10 check the fake applies to a card number (its own, not Cofre's: a fake must not share the code it checks). */
export const luhn = (n: string) => {
  let sum = 0;
  for (let i = 0; i < n.length; i++) {
    let d = n.charCodeAt(n.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

/** A card node with its number (sales and POST /1/card): number, holder, MM/YYYY, brand. */
export function checkCard(c: any, opts: { cvv: boolean }): Answer | null {
  if (typeof c?.CardNumber !== 'string' || !c.CardNumber) return error(118, 'Credit Card Number is required');
  if (!/^\d{13,19}$/.test(c.CardNumber) || !luhn(c.CardNumber)) return error(0, 'CreditCard.CardNumber: 13 to 19 digits passing mod 10');
  if (typeof c.Holder !== 'string' || !c.Holder.trim()) return error(117, 'Credit Card Holder is required');
  if (c.Holder.length > 25) return error(0, 'CreditCard.Holder: at most 25 characters');
  if (typeof c.ExpirationDate !== 'string' || !/^(0[1-9]|1[0-2])\/\d{4}$/.test(c.ExpirationDate)) return error(126, 'Credit Card Expiration Date is invalid');
  if (!BRANDS.includes(c.Brand)) return error(0, `CreditCard.Brand must be one of ${BRANDS.join(', ')}`);
  if (opts.cvv && (typeof c.SecurityCode !== 'string' || !/^\d{3,4}$/.test(c.SecurityCode))) return error(0, 'CreditCard.SecurityCode: 3 or 4 digits');
  return null;
}

/** POST /1/sales/ (CreditCard): every field the reference requires, with its size and format. */
export function checkSale(b: any): Answer | null {
  if (typeof b?.MerchantOrderId !== 'string' || !/^[A-Za-z0-9]{1,50}$/.test(b.MerchantOrderId)) return error(107, 'OrderId is invalid or does not exists');
  if (b.Customer !== undefined && (typeof b.Customer?.Name !== 'string' || b.Customer.Name.length > 255)) return error(105, 'Customer Name is required');
  const p = b.Payment;
  if (typeof p?.Type !== 'string' || !p.Type) return error(102, 'Payment Type is required');
  if (p.Type !== 'CreditCard') return error(0, 'Payment.Type: the fake takes CreditCard only');
  if (!Number.isInteger(p.Amount) || p.Amount <= 0 || String(p.Amount).length > 15) return error(108, 'Amount must be greater or equal to zero');
  if (!Number.isInteger(p.Installments) || p.Installments < 1 || p.Installments > 12) return error(0, 'Payment.Installments: 1 to 12');
  if (p.Interest !== undefined && p.Interest !== 'ByMerchant' && p.Interest !== 'ByIssuer') return error(0, 'Payment.Interest: ByMerchant or ByIssuer');
  if (p.Capture !== undefined && typeof p.Capture !== 'boolean') return error(0, 'Payment.Capture: a boolean');
  if (p.SoftDescriptor !== undefined && (typeof p.SoftDescriptor !== 'string' || !/^[A-Za-z0-9 ]{0,13}$/.test(p.SoftDescriptor))) return error(0, 'Payment.SoftDescriptor: at most 13 characters, no special characters');
  const c = p.CreditCard;
  if (!c || typeof c !== 'object') return error(118, 'Credit Card Number is required');
  if (c.CardToken !== undefined) {
    if (typeof c.CardToken !== 'string' || !GUID.test(c.CardToken)) return error(0, 'CreditCard.CardToken: a GUID');
    if (!BRANDS.includes(c.Brand)) return error(0, `CreditCard.Brand must be one of ${BRANDS.join(', ')}`);
    if (c.CardOnFile?.Reason !== undefined && !['Recurring', 'Unscheduled', 'Installments'].includes(c.CardOnFile.Reason)) return error(0, 'CreditCard.CardOnFile.Reason: Recurring, Unscheduled or Installments');
    // Stored credentials of a Mastercard: the initiator indicator is mandatory.
    return c.Brand === 'Master' ? checkInitiator(p.InitiatedTransactionIndicator) : null;
  }
  return checkCard(c, { cvv: true });
}

/** Subcategories allowed under each Category of Payment.InitiatedTransactionIndicator (Mastercard). */
const INITIATOR: Record<string, string[]> = {
  C1: ['CredentialsOnFile', 'StandingOrder', 'Subscription', 'Installment'],
  M1: ['CredentialsOnFile', 'StandingOrder', 'Subscription', 'Installment'],
  M2: ['PartialShipment', 'RelatedOrDelayedCharge', 'NoShow', 'Resubmission'],
};

function checkInitiator(i: any): Answer | null {
  if (!i || typeof i !== 'object') return error(0, 'Payment.InitiatedTransactionIndicator is required for Mastercard stored credentials');
  const subs = INITIATOR[i.Category];
  if (!subs) return error(0, 'Payment.InitiatedTransactionIndicator.Category: C1, M1 or M2');
  // The reference's own example writes "Standingorder": subcategories are matched without case.
  if (typeof i.Subcategory !== 'string' || !subs.some((x) => x.toLowerCase() === i.Subcategory.toLowerCase())) return error(0, `Payment.InitiatedTransactionIndicator.Subcategory: one of ${subs.join(', ')} for ${i.Category}`);
  return null;
}

/** The sandbox's table: the card number's last digit decides (credit-card-in-sandbox). */
export function sandboxOutcome(number: string): { approved: boolean; code: string; message: string } {
  const last = number.at(-1);
  if (last === '0' || last === '1' || last === '4' || last === '9') return { approved: true, code: '4', message: 'Operation Successful' };
  const declines: Record<string, [string, string]> = { '2': ['05', 'Not Authorized'], '3': ['57', 'Expired Card'], '5': ['78', 'Blocked Card'], '6': ['99', 'Time Out'], '7': ['77', 'Canceled Card'], '8': ['70', 'Problems with the Credit Card'] };
  const [code, message] = declines[last ?? ''] ?? ['05', 'Not Authorized'];
  return { approved: false, code, message };
}
