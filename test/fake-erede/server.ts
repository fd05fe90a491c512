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
//   - the token service (/token-service/oauth/v2: tokenisation, its status, cryptograms, sales with
//     cardToken): sources in vault.ts.
// HTTPS on loopback with its own certificate (trusted through EREDE_CA_FILE). Every request is
// checked: the bearer token (issued here, unexpired), the JSON content type, each field's presence,
// size and format with e.Rede's codes, amounts against what was authorised. It misbehaves on demand:
// 5xx answers, an answer lost after the sale was made, slow answers, a 401 for a valid token.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeCertificate } from '../webhook-receiver.ts';
import type { Sale } from './routes.ts';
import { API, handle, type FakeState, type Logged } from './transport.ts';
import { TOKEN_API, type KeptCard } from './vault.ts';

export type { Logged } from './transport.ts';

export interface FakeErede {
  apiUrl: string;
  tokenUrl: string;
  /** EREDE_TOKEN_SERVICE_URL: the host before /token-service/oauth/v2. */
  tokenServiceUrl: string;
  /** Cards kept by the token service, by tokenizationId. */
  keptCards: Map<string, KeptCard>;
  /** Queries a new token answers Pending before it turns Active (0: Active at once). */
  tokensPendingFor: number;
  /** Another PV served by this fake (its own client id and key). */
  addMerchant(): { clientId: string; clientSecret: string };
  caFile: string;
  clientId: string;
  clientSecret: string;
  sales: Map<string, Sale>;
  requests: Logged[];
  tokensIssued: number;
  /** Sales made under a reference (a reference is refused a second sale, so at most one). */
  salesWith(reference: string): Sale[];
  calls(method: string, pathPrefix?: string): Logged[];
  /** The next n API calls (of `method`, when given) answer `status` (5xx) before doing anything. */
  failNext(n: number, status?: number, method?: string): void;
  /** The next call matching is done, then its connection is cut: the answer never arrives (a prefix under /token-service is taken whole). */
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

export async function startFakeErede(opts: { tokenTtlSeconds?: number } = {}): Promise<FakeErede> {
  const cert = makeCertificate();
  const pv = () => String(10_000_000 + (randomBytes(3).readUIntBE(0, 3) % 89_999_999));
  const clientId = pv();
  const clientSecret = randomBytes(16).toString('hex');
  const s: FakeState = {
    clientId,
    clientSecret,
    merchants: new Map([[clientId, clientSecret]]),
    tokenTtl: opts.tokenTtlSeconds ?? 1440,
    tokens: new Map(),
    tokensIssued: 0,
    store: { sales: new Map(), byReference: new Map(), refundsPending: false, softDescriptorEnabled: true, vault: { cards: new Map(), pendingQueries: 0 } },
    requests: [],
    misbehave: { failures: [], delays: [], drops: [], unauthorized: 0 },
  };
  const server = https.createServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(s, req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(cert.dir, { recursive: true, force: true });
  };
  const addMerchant = () => {
    const merchant = { clientId: pv(), clientSecret: randomBytes(16).toString('hex') };
    s.merchants.set(merchant.clientId, merchant.clientSecret);
    return merchant;
  };
  const base = `https://localhost:${port}`;
  return face(s, { apiUrl: `${base}/erede`, tokenUrl: `${base}/redelabs/oauth2/token`, tokenServiceUrl: base, caFile: cert.certFile, close, addMerchant });
}

/** What a test sees of the fake and can make it do (one object: its getters read the live state). */
function face(s: FakeState, where: Pick<FakeErede, 'apiUrl' | 'tokenUrl' | 'tokenServiceUrl' | 'caFile' | 'close' | 'addMerchant'>): FakeErede {
  const { store, misbehave } = s;
  const at = (prefix: string) => (prefix.startsWith(TOKEN_API) ? prefix : `${API}${prefix}`);
  return {
    ...where,
    clientId: s.clientId,
    clientSecret: s.clientSecret,
    sales: store.sales,
    requests: s.requests,
    get tokensIssued() {
      return s.tokensIssued;
    },
    salesWith: (reference) => [...store.sales.values()].filter((x) => x.reference === reference),
    keptCards: store.vault.cards,
    get tokensPendingFor() {
      return store.vault.pendingQueries;
    },
    set tokensPendingFor(n) {
      store.vault.pendingQueries = n;
    },
    calls: (method, prefix = '') => s.requests.filter((r) => r.method === method && r.path.startsWith(at(prefix)) && r.status !== 401),
    failNext(n, status = 500, method) {
      for (let i = 0; i < n; i++) misbehave.failures.push({ status, method });
    },
    dropAnswer(method, prefix = '') {
      misbehave.drops.push({ method, prefix: at(prefix) });
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
      for (const sale of store.sales.values()) for (const r of sale.refunds) if (r.refundId === refundId) r.status = status;
    },
  };
}
