// The typed API client: openapi-fetch over the types generated from Cofre's /openapi.json
// (schema.d.ts). Every call goes through the public API, as an integrator's client would:
// - routes that take the dashboard token get it, with the environment in X-Environment;
// - routes that take an API key only (key-routes.ts, generated from the document) get the session's
//   key for the chosen environment: created through POST /api/credentials the first time it is
//   needed, made again if it stops working, revoked at logout (lib/session.ts).
import createClient from 'openapi-fetch';
import { KEY_ONLY_ROUTES } from './key-routes.ts';
import { CODE_MESSAGES, fieldMessage, STATUS_MESSAGES } from './messages.ts';
import type { paths } from './schema.d.ts';
import { session, SESSION_KEY_NAME, type Environment } from '../lib/session.ts';
import { secondFactorAsked, withSecondFactor } from '../lib/second-factor.ts';

export const api = createClient<paths>({ baseUrl: '' });

/** An API error as the screens show it: the message, and the field errors keyed by field path. */
export class ApiError extends Error {
  status: number;
  code: string | undefined;
  fields: Record<string, string>;
  constructor(status: number, message: string, code?: string, fields: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

const OFFLINE = 'Sem conexão com o servidor. Verifique sua internet e tente de novo.';

/** The API's error body (docs/errors.md) as an ApiError. */
export function toApiError(status: number, body: unknown): ApiError {
  const b = (body ?? {}) as { message?: string; code?: string; errors?: { field: string; message: string }[] };
  const fields: Record<string, string> = {};
  for (const e of b.errors ?? []) {
    const field = e.field?.replace(/^(body|querystring)\./, '');
    if (field && !(field in fields)) fields[field] = fieldMessage(field, e.message, b.code);
  }
  const known = (b.code && CODE_MESSAGES[b.code]) || STATUS_MESSAGES[status];
  const message = known ?? `Erro ${status}.`;
  return new ApiError(status, message, b.code, fields);
}

const pendingKeys = new Map<Environment, Promise<string>>();

/** The session's API key for an environment, created on first use (one creation at a time). */
function sessionKey(env: Environment): Promise<string> {
  const stored = session.keys.value[env];
  if (stored) return Promise.resolve(stored.key);
  let pending = pendingKeys.get(env);
  if (!pending) {
    pending = (async () => {
      const headers = new Headers({ 'content-type': 'application/json', authorization: `Bearer ${session.token.value}` });
      const body0 = JSON.stringify({ name: SESSION_KEY_NAME, environment: env === 'production' ? 'PRODUCTION' : 'DEVELOPMENT' });
      const send = (code?: string) => {
        if (code) headers.set('X-Second-Factor', code);
        return fetch('/api/credentials', { method: 'POST', headers, body: body0 });
      };
      // A production key needs the second factor: asked once per session.
      const res = await withSecondFactor(await send(), send);
      const body = await res.json().catch(() => undefined);
      if (res.status === 401) session.expire();
      if (!res.ok) {
        const err = toApiError(res.status, body);
        if (res.status === 403 && env === 'production') err.message = 'Para usar o ambiente de produção, envie seu cadastro (KYC) em Conta e aguarde a aprovação.';
        throw err;
      }
      session.setKey(env, { id: body.credential.id, key: body.key });
      return body.key as string;
    })().finally(() => pendingKeys.delete(env));
    pendingKeys.set(env, pending);
  }
  return pending;
}

/** Puts the right credentials on a request to `METHOD /schema/{path}`. */
async function authorise(headers: Headers, method: string, schemaPath: string): Promise<'key' | 'token'> {
  if (KEY_ONLY_ROUTES.has(`${method.toUpperCase()} ${schemaPath}`)) {
    headers.set('API-Key', await sessionKey(session.env.value));
    return 'key';
  }
  if (session.token.value) headers.set('Authorization', `Bearer ${session.token.value}`);
  headers.set('X-Environment', session.env.value);
  return 'token';
}

const retries = new Map<string, Request>();

api.use({
  async onRequest({ request, schemaPath, id }) {
    const via = await authorise(request.headers, request.method, schemaPath);
    // Kept for a retry: a key's request (the key may be renewed), a token's write (a second factor may be asked).
    if (via === 'key' || request.method !== 'GET') retries.set(id, request.clone());
    return request;
  },
  async onResponse({ response, id }) {
    const again = retries.get(id);
    retries.delete(id);
    if (again && secondFactorAsked(response)) {
      return withSecondFactor(response, (code) => {
        const next = again.clone();
        next.headers.set('X-Second-Factor', code);
        return fetch(next);
      });
    }
    if (response.status !== 401 || !again?.headers.has('API-Key')) {
      if (response.status === 401 && session.token.value) session.expire();
      return response;
    }
    // The session's key was revoked (from another device, or by hand): make a new one, once.
    session.dropKey(session.env.value);
    again.headers.set('API-Key', await sessionKey(session.env.value));
    return fetch(again);
  },
});

/** Awaits an openapi-fetch call: its data, or an ApiError (network failures included). */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let res: { data?: T; error?: unknown; response: Response };
  try {
    res = await call;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(0, OFFLINE);
  }
  if (!res.response.ok) throw toApiError(res.response.status, res.error);
  return res.data as T;
}

/**
 * A GET outside the typed client: routes the generated types do not list yet (the reports, until
 * schema.d.ts is regenerated from a document that has them) and file downloads. Same credentials
 * and errors as the client.
 */
export async function getRaw(path: string, query: Record<string, string | undefined> = {}): Promise<Response> {
  const qs = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1])).toString();
  const headers = new Headers();
  await authorise(headers, 'GET', path);
  let res: Response;
  try {
    res = await fetch(qs ? `${path}?${qs}` : path, { headers });
  } catch {
    throw new ApiError(0, OFFLINE);
  }
  if (res.status === 401 && session.token.value) session.expire();
  if (!res.ok) throw toApiError(res.status, await res.json().catch(() => undefined));
  return res;
}

export async function getUntyped<T>(path: string, query: Record<string, string | undefined>): Promise<T> {
  return (await getRaw(path, query)).json() as Promise<T>;
}

/** Ends the session: revokes its API keys and its token at the API, then forgets them. */
export async function logout(): Promise<void> {
  try {
    await Promise.allSettled(Object.values(session.keys.value).map((k) => k && api.DELETE('/api/credentials/{id}', { params: { path: { id: k.id } } })));
    await api.POST('/api/auth/logout', {});
  } finally {
    session.end();
  }
}

/**
 * After logging in: revokes the session keys earlier dashboard sessions left active (a session that
 * ended without logging out). Another device still logged in makes a new key on its next call.
 */
export async function revokeStaleSessionKeys(): Promise<void> {
  const list = await api.GET('/api/credentials', {});
  const mine = new Set(Object.values(session.keys.value).map((k) => k?.id));
  await Promise.allSettled(
    (list.data?.credentials ?? []).filter((c) => c.name === SESSION_KEY_NAME && !c.revokedAt && !mine.has(c.id)).map((c) => api.DELETE('/api/credentials/{id}', { params: { path: { id: c.id } } })),
  );
}
