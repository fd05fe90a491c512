// The fake Efí's transport: HTTPS that requires the client certificate, POST /oauth/token (HTTP
// Basic, a JSON body {"grant_type":"client_credentials"}, the application's scopes granted), each
// API request through the misbehaviours queued for it to its route; and the notifications it posts
// to `{webhookUrl}/pix` (the registered URL with /pix appended as a string, as Efí does).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Answer, EfiState } from './types.ts';

export interface Route {
  method: string;
  re: RegExp;
  scope: string;
  handle(m: RegExpMatchArray, body: unknown, req: http.IncomingMessage): Answer | Promise<Answer>;
}

/** Efí's 500 (erro_aplicacao, as its pages show it). */
const appError = { nome: 'erro_aplicacao', mensagem: 'Ocorreu um erro na aplicação (falha simulada)' };

export async function listen(s: EfiState, routes: Route[], cert: { keyFile: string; certFile: string }, clientCa: string): Promise<https.Server> {
  const server = https.createServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile), ca: readFileSync(clientCa), requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer(s, routes, req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s.port = (server.address() as AddressInfo).port;
  return server;
}

/** POST /oauth/token: Basic client credentials and `{"grant_type":"client_credentials"}` in JSON. */
function token(s: EfiState, req: http.IncomingMessage, raw: string): Answer {
  const { clientId, clientSecret, tokenTtl, tokens } = s.auth;
  const auth = String(req.headers.authorization ?? '');
  const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
  const sep = decoded.indexOf(':');
  const [id, secret] = sep < 0 ? ['', ''] : [decodeURIComponent(decoded.slice(0, sep)), decodeURIComponent(decoded.slice(sep + 1))];
  if (id !== clientId || secret !== clientSecret) return { status: 401, body: { error: 'invalid_client', error_description: 'Invalid or inactive credentials' } };
  let body: { grant_type?: unknown; scope?: unknown } | null = null;
  try {
    body = String(req.headers['content-type'] ?? '').startsWith('application/json') ? JSON.parse(raw) : null;
  } catch {
    body = null;
  }
  if (body?.grant_type !== 'client_credentials') return { status: 400, body: { error: 'invalid_request', error_description: 'a JSON body {"grant_type":"client_credentials"} is required' }, broken: true };
  // The application's scopes are granted (chosen in Efí's panel); one asked for beyond them is refused.
  const asked = typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [...s.grantable];
  if (asked.some((x) => !s.grantable.has(x))) return { status: 400, body: { error: 'invalid_scope' } };
  const t = randomBytes(24).toString('base64url');
  tokens.set(t, { scopes: asked, expires: Date.now() + tokenTtl * 1000 });
  s.tokensIssued += 1;
  return { status: 200, body: { access_token: t, token_type: 'Bearer', expires_in: tokenTtl, scope: asked.join(' ') } };
}

type Send = (out: Answer, scopes?: string[] | null, parsed?: unknown) => void;

function sender(s: EfiState, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Send {
  return (out, scopes = null, parsed = null) => {
    s.requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body: parsed, scopes, status: out.status, at: Date.now() });
    if (out.broken) s.violations.push(`${req.method} ${url.pathname}: ${JSON.stringify(out.body)}`);
    if (res.destroyed || out.status === 0) return;
    const isProblem = out.status >= 400 && out.body && typeof out.body === 'object' && 'type' in out.body;
    res.writeHead(out.status, out.body === undefined ? {} : { 'content-type': isProblem ? 'application/problem+json' : 'application/json' });
    res.end(out.body === undefined ? undefined : JSON.stringify(out.body));
  };
}

async function answer(s: EfiState, routes: Route[], req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
  const url = new URL(req.url ?? '/', 'https://localhost');
  const send = sender(s, req, res, url);
  // The TLS layer already refused a client without a certificate this server trusts.
  if (!(req.socket as TLSSocket).authorized) return send({ status: 401, body: { nome: 'nao_autorizado', mensagem: 'certificado ausente' } });
  if (url.pathname === '/oauth/token' && req.method === 'POST') return send(token(s, req, raw));
  let body: unknown;
  if (raw) {
    try {
      body = JSON.parse(raw);
    } catch {
      return send({ status: 400, body: { nome: 'json_invalido', mensagem: 'Valores ou tipos de campo inválidos' }, broken: true });
    }
  }
  const grant = s.auth.tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
  if (!grant || grant.expires < Date.now()) return send({ status: 401, body: { nome: 'nao_autorizado', mensagem: 'token ausente, inválido ou expirado' } }, null, body);
  // Decided when the request arrives: a slow one answered after its client gave up takes nothing queued for later ones.
  const { misbehave } = s;
  const delay = misbehave.delays.shift() ?? s.behaviour.latencyMs;
  const revoked = misbehave.unauthorized > 0;
  if (revoked) misbehave.unauthorized -= 1;
  const at = revoked ? -1 : misbehave.failures.findIndex((f) => !f.pathPrefix || url.pathname.startsWith(f.pathPrefix));
  const failure = at < 0 ? undefined : misbehave.failures.splice(at, 1)[0].status;
  if (delay) await new Promise((r) => setTimeout(r, delay));
  if (revoked) {
    s.auth.tokens.delete(String(req.headers.authorization).replace(/^Bearer /, ''));
    return send({ status: 401, body: { nome: 'nao_autorizado', mensagem: 'token revogado' } }, grant.scopes, body);
  }
  if (failure) return send({ status: failure, body: appError }, grant.scopes, body);
  const route = routes.find((r) => r.method === req.method && r.re.test(url.pathname));
  if (!route) return send({ status: 404, body: { nome: 'nao_encontrado', mensagem: 'Recurso não encontrado' }, broken: true }, grant.scopes, body);
  if (!grant.scopes.includes(route.scope)) return send({ status: 403, body: { nome: 'acesso_negado', mensagem: `escopo ${route.scope} necessário` } }, grant.scopes, body);
  if (req.method === 'PUT' && !String(req.headers['content-type'] ?? '').startsWith('application/json')) return send({ status: 400, body: { nome: 'json_invalido', mensagem: 'content-type deve ser application/json' }, broken: true }, grant.scopes, body);
  const out = await route.handle(url.pathname.match(route.re)!, body, req);
  const drop = misbehave.drops.findIndex((d) => d.method === req.method && url.pathname.startsWith(d.pathPrefix));
  if (drop >= 0 && out.status < 300) {
    // Done here, but the answer is lost: the connection is reset (logged with status 0).
    misbehave.drops.splice(drop, 1);
    send({ status: 0 }, grant.scopes, body);
    req.socket.destroy();
    return;
  }
  send(out, grant.scopes, body);
}

/** Loopback only: the fake never calls anything off this machine. */
export function isLoopback(u: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

/** POSTs `payload` to `{webhookUrl}/pix` (string concatenation, query string and all). Returns the status (0: unreachable). */
export function postTo(webhookUrl: string, payload: unknown): Promise<number> {
  const target = new URL(`${webhookUrl}/pix`);
  if (!isLoopback(target)) return Promise.reject(new Error('the fake Efí calls loopback addresses only'));
  const text = JSON.stringify(payload);
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const r = lib.request(target, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }, timeout: 5000, rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('timeout', () => r.destroy());
    r.on('error', () => resolve(0));
    r.end(text);
  });
}
