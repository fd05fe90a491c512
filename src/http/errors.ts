// One closed error taxonomy and one handler that renders the spec's bodies.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseBusy } from '../db/index.ts';

export interface FieldError {
  field: string;
  message: string;
}

/** Codes carried by 400 bodies. Each one is documented in docs/errors.md. */
export const ErrorCodes = [
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'INVALID_DOCUMENT',
  'INVALID_CURSOR',
  'EMAIL_ALREADY_REGISTERED',
  'CLIENT_ALREADY_EXISTS',
  'CLIENT_ERASED',
  'INVALID_STATE_TRANSITION',
  'IDEMPOTENCY_KEY_REUSED',
  'INSUFFICIENT_BALANCE',
  'INSUFFICIENT_STOCK',
  'REFUND_EXCEEDS_PAID',
  'REFUND_WINDOW_CLOSED',
  'ADVANCE_ALREADY_ACTIVE',
  'PAYMENT_LINK_UNAVAILABLE',
  'INVALID_COUPON',
  'PLAN_UNAVAILABLE',
  'PLAN_FULL',
  'COUPON_ALREADY_EXISTS',
  'SKU_ALREADY_EXISTS',
  'AFFILIATE_PROGRAM_EXISTS',
  'SPLIT_RECIPIENT_NOT_ALLOWED',
  'SPLIT_EXCEEDS_AMOUNT',
] as const;
export type ErrorCode = (typeof ErrorCodes)[number];

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode | null;
  readonly errors: FieldError[];
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, code: ErrorCode | null = null, errors: FieldError[] = [], headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = errors;
    this.headers = headers;
  }
}

export const badRequest = (code: ErrorCode, message: string, errors: FieldError[] = []) => new AppError(400, message, code, errors);
export const validation = (field: string, message: string) => new AppError(400, 'Validation failed', 'VALIDATION_ERROR', [{ field, message }]);
export const unauthorized = (message = 'Unauthorized') => new AppError(401, message);
export const forbidden = (message = 'Forbidden') => new AppError(403, message);
/** 403: an operator deciding on their own account (KYC, advances, withdrawals, fees): another operator must. */
export const ownAccount = () => forbidden('An operator cannot decide on their own account: another operator must');
export const notFound = (what = 'Resource') => new AppError(404, `${what} not found`);
export const conflict = (message: string) => new AppError(409, message);
/** 429 with Retry-After: whole seconds until the window resets, at least 1. */
/** RateLimit-* headers (IETF draft, as @fastify/rate-limit sends them): the limit, what is left, seconds to the reset. */
export function rateLimitHeaders(limit: number, remaining: number, resetMs: number): Record<string, string> {
  return { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(Math.max(0, remaining)), 'RateLimit-Reset': String(Math.max(1, Math.ceil(resetMs / 1000))) };
}

/** 429 for a limit of `limit` per window, `resetMs` before the window resets: Retry-After and RateLimit-* headers. */
export function tooManyRequests(message: string, resetMs: number, limit: number): AppError {
  const headers = rateLimitHeaders(limit, 0, resetMs);
  return new AppError(429, message, null, [], { 'Retry-After': headers['RateLimit-Reset'], ...headers });
}

/**
 * Turns Ajv's errors into the spec's [{ field, message }] list (field as a dotted path), one per
 * field and message. A value that matched no member of a union (`anyOf`) is one error naming what
 * it may be — "must be one of: DAY, WEEK, MONTH" for a union of constants, "must be string or
 * null" for a nullable field — not one "must be equal to constant" per member and then "must match
 * a schema in anyOf".
 */
function fieldErrors(err: FastifyError): FieldError[] {
  const listed = ajvFieldErrors(err);
  const unions = new Set(listed.filter((e) => e.keyword === 'anyOf').map((e) => e.field));
  // A pattern that also bounds the length ("^[A-Z0-9]{3,50}$") fails with the length: the length's
  // message says the problem; the pattern's is given once the length is right.
  const sized = new Set(listed.filter((e) => e.keyword === 'minLength' || e.keyword === 'maxLength').map((e) => e.field));
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const add = (field: string, message: string) => {
    const key = `${field}\n${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ field, message });
  };
  for (const e of listed) {
    if (e.keyword === 'pattern' && sized.has(e.field)) continue;
    if (!unions.has(e.field)) {
      add(e.field, e.message);
      continue;
    }
    if (e.keyword !== 'anyOf') continue;
    const members = listed.filter((m) => m.field === e.field && m.keyword !== 'anyOf');
    const allowed = members.flatMap((m) => m.allowed);
    const types = members.filter((m) => m.keyword === 'type').map((m) => m.type);
    if (allowed.length) add(e.field, `must be one of: ${allowed.join(', ')}`);
    else if (types.length === members.length && types.length) add(e.field, `must be ${types.join(' or ')}`);
    else for (const m of members.length ? members : [e]) add(m.field, m.message);
  }
  return out;
}

function ajvFieldErrors(err: FastifyError) {
  const list = err.validation ?? [];
  return list.map((v) => {
    const params = v.params as Record<string, unknown>;
    const allowed = v.keyword === 'const' ? [params.allowedValue] : v.keyword === 'enum' ? (params.allowedValues as unknown[]) : [];
    const e = { ...fieldError(err, v), keyword: v.keyword, allowed: allowed.map(String), type: String(params.type ?? '') };
    if (v.keyword === 'enum') e.message = `must be one of: ${e.allowed.join(', ')}`;
    if (v.keyword === 'type') e.message = `must be ${e.type.split(',').join(' or ')}`;
    return e;
  });
}

function fieldError(err: FastifyError, v: NonNullable<FastifyError['validation']>[number]): FieldError {
  const params = v.params as Record<string, unknown>;
  let path = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (v.keyword === 'required' && params.missingProperty) path = path ? `${path}.${params.missingProperty}` : String(params.missingProperty);
  // A header is named as it is written (Idempotency-Key), like the errors the hooks give about headers.
  if (err.validationContext === 'headers') path = path.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
  const ctx = err.validationContext && err.validationContext !== 'body' && err.validationContext !== 'headers' ? `${err.validationContext}.` : '';
  if (v.keyword === 'additionalProperties' && params.additionalProperty) {
    const extra = String(params.additionalProperty);
    return { field: ctx + (path ? `${path}.${extra}` : extra), message: 'is not an allowed field' };
  }
  return { field: ctx + (path || (err.validationContext ?? 'body')), message: v.message ?? 'is invalid' };
}

export function errorBody(req: FastifyRequest, message: string, code: string, errors: FieldError[]) {
  return { message, code, timestamp: new Date().toISOString(), path: req.url.split('?')[0], errors };
}

/**
 * Sends an error body with its status, bypassing the route's response schema, plus the
 * origin-compatible `success: false` every error body carries (http/envelope.ts adds it to bodies
 * routes send themselves).
 */
export function sendError(reply: FastifyReply, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  reply.code(status).headers(headers).type('application/json; charset=utf-8');
  return reply.serializer((x: unknown) => JSON.stringify(x)).send({ ...body, success: false });
}

export function installErrorHandling(app: FastifyInstance) {
  // JSON is the only body format: Fastify's built-in text/plain parser would turn a non-JSON body
  // into a 400 schema error instead of the 415 below.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      if (err.status === 400) return sendError(reply, 400, errorBody(req, err.message, err.code ?? 'VALIDATION_ERROR', err.errors), err.headers);
      return sendError(reply, err.status, { message: err.message }, err.headers);
    }
    const fe = err as FastifyError;
    if (fe.validation) return sendError(reply, 400, errorBody(req, 'Validation failed', 'VALIDATION_ERROR', fieldErrors(fe)));
    switch (fe.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 400, errorBody(req, 'Malformed JSON body', 'INVALID_JSON', [{ field: 'body', message: 'is not valid JSON' }]));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 413, { message: 'Request body is too large' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, 415, { message: 'Unsupported content type: send application/json' });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, 400, errorBody(req, 'Invalid Content-Length', 'VALIDATION_ERROR', []));
    }
    if (fe instanceof SyntaxError) {
      return sendError(reply, 400, errorBody(req, 'Malformed JSON body', 'INVALID_JSON', [{ field: 'body', message: 'is not valid JSON' }]));
    }
    if (fe.statusCode === 429) {
      return sendError(reply, 429, { message: fe.message || 'Too many requests' });
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      // Other client errors raised by Fastify itself (e.g. bad URL encoding): plain message, no internals.
      if (fe.statusCode === 400) return sendError(reply, 400, errorBody(req, 'Bad request', 'VALIDATION_ERROR', []));
      return sendError(reply, fe.statusCode, { message: fe.statusCode === 404 ? 'Not found' : 'Request refused' });
    }
    if (databaseBusy(err)) {
      // Not a fault of the request: the database had no connection to give, even after waiting for
      // one (db/index.ts). What the request had committed before stays (a subscription whose first
      // charge could not be issued has it finished by the subscriptions sweep).
      req.log.error({ err }, 'the database refused a connection (busy): answered 503');
      return sendError(reply, 503, { message: 'The service is busy: please try again in a moment' }, { 'Retry-After': '1' });
    }
    req.log.error({ err }, 'unhandled error');
    return sendError(reply, 500, { message: 'Internal server error' });
  });

  app.setNotFoundHandler((req, reply) => sendError(reply, 404, { message: `Route ${req.method} ${req.url.split('?')[0]} not found` }));
}
