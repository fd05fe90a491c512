// A fake Cielo E-commerce API 3.0 for the tests, written from Cielo's public reference:
// - hosts, MerchantId/MerchantKey headers, REST shapes:
//   https://developercielo.github.io/manual/cielo-ecommerce and
//   https://docs.cielo.com.br/ecommerce-cielo/docs/caracteristicas-api-ecommerce
// - creating a credit card sale (POST /1/sales/, up to 12 instalments, no Amount 0):
//   https://docs.cielo.com.br/ecommerce-cielo-en/reference/credit-card-api and the request table
//   (MerchantOrderId a-z A-Z 0-9 up to 50, SoftDescriptor 13, Installments, ...) of
//   https://docs.cielo.com.br/ecommerce-cielo/reference/recorr%C3%AAncia-n%C3%A3o-agendada
// - a sale's answer and GET /1/sales/{PaymentId}: https://docs.cielo.com.br/split-en/reference/get-payment-details
// - GET /1/sales?merchantOrderId= (Payments with PaymentId, ReceivedDate; ReasonCode, ReasonMessage):
//   https://docs.cielo.com.br/ecommerce-cielo-en/reference/get-payment-details-by-merchantorderid
// - capture (PUT /1/sales/{PaymentId}/capture?amount=, partial once, all without amount):
//   https://docs.cielo.com.br/ecommerce-cielo-en/reference/teste and https://docs.cielo.com.br/ecommerce-cielo-en/docs/capture;
//   its answer: https://docs.cielo.com.br/split-en/reference/capture-credit-card
// - void (PUT /1/sales/{PaymentId}/void?amount=, partial ones many times, never before capture):
//   https://docs.cielo.com.br/ecommerce-cielo-en/reference/void-a-credit-transaction-via-paymentid-1
// - Status list: https://docs.cielo.com.br/ecommerce-cielo-en/reference/credit-card-transaction-status-list
// - error list [{Code, Message}] (100-126): https://docs.cielo.com.br/ecommerce-cielo-en/reference/api-errors
// - card tokens (POST /1/card: CustomerName, CardNumber, Holder, ExpirationDate, Brand -> CardToken):
//   https://docs.cielo.com.br/ecommerce-cielo-en/reference/create-card-token-before-authorization
// - recurring card-on-file sales (Recurrent, CreditCard.CardOnFile Usage/Reason):
//   https://docs.cielo.com.br/gateway-en/reference/recurrence and
//   https://docs.cielo.com.br/ecommerce-cielo-en/reference/unscheduled-recurrence; CardOnFile.Reason
//   Recurring / Unscheduled / Installments and, for Mastercard stored credentials, the mandatory
//   Payment.InitiatedTransactionIndicator {Category C1 | M1 | M2, Subcategory by category}:
//   https://developercielo.github.io/manual/cielo-ecommerce#indicador-de-in%C3%ADcio-da-transa%C3%A7%C3%A3o-mastercard
//   (github.com/DeveloperCielo/developercielo.github.io, _i18n/pt/_posts/api-ecommerce-cielo/2003-03-03-cielo-ecommerce.md)
// - the sandbox's outcomes by the card number's last digit (0/1/4 authorised, 2 "05", 3 "57",
//   5 "78", 6 "99", 7 "77", 8 "70"; 9 is random there and authorised here, to stay deterministic):
//   https://docs.cielo.com.br/ecommerce-cielo-en/reference/credit-card-in-sandbox-1
// - ReturnCode meanings (ABECS): https://docs.cielo.com.br/ecommerce-cielo-en/page/return-codes-abecs
// - Notification Post ({RecurrentPaymentId, PaymentId, ChangeType}, a header registered with
//   Support): https://docs.cielo.com.br/ecommerce-cielo-en/docs/notification-post and
//   https://lromanocielo.github.io/Documentos/api30English/Notificationpost
// - VoidedAmount / VoidedDate on a sale's Payment: a recorded sandbox answer quoted in a public Cielo
//   client (the reference pages found show no sale after a void); the connector relies on it for
//   refunds whose answer was lost (src/payments/cielo/refunds.ts).
// - the Chargeback API (chargebacks: a third server, mTLS and OAuth2): chargeback.ts cites its pages.
// HTTPS on 127.0.0.1 with its own certificate (the CA to trust: caFile), the transactional and
// query hosts on two ports. Every request is checked (rules.ts); misbehaviour on demand: lost
// answers after the work is done, 5xx, slow answers, forced declines, notifications with or
// without the secret. It calls loopback receivers only. For a benchmark (bench/cielo.ts): a fixed
// latency on every answer (latencyMs) and a bounded request log (keepRequests).
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeCertificate } from '../webhook-receiver.ts';
import { checkHeaders } from './rules.ts';
import { cieloRoutes } from './routes.ts';
import { startFakeChargebacks } from './chargeback.ts';
import type { CieloState, FakeCielo, FakeCieloOptions, Host, Logged, NotifyOptions } from './types.ts';

export type { FakeCielo, FakeCieloOptions, Logged, Sale } from './types.ts';

/** Rules broken kept word for word (all are counted in tally): a broken client at a benchmark's rate would fill memory. */
const MAX_VIOLATIONS = 1000;

/** Logs a request, keeping the newest `keepRequests` (trimmed in chunks: one shift per request would copy the whole log). */
function record(s: CieloState, logged: Logged) {
  s.tally.requests++;
  if (s.keepRequests <= 0) return;
  s.requests.push(logged);
  if (s.requests.length >= 2 * s.keepRequests) s.requests.splice(0, s.requests.length - s.keepRequests);
}

async function answer(s: CieloState, host: Host, req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  let body: any = null;
  // `broken`: the request broke a rule (kept in violations); a failure asked for by a test is not.
  const send = (status: number, out?: unknown, broken = false) => {
    record(s, { host, method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, status, at: Date.now() });
    if (broken && ++s.tally.violations <= MAX_VIOLATIONS) s.violations.push(`${req.method} ${url.pathname}: ${JSON.stringify(out)}`);
    if (res.destroyed) return;
    res.writeHead(status, out === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' });
    res.end(out === undefined ? undefined : JSON.stringify(out));
  };
  if (raw) {
    try {
      body = JSON.parse(raw);
    } catch {
      return send(400, [{ Code: 0, Message: 'Invalid JSON' }], true);
    }
  }
  const delay = (s.misbehave.delays.shift() ?? 0) + s.latencyMs;
  const failureAt = s.misbehave.failures.findIndex((f) => f.host === null || f.host === host);
  const failure = failureAt >= 0 ? s.misbehave.failures.splice(failureAt, 1)[0] : undefined;
  if (delay) await new Promise((r) => setTimeout(r, delay));
  if (failure) return send(failure.status, [{ Code: 0, Message: 'Internal error' }]);
  const bad = checkHeaders(s, req.headers);
  if (bad) return send(bad.status, bad.body, true);
  const r = s.routes.find((x) => x.host === host && x.method === req.method && x.re.test(url.pathname));
  if (!r) return send(404);
  const out = r.handle(url.pathname.match(r.re)!, body, url.searchParams);
  const drop = s.misbehave.drops.findIndex((d) => d.method === req.method && url.pathname.startsWith(d.pathPrefix));
  if (drop >= 0 && out.status < 300) {
    s.misbehave.drops.splice(drop, 1);
    record(s, { host, method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, status: 0, at: Date.now() });
    req.socket.destroy();
    return;
  }
  send(out.status, out.body, out.status === 400);
}

async function listen(s: CieloState, host: Host, cert: { keyFile: string; certFile: string }): Promise<https.Server> {
  const server = https.createServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer(s, host, req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('secureConnection', () => s.tally.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s.ports[host] = (server.address() as AddressInfo).port;
  return server;
}

/** POSTs Cielo's Notification Post to a loopback receiver; its status. */
function notify(url: string, secret: string, paymentId: string, o: NotifyOptions): Promise<number> {
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('the fake Cielo notifies loopback addresses only');
  const payload = JSON.stringify({ RecurrentPaymentId: null, PaymentId: paymentId, ChangeType: o.changeType ?? 1 });
  const mode = o.secret ?? 'valid';
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  if (mode !== 'missing') headers['X-Notification-Secret'] = mode === 'valid' ? secret : `${secret}x`;
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = lib.request(target, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('error', reject);
    r.end(payload);
  });
}

export async function startFakeCielo(opts: FakeCieloOptions = {}): Promise<FakeCielo> {
  const cert = makeCertificate();
  const s: CieloState = {
    merchantId: randomUUID(),
    merchantKey: randomBytes(20).toString('hex').toUpperCase(),
    latencyMs: opts.latencyMs ?? 0,
    keepRequests: opts.keepRequests ?? Infinity,
    sales: new Map(),
    byOrder: new Map(),
    cards: new Map(),
    routes: [],
    requests: [],
    violations: [],
    tally: { requests: 0, violations: 0, connections: 0 },
    ports: { api: 0, query: 0 },
    misbehave: { failures: [], delays: [], drops: [], declines: [] },
  };
  s.routes.push(...cieloRoutes(s));
  const servers = [await listen(s, 'api', cert), await listen(s, 'query', cert)];
  const notificationSecret = randomBytes(16).toString('hex');
  const chargebacks = await startFakeChargebacks(s.sales, s.violations, notificationSecret, cert);
  return {
    chargebacks,
    apiUrl: `https://127.0.0.1:${s.ports.api}`,
    queryUrl: `https://127.0.0.1:${s.ports.query}`,
    caFile: cert.certFile,
    merchantId: s.merchantId,
    merchantKey: s.merchantKey,
    notificationSecret,
    sales: s.sales,
    cards: s.cards,
    requests: s.requests,
    violations: s.violations,
    tally: s.tally,
    calls: (method, prefix) => s.requests.filter((r) => r.method === method && r.path.startsWith(prefix)),
    salesOf: (order) => (s.byOrder.get(order) ?? []).map((id) => s.sales.get(id)!),
    failNext(n, status = 500, host) {
      for (let i = 0; i < n; i++) s.misbehave.failures.push({ status, host: host ?? null });
    },
    delayNext(n, ms) {
      for (let i = 0; i < n; i++) s.misbehave.delays.push(ms);
    },
    dropAnswer(method, pathPrefix) {
      s.misbehave.drops.push({ method, pathPrefix });
    },
    declineNext(code, message) {
      s.misbehave.declines.push({ code, message });
    },
    notify: (url, paymentId, o = {}) => notify(url, notificationSecret, paymentId, o),
    async close() {
      await chargebacks.close();
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      rmSync(cert.dir, { recursive: true, force: true });
    },
  };
}
