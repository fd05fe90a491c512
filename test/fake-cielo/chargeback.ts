// A fake Cielo Chargeback API for the tests, written from Cielo's public manual:
// - the manual (mTLS certificate signed by Cielo on every call, OAuth2 token with client_id,
//   client_secret and grant_type=client_credentials, valid 5 minutes, sent as Bearer; the services
//   and their paths; the query body and its PENDING / DONE views; lifecycle statuses; accept and
//   refuse bodies and answers; the two webhooks' bodies; the return-code table 101-941):
//   https://developercielo.github.io/manual/api-chargeback-2-0
// - the reference pages: https://docs.cielo.com.br/pix-can-cbk/docs/conheca-chargeback,
//   https://docs.cielo.com.br/pix-can-cbk/reference/aceite-de-contestacao,
//   https://docs.cielo.com.br/pix-can-cbk/reference/recusa-de-contestacao (one document, .TIF .TIFF
//   .PDF .JPEG, 8 MB, 10 pages, named after the IdCase), https://docs.cielo.com.br/pix-can-cbk/reference/pesquisa-de-ciclo-de-vida,
//   https://docs.cielo.com.br/pix-can-cbk/reference/webhook and
//   https://docs.cielo.com.br/pix-can-cbk/reference/detalhamento-dos-campos-de-servicos
// Not in the public manual, so chosen here and said so: the shape of an error answer (the fake
// sends { code, message } with the table's code), what a query with no case answers (an empty
// page), an accepted case's actionTakenCode, and any authentication of the webhooks (Cofre asks
// for the Notification Post's X-Notification-Secret header; the fake sends it). Page counts and the
// document's resolution are not checked. HTTPS on 127.0.0.1 requiring the client certificate.
import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { makeCertificate } from '../webhook-receiver.ts';
import { cbError, checkQuery, doneView, matches, page, pendingView, today } from './chargeback-rules.ts';
import { accept, refuse, type CbState } from './chargeback-answers.ts';
import type { CbAnswer, CbCase, CbNotifyOptions, FakeChargebacks } from './chargeback-types.ts';
import type { Sale } from './types.ts';

export const CB_BASE = '/cielo-chargeback-sys-external';
const API = `${CB_BASE}/chargeback/v1`;
const TOKEN_PATH = '/cielo-security-sys-web/oauth/v2/MulesoftPRD/protocol/openid-connect/token';
const digits = (n: number) => String(randomInt(1, 10)) + Array.from({ length: n - 1 }, () => randomInt(10)).join('');

/** POST token: the form's client credentials (the client certificate was checked by TLS). */
function token(st: CbState, req: http.IncomingMessage, raw: Buffer): CbAnswer {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return { status: 400, body: { error: 'invalid_request' } };
  const form = new URLSearchParams(raw.toString('utf8'));
  if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
  if (form.get('client_id') !== st.clientId || form.get('client_secret') !== st.clientSecret) return { status: 401, body: { error: 'invalid_client' } };
  const t = randomBytes(24).toString('base64url');
  st.tokens.set(t, Date.now() + 300_000);
  st.tokensIssued += 1;
  return { status: 200, body: { access_token: t, expires_in: 300, token_type: 'Bearer' } };
}

function route(st: CbState, req: http.IncomingMessage, path: string, query: URLSearchParams, raw: Buffer): CbAnswer {
  const type = String(req.headers['content-type'] ?? '');
  if (req.method === 'GET') {
    const m = /^\/lifecycle\/([^/]+)$/.exec(path);
    if (!m) return { status: 404 };
    if (!/^\d{1,20}$/.test(m[1])) return cbError(911, 'O campo “número do case” aceita somente caracteres numéricos.');
    return { status: 200, body: st.cases.get(Number(m[1]))?.lifecycle ?? [] };
  }
  if (req.method === 'PUT' && path === '/refuse') return refuse(st, type, raw);
  let body: any = null;
  if (!type.startsWith('application/json')) return cbError(0, 'Content-Type must be application/json');
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return cbError(0, 'Invalid JSON');
  }
  if (req.method === 'PUT' && path === '/accept') return accept(st, body);
  const q = /^\/([A-Za-z]+)$/.exec(path);
  if (req.method !== 'POST' || !q) return { status: 404 };
  const bad = checkQuery(q[1], query, body);
  if (bad) return bad;
  const found = [...st.cases.values()].filter((c) => matches(c, q[1], body, st.mainCustomer));
  return { status: 200, body: page(found.map((c) => (q[1] === 'PENDING' ? pendingView(c, today()) : doneView(c))), Number(query.get('pageSize'))) };
}

function handle(st: CbState, req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  const send = (out: CbAnswer) => {
    st.requests.push({ method: req.method ?? '', path: url.pathname.startsWith(API) ? url.pathname.slice(API.length) : url.pathname, headers: req.headers, status: out.status, at: Date.now() });
    if (out.status === 400) st.violations.push(`chargeback ${req.method} ${url.pathname}: ${JSON.stringify(out.body)}`);
    res.writeHead(out.status, out.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' });
    res.end(out.body === undefined ? undefined : JSON.stringify(out.body));
  };
  // The TLS layer refused clients without a certificate; one it did not trust lands here.
  if (!(req.socket as TLSSocket).authorized) return send({ status: 401, body: { error: 'client certificate required' } });
  if (req.method === 'POST' && url.pathname === TOKEN_PATH) return send(token(st, req, raw));
  if (!url.pathname.startsWith(`${API}/`)) return send({ status: 404 });
  const failure = st.failures.shift();
  if (failure) return send({ status: failure, body: cbError(901, 'Não foi possível concluir a requisição. Tente mais tarde!', failure).body });
  const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  const until = bearer ? st.tokens.get(bearer) : undefined;
  if (!until || until < Date.now()) return send({ status: 401, body: { error: 'invalid_token' } });
  send(route(st, req, url.pathname.slice(API.length), url.searchParams, raw));
}

/** POSTs JSON with (or without) the secret header to a loopback receiver; its status. */
function post(url: string, secret: string, body: unknown, o: CbNotifyOptions): Promise<number> {
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('the fake Cielo notifies loopback addresses only');
  const payload = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  const mode = o.secret ?? 'valid';
  if (mode !== 'missing') headers['X-Notification-Secret'] = mode === 'valid' ? secret : `${secret}x`;
  return new Promise((resolve, reject) => {
    const r = (target.protocol === 'https:' ? https : http).request(target, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('error', reject);
    r.end(payload);
  });
}

function openCase(st: CbState, sales: Map<string, Sale>, paymentId: string, o: Parameters<FakeChargebacks['open']>[1] = {}): CbCase {
  const sale = sales.get(paymentId);
  if (!sale) throw new Error(`the fake Cielo has no sale ${paymentId}`);
  const c: CbCase = {
    idCase: Number(digits(8)),
    idChargeback: Number(digits(5)),
    establishmentNumber: st.establishmentNumber,
    paymentId,
    amountCents: sale.amount,
    transactionDate: sale.receivedDate.slice(0, 10),
    tid: o.tidShown === false ? '' : sale.tid,
    nsu: sale.proofOfSale,
    authorization: sale.authorizationCode,
    truncatedCard: sale.maskedNumber,
    referenceNumber: digits(23),
    ro: digits(7),
    terminal: digits(8),
    reasonCode: o.reasonCode ?? '4837',
    reasonDescription: o.reasonDescription ?? 'Transação não reconhecida pelo portador',
    receptionDate: today(),
    treatmentDeadline: today(10),
    status: 'PENDING',
    actionTakenCode: null,
    replyDate: null,
    lifecycle: [],
    answers: [],
  };
  st.cases.set(c.idCase, c);
  return c;
}

/** `server`: the certificate the fake Cielo serves (one CA to trust, CIELO_CA_FILE, as Cielo's hosts share public roots). */
export async function startFakeChargebacks(sales: Map<string, Sale>, violations: string[], secret: string, server: { keyFile: string; certFile: string }): Promise<FakeChargebacks> {
  const client = makeCertificate();
  const st: CbState = { clientId: randomBytes(8).toString('hex'), clientSecret: randomBytes(16).toString('hex'), mainCustomer: digits(10), establishmentNumber: Number(digits(10)), cases: new Map(), requests: [], violations, tokens: new Map(), tokensIssued: 0, failures: [] };
  const httpsServer = https.createServer({ key: readFileSync(server.keyFile), cert: readFileSync(server.certFile), ca: readFileSync(client.certFile), requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(st, req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => httpsServer.listen(0, '127.0.0.1', r));
  const origin = `https://127.0.0.1:${(httpsServer.address() as AddressInfo).port}`;
  const caseOf = (id: number) => {
    const c = st.cases.get(id);
    if (!c) throw new Error(`the fake Cielo has no case ${id}`);
    return c;
  };
  return {
    url: `${origin}${CB_BASE}`,
    tokenUrl: `${origin}${TOKEN_PATH}`,
    clientId: st.clientId,
    clientSecret: st.clientSecret,
    clientCertFile: client.certFile,
    clientKeyFile: client.keyFile,
    mainCustomer: st.mainCustomer,
    establishmentNumber: st.establishmentNumber,
    cases: st.cases,
    requests: st.requests,
    calls: (method, prefix) => st.requests.filter((r) => r.method === method && r.path.startsWith(prefix)),
    tokensIssued: () => st.tokensIssued,
    open: (paymentId, o) => openCase(st, sales, paymentId, o),
    decide(idCase, favour) {
      caseOf(idCase).lifecycle.push({ action: favour === 'merchant' ? 'A favor do Estabelecimento' : 'A favor do Emissor', actionDate: today() });
    },
    notifyCase: (url, idCase, o = {}) => post(url, secret, pendingView(caseOf(idCase), today()), o),
    notifyLifecycle(url, idCase, o = {}) {
      const c = caseOf(idCase);
      return post(url, secret, { establishmentNumber: c.establishmentNumber, caseId: c.idCase, message: c.lifecycle.at(-1)?.action ?? '', executionDate: today(), ActionCicleDate: today() }, o);
    },
    failNext(n, status = 500) {
      for (let i = 0; i < n; i++) st.failures.push(status);
    },
    async close() {
      httpsServer.closeAllConnections();
      await new Promise<void>((r) => httpsServer.close(() => r()));
      rmSync(client.dir, { recursive: true, force: true });
    },
  };
}
