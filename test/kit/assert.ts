// The spec's error answers, each checked in one place (spec "Errors"; docs/errors.md):
// 400 { message, code, timestamp, path, errors: [{ field, message }] }; every other error only
// { message }; 429 also with Retry-After and RateLimit-* headers.
import assert from 'node:assert/strict';
import type { Res } from '../helpers.ts';

/** A record id (UUID). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The keys of a 400 body, in the order the error handler writes them. */
export const ERROR_400_KEYS = ['message', 'code', 'timestamp', 'path', 'errors'];

/** The fields named by a 400's errors[], each once, sorted. */
export const fieldsOf = (res: Res): string[] => [...new Set<string>(res.body.errors.map((e: { field: string }) => e.field))].sort();

/**
 * A 400 in the spec's body shape with this `code`: a non-empty message, a timestamp, the request's
 * path (`path`: that exact path, or matching the pattern), a non-empty errors[] of { field, message }
 * strings; with `fields`, errors[] names exactly those fields.
 */
export function assert400(res: Res, code: string, fields?: readonly string[], opts: { path?: string | RegExp } = {}) {
  assert.equal(res.status, 400, res.raw);
  assert.deepEqual(Object.keys(res.body), ERROR_400_KEYS, res.raw);
  assert.equal(res.body.code, code, res.raw);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0, res.raw);
  assert.ok(!Number.isNaN(Date.parse(res.body.timestamp)), res.raw);
  assert.equal(typeof res.body.path, 'string');
  assert.ok(res.body.path.startsWith('/') && !res.body.path.includes('?'), `path is the request's path, without the query: ${res.raw}`);
  if (typeof opts.path === 'string') assert.equal(res.body.path, opts.path, res.raw);
  else if (opts.path) assert.match(res.body.path, opts.path, res.raw);
  assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, res.raw);
  for (const e of res.body.errors) {
    assert.equal(typeof e.field, 'string', res.raw);
    assert.equal(typeof e.message, 'string', res.raw);
  }
  if (fields) assert.deepEqual(fieldsOf(res), [...fields].sort(), res.raw);
}

/** 400 VALIDATION_ERROR naming exactly `fields`. */
export function assertValidation(res: Res, fields: readonly string[], opts: { path?: string | RegExp } = {}) {
  assert400(res, 'VALIDATION_ERROR', fields, opts);
}

/** A 400 in the spec's shape with this code whose errors[] name `field` (and maybe others). */
export function assertFieldError(res: Res, field: string, code = 'VALIDATION_ERROR') {
  assert400(res, code);
  assert.ok(
    res.body.errors.some((e: { field: string }) => e.field === field),
    `expected an error on ${field}: ${res.raw}`,
  );
}

/** An error of this status whose body is only { message } (a non-empty string). */
export function assertMessageOnly(res: Res, status: number) {
  assert.equal(res.status, status, res.raw);
  assert.deepEqual(Object.keys(res.body ?? {}), ['message'], res.raw);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0, res.raw);
}

/** 401: credentials missing, wrong, malformed, revoked, or a token that is invalid. */
export const assert401 = (res: Res) => assertMessageOnly(res, 401);
/** 403: the credential lacks the route's permission (or role). */
export const assert403 = (res: Res) => assertMessageOnly(res, 403);
/** 404: unknown, or another merchant's or environment's object. */
export const assert404 = (res: Res) => assertMessageOnly(res, 404);
/** 409: a request with the same Idempotency-Key still in flight, or a conflicting state. */
export const assert409 = (res: Res) => assertMessageOnly(res, 409);

/**
 * 429 { message } with Retry-After (whole seconds, at least 1) and the RateLimit-* headers:
 * nothing remaining, the reset equal to Retry-After.
 */
export function assert429(res: Res) {
  assertMessageOnly(res, 429);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${String(res.headers['retry-after'])}`);
  assert.equal(res.headers['ratelimit-remaining'], '0');
  assert.equal(res.headers['ratelimit-reset'], res.headers['retry-after']);
}
