// Request hardening that holds for every route (src/http/hardening.ts): JSON nesting depth, NUL
// characters, page bounds, errors answered before any route runs (over a real socket, where inject
// cannot reach), security headers, and the public cart-abandonment recovery limit.
import { BOLETO_CSP } from '../src/web/boleto-page.ts';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../src/http/hardening.ts';
import { call, cpf, startApp } from './helpers.ts';
import { assertFieldError } from './kit/assert.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';
import { specBody } from './envelope.ts';

let port: number;
const ctx = useApp();
const m = useMerchant(ctx);
before(async () => {
  await ready(ctx);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});

/** Writes raw bytes on a socket and reads the whole answer (the server closes the connection). */
function rawHttp(request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (c) => (data += c));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      const text = rest.join('\r\n\r\n');
      const status = Number(statusLine.split(' ')[1]);
      resolve({ status, headers, body: text ? specBody('', status, JSON.parse(text)) : undefined });
    });
  });
}

describe('JSON nesting depth', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  test('the scanner counts arrays and objects, not brackets inside strings', () => {
    assert.equal(jsonTooDeep(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false);
    assert.equal(jsonTooDeep(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true);
    assert.equal(jsonTooDeep('{"a":' .repeat(40) + '1' + '}'.repeat(40), MAX_JSON_DEPTH), true);
    assert.equal(jsonTooDeep(JSON.stringify({ a: '['.repeat(500), b: '\\"[[[[' }), MAX_JSON_DEPTH), false);
  });

  test('a 3,000-deep body with an Idempotency-Key is a 400 INVALID_JSON, not a stack overflow', async () => {
    const res = await call(ctx.app, 'POST', '/api/withdraws/0190f0f0-0000-7000-8000-000000000000/cancel', {
      token: m.token,
      raw: nested(3000),
      headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
    });
    assertFieldError(res, 'body', 'INVALID_JSON');
    assert.deepEqual(res.body.errors, [{ field: 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }]);
    const obj = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, raw: '{"name":"x","price":1,"m":' + '{"a":'.repeat(3000) + '1' + '}'.repeat(3001), headers: { 'content-type': 'application/json' } });
    assertFieldError(obj, 'body', 'INVALID_JSON');
  });

  test('up to the limit the body is parsed and validated as usual', async () => {
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'Caneca', amountCents: 1000, clientName: 'Ana', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX', metadata: JSON.parse(nested(MAX_JSON_DEPTH - 1)) },
    });
    assert.notEqual(res.body?.code, 'INVALID_JSON', res.raw);
    assert.ok(res.status < 500, res.raw);
  });
});

describe('NUL characters', () => {
  test('in any string field, key or query parameter: 400 VALIDATION_ERROR naming the field', async () => {
    const N = 'a\u0000b';
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Ingresso', amountCents: 10000 } });
    assert.equal(link.status, 201, link.raw);
    const slug = link.body.paymentLink.slug;
    const pix = { product: 'Caneca', amountCents: 1000, clientName: 'Ana', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' };
    const cases: [string, string, { body?: unknown; key?: string; token?: string }, string][] = [
      ['POST', '/api/auth/login', { body: { email: `x${N}@example.com`, password: 'whatever it is' } }, 'email'],
      ['POST', '/api/auth/register', { body: { name: N, email: 'nul@example.com', password: 'uma senha razoavel' } }, 'name'],
      ['POST', '/api/coupons/validate', { body: { code: N, amountCents: 1000, paymentLinkSlug: slug } }, 'code'],
      ['POST', `/api/payment-links/public/slug/${slug}/checkout`, { body: { clientName: N, clientEmail: 'c@example.com', clientDocument: cpf(), paymentMethod: 'PIX' } }, 'clientName'],
      ['GET', `/api/v1/products?search=${encodeURIComponent(N)}`, { key: m.devKey }, 'querystring.search'],
      ['GET', `/api/clients?search=${encodeURIComponent(N)}`, { key: m.devKey }, 'querystring.search'],
      ['POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: `https://example.com/${N}`, events: ['transaction.created'] } }, 'url'],
      ['POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: 'https://example.com/h', events: ['transaction.created'], description: N } }, 'description'],
      ['POST', '/api/v1/transactions', { key: m.devKey, body: { ...pix, trackingParams: { utm_source: N } } }, 'trackingParams.utm_source'],
      ['POST', '/api/v1/transactions', { key: m.devKey, body: { ...pix, trackingParams: { [N]: 'x' } } }, 'trackingParams'],
      ['POST', '/api/credentials', { token: m.token, body: { name: N, environment: 'DEVELOPMENT' } }, 'name'],
      ['GET', `/api/v1/webhooks/deliveries?eventType=${encodeURIComponent(N)}`, { key: m.devKey }, 'querystring.eventType'],
      ['GET', `/api/v1/products/${encodeURIComponent(N)}`, { key: m.devKey }, 'params.id'],
    ];
    for (const [method, url, opts, field] of cases) {
      const res = await call(ctx.app, method, url, opts);
      assertFieldError(res, field);
      assert.match(res.body.errors[0].message, /^(has a key that )?must not contain the NUL character \(\\u0000\)$/, `${method} ${url}`);
    }
  });

  test('a lone UTF-16 surrogate (text UTF-8 cannot encode) is refused the same way, in values and keys', async () => {
    const lone = '{"email":"a\\ude00@example.com","password":"whatever it is"}';
    const res = await call(ctx.app, 'POST', '/api/auth/login', { raw: lone, headers: { 'content-type': 'application/json' } });
    assertFieldError(res, 'email');
    assert.equal(res.body.errors[0].message, 'must be valid Unicode text (a lone surrogate was found)');
    const key = '{"name":"Loja","email":"k@example.com","password":"uma senha razoavel","\\ud800":1}';
    assertFieldError(await call(ctx.app, 'POST', '/api/auth/register', { raw: key, headers: { 'content-type': 'application/json' } }), 'body');
  });
});

describe('page bounds', () => {
  test('page=Infinity, 1e308 or 2^63 on every page-style list is a 400; the largest page is an empty 200', async () => {
    const lists = ['/api/v1/products', '/api/clients', '/api/v1/coupons', '/api/withdraws', '/api/advances'];
    for (const list of lists) {
      for (const page of ['Infinity', '1e308', '9223372036854776000', '1000001']) {
        const res = await call(ctx.app, 'GET', `${list}?page=${page}`, { key: m.devKey });
        assertFieldError(res, 'querystring.page');
      }
      const last = await call(ctx.app, 'GET', `${list}?page=1000000&limit=100`, { key: m.devKey });
      assert.equal(last.status, 200, `${list}: ${last.raw}`);
    }
  });
});

describe('errors answered before any route runs', () => {
  test('an over-long path parameter: 414 { message }', async () => {
    const res = await rawHttp(`GET /api/v1/products/${'a'.repeat(101)} HTTP/1.1\r\nHost: x\r\napi-key: ${m.devKey}\r\nConnection: close\r\n\r\n`);
    assert.equal(res.status, 414);
    assert.deepEqual(res.body, { message: 'A path segment is longer than 100 characters' });
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.ok(res.headers['x-request-id']);
  });

  test('bad percent-encoding in the path: the 400 body', async () => {
    const res = await rawHttp(`GET /api/v1/products/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body), ['message', 'code', 'timestamp', 'path', 'errors']);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.deepEqual(res.body.errors, [{ field: 'url', message: 'is not valid percent-encoding' }]);
  });

  test('bad percent-encoding in the query string: the same 400, not a query read as other text', async () => {
    for (const query of ['search=%C3%28', 'status=%ZZ', 'search=%E0%A4%A', 'x%=1']) {
      const res = await call(ctx.app, 'GET', `/api/v1/products?${query}`, { key: m.devKey });
      assert.equal(res.status, 400, `${query}: ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(res.body.errors, [{ field: 'url', message: 'is not valid percent-encoding' }]);
    }
    const ok = await call(ctx.app, 'GET', `/api/v1/products?search=${encodeURIComponent('café 100%')}`, { key: m.devKey });
    assert.equal(ok.status, 200, ok.raw);
    // A page opens whatever its tracking parameters hold: a customer's link is not an API call.
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Promo', amountCents: 1000 } });
    assert.equal((await call(ctx.app, 'GET', `/pay/${link.body.paymentLink.slug}?utm_campaign=50%off`)).status, 200);
  });

  test('an integer query parameter is decimal digits: 0x10, 1e2, +5 and 5.0 are 400s, not 16, 100 and 5', async () => {
    for (const limit of ['0x10', '1e2', '+5', '5.0', ' 5', '0b11']) {
      const res = await call(ctx.app, 'GET', `/api/v1/transactions?limit=${encodeURIComponent(limit)}`, { key: m.devKey });
      assert.equal(res.status, 400, `${limit}: ${res.raw}`);
      assert.deepEqual(res.body.errors, [{ field: 'querystring.limit', message: 'must be an integer in decimal digits' }]);
    }
    const ok = await call(ctx.app, 'GET', '/api/v1/transactions?limit=16', { key: m.devKey });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.pagination.limit, 16);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products?page=2&limit=5', { key: m.devKey })).status, 200);
  });

  test('headers over Node\'s limit: 431 { message }', async () => {
    const res = await rawHttp(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.equal(res.status, 431);
    assert.deepEqual(res.body, { message: 'Request headers are too large' });
  });

  test('a request Node cannot parse: the 400 body', async () => {
    for (const bad of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n']) {
      const res = await rawHttp(bad);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(res.body), ['message', 'code', 'timestamp', 'path', 'errors']);
    }
  });

  test('bodies that are not JSON: 415 { message }; broken JSON: 400 INVALID_JSON', async () => {
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded']) {
      const res = await call(ctx.app, 'POST', '/api/auth/login', { raw: 'a=b', headers: { 'content-type': type } });
      assert.equal(res.status, 415, `${type}: ${res.raw}`);
      assert.deepEqual(Object.keys(res.body), ['message']);
    }
    assertFieldError(await call(ctx.app, 'POST', '/api/auth/login', { raw: '{"email":', headers: { 'content-type': 'application/json' } }), 'body', 'INVALID_JSON');
    assertFieldError(await call(ctx.app, 'POST', '/api/auth/login', { raw: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } }), 'body', 'INVALID_JSON');
  });
});

describe('security headers', () => {
  test('JSON answers, errors and the boleto page carry nosniff, Referrer-Policy and refuse framing; no HSTS over http', async () => {
    const boleto = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'Curso', amountCents: 5000, clientName: 'Ana', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'BOLETO' },
    });
    assert.equal(boleto.status, 201, boleto.raw);
    const answers = {
      json: await call(ctx.app, 'GET', '/api/v1/products', { key: m.devKey }),
      error: await call(ctx.app, 'GET', '/api/v1/products'),
      notFound: await call(ctx.app, 'GET', '/nowhere'),
      boleto: await call(ctx.app, 'GET', `/boleto/${boleto.body.transaction.id}`),
    };
    for (const [what, res] of Object.entries(answers)) {
      assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
      assert.ok(res.headers['referrer-policy'], what);
      assert.equal(res.headers['x-frame-options'], 'DENY', what);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, what);
      assert.equal(res.headers['strict-transport-security'], undefined, what);
    }
    assert.ok(String(answers.boleto.headers['content-security-policy']).startsWith(BOLETO_CSP), 'the page keeps its own policy');
  });

  test('with an https BASE_URL every answer carries Strict-Transport-Security', async () => {
    const https = await startApp({ env: { BASE_URL: 'https://pay.example.com' } });
    try {
      for (const url of ['/health', '/nowhere']) {
        const res = await call(https.app, 'GET', url);
        assert.equal(res.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', url);
      }
    } finally {
      await https.close();
    }
  });
});

describe('public cart-abandonment recovery', () => {
  test('is limited per IP: the 11th in a minute is 429', async () => {
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Ingresso', amountCents: 10000 } });
    const url = `/api/payment-links/public/slug/${link.body.paymentLink.slug}/cart-abandonment/recover`;
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await call(ctx.app, 'POST', url, { body: { clientEmail: `guess${i}@example.com` } })).status);
    assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
  });
});
