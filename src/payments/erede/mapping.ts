// e.Rede's fields and codes as Cofre reads them: the `reference` derived from our transaction id, the
// sale's body, returnCode to Cofre's decline reasons (payments/declines.ts), a transaction read by
// reference to a ChargeLookup. Field names and codes from e.Rede's reference (see test/fake-erede/).
import { createHash } from 'node:crypto';
import type { CardChargeRequest, CardDeclineReason, ChargeLookup } from '../connector.ts';

export const EREDE_PROVIDER = 'erede';
/** e.Rede's `reference` is at most 16 alphanumerics (returnCode 39/40 otherwise). */
export const REFERENCE_LENGTH = 16;
/** Refunds of a credit sale are taken for up to 90 days (e.Rede's limit; less for some activities). */
export const REFUND_WINDOW_DAYS = 90;

const BASE36_16 = 36n ** BigInt(REFERENCE_LENGTH);

/**
 * Our transaction id (a 36-character UUID) does not fit e.Rede's 16-alphanumeric `reference`: it is
 * the SHA-256 of the id, reduced to 16 base-36 digits (upper case, ~82 bits), the same on every
 * process and retry, so a sale is found again by reference and a second POST of it is refused (42).
 */
export function eredeReference(transactionId: string): string {
  const n = BigInt(`0x${createHash('sha256').update(transactionId).digest('hex')}`) % BASE36_16;
  return n.toString(36).toUpperCase().padStart(REFERENCE_LENGTH, '0');
}

/** The name as e.Rede takes it: at most 30 characters, letters and spaces only (no accents, no symbols). */
export function holderName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 30)
    .trim();
}

/** POST /v2/transactions for a credit sale (authorise only when `capture` is false). Installments only from 2 (absent: à vista). */
export function saleBody(req: CardChargeRequest, softDescriptor: string | null): Record<string, unknown> {
  const year = String(req.card.expYear);
  return {
    capture: req.capture,
    kind: 'credit',
    reference: eredeReference(req.reference),
    amount: req.amountCents,
    ...(req.installments > 1 ? { installments: req.installments } : {}),
    cardHolderName: holderName(req.card.holderName),
    cardNumber: req.card.number.replace(/[\s-]/g, ''),
    expirationMonth: Number(req.card.expMonth),
    expirationYear: Number(year.length === 2 ? `20${year}` : year),
    securityCode: req.card.cvv,
    ...(softDescriptor ? { softDescriptor } : {}),
  };
}

/** returnCode of an approved sale, capture, or of a query that found the transaction. */
export const APPROVED = '00';
/** 42: a sale with this reference exists already (our retry of one that went through). */
export const REFERENCE_EXISTS = '42';
/** 78: no transaction with that tid or reference. */
export const NOT_FOUND = '78';
/** Refunds: 359 made, 360 received (decided later, D+1). */
export const REFUND_DONE = '359';
export const REFUND_RECEIVED = '360';

const REASONS: Record<string, CardDeclineReason> = {
  '80': 'INSUFFICIENT_FUNDS',
  '111': 'INSUFFICIENT_FUNDS',
  '79': 'EXPIRED_CARD',
  '86': 'EXPIRED_CARD',
  '112': 'EXPIRED_CARD',
  '119': 'INCORRECT_CVV',
  // Card locked by the issuer: a hard decline (no retry by a subscription's dunning).
  '118': 'STOLEN_CARD',
  // The issuer or the network could not process it now.
  '56': 'PROCESSING_ERROR',
  '64': 'PROCESSING_ERROR',
  '74': 'PROCESSING_ERROR',
  '106': 'PROCESSING_ERROR',
  '121': 'PROCESSING_ERROR',
  '150': 'PROCESSING_ERROR',
};

/**
 * Parameter errors (1 to 99 but the issuer's own refusals, and 1000+): our request or our contract
 * is wrong, not the card; the charge is refused as a processing error and the code is logged.
 */
const ISSUER_REFUSALS = new Set(['58', '72', '79', '80', '82', '83', '84', '86']);
export function isIntegrationError(code: string): boolean {
  const n = Number(code);
  return Number.isInteger(n) && ((n >= 1 && n < 100 && !ISSUER_REFUSALS.has(code)) || n >= 1000) && code !== REFERENCE_EXISTS && code !== NOT_FOUND;
}

/** Cofre's decline reason for an e.Rede returnCode other than 00 (anything unlisted: CARD_DECLINED). */
export function declineReason(code: string): CardDeclineReason {
  return REASONS[code] ?? (isIntegrationError(code) ? 'PROCESSING_ERROR' : 'CARD_DECLINED');
}

export const code = (body: Record<string, unknown> | null): string => String(body?.returnCode ?? '');
export const message = (body: Record<string, unknown> | null): string => String(body?.returnMessage ?? 'no message');

/**
 * A transaction as e.Rede's query answers it (authorization.status Approved / Denied / Canceled /
 * Pending; a `capture` once captured) as the core's lookup. `tid` is what captures and refunds name.
 */
export function lookupOf(body: Record<string, unknown>): ChargeLookup {
  const auth = (body.authorization ?? {}) as { status?: string; tid?: string; returnCode?: string; returnMessage?: string };
  const tid = String(auth.tid ?? body.tid ?? '');
  switch (auth.status) {
    case 'Approved':
      return body.capture ? { status: 'PAID', reference: tid } : { status: 'AUTHORIZED', reference: tid };
    case 'Denied': {
      const c = String(auth.returnCode ?? '');
      return { status: 'FAILED', reason: declineReason(c), message: `e.Rede ${c}: ${auth.returnMessage ?? 'denied'}` };
    }
    case 'Canceled':
      return { status: 'CANCELLED' };
    default:
      return { status: 'PENDING' };
  }
}
