// A fake e.Rede (Rede's e-commerce card API, v2 with OAuth2) for the tests, written from e.Rede's
// public reference:
//   - Manual de Integração e.Rede, 2026 edition:
//     https://developer.userede.com.br/files/traducoes/erede/e-rede-24032026.pdf: endpoints
//     POST/GET /v2/transactions, GET ?reference=, PUT /v2/transactions/{tid} (capture),
//     POST and GET /v2/transactions/{tid}/refunds; fields capture, kind, reference (up to 16
//     alphanumerics), amount (cents, up to 10 digits), installments (2 to 12, absent = à vista),
//     cardHolderName (up to 30), cardNumber, expirationMonth, expirationYear, securityCode,
//     softDescriptor (up to 18); answers reference, tid, nsu, authorizationCode, returnCode,
//     returnMessage; query: authorization.status Approved / Denied / Canceled / Pending, capture,
//     refunds (refundId, amount, status, refundDateTime); refund codes 359 / 360 / 355 / 358 / 365.
//   - OAuth2 since January 2026 (PV = client id, integration key = client secret, Basic auth, form
//     grant_type=client_credentials, token endpoint /redelabs/oauth2/token, Bearer on every call):
//     https://mayconbraga.com.br/blog/conteudo/mudancas-na-api-da-erede-migracao-obrigatoria-para-oauth-20-ate-05-01-2026
//     and Rede's SDK https://github.com/DevelopersRede/erede-php (OAuth in its v2 line,
//     https://github.com/silbeckdevs/erede-php src/Rede/Service/OAuthService.php).
//   - returnCode tables (integration codes 1-1034, issuer codes 101-124):
//     https://ajuda.zoop.com.br/hc/pt-br/articles/4407602751131-Captura-online-erros-transacionais
//     and the SDK's Transaction/Authorization/Refund models (github.com/DevelopersRede/erede-php).
// HTTPS on loopback with its own certificate (trusted through EREDE_CA_FILE). Every request is
// checked: the bearer token (issued here, unexpired), the JSON content type, each field's presence,
// size and format with e.Rede's codes, amounts against what was authorised. It misbehaves on demand:
// 5xx answers, an answer lost after the sale was made, slow answers, a 401 for a valid token.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeCertificate } from '../webhook-receiver.ts';
import { capture, createSale, findSale, refund, refundsOf, type Reply, type Sale, type Store } from './routes.ts';

export interface Logged {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The body with cardNumber and securityCode masked (the fake keeps no card data either). */
  body: Record<string, unknown> | null;
  status: number;
}

export interface FakeErede {
  apiUrl: string;
  tokenUrl: string;
  caFile: string;
  clientId: string;
  clientSecret: string;
  sales: Map<string, Sale>;
  requests: Logged[];
  tokensIssued: number;
  /** Sales made under a reference (a reference is refused a second sale, so at most one). */
  salesWith(reference: string): Sale[];
  calls(method: string, pathPrefix?: string): Logged[];
  /** The next n API calls answer `status` (5xx) before doing anything. */
  failNext(n: number, status?: number): void;
  /** The next call matching is done, then its connection is cut: the answer never arrives. */
  dropAnswer(method: string, pathPrefix?: string): void;
  /** The next n API calls wait `ms` before being handled. */
  delayNext(n: number, ms: number): void;
  /** The next API call is answered 401 although its token is valid (as after e.Rede revoked it). */
  unauthorizedOnce(): void;
  refundsPending: boolean;
  softDescriptorEnabled: boolean;
  /** Decides a refund e.Rede only received (360). */
  decideRefund(refundId: string, status: 'Done' | 'Denied'): void;
  close(): Promise<void>;
}

const API = '/erede/v2/transactions';

export async function startFakeErede(opts: { tokenTtlSeconds?: number } = {}): Promise<FakeErede> {
  const cert = makeCertificate();
  const clientId = String(10_000_000 + (randomBytes(3).readUIntBE(0, 3) % 89_999_999));
  const clientSecret = randomBytes(16).toString('hex');
  const tokens = new Map<string, number>();
  const store: Store = { sales: new Map(), byReference: new Map(), refundsPending: false, softDescriptorEnabled: true };
  const requests: Logged[] = [];
  const misbehave = { failures: [] as number[], delays: [] as number[], drops: [] as Array<{ method: string; prefix: string }>, unauthorized: 0 };
  let tokensIssued = 0;

  const token = (req: http.IncomingMessage, raw: string): Reply => {
    const auth = String(req.headers.authorization ?? '');
    const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
    if (decoded !== `${clientId}:${clientSecret}`) return { status: 401, body: { error: 'invalid_client' } };
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return { status: 400, body: { error: 'invalid_request' } };
    if (new URLSearchParams(raw).get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
    const t = randomBytes(24).toString('base64url');
    const ttl = opts.tokenTtlSeconds ?? 1440;
    tokens.set(t, Date.now() + ttl * 1000);
    tokensIssued += 1;
    return { status: 200, body: { access_token: t, token_type: 'Bearer', expires_in: ttl, scope: 'erede' } };
  };

  const route = (method: string, url: URL, body: Record<string, unknown>): Reply => {
    const rest = url.pathname.slice(API.length);
    const tid = /^\/(\d+)/.exec(rest)?.[1] ?? null;
    if (method === 'POST' && rest === '') return createSale(store, body);
    if (method === 'GET' && rest === '') return findSale(store, null, url.searchParams.get('reference'));
    if (method === 'GET' && tid && rest === `/${tid}`) return findSale(store, tid, null);
    if (method === 'PUT' && tid && rest === `/${tid}`) return capture(store, tid, body);
    if (method === 'POST' && tid && rest === `/${tid}/refunds`) return refund(store, tid, body);
    if (method === 'GET' && tid && rest === `/${tid}/refunds`) return refundsOf(store, tid);
    return { status: 404, body: { returnCode: '78', returnMessage: 'Transaction does not exist' } };
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const method = req.method ?? '';
    let parsed: Record<string, unknown> | null = null;
    const send = (reply: Reply) => {
      const masked = parsed ? { ...parsed, ...('cardNumber' in parsed ? { cardNumber: '****' } : {}), ...('securityCode' in parsed ? { securityCode: '***' } : {}) } : null;
      requests.push({ method, path: url.pathname, query: url.searchParams, body: masked, status: reply.status });
      if (res.destroyed) return;
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    };
    if (method === 'POST' && url.pathname === '/redelabs/oauth2/token') return send(token(req, raw));
    if (!url.pathname.startsWith(API)) return send({ status: 404, body: { returnCode: '78', returnMessage: 'Not found' } });
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!((tokens.get(bearer) ?? 0) > Date.now()) || (misbehave.unauthorized > 0 && misbehave.unauthorized--)) return send({ status: 401, body: { error: 'invalid_token' } });
    const delay = misbehave.delays.shift();
    if (delay) await sleep(delay);
    const failure = misbehave.failures.shift();
    if (failure) return send({ status: failure, body: { returnCode: '899', returnMessage: 'Unsuccessful. Please contact Rede.' } });
    if (method === 'POST' || method === 'PUT') {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return send({ status: 415, body: { returnCode: '169', returnMessage: 'Invalid Content-Type' } });
      try {
        parsed = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return send({ status: 400, body: { returnCode: '167', returnMessage: 'Invalid request JSON' } });
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return send({ status: 400, body: { returnCode: '167', returnMessage: 'Invalid request JSON' } });
    }
    const reply = route(method, url, parsed ?? {});
    const drop = misbehave.drops.findIndex((d) => d.method === method && url.pathname.startsWith(d.prefix));
    if (drop >= 0) {
      misbehave.drops.splice(drop, 1);
      send({ status: 0, body: null });
      res.destroy();
      return;
    }
    send(reply);
  };

  const server = https.createServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    apiUrl: `https://localhost:${port}/erede`,
    tokenUrl: `https://localhost:${port}/redelabs/oauth2/token`,
    caFile: cert.certFile,
    clientId,
    clientSecret,
    sales: store.sales,
    requests,
    get tokensIssued() {
      return tokensIssued;
    },
    salesWith: (reference) => [...store.sales.values()].filter((s) => s.reference === reference),
    calls: (method, prefix = '') => requests.filter((r) => r.method === method && r.path.startsWith(`${API}${prefix}`) && r.status !== 401),
    failNext(n, status = 500) {
      for (let i = 0; i < n; i++) misbehave.failures.push(status);
    },
    dropAnswer(method, prefix = '') {
      misbehave.drops.push({ method, prefix: `${API}${prefix}` });
    },
    delayNext(n, ms) {
      for (let i = 0; i < n; i++) misbehave.delays.push(ms);
    },
    unauthorizedOnce() {
      misbehave.unauthorized += 1;
    },
    get refundsPending() {
      return store.refundsPending;
    },
    set refundsPending(v) {
      store.refundsPending = v;
    },
    get softDescriptorEnabled() {
      return store.softDescriptorEnabled;
    },
    set softDescriptorEnabled(v) {
      store.softDescriptorEnabled = v;
    },
    decideRefund(refundId, status) {
      for (const s of store.sales.values()) for (const r of s.refunds) if (r.refundId === refundId) r.status = status;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(cert.dir, { recursive: true, force: true });
    },
  };
}
