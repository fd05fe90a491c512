// The fake Cielo's API: sales (POST /1/sales/), capture and void (PUT), card tokens (POST /1/card)
// on the transactional host; a sale (GET /1/sales/{PaymentId}) and the sales of a MerchantOrderId
// (GET /1/sales?merchantOrderId=) on the query host. Answers in the reference's shapes.
import { randomInt, randomUUID } from 'node:crypto';
import { checkCard, checkSale, error, sandboxOutcome } from './rules.ts';
import type { Answer, CieloState, Route, Sale } from './types.ts';

const ID = '([0-9a-fA-F-]{36})';
const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const now = () => new Date().toISOString().replace('T', ' ').slice(0, 19);

/** A sale's JSON as Cielo answers it (POST 201 and GET /1/sales/{PaymentId}). */
export function saleView(s: CieloState, sale: Sale): unknown {
  const self = { Method: 'GET', Rel: 'self', Href: `https://127.0.0.1:${s.ports.query}/1/sales/${sale.paymentId}` };
  return {
    MerchantOrderId: sale.merchantOrderId,
    ...(sale.customerName !== null ? { Customer: { Name: sale.customerName } } : {}),
    Payment: {
      ServiceTaxAmount: 0,
      Installments: sale.installments,
      Interest: sale.interest,
      Capture: sale.capture,
      Authenticate: false,
      Recurrent: sale.recurrent,
      CreditCard: { CardNumber: sale.maskedNumber, Holder: sale.holder, ExpirationDate: sale.expirationDate, SaveCard: false, Brand: sale.brand, ...(sale.cardToken ? { CardToken: sale.cardToken } : {}) },
      Tid: sale.tid,
      ProofOfSale: sale.proofOfSale,
      AuthorizationCode: sale.authorizationCode,
      SoftDescriptor: sale.softDescriptor,
      Provider: 'Simulado',
      PaymentId: sale.paymentId,
      Type: 'CreditCard',
      Amount: sale.amount,
      ReceivedDate: sale.receivedDate,
      ...(sale.capturedAmount !== null ? { CapturedAmount: sale.capturedAmount, CapturedDate: sale.receivedDate } : {}),
      ...(sale.voidedAmount > 0 ? { VoidedAmount: sale.voidedAmount, VoidedDate: now() } : {}),
      Currency: 'BRL',
      Country: 'BRA',
      ReturnCode: sale.returnCode,
      ReturnMessage: sale.returnMessage,
      Status: sale.status,
      Links: [self],
    },
  };
}

function createSale(s: CieloState, b: any): Answer {
  const bad = checkSale(b);
  if (bad) return bad;
  const p = b.Payment;
  const c = p.CreditCard;
  const stored = c.CardToken ? s.cards.get(c.CardToken.toLowerCase()) : null;
  if (c.CardToken && !stored) return error(0, 'CreditCard.CardToken not found');
  const number: string = stored ? stored.number : c.CardNumber;
  const forced = s.misbehave.declines.shift();
  const decided = forced ? { approved: false, ...forced } : sandboxOutcome(number);
  const capture = p.Capture === true;
  const sale: Sale = {
    paymentId: randomUUID(),
    merchantOrderId: b.MerchantOrderId,
    customerName: b.Customer?.Name ?? null,
    amount: p.Amount,
    installments: p.Installments,
    interest: p.Interest ?? 'ByMerchant',
    capture,
    recurrent: p.Recurrent === true,
    softDescriptor: p.SoftDescriptor ?? '',
    brand: c.Brand,
    holder: stored ? stored.holder : c.Holder,
    expirationDate: stored ? stored.expirationDate : c.ExpirationDate,
    maskedNumber: `${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`,
    cardToken: stored ? c.CardToken.toLowerCase() : null,
    cardOnFile: c.CardOnFile ?? null,
    initiator: p.InitiatedTransactionIndicator ?? null,
    status: decided.approved ? (capture ? 2 : 1) : 3,
    returnCode: decided.approved ? (capture ? '6' : '4') : decided.code,
    returnMessage: decided.message,
    capturedAmount: decided.approved && capture ? p.Amount : null,
    voidedAmount: 0,
    receivedDate: now(),
    tid: digits(20),
    proofOfSale: digits(6),
    authorizationCode: decided.approved ? digits(6) : '',
  };
  s.sales.set(sale.paymentId, sale);
  const ids = s.byOrder.get(sale.merchantOrderId);
  if (ids) ids.push(sale.paymentId);
  else s.byOrder.set(sale.merchantOrderId, [sale.paymentId]);
  return { status: 201, body: saleView(s, sale) };
}

/** PUT .../capture?amount=: an authorised sale, once, for at most what it authorised (all of it without amount). */
function capture(s: CieloState, id: string, q: URLSearchParams): Answer {
  const sale = s.sales.get(id.toLowerCase());
  if (!sale) return { status: 404 };
  const raw = q.get('amount');
  const amount = raw === null ? sale.amount : Number(raw);
  if (!Number.isInteger(amount) || amount <= 0) return error(108, 'Amount must be greater or equal to zero');
  if (sale.status !== 1) return error(0, 'Transaction is not available to capture');
  if (amount > sale.amount) return error(0, 'Capture amount exceeds the authorized amount');
  sale.status = 2;
  sale.capturedAmount = amount;
  return { status: 200, body: { Status: 2, ReasonCode: 0, ReasonMessage: 'Successful', ProviderReturnCode: '6', ProviderReturnMessage: 'Operation Successful', ReturnCode: '6', ReturnMessage: 'Operation Successful' } };
}

/**
 * PUT .../void?amount=: an authorisation is voided whole (no partial void before capture); a
 * captured sale in parts, until what was captured is all voided.
 */
function voidSale(s: CieloState, id: string, q: URLSearchParams): Answer {
  const sale = s.sales.get(id.toLowerCase());
  if (!sale) return { status: 404 };
  const raw = q.get('amount');
  const left = sale.status === 1 ? sale.amount : (sale.capturedAmount ?? 0) - sale.voidedAmount;
  const amount = raw === null ? left : Number(raw);
  if (!Number.isInteger(amount) || amount <= 0) return error(108, 'Amount must be greater or equal to zero');
  if (sale.status !== 1 && sale.status !== 2) return error(0, 'Transaction is not available to void');
  if (sale.status === 1 && amount !== sale.amount) return error(0, 'It is not possible to partially void a transaction that was not captured');
  if (amount > left) return error(0, 'Void amount exceeds what can still be voided');
  sale.voidedAmount += amount;
  if (sale.status === 1 || sale.voidedAmount === sale.capturedAmount) sale.status = 10;
  return { status: 200, body: { Status: sale.status, ReasonCode: 0, ReasonMessage: 'Successful', ProviderReturnCode: '0', ProviderReturnMessage: 'Operation Successful', ReturnCode: '0', ReturnMessage: 'Operation Successful' } };
}

function tokenize(s: CieloState, b: any): Answer {
  if (typeof b?.CustomerName !== 'string' || !b.CustomerName.trim() || b.CustomerName.length > 255) return error(105, 'Customer Name is required');
  const bad = checkCard(b, { cvv: false });
  if (bad) return bad;
  if (b.SecurityCode !== undefined) return error(0, 'POST /1/card takes no SecurityCode (the token never keeps it)');
  const token = randomUUID();
  s.cards.set(token, { number: b.CardNumber, holder: b.Holder, expirationDate: b.ExpirationDate, brand: b.Brand, customerName: b.CustomerName });
  return { status: 201, body: { CardToken: token, Links: { Method: 'GET', Rel: 'self', Href: `https://127.0.0.1:${s.ports.query}/1/card/${token}` } } };
}

export function cieloRoutes(s: CieloState): Route[] {
  return [
    { host: 'api', method: 'POST', re: /^\/1\/sales\/?$/, handle: (_m, b) => createSale(s, b) },
    { host: 'api', method: 'PUT', re: new RegExp(`^/1/sales/${ID}/capture$`), handle: (m, _b, q) => capture(s, m[1], q) },
    { host: 'api', method: 'PUT', re: new RegExp(`^/1/sales/${ID}/void$`), handle: (m, _b, q) => voidSale(s, m[1], q) },
    { host: 'api', method: 'POST', re: /^\/1\/card\/?$/, handle: (_m, b) => tokenize(s, b) },
    {
      host: 'query',
      method: 'GET',
      re: new RegExp(`^/1/sales/${ID}$`),
      handle: (m) => {
        const sale = s.sales.get(m[1].toLowerCase());
        return sale ? { status: 200, body: saleView(s, sale) } : { status: 404 };
      },
    },
    {
      host: 'query',
      method: 'GET',
      re: /^\/1\/sales\/?$/,
      handle: (_m, _b, q) => {
        const order = q.get('merchantOrderId') ?? '';
        if (!/^[A-Za-z0-9]{1,50}$/.test(order)) return error(107, 'OrderId is invalid or does not exists');
        const found = (s.byOrder.get(order) ?? []).map((id) => s.sales.get(id)!);
        return { status: 200, body: { Payments: found.map((x) => ({ PaymentId: x.paymentId, ReceivedDate: x.receivedDate })), ReasonCode: 0, ReasonMessage: 'Successful' } };
      },
    },
  ];
}
