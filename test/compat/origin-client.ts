// An origin-style API client for the compatibility suite: plain fetch against a listening app, the
// way integration code written for the origin gateway talks to it. It always sends
// `Content-Type: application/json` (with or without a body), authenticates with the API-Key header,
// and reads answers from `success` and `data`, never from the spec's named keys.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { merchant, startApp, type Merchant, type StartOptions, type TestContext } from '../helpers.ts';

export interface Origin {
  ctx: TestContext;
  base: string;
  close(): Promise<void>;
}

export async function startOrigin(opts: StartOptions = {}): Promise<Origin> {
  const ctx = await startApp(opts);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  assert.ok(address && typeof address === 'object');
  return { ctx, base: `http://127.0.0.1:${address.port}`, close: () => ctx.close() };
}

/**
 * A test file's gateway: started before its tests with two merchants (`m`, and `other` for
 * isolation checks), handed to `use`, and closed after them.
 */
export function useOrigin(use: (s: { o: Origin; m: Merchant; other: Merchant }) => void) {
  let o: Origin;
  before(async () => {
    o = await startOrigin();
    use({ o, m: await merchant(o.ctx.app), other: await merchant(o.ctx.app) });
  });
  after(() => o.close());
}

export interface Answer {
  status: number;
  json: any;
  text: string;
  headers: Headers;
}

export async function send(
  o: Origin,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string>; ip?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', ...opts.headers };
  if (opts.key) headers['API-Key'] = opts.key;
  const res = await fetch(o.base + path, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** What an origin client does with a success: checks `success` and takes `data`. */
export function data(a: Answer, status = 200): any {
  assert.equal(a.status, status, a.text);
  assert.equal(a.json?.success, true, a.text);
  assert.ok('data' in a.json, a.text);
  return a.json.data;
}

/** What an origin client does with an error: `success` is false, `message` says why. */
export function failure(a: Answer, status: number, code?: string): any {
  assert.equal(a.status, status, a.text);
  assert.equal(a.json?.success, false, a.text);
  assert.equal(typeof a.json.message, 'string', a.text);
  if (code) assert.equal(a.json.code, code, a.text);
  return a.json;
}

/** An error naming this field (400 bodies list `errors: [{field, message}]`). */
export function failureOn(a: Answer, code: string, field: string): any {
  const body = failure(a, 400, code);
  assert.ok(body.errors.some((e: { field: string }) => e.field === field), `expected an error on ${field}: ${a.text}`);
  return body;
}
