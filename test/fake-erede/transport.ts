// The fake e.Rede's transport: the OAuth2 token endpoint, then each API request through the bearer
// check, the misbehaviours queued for it, the JSON checks, to its route (routes.ts).
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { capture, createSale, findSale, refund, refundsOf, type Reply, type Store } from './routes.ts';
import { TOKEN_API, vaultRoute } from './vault.ts';

export const API = '/erede/v2/transactions';

export interface Logged {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The body with cardNumber and securityCode masked (the fake keeps no card data either). */
  body: Record<string, unknown> | null;
  status: number;
}

export interface FakeState {
  clientId: string;
  clientSecret: string;
  /** Every PV this fake serves (client id -> integration key): the first is clientId's. */
  merchants: Map<string, string>;
  tokenTtl: number;
  /** Bearer tokens issued: until when, and to which PV. */
  tokens: Map<string, { until: number; pv: string }>;
  tokensIssued: number;
  store: Store;
  requests: Logged[];
  misbehave: { failures: Array<{ status: number; method?: string }>; delays: number[]; drops: Array<{ method: string; prefix: string }>; unauthorized: number };
}

/** POST /redelabs/oauth2/token: HTTP Basic with the PV and the integration key, form-encoded client_credentials. */
function token(s: FakeState, req: http.IncomingMessage, raw: string): Reply {
  const auth = String(req.headers.authorization ?? '');
  const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
  const [pv, secret] = [decoded.slice(0, decoded.indexOf(':')), decoded.slice(decoded.indexOf(':') + 1)];
  if (!pv || s.merchants.get(pv) !== secret) return { status: 401, body: { error: 'invalid_client' } };
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return { status: 400, body: { error: 'invalid_request' } };
  if (new URLSearchParams(raw).get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
  const t = randomBytes(24).toString('base64url');
  s.tokens.set(t, { until: Date.now() + s.tokenTtl * 1000, pv });
  s.tokensIssued += 1;
  return { status: 200, body: { access_token: t, token_type: 'Bearer', expires_in: s.tokenTtl, scope: 'erede' } };
}

function route(store: Store, pv: string, method: string, url: URL, body: Record<string, unknown>): Reply {
  if (url.pathname.startsWith(TOKEN_API)) return vaultRoute(store.vault, pv, method, url.pathname, body);
  const rest = url.pathname.slice(API.length);
  const tid = /^\/(\d+)/.exec(rest)?.[1] ?? null;
  if (method === 'POST' && rest === '') return createSale(store, pv, body);
  if (method === 'GET' && rest === '') return findSale(store, null, url.searchParams.get('reference'));
  if (method === 'GET' && tid && rest === `/${tid}`) return findSale(store, tid, null);
  if (method === 'PUT' && tid && rest === `/${tid}`) return capture(store, tid, body);
  if (method === 'POST' && tid && rest === `/${tid}/refunds`) return refund(store, tid, body);
  if (method === 'GET' && tid && rest === `/${tid}/refunds`) return refundsOf(store, tid);
  return { status: 404, body: { returnCode: '78', returnMessage: 'Transaction does not exist' } };
}

const masked = (b: Record<string, unknown> | null) =>
  b ? { ...b, ...('cardNumber' in b ? { cardNumber: '****' } : {}), ...('securityCode' in b ? { securityCode: '***' } : {}), ...('tokenCryptogram' in b ? { tokenCryptogram: '***' } : {}) } : null;

/** One request, answered (or its answer dropped) and logged. */
export async function handle(s: FakeState, req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  const method = req.method ?? '';
  const { misbehave } = s;
  let parsed: Record<string, unknown> | null = null;
  const send = (reply: Reply) => {
    s.requests.push({ method, path: url.pathname, query: url.searchParams, body: masked(parsed), status: reply.status });
    if (res.destroyed || reply.status === 0) return;
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.body));
  };
  if (method === 'POST' && url.pathname === '/redelabs/oauth2/token') return send(token(s, req, raw));
  if (!url.pathname.startsWith(API) && !url.pathname.startsWith(TOKEN_API)) return send({ status: 404, body: { returnCode: '78', returnMessage: 'Not found' } });
  const bearer = s.tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
  if (!bearer || bearer.until <= Date.now() || (misbehave.unauthorized > 0 && misbehave.unauthorized--)) return send({ status: 401, body: { error: 'invalid_token' } });
  const delay = misbehave.delays.shift();
  if (delay) await sleep(delay);
  if (method === 'POST' || method === 'PUT') {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return send({ status: 415, body: { returnCode: '169', returnMessage: 'Invalid Content-Type' } });
    try {
      parsed = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send({ status: 400, body: { returnCode: '167', returnMessage: 'Invalid request JSON' } });
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return send({ status: 400, body: { returnCode: '167', returnMessage: 'Invalid request JSON' } });
  }
  const failing = misbehave.failures.findIndex((f) => !f.method || f.method === method);
  if (failing >= 0) {
    const [failure] = misbehave.failures.splice(failing, 1);
    return send({ status: failure.status, body: { returnCode: '899', returnMessage: 'Unsuccessful. Please contact Rede.' } });
  }
  const reply = route(s.store, bearer.pv, method, url, parsed ?? {});
  const drop = misbehave.drops.findIndex((d) => d.method === method && url.pathname.startsWith(d.prefix));
  if (drop < 0) return send(reply);
  // Done, then the connection cut: the answer never arrives.
  misbehave.drops.splice(drop, 1);
  send({ status: 0, body: null });
  res.destroy();
}
