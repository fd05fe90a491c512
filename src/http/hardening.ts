// Request hardening that applies to every route, in one place each:
// - the JSON body parser refuses bodies nested deeper than MAX_JSON_DEPTH before anything walks them;
// - strings carrying NUL (\u0000) or a lone UTF-16 surrogate (text no UTF-8 can encode) are refused
//   with a 400 naming the field: PostgreSQL text holds neither, so they would otherwise fail deep
//   inside a query;
// - errors Fastify and Node answer on their own (bad URL encoding, an over-long path parameter,
//   malformed requests, oversized headers, timeouts) are rendered in the gateway's shapes;
// - common security headers on every response.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { AppError, errorBody, sendError, type FieldError } from './errors.ts';

/** Deepest nesting of arrays and objects a JSON body may have (docs/errors.md). */
export const MAX_JSON_DEPTH = 32;

/** Longest path parameter (characters) the router takes (Fastify's default, set explicitly in app.ts); beyond, 414. */
export const MAX_PARAM_LENGTH = 100;

/**
 * True when the JSON text nests arrays/objects deeper than `max`. One pass over the characters,
 * skipping strings (escaped quotes included), so it costs no recursion whatever the input.
 */
export function jsonTooDeep(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/** What is wrong with a string for storage, or null: NUL, or a lone surrogate (not valid Unicode). */
function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (!s.isWellFormed()) return 'must be valid Unicode text (a lone surrogate was found)';
  return null;
}

/** The first string (value or key) in a parsed value that cannot be stored, as a field error with its dotted path. */
export function findBadText(value: unknown, path: string, depth = 0): FieldError | null {
  if (typeof value === 'string') {
    const message = textProblem(value);
    return message ? { field: path, message } : null;
  }
  // Bodies are bounded by the parser; query strings and params are flat. The bound is a backstop.
  if (!value || typeof value !== 'object' || depth > MAX_JSON_DEPTH + 1) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findBadText(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const keyProblem = textProblem(k);
    if (keyProblem) return { field: path || 'body', message: `has a key that ${keyProblem}` };
    const hit = findBadText(v, path ? `${path}.${k}` : k, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** The request's unstorable string, named as validation errors name fields (body paths bare, others prefixed). */
function badTextField(req: FastifyRequest): FieldError | null {
  const bad = findBadText(req.params, 'params') ?? findBadText(req.query, 'querystring') ?? findBadText(req.body, '');
  return bad && !bad.field ? { ...bad, field: 'body' } : bad;
}

/**
 * Whether an API call's query string is valid percent-encoded UTF-8 (the router checks the path's
 * only): the query parser would otherwise read `%C3%28` or `%ZZ` as some other text, or as none.
 * Pages are left to the parser's leniency: a customer's link with `utm_campaign=50%off` still opens.
 */
function wellEncodedQuery(url: string): boolean {
  const at = url.indexOf('?');
  if (at < 0 || !url.startsWith('/api/') || url.indexOf('%', at) < 0) return true;
  try {
    decodeURIComponent(url.slice(at + 1));
    return true;
  } catch {
    return false;
  }
}

/**
 * An API query parameter the route's schema types as an integer must be written in decimal digits:
 * the validator's coercion would otherwise read `limit=0x10` as 16, `1e2` as 100 and `+5` as 5.
 */
function looseInteger(req: FastifyRequest): FieldError | null {
  if (!req.url.startsWith('/api/')) return null;
  const props = (req.routeOptions.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (!props) return null;
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (props[name]?.type === 'integer' && typeof value === 'string' && !/^-?\d+$/.test(value)) return { field: `querystring.${name}`, message: 'must be an integer in decimal digits' };
  }
  return null;
}

/** Security headers every response carries; a route that sets one itself keeps its own. */
function securityHeaders(baseUrl: string): Record<string, string> {
  const hsts = baseUrl.startsWith('https://');
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    // JSON, images and scripts need nothing from a page; pages set their own policy (completed below).
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    ...(hsts ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

export function installHardening(app: FastifyInstance, opts: { baseUrl: string }) {
  // JSON is parsed by Fastify's own parser (prototype-poisoning checks included) once the text is
  // known to be shallow enough: a 3,000-deep array would otherwise overflow the stack of whatever
  // walks it next (validation, the idempotency fingerprint).
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    // An empty body is no body (origin compatibility, docs/compatibility.md): a cancel or delete sent
    // with the JSON content type by a client that always sets it. A route that needs a body still
    // answers 400 VALIDATION_ERROR (its schema refuses undefined).
    if (text.length === 0) return done(null, undefined);
    if (jsonTooDeep(text, MAX_JSON_DEPTH)) {
      done(new AppError(400, 'Malformed JSON body', 'INVALID_JSON', [{ field: 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }]), undefined);
      return;
    }
    parse(req, text, done);
  });

  app.addHook('preValidation', (req, _reply, done) => {
    if (!wellEncodedQuery(req.url)) return done(new AppError(400, 'Malformed URL', 'VALIDATION_ERROR', [{ field: 'url', message: 'is not valid percent-encoding' }]));
    const bad = badTextField(req) ?? looseInteger(req);
    done(bad ? new AppError(400, 'Validation failed', 'VALIDATION_ERROR', [bad]) : undefined);
  });

  const headers = securityHeaders(opts.baseUrl);
  app.addHook('onSend', (_req, reply, payload, done) => {
    for (const [name, value] of Object.entries(headers)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    // A page's own policy still refuses to be framed unless it says otherwise.
    const csp = reply.getHeader('Content-Security-Policy');
    if (typeof csp === 'string' && !/frame-ancestors/i.test(csp)) reply.header('Content-Security-Policy', `${csp}; frame-ancestors 'none'`);
    done(null, payload);
  });
}

/**
 * Fastify constructor options for the errors it answers before any route or error handler runs,
 * rendered in the gateway's shapes (docs/errors.md) and with the security headers (no onSend hook
 * runs for them).
 */
export function frameworkErrorOptions(opts: { baseUrl: string }): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  const headers = securityHeaders(opts.baseUrl);
  const rawHeaders = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return {
    frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
      reply.headers(headers).header('X-Request-Id', req.id);
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendError(reply, 414, { message: `A path segment is longer than ${MAX_PARAM_LENGTH} characters` });
      if (err.code === 'FST_ERR_BAD_URL') return sendError(reply, 400, errorBody(req, 'Malformed URL', 'VALIDATION_ERROR', [{ field: 'url', message: 'is not valid percent-encoding' }]));
      req.log.error({ err }, 'router error');
      return sendError(reply, 500, { message: 'Internal server error' });
    },
    // Node's HTTP parser refused the request (no request object exists): write the answer on the socket.
    clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      let status = 400;
      let body: unknown;
      if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        status = 408;
        body = { message: 'Request timed out' };
      } else if (err.code === 'HPE_HEADER_OVERFLOW') {
        status = 431;
        body = { message: 'Request headers are too large' };
      } else {
        body = { message: 'Malformed HTTP request', code: 'VALIDATION_ERROR', timestamp: new Date().toISOString(), path: '', errors: [] };
      }
      this.log.debug({ err: { code: err.code, message: err.message } }, 'client error');
      if (socket.writable) {
        const text = JSON.stringify({ ...(body as object), success: false });
        const reason = status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
        socket.write(
          `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
            `${rawHeaders}Connection: close\r\n\r\n${text}`,
        );
      }
      socket.destroy();
    },
  };
}
