// A sale at Cielo, made once. Cielo does not deduplicate MerchantOrderId, so a POST /1/sales/ whose
// answer was lost (timeout, 5xx, connection reset) is never simply sent again: the sales made under
// our MerchantOrderId are asked for first (GET /1/sales?merchantOrderId=) and the one found is
// adopted; only when there is none is it sent once more, and if that is unknown too the caller
// throws (the transaction stays PENDING and the janitor asks findCharge later). A time-out is not
// sent again at all: the first request may still be under way at Cielo, and a second one would be
// a second sale; the janitor settles it from Cielo's answer to findCharge.
import type { ConnectorLog, CardResult } from '../connector.ts';
import { CieloError, type CieloClient } from './client.ts';
import { declineOf, orderIdFor, PAYMENT_ID, STATUS, type CieloPayment, type CieloSale } from './mapping.ts';

export interface SaleParts {
  client: CieloClient;
  log: ConnectorLog;
}

/** GET /1/sales/{PaymentId} on the query host: the sale, or null when Cielo has none. */
export async function saleOf(parts: SaleParts, paymentId: string): Promise<CieloSale | null> {
  if (!PAYMENT_ID.test(paymentId)) return null;
  try {
    const sale = await parts.client.call<CieloSale | null>('query', 'GET', `/1/sales/${paymentId}`);
    return sale?.Payment && String(sale.Payment.PaymentId).toLowerCase() === paymentId.toLowerCase() ? sale : null;
  } catch (err) {
    if (err instanceof CieloError && err.kind === 'not_found') return null;
    throw err;
  }
}

/**
 * The sale made under our reference, or null when there is none: GET /1/sales?merchantOrderId=
 * lists its PaymentIds, each is read (GET /1/sales/{PaymentId}) and must carry our MerchantOrderId.
 * An approved one wins; two approved would be a double charge (logged as an error for a person).
 */
export async function findSale(parts: SaleParts, reference: string): Promise<CieloPayment | null> {
  const order = orderIdFor(reference);
  let list: { Payments?: Array<{ PaymentId?: unknown }> } | null;
  try {
    list = await parts.client.call('query', 'GET', `/1/sales?merchantOrderId=${encodeURIComponent(order)}`);
  } catch (err) {
    if (err instanceof CieloError && err.kind === 'not_found') return null;
    throw err;
  }
  const ids = (Array.isArray(list?.Payments) ? list.Payments : []).map((p) => String(p?.PaymentId ?? '')).filter((id) => PAYMENT_ID.test(id));
  const sales: CieloPayment[] = [];
  for (const id of ids.slice(0, 10)) {
    const sale = await saleOf(parts, id);
    if (sale?.Payment && sale.MerchantOrderId === order) sales.push(sale.Payment);
  }
  const approved = sales.filter((p) => p.Status === STATUS.Authorized || p.Status === STATUS.PaymentConfirmed);
  if (approved.length > 1) parts.log.error({ transactionId: reference, cielo: { paymentIds: approved.map((p) => p.PaymentId) } }, 'cielo: more than one approved sale under one MerchantOrderId; refund all but one');
  return approved[0] ?? sales.at(-1) ?? null;
}

/** Thrown when a sale's outcome is not known yet: the caller leaves the transaction PENDING. */
export class UnknownOutcome extends Error {
  override name = 'UnknownOutcome';
}

/**
 * POST /1/sales/ once, with the lost-answer recovery above. `capture`: what was asked (a sale that
 * came back only authorised when a capture was asked is captured now).
 */
export async function sell(parts: SaleParts, reference: string, body: object, capture: boolean): Promise<CardResult> {
  for (let attempt = 0; ; attempt++) {
    let answer: CieloSale | null;
    try {
      answer = await parts.client.call<CieloSale | null>('api', 'POST', '/1/sales/', body);
    } catch (err) {
      if (err instanceof CieloError && err.kind === 'refused') {
        parts.log.error({ transactionId: reference, cielo: err.toLog() }, 'cielo: the sale was refused as malformed (no charge made)');
        return { approved: false, reason: 'PROCESSING_ERROR', message: `Cielo refused the request (${err.codes.map((c) => c.code).join(', ') || err.status})` };
      }
      if (!(err instanceof CieloError) || err.kind !== 'unavailable') throw err;
      parts.log.warn({ transactionId: reference, cielo: err.toLog(), attempt }, 'cielo: a sale got no answer; asking Cielo for it by MerchantOrderId');
      const found = await findSale(parts, reference);
      if (found) return outcomeOf(parts, reference, found, capture);
      if (err.timedOut) throw new UnknownOutcome(`the sale of ${reference} timed out and Cielo lists none yet (it may still be under way)`);
      if (attempt >= 1) throw new UnknownOutcome(`the sale of ${reference} got no answer twice and Cielo lists none yet`);
      continue;
    }
    if (!answer?.Payment) throw new UnknownOutcome('Cielo answered a sale without its Payment');
    return outcomeOf(parts, reference, answer.Payment, capture);
  }
}

/** A sale's Payment as a charge's result; throws UnknownOutcome when it is still undecided there. */
export async function outcomeOf(parts: SaleParts, reference: string, p: CieloPayment, capture: boolean): Promise<CardResult> {
  const paymentId = String(p.PaymentId ?? '');
  if (p.Status === STATUS.Denied || p.Status === STATUS.Aborted) return { approved: false, ...declineOf(p) };
  if (!PAYMENT_ID.test(paymentId)) throw new UnknownOutcome('Cielo answered a sale without a PaymentId');
  if (p.Status === STATUS.PaymentConfirmed || (p.Status === STATUS.Authorized && !capture)) return { approved: true, reference: paymentId };
  if (p.Status === STATUS.Authorized) {
    // Asked to capture, only authorised there: take the money now (the janitor settles it otherwise).
    const captured = await parts.client.call<{ Status?: unknown } | null>('api', 'PUT', `/1/sales/${paymentId}/capture`);
    if (captured?.Status === STATUS.PaymentConfirmed) return { approved: true, reference: paymentId };
  }
  throw new UnknownOutcome(`the sale of ${reference} is not decided at Cielo (Status ${String(p.Status)})`);
}
