// The origin-compatible envelope (src/http/envelope.ts), seen from the tests' side. The seed-shape
// tests assert the spec's bodies exactly (`{ message, client }`, `{ message }`, ...); the envelope
// adds `success` and `data` beside them. call() (helpers.ts) checks the envelope of every JSON body
// it receives with envelopeOf and hands the tests the spec's body, so each of those assertions keeps
// meaning "exactly the spec's keys" while every response of the suite is also an envelope check.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';

/** Bodies that are not API answers: the OpenAPI document. */
const UNWRAPPED = new Set(['/openapi.json', '/docs/json']);
const AROUND = new Set(['message', 'pagination', 'meta']);

/**
 * The spec's body inside an enveloped one. Errors: `success: false` and nothing else added. Success:
 * `success: true` and `data`, which is the one resource key's value (an object or a list), else the
 * object of the resource keys, or null when there is only a message; a body whose `data` is its own (the
 * spec's withdrawals, `{ data, meta }`) gets `success` only. Fails on anything else.
 */
export function specBody(url: string, status: number, body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || UNWRAPPED.has(url.split('?')[0])) return body;
  const { success, data, ...rest } = body as Record<string, unknown>;
  const where = `${status} ${url}: ${JSON.stringify(body).slice(0, 300)}`;
  if (status >= 400) {
    assert.equal(success, false, `error body without success: false (${where})`);
    assert.ok(!('data' in body), `error body with data (${where})`);
    return rest;
  }
  // The webhook test and redelivery answers carry their own `success` (the attempt's outcome).
  if (!('data' in body) && typeof success === 'boolean' && 'attempt' in body) return body;
  assert.equal(success, true, `success body without success: true (${where})`);
  assert.ok('data' in body, `success body without data (${where})`);
  const resource = Object.keys(rest).filter((k) => !AROUND.has(k));
  if (resource.length === 0) return data === null ? rest : { ...rest, data };
  // One key holding an object or a list: data is its value; otherwise the object of the keys.
  const picked = Object.fromEntries(resource.map((k) => [k, rest[k]]));
  const single = resource.length === 1 && rest[resource[0]] !== null && typeof rest[resource[0]] === 'object';
  const nullResource = resource.length === 1 && rest[resource[0]] === null && data === null;
  assert.ok(nullResource || isDeepStrictEqual(data, single ? rest[resource[0]] : picked), `data is not ${resource.join(', ')} (${where})`);
  return rest;
}
