// The HTTP contract shared by every route: error bodies, limits, request ids, compression, logs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { call, cpf, dropSchema, merchant, startApp, uniqueEmail } from './helpers.ts';
import { useApp } from './kit/app.ts';

const ctx = useApp();

const ISO = (s: unknown) => typeof s === 'string' && !Number.isNaN(Date.parse(s));

describe('request bodies', () => {
  test('malformed JSON -> 400 INVALID_JSON with the spec\'s body', async () => {
    for (const raw of ['{"name": "Loja", ', '{bad json}', 'null,']) {
      const res = await call(ctx.app, 'POST', '/api/auth/register', { raw, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, raw);
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'errors', 'message', 'path', 'timestamp']);
      assert.equal(res.body.code, 'INVALID_JSON');
      assert.equal(typeof res.body.message, 'string');
      assert.ok(ISO(res.body.timestamp));
      assert.equal(res.body.path, '/api/auth/register');
      assert.ok(Array.isArray(res.body.errors));
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
  });

  test('malformed JSON on an authenticated route is also INVALID_JSON, with the path and no query string', async () => {
    const m = await merchant(ctx.app);
    const res = await call(ctx.app, 'POST', '/api/v1/products?x=1', { key: m.devKey, raw: '{"name":', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'INVALID_JSON');
    assert.equal(res.body.path, '/api/v1/products');
  });

  test('a body over 1 MB -> 413 {message}', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(1024 * 1024), email: uniqueEmail(), password: 'segredo123' });
    const res = await call(ctx.app, 'POST', '/api/auth/register', { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 413);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert.ok(res.headers['x-request-id']);
    // Just under the limit is parsed (and then refused by the schema, not by size).
    const under = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 100) });
    const ok = await call(ctx.app, 'POST', '/api/auth/register', { raw: under, headers: { 'content-type': 'application/json' } });
    assert.equal(ok.status, 400);
  });

  test('a non-JSON content type on a POST route -> 415 {message}', async () => {
    const m = await merchant(ctx.app);
    const cases: Array<[string, string, string, Record<string, string>]> = [
      ['/api/auth/register', 'text/plain', 'name=Loja', {}],
      ['/api/auth/register', 'application/x-www-form-urlencoded', 'name=Loja&email=a%40b.co&password=segredo123', {}],
      ['/api/v1/products', 'text/plain', '{"name":"Camiseta","price":4990}', { 'api-key': m.devKey }],
      ['/api/v1/products', 'application/x-www-form-urlencoded', 'name=Camiseta&price=4990', { 'api-key': m.devKey }],
      ['/api/clients', 'application/xml', '<client/>', { 'api-key': m.devKey }],
    ];
    for (const [url, type, raw, headers] of cases) {
      const res = await call(ctx.app, 'POST', url, { raw, headers: { ...headers, 'content-type': type } });
      assert.equal(res.status, 415, `${type} on ${url}: ${res.status} ${res.raw}`);
      assert.deepEqual(Object.keys(res.body), ['message']);
    }
    // Nothing was created.
    const list = await call(ctx.app, 'GET', '/api/v1/products', { key: m.devKey });
    assert.equal(list.body.products.length, 0);
    // application/json with a charset is fine.
    const ok = await call(ctx.app, 'POST', '/api/v1/products', {
      key: m.devKey,
      raw: JSON.stringify({ name: 'Camiseta', price: 4990 }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(ok.status, 201, ok.raw);
  });
});

describe('validation errors: one per field and problem (docs/errors.md)', () => {
  test('a value outside a fixed set, a wrong type for a nullable field, a code too short for its pattern', async () => {
    const m = await merchant(ctx.app);
    const tx = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'Caneca', amountCents: 1000, clientName: 'Ana Lima', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'BITCOIN' },
    });
    assert.equal(tx.status, 400, tx.raw);
    assert.deepEqual(tx.body.errors, [{ field: 'paymentMethod', message: 'must be one of: PIX, CARD, BOLETO' }]);
    const product = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Caneca', price: 1000, description: 42 } });
    assert.deepEqual(product.body.errors, [{ field: 'description', message: 'must be string or null' }]);
    const coupon = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'AB', discountType: 'PERCENTAGE', discountValue: 10 } });
    assert.deepEqual(coupon.body.errors, [{ field: 'code', message: 'must NOT have fewer than 3 characters' }]);
    // Both problems when there are two: a length that fits and characters that do not.
    const chars = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'AB!C', discountType: 'PERCENTAGE', discountValue: 10 } });
    assert.equal(chars.body.errors.length, 1, chars.raw);
    assert.match(chars.body.errors[0].message, /must match pattern/);
  });
});

describe('routing and request ids', () => {
  test('an unknown route -> 404 {message}', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/nothing-here'],
      ['POST', '/api/v2/products'],
      ['GET', '/index.html'],
      ['PUT', '/api/v1/products'],
    ] as const) {
      const res = await call(ctx.app, method, url);
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.deepEqual(Object.keys(res.body), ['message']);
      assert.ok(res.headers['x-request-id']);
    }
  });

  test('every response carries X-Request-Id, unique per request', async () => {
    const m = await merchant(ctx.app);
    const responses = [
      await call(ctx.app, 'GET', '/health'),
      await call(ctx.app, 'GET', '/api/v1/products', { key: m.devKey }),
      await call(ctx.app, 'GET', '/api/v1/products'), // 401
      await call(ctx.app, 'POST', '/api/auth/register', { body: {} }), // 400
      await call(ctx.app, 'GET', '/nope'), // 404
      await call(ctx.app, 'POST', '/api/auth/register', { raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), // 415
      await call(ctx.app, 'GET', '/openapi.json'),
    ];
    const ids = responses.map((r) => r.headers['x-request-id']);
    for (const [i, id] of ids.entries()) assert.equal(typeof id, 'string', `response ${i} (${responses[i]!.status}) has no X-Request-Id`);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('a well-formed incoming X-Request-Id is echoed; a malformed one is replaced', async () => {
    const given = 'req-2026.abc_DEF:123';
    const ok = await call(ctx.app, 'GET', '/health', { headers: { 'x-request-id': given } });
    assert.equal(ok.headers['x-request-id'], given);
    const notFound = await call(ctx.app, 'GET', '/nope', { headers: { 'x-request-id': given } });
    assert.equal(notFound.headers['x-request-id'], given);
    for (const bad of ['short', 'has spaces in it', 'x'.repeat(200), 'bad\u00e9chars-123']) {
      const res = await call(ctx.app, 'GET', '/health', { headers: { 'x-request-id': bad } });
      const id = res.headers['x-request-id'];
      assert.equal(typeof id, 'string');
      assert.notEqual(id, bad);
      assert.match(String(id), /^[A-Za-z0-9._:-]{8,128}$/);
    }
  });
});

describe('compression', () => {
  const plain = async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], undefined);
    return JSON.parse(res.body);
  };

  test('br when the client accepts it', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'br' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], 'br');
    const body = brotliDecompressSync(res.rawPayload);
    assert.ok(res.rawPayload.length < body.length);
    assert.deepEqual(JSON.parse(body.toString('utf8')), await plain());
  });

  test('gzip when the client accepts it', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    const body = gunzipSync(res.rawPayload);
    assert.ok(res.rawPayload.length < body.length);
    assert.deepEqual(JSON.parse(body.toString('utf8')), await plain());
  });

  test('a large API list is compressed too; identity stays plain', async () => {
    const m = await merchant(ctx.app);
    for (let i = 0; i < 20; i++) {
      const r = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: `Produto ${i}`, price: 1000 + i, description: 'Descrição longa '.repeat(10) } });
      assert.equal(r.status, 201, r.raw);
    }
    const gz = await ctx.app.inject({ method: 'GET', url: '/api/v1/products?limit=100', headers: { 'api-key': m.devKey, 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(gz.statusCode, 200);
    assert.ok(['br', 'gzip'].includes(String(gz.headers['content-encoding'])), String(gz.headers['content-encoding']));
    const decoded = gz.headers['content-encoding'] === 'br' ? brotliDecompressSync(gz.rawPayload) : gunzipSync(gz.rawPayload);
    assert.equal(JSON.parse(decoded.toString('utf8')).products.length, 20);
    const identity = await ctx.app.inject({ method: 'GET', url: '/api/v1/products?limit=100', headers: { 'api-key': m.devKey, 'accept-encoding': 'identity' } });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(identity.body).products.length, 20);
  });
});

describe('per-merchant rate limit', () => {
  test('every authenticated response carries RateLimit-*; past the limit 429 {message} with Retry-After; keys and tokens share the count; merchants do not', async () => {
    const limited = await startApp({ perUserPerMinute: 3 });
    try {
      const m = await merchant(limited.app);
      const other = await merchant(limited.app);
      // Registering and creating the key went through unlimited routes or the token routes: start the count now.
      await limited.limiter.reset(`user:${m.id}`);
      const seen = [];
      for (const auth of [{ key: m.devKey }, { token: m.token }, { key: m.devKey }]) {
        const res = await call(limited.app, 'GET', '/api/withdraws/balance', auth);
        assert.equal(res.status, 200, res.raw);
        seen.push([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining']]);
        const reset = Number(res.headers['ratelimit-reset']);
        assert.ok(reset >= 1 && reset <= 60, String(reset));
      }
      assert.deepEqual(seen, [['3', '2'], ['3', '1'], ['3', '0']]);
      const over = await call(limited.app, 'GET', '/api/v1/products', { key: m.devKey });
      assert.equal(over.status, 429, over.raw);
      assert.deepEqual(Object.keys(over.body), ['message']);
      const retry = Number(over.headers['retry-after']);
      assert.ok(retry >= 1 && retry <= 60, String(retry));
      assert.equal(over.headers['ratelimit-remaining'], '0');
      assert.equal(over.headers['ratelimit-reset'], String(retry));
      await limited.limiter.reset(`user:${other.id}`);
      assert.equal((await call(limited.app, 'GET', '/api/v1/products', { key: other.devKey })).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('unexpected failures', () => {
  test('a database failure is 500 {message} with no internals; /ready answers 503', async () => {
    // A dedicated app and database: closing this database breaks nothing else.
    const broken = await startApp();
    try {
      const m = await merchant(broken.app); // the key is created but never used: not cached yet
      const warm = await call(broken.app, 'GET', '/ready');
      assert.equal(warm.status, 200);
      await broken.database.close();

      const res = await call(broken.app, 'GET', '/api/v1/products', { key: m.devKey });
      assert.equal(res.status, 500, res.raw);
      assert.deepEqual(res.body, { message: 'Internal server error' });
      assert.ok(res.headers['x-request-id']);
      assert.doesNotMatch(res.raw, /select|api_keys|stack|at \/|\.ts|driver|kysely|pglite|pg\b/i);

      const viaToken = await call(broken.app, 'GET', '/api/credentials', { token: m.token });
      assert.equal(viaToken.status, 500);
      assert.deepEqual(viaToken.body, { message: 'Internal server error' });

      const ready = await call(broken.app, 'GET', '/ready');
      assert.equal(ready.status, 503);
      assert.equal(typeof ready.body.message, 'string');
      assert.doesNotMatch(ready.raw, /driver|destroyed|stack/i);
      // Liveness does not depend on the database.
      assert.equal((await call(broken.app, 'GET', '/health')).status, 200);

      // The operator still gets the cause, tied to the request id.
      const errorLine = broken.logs.map((l) => JSON.parse(l)).find((l) => l.level >= 50 && l.reqId === res.headers['x-request-id']);
      assert.ok(errorLine, 'the 500 is logged at error level with its request id');
    } finally {
      await broken.app.close();
      await broken.limiter.close();
      await dropSchema(broken.schema);
    }
    // This file's own app is unaffected.
    assert.equal((await call(ctx.app, 'GET', '/ready')).status, 200);
  });
});

describe('logs', () => {
  test('are JSON lines with the request id, and never contain keys, passwords, tokens, documents or card numbers', async () => {
    const start = ctx.logs.length;
    const email = uniqueEmail('logs');
    const password = 'senha-muito-secreta-42';
    const reg = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Loja Logs', email, password } });
    assert.equal(reg.status, 201);
    const login = await call(ctx.app, 'POST', '/api/auth/login', { body: { email, password } });
    assert.equal(login.status, 200);
    const wrongLogin = await call(ctx.app, 'POST', '/api/auth/login', { body: { email, password: 'errada-mas-secreta-99' } });
    assert.equal(wrongLogin.status, 401);
    const badJson = await call(ctx.app, 'POST', '/api/auth/login', { raw: `{"email":"${email}","password":"${password}"`, headers: { 'content-type': 'application/json' } });
    assert.equal(badJson.status, 400);
    const token = login.body.token;
    const created = await call(ctx.app, 'POST', '/api/credentials', { token, body: { name: 'logs', environment: 'DEVELOPMENT' } });
    assert.equal(created.status, 201);
    const key = created.body.key;
    const document = cpf();
    const card = '4111111111111111';
    const client = await call(ctx.app, 'POST', '/api/clients', { key, body: { name: 'Maria', email: 'maria@example.com', document, phone: '11987654321' } });
    assert.equal(client.status, 201, client.raw);
    const formatted = `${document.slice(0, 3)}.${document.slice(3, 6)}.${document.slice(6, 9)}-${document.slice(9)}`;
    const dup = await call(ctx.app, 'POST', '/api/clients', { headers: { authorization: `Bearer ${key}` }, body: { name: 'Maria 2', email: 'm2@example.com', document: formatted } });
    assert.equal(dup.status, 400);
    assert.equal((await call(ctx.app, 'GET', `/api/clients?search=${document}`, { key })).status, 200);
    assert.equal((await call(ctx.app, 'GET', `/api/clients?search=${encodeURIComponent(formatted)}&limit=5`, { key })).status, 200);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/products?search=${card}`, { key })).status, 200);
    const badCard = await call(ctx.app, 'POST', '/api/v1/products', { key, body: { name: 'x', price: 100, cardNumber: card } });
    assert.equal(badCard.status, 400);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token })).status, 200);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A') })).status, 401);

    const lines = ctx.logs.slice(start);
    assert.ok(lines.length >= 20, `expected request logs, got ${lines.length}`);
    const parsed = lines.map((l) => JSON.parse(l));
    assert.ok(parsed.some((l) => l.req?.path === '/api/clients' && typeof l.reqId === 'string'), 'requests are logged with path and id');
    const text = lines.join('\n');
    const secrets: Record<string, string> = {
      'API key': key,
      'key body': key.slice(11),
      password,
      'wrong password': 'errada-mas-secreta-99',
      JWT: token,
      'JWT signature': token.split('.')[2]!,
      document,
      'formatted document': formatted,
      'url-encoded document': encodeURIComponent(formatted),
      'card number': card,
    };
    for (const [what, value] of Object.entries(secrets)) assert.ok(!text.includes(value), `the logs contain the ${what}`);
  });
});
