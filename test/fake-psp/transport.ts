// The fake PSP's transport: HTTPS that requires a client certificate, the OAuth2 token endpoint, each
// API request through the misbehaviours queued for it to its route; and the notifications it posts.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { isLoopback, problem } from './standard.ts';
import type { Answer, NotifyOptions, PspState } from './types.ts';

/** Starts the HTTPS server on loopback (its port in s.port): a client certificate signed by `clientCa` is required. */
export async function listen(s: PspState, cert: { keyFile: string; certFile: string }, clientCa: string): Promise<https.Server> {
  const httpsServer = https.createServer(
    { key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile), ca: readFileSync(clientCa), requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void answer(s, req, res, Buffer.concat(chunks).toString('utf8')));
    },
  );
  await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
  s.port = (httpsServer.address() as AddressInfo).port;
  return httpsServer;
}

/** POST /oauth/token: client credentials (HTTP Basic), the scopes asked for among those grantable. */
function token(s: PspState, req: http.IncomingMessage, raw: string): Answer {
  const { clientId, clientSecret, tokenTtl, tokens } = s.auth;
  const { grantable } = s;
  const auth = String(req.headers.authorization ?? '');
  const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
  const sep = decoded.indexOf(':');
  const [id, secret] = sep < 0 ? ['', ''] : [decodeURIComponent(decoded.slice(0, sep)), decodeURIComponent(decoded.slice(sep + 1))];
  if (id !== clientId || secret !== clientSecret) return { status: 401, body: { error: 'invalid_client' } };
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return { status: 400, body: { error: 'invalid_request' } };
  const form = new URLSearchParams(raw);
  if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
  const asked = (form.get('scope') ?? [...grantable].join(' ')).split(' ').filter(Boolean);
  if (asked.some((s) => !grantable.has(s))) return { status: 400, body: { error: 'invalid_scope' } };
  const t = randomBytes(24).toString('base64url');
  tokens.set(t, { scopes: asked, expires: Date.now() + tokenTtl * 1000 });
  s.tokensIssued += 1;
  return { status: 200, body: { access_token: t, token_type: 'Bearer', expires_in: tokenTtl, scope: asked.join(' ') } };
}

async function answer(s: PspState, req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
  const { requests, misbehave } = s;
  const { tokens } = s.auth;
  const url = new URL(req.url ?? '/', 'https://localhost');
  const send = (status: number, body?: unknown, scope: string[] | null = null, parsed: unknown = null) => {
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, body: parsed, scope, status, at: Date.now() });
    if (res.destroyed) return;
    const isProblem = status >= 400 && body && typeof body === 'object' && 'type' in body;
    res.writeHead(status, body === undefined ? {} : { 'content-type': isProblem ? 'application/problem+json' : 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  // The TLS layer already refused a client without a certificate this server trusts.
  if (!(req.socket as TLSSocket).authorized) return send(401, { error: 'client certificate required' });
  if (url.pathname === '/oauth/token' && req.method === 'POST') {
    const t = token(s, req, raw);
    return send(t.status, t.body);
  }
  if (!url.pathname.startsWith('/api/v2/')) return send(404, problem('NaoEncontrado', 404, 'Não encontrado').body);
  const path = url.pathname.slice('/api/v2'.length);
  let body: any;
  if (raw) {
    try {
      body = JSON.parse(raw);
    } catch {
      return send(400, problem('RequisicaoInvalida', 400, 'Requisição inválida', 'JSON inválido').body);
    }
  }
  const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const grant = tokens.get(bearer);
  if (!grant || grant.expires < Date.now()) return send(401, problem('AcessoNegado', 401, 'Não autorizado', 'token ausente, inválido ou expirado').body, null, body);
  // What a request meets is decided when it arrives: a slow request answered after its client gave
  // up must not take a misbehaviour queued for a later one.
  const delay = misbehave.delays.shift();
  const revoked = misbehave.unauthorized > 0;
  if (revoked) misbehave.unauthorized -= 1;
  const failure = revoked ? undefined : misbehave.failures.shift();
  if (delay) await new Promise((r) => setTimeout(r, delay));
  if (revoked) {
    tokens.delete(bearer);
    return send(401, problem('AcessoNegado', 401, 'Não autorizado', 'token revogado').body, grant.scopes, body);
  }
  if (failure) return send(failure, problem(failure === 504 ? 'IndisponibilidadePorTempoEsgotado' : failure === 503 ? 'ServicoIndisponivel' : 'ErroInternoDoServidor', failure, 'Falha', 'falha simulada').body, grant.scopes, body);
  const targeted = misbehave.targeted.findIndex((d) => d.method === req.method && (path === d.path || (d.path.endsWith('/') && path.startsWith(d.path))));
  if (targeted >= 0) {
    const [{ status }] = misbehave.targeted.splice(targeted, 1);
    return send(status, problem(status >= 500 ? 'ServicoIndisponivel' : 'OperacaoInvalida', status, 'Falha', 'falha simulada').body, grant.scopes, body);
  }
  const r = s.routes.find((x) => x.method === req.method && x.re.test(path));
  if (!r) return send(404, problem('NaoEncontrado', 404, 'Não encontrado').body, grant.scopes, body);
  if (!grant.scopes.includes(r.scope)) return send(403, problem('AcessoNegado', 403, 'Acesso negado', `escopo ${r.scope} necessário`).body, grant.scopes, body);
  if ((req.method === 'PUT' || req.method === 'PATCH') && !String(req.headers['content-type'] ?? '').startsWith('application/json')) {
    return send(400, problem('RequisicaoInvalida', 400, 'Requisição inválida', 'content-type deve ser application/json').body, grant.scopes, body);
  }
  const out = r.handle(path.match(r.re)!, body, url.searchParams);
  const drop = misbehave.drops.findIndex((d) => d.method === req.method && path.startsWith(d.pathPrefix));
  if (drop >= 0 && out.status < 300) {
    // Done here, but the answer is lost: the connection is reset (logged with status 0).
    misbehave.drops.splice(drop, 1);
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, body, scope: grant.scopes, status: 0, at: Date.now() });
    req.socket.destroy();
    return;
  }
  return send(out.status, out.body, grant.scopes, body);
}

/** POST {webhookUrl}/pix with the items (or a bare array). Returns the receiver's status. */
export function post(s: PspState, chave: string, items: unknown[], bare: boolean): Promise<number> {
  const hook = s.webhooks.get(chave);
  return hook ? postTo(hook.webhookUrl, 'pix', 'pix', items, bare) : Promise.resolve(0);
}

/** POST {webhookUrl}/{suffix} with `{ [list]: items }` (or a bare array). Returns the receiver's status. */
export async function postTo(webhookUrl: string, suffix: string, list: string, items: unknown[], bare: boolean): Promise<number> {
  const target = new URL(webhookUrl.replace(/\/+$/, '') + '/' + suffix);
  if (!isLoopback(target)) throw new Error('the fake PSP calls loopback addresses only');
  const payload = JSON.stringify(bare ? items : { [list]: items });
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = lib.request(target, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('error', reject);
    r.end(payload);
  });
}

/** A pix notification as `o.mode` has it sent (lost, twice, a bare array). */
export async function deliver(s: PspState, chave: string, items: unknown[], o: NotifyOptions = {}) {
  const mode = o.mode ?? 'normal';
  if (mode === 'none') return;
  await post(s, chave, items, mode === 'bare');
  if (mode === 'twice') await post(s, chave, items, false);
}

/** A rec or cobr notification, as the standard's callbacks carry it ({recs} / {cobsr}). */
export async function deliverRecurring(s: PspState, kind: 'rec' | 'cobr', items: unknown[], o: NotifyOptions = {}) {
  const hook = kind === 'rec' ? s.recWebhook : s.cobrWebhook;
  const mode = o.mode ?? 'normal';
  if (!hook || mode === 'none') return;
  const list = kind === 'rec' ? 'recs' : 'cobsr';
  await postTo(hook.webhookUrl, kind, list, items, mode === 'bare');
  if (mode === 'twice') await postTo(hook.webhookUrl, kind, list, items, false);
}
