// The fake e.Rede's transactions API (v2): sales, queries by tid and by reference, capture, refunds
// (which also cancel an authorisation not captured) and the refunds list. Every request body is
// checked against e.Rede's rules (rules.ts) first.
import { randomBytes, randomUUID } from 'node:crypto';
import { checkAmount, checkSale, DECLINES } from './rules.ts';
import { tokenSale, type Vault } from './vault.ts';

export interface Sale {
  tid: string;
  nsu: string;
  reference: string;
  amount: number;
  installments: number;
  status: 'Approved' | 'Denied' | 'Canceled';
  returnCode: string;
  returnMessage: string;
  /** Only what e.Rede gives back of a card: never its number nor its code. */
  cardBin: string;
  last4: string;
  cardHolderName: string | null;
  softDescriptor: string | null;
  /** A stored card's sale: its tokenizationId, and whether it was told a subscription's. */
  cardToken: string | null;
  subscription: boolean;
  capture: { amount: number; dateTime: string; nsu: string } | null;
  refunds: Array<{ refundId: string; amount: number; status: 'Done' | 'Processing' | 'Denied'; refundDateTime: string }>;
  dateTime: string;
}

export interface Store {
  sales: Map<string, Sale>;
  byReference: Map<string, string>;
  /** Refunds of captured sales answer 360 (received, decided later by decideRefund) instead of 359. */
  refundsPending: boolean;
  softDescriptorEnabled: boolean;
  vault: Vault;
}

export interface Reply {
  status: number;
  body: unknown;
}

const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
const now = () => new Date().toISOString();
const code = (status: number, returnCode: string, returnMessage: string): Reply => ({ status, body: { returnCode, returnMessage } });

/** GET /v2/transactions/{tid} and ?reference=: the sale as e.Rede's query shows it. */
export function saleView(s: Sale) {
  return {
    requestDateTime: now(),
    authorization: {
      dateTime: s.dateTime,
      returnCode: s.returnCode,
      returnMessage: s.returnMessage,
      status: s.status,
      reference: s.reference,
      tid: s.tid,
      nsu: s.nsu,
      kind: 'credit',
      amount: s.amount,
      installments: s.installments,
      cardHolderName: s.cardHolderName,
      cardBin: s.cardBin,
      last4: s.last4,
      softDescriptor: s.softDescriptor,
      origin: 1,
      subscription: s.subscription,
    },
    ...(s.capture ? { capture: s.capture } : {}),
    ...(s.refunds.length ? { refunds: s.refunds } : {}),
  };
}

/** POST /v2/transactions by the PV `pv`: a card's sale, or a stored card's (`cardToken`, vault.ts). */
export function createSale(store: Store, pv: string, body: Record<string, unknown>): Reply {
  const stored = body.cardToken !== undefined;
  const refused = checkSale(stored ? { cardNumber: '4000000000000000', expirationMonth: 1, expirationYear: 2099, ...body } : body, store.softDescriptorEnabled);
  if (refused) return code(refused.status, refused.returnCode, refused.returnMessage);
  const reference = String(body.reference);
  if (store.byReference.has(reference)) return code(400, '42', 'reference: Order number already exists');
  const kept = stored ? tokenSale(store.vault, pv, body) : null;
  if (kept && !('card' in kept)) return kept;
  const number = kept ? `${kept.card.bin}000000${kept.card.last4}` : String(body.cardNumber);
  const decline = kept ? undefined : DECLINES[number];
  const sale: Sale = {
    tid: digits(19),
    nsu: digits(9),
    reference,
    amount: Number(body.amount),
    installments: Number(body.installments ?? 1),
    status: decline ? 'Denied' : 'Approved',
    returnCode: decline?.returnCode ?? '00',
    returnMessage: decline?.returnMessage ?? 'Success.',
    cardBin: number.slice(0, 6),
    last4: number.slice(-4),
    cardHolderName: (body.cardHolderName ?? body.cardholderName ?? null) as string | null,
    softDescriptor: (body.softDescriptor ?? null) as string | null,
    cardToken: kept ? kept.card.id : null,
    subscription: body.subscription === true,
    capture: null,
    refunds: [],
    dateTime: now(),
  };
  if (!decline && body.capture !== false) sale.capture = { amount: sale.amount, dateTime: now(), nsu: sale.nsu };
  store.sales.set(sale.tid, sale);
  store.byReference.set(reference, sale.tid);
  if (decline) return code(422, decline.returnCode, decline.returnMessage);
  return {
    status: 201,
    body: { reference, tid: sale.tid, nsu: sale.nsu, authorizationCode: digits(6), dateTime: sale.dateTime, amount: sale.amount, installments: sale.installments, cardBin: sale.cardBin, last4: sale.last4, returnCode: '00', returnMessage: 'Success.' },
  };
}

export function findSale(store: Store, tid: string | null, reference: string | null): Reply {
  if (!tid && !reference) return code(400, '87', 'At least one of the following fields must be filled: tid or reference');
  const sale = store.sales.get(tid ?? store.byReference.get(reference ?? '') ?? '');
  return sale ? { status: 200, body: saleView(sale) } : code(404, '78', 'Transaction does not exist');
}

/** PUT /v2/transactions/{tid}: captures all or part of an authorisation, once. */
export function capture(store: Store, tid: string, body: Record<string, unknown>): Reply {
  const sale = store.sales.get(tid);
  if (!sale) return code(404, '78', 'Transaction does not exist');
  const refused = checkAmount(body);
  if (refused) return code(refused.status, refused.returnCode, refused.returnMessage);
  if (sale.status !== 'Approved' || sale.capture) return code(400, '171', 'Operation not allowed for this transaction');
  if (Number(body.amount) > sale.amount) return code(400, '49', 'The value of the transaction exceeds the authorized');
  sale.capture = { amount: Number(body.amount), dateTime: now(), nsu: digits(9) };
  return { status: 200, body: { reference: sale.reference, tid, nsu: sale.capture.nsu, dateTime: sale.capture.dateTime, returnCode: '00', returnMessage: 'Success.' } };
}

/** POST /v2/transactions/{tid}/refunds: an authorisation is cancelled whole; a captured sale refunded in parts. */
export function refund(store: Store, tid: string, body: Record<string, unknown>): Reply {
  const sale = store.sales.get(tid);
  if (!sale) return code(404, '78', 'Transaction does not exist');
  const refused = checkAmount(body);
  if (refused) return code(refused.status, refused.returnCode, refused.returnMessage);
  if (sale.status === 'Canceled') return code(400, '355', 'Transaction already canceled');
  if (sale.status !== 'Approved') return code(400, '351', 'Forbidden');
  const amount = Number(body.amount);
  const done = () => ({ refundId: randomUUID(), amount, refundDateTime: now() });
  if (!sale.capture) {
    if (amount !== sale.amount) return code(400, '365', 'Partial refund not available');
    sale.status = 'Canceled';
    const r = { ...done(), status: 'Done' as const };
    sale.refunds.push(r);
    return { status: 201, body: { returnCode: '359', returnMessage: 'Refund successful', refundId: r.refundId, tid, nsu: sale.nsu, refundDateTime: r.refundDateTime, cancelId: digits(9) } };
  }
  const refunded = sale.refunds.filter((r) => r.status !== 'Denied').reduce((s, r) => s + r.amount, 0);
  if (refunded + amount > sale.capture.amount) return code(400, '358', 'Sum of refunds greater than the available amount');
  const r = { ...done(), status: store.refundsPending ? ('Processing' as const) : ('Done' as const) };
  sale.refunds.push(r);
  if (refunded + amount === sale.capture.amount && !store.refundsPending) sale.status = 'Canceled';
  const [c, m] = store.refundsPending ? ['360', 'Refund request has been successful'] : ['359', 'Refund successful'];
  return { status: 201, body: { returnCode: c, returnMessage: m, refundId: r.refundId, tid, nsu: sale.nsu, refundDateTime: r.refundDateTime, cancelId: digits(9) } };
}

/** GET /v2/transactions/{tid}/refunds. */
export function refundsOf(store: Store, tid: string): Reply {
  const sale = store.sales.get(tid);
  return sale ? { status: 200, body: { refunds: sale.refunds } } : code(404, '78', 'Transaction does not exist');
}
