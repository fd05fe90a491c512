// The published OpenAPI document: valid 3.1, version 2.30.0, every route with schemas and security.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { hoistSharedSchemas } from '../src/http/openapi-components.ts';
import { addGenericErrors } from '../src/http/schemas.ts';
import { call } from './helpers.ts';
import { ready, useApp } from './kit/app.ts';

let doc: any;
const ctx = useApp();
before(async () => {
  await ready(ctx);
  const res = await call(ctx.app, 'GET', '/openapi.json');
  assert.equal(res.status, 200);
  doc = res.body;
});

type Auth = 'none' | 'key' | 'token';
/** The foundation's routes (besides /openapi.json and /docs themselves); later modules add more. */
const ROUTES: Array<{ method: string; path: string; auth: Auth; body?: boolean; success: string }> = [
  { method: 'post', path: '/api/auth/register', auth: 'none', body: true, success: '201' },
  { method: 'post', path: '/api/auth/login', auth: 'none', body: true, success: '200' },
  { method: 'get', path: '/api/auth/me', auth: 'token', success: '200' },
  { method: 'post', path: '/api/credentials', auth: 'token', body: true, success: '201' },
  { method: 'get', path: '/api/credentials', auth: 'token', success: '200' },
  { method: 'delete', path: '/api/credentials/{id}', auth: 'token', success: '200' },
  { method: 'post', path: '/api/v1/products', auth: 'key', body: true, success: '201' },
  { method: 'get', path: '/api/v1/products', auth: 'key', success: '200' },
  { method: 'get', path: '/api/v1/products/{id}', auth: 'key', success: '200' },
  { method: 'patch', path: '/api/v1/products/{id}', auth: 'key', body: true, success: '200' },
  { method: 'delete', path: '/api/v1/products/{id}', auth: 'key', success: '200' },
  { method: 'post', path: '/api/clients', auth: 'key', body: true, success: '201' },
  { method: 'get', path: '/api/clients', auth: 'key', success: '200' },
  { method: 'get', path: '/api/clients/{id}', auth: 'key', success: '200' },
  { method: 'patch', path: '/api/clients/{id}', auth: 'key', body: true, success: '200' },
  { method: 'delete', path: '/api/clients/{id}', auth: 'key', success: '200' },
  { method: 'get', path: '/health', auth: 'none', success: '200' },
  { method: 'get', path: '/ready', auth: 'none', success: '200' },
];

/** Follows local $refs (#/components/...) through the document. */
function resolve(node: any): any {
  let n = node;
  for (let i = 0; n && typeof n.$ref === 'string' && i < 10; i++) {
    assert.match(n.$ref, /^#\//, `non-local $ref ${n.$ref}`);
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((acc: any, part: string) => acc?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    assert.ok(n, `dangling $ref ${node.$ref}`);
  }
  return n;
}

describe('GET /openapi.json', () => {
  test('is OpenAPI 3.1 with the API version 2.30.0 and a server URL', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(doc.info.version, '2.30.0');
    assert.equal(typeof doc.info.title, 'string');
    assert.ok(Array.isArray(doc.servers) && doc.servers.length > 0);
  });

  test('validates against the OpenAPI 3.1 schema', async () => {
    const v = new Validator();
    const r = await v.validate(doc);
    assert.ok(r.valid, JSON.stringify(r.errors));
    assert.equal(v.version, '3.1');
  });

  test('every $ref in the document resolves', () => {
    const refs: string[] = [];
    const walk = (n: any) => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object') {
        if (typeof n.$ref === 'string') refs.push(n.$ref);
        Object.values(n).forEach(walk);
      }
    };
    walk(doc.paths);
    walk(doc.components);
    assert.ok(refs.length > 0);
    for (const ref of refs) resolve({ $ref: ref });
  });

  test('a schema used in several places is written once, under components.schemas', () => {
    // A transaction's answer: the resource under its name and under `data` is one named schema.
    const body = resolve(doc.paths['/api/v1/transactions/{id}'].get.responses['200'].content['application/json'].schema);
    assert.equal(body.properties.transaction.$ref, '#/components/schemas/Transaction');
    assert.equal(body.properties.data.$ref, '#/components/schemas/Transaction');
    assert.match(body.properties.data.description, /same value as `transaction`/);
    assert.equal(resolve(body.properties.data).properties.id.format, 'uuid');
    // No object schema of any size is repeated anywhere in the document.
    const seen = new Map<string, number>();
    const walk = (n: any) => {
      if (Array.isArray(n)) return n.forEach(walk);
      if (!n || typeof n !== 'object') return;
      if (n.type === 'object' && n.properties) {
        const text = JSON.stringify(n);
        if (text.length >= 300) seen.set(text, (seen.get(text) ?? 0) + 1);
      }
      Object.values(n).forEach(walk);
    };
    walk(doc);
    assert.deepEqual([...seen.entries()].filter(([, k]) => k > 1).map(([t]) => t.slice(0, 120)), []);
    assert.ok(JSON.stringify(doc).length < 1_000_000, 'the document is under 1 MB');
  });

  test('naming leaves small and single-use schemas inline, and keeps the names the document had', () => {
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field${i}`, { type: 'string' }])) };
    const small = { type: 'object', properties: { a: { type: 'string' } } };
    const json = (schema: object) => ({ content: { 'application/json': { schema } } });
    const out = hoistSharedSchemas({
      paths: {
        '/a': { get: { operationId: 'getA', responses: { '200': json({ type: 'object', properties: { error: big, data: big, small, other: small } }) } } },
        '/b': { get: { operationId: 'getB', responses: { '200': json({ type: 'array', items: big }), '400': json({ example: big }) } } },
      },
      components: { schemas: { Error: { type: 'object', properties: {} } } },
    }) as any;
    const a = out.paths['/a'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(a.properties.error, { $ref: '#/components/schemas/Error2' });
    assert.deepEqual(a.properties.data, { $ref: '#/components/schemas/Error2' });
    assert.deepEqual(a.properties.small, small);
    assert.deepEqual(out.paths['/b'].get.responses['200'].content['application/json'].schema.items, { $ref: '#/components/schemas/Error2' });
    assert.deepEqual(out.paths['/b'].get.responses['400'].content['application/json'].schema.example, big, 'examples are data, not schemas');
    assert.deepEqual(Object.keys(out.components.schemas), ['Error', 'Error2']);
    assert.deepEqual(out.components.schemas.Error2, big);
  });

  test('lists every route of the foundation (other modules add theirs)', () => {
    const documented = new Set(
      Object.entries<any>(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).map((m) => `${m} ${path}`)),
    );
    const missing = ROUTES.map((r) => `${r.method} ${r.path}`).filter((r) => !documented.has(r));
    assert.deepEqual(missing, []);
    // Fastify's internal routes are not published.
    for (const hidden of ['/openapi.json', '/docs', '/docs/json', '/docs/static/{*}']) assert.equal(doc.paths[hidden], undefined, hidden);
  });

  test('every documented operation has a summary and a JSON success response', () => {
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        assert.equal(typeof op.summary, 'string', `${method} ${path} has no summary`);
        const ok = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
        assert.ok(ok.length > 0, `${method} ${path} documents no 2xx response`);
        for (const p of path.match(/\{[^}]+\}/g) ?? []) {
          const name = p.slice(1, -1);
          assert.ok((op.parameters ?? []).some((x: any) => x.in === 'path' && x.name === name), `${method} ${path} lacks path parameter ${name}`);
        }
      }
    }
  });

  test('each listed route is really served', async () => {
    for (const r of ROUTES) {
      const url = r.path.replace('{id}', '01890000-0000-7000-8000-000000000000');
      const res = await call(ctx.app, r.method.toUpperCase(), url, { body: r.body ? {} : undefined });
      assert.ok(!(res.status === 404 && /^Route /.test(res.body?.message ?? '')), `${r.method} ${r.path} is not routed`);
    }
  });

  for (const r of ROUTES) {
    test(`${r.method.toUpperCase()} ${r.path}: schemas and security`, () => {
      const op = doc.paths[r.path][r.method];
      assert.equal(typeof op.summary, 'string');
      assert.ok(Array.isArray(op.tags) && op.tags.length > 0);

      // Success response with a JSON schema.
      const success = resolve(op.responses?.[r.success]);
      assert.ok(success, `no ${r.success} response`);
      const schema = success.content?.['application/json']?.schema;
      assert.ok(schema, `${r.success} has no application/json schema`);
      assert.ok(resolve(schema).type === 'object' || resolve(schema).properties, `${r.success} schema is not an object`);

      // Request body.
      if (r.body) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        assert.ok(body, 'request body schema missing');
        assert.ok(Object.keys(resolve(body).properties ?? {}).length > 0);
      } else {
        assert.equal(op.requestBody, undefined);
      }

      // Path parameters.
      if (r.path.includes('{id}')) {
        const id = (op.parameters ?? []).find((p: any) => p.in === 'path' && p.name === 'id');
        assert.ok(id, 'path parameter id missing');
        assert.equal(id.required, true);
        assert.equal(id.schema.format, 'uuid');
      }

      // Security and the errors it brings.
      const schemes = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s)).sort();
      if (r.auth === 'none') {
        assert.deepEqual(schemes, []);
      } else {
        const expected = r.auth === 'key' ? ['apiKey', 'bearerApiKey'] : ['bearerToken'];
        assert.deepEqual(schemes, expected);
        for (const s of schemes) assert.ok(doc.components.securitySchemes[s], `security scheme ${s} not defined`);
        const unauthorized = resolve(op.responses['401']);
        assert.ok(unauthorized, '401 not documented');
        const errorSchema = resolve(unauthorized.content?.['application/json']?.schema);
        assert.ok(errorSchema?.properties?.message, '401 body has no message');
      }
      if (r.auth === 'key') assert.ok(op.responses['403'], '403 not documented');
      if (r.body) {
        const bad = resolve(op.responses['400']);
        assert.ok(bad, '400 not documented');
        const props = resolve(bad.content['application/json'].schema).properties;
        for (const f of ['message', 'code', 'timestamp', 'path', 'errors']) assert.ok(props[f], `400 body lacks ${f}`);
      }
    });
  }

  test('the API-key schemes are the API-Key header and the Bearer form; the token scheme is a JWT bearer', () => {
    const s = doc.components.securitySchemes;
    assert.deepEqual({ type: s.apiKey.type, in: s.apiKey.in, name: s.apiKey.name }, { type: 'apiKey', in: 'header', name: 'API-Key' });
    assert.deepEqual({ type: s.bearerApiKey.type, scheme: s.bearerApiKey.scheme }, { type: 'http', scheme: 'bearer' });
    assert.deepEqual({ type: s.bearerToken.type, scheme: s.bearerToken.scheme, bearerFormat: s.bearerToken.bearerFormat }, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  test('a credential response documents the key once, and the list never documents it', () => {
    const created = resolve(doc.paths['/api/credentials'].post.responses['201'].content['application/json'].schema);
    assert.ok(created.properties.key);
    const listed = resolve(doc.paths['/api/credentials'].get.responses['200'].content['application/json'].schema);
    const item = resolve(listed.properties.credentials.items);
    assert.equal(item.properties.key, undefined);
    assert.ok(!Object.keys(item.properties).some((k) => /hash/i.test(k)));
  });
});

describe('generic error responses (added to every route of a kind by one onRoute hook)', () => {
  const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops)
        .filter(([m]) => METHODS.includes(m))
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );

  /**
   * The response is the shared message-only Error body: exactly `{ message: string }`, beside which
   * only the origin-compatible `success: false` is allowed (docs/compatibility.md).
   */
  function assertMessageOnly(response: any, what: string) {
    assert.ok(response, `${what} not documented`);
    const schema = response.content?.['application/json']?.schema;
    assert.equal(schema?.$ref, '#/components/schemas/Error', `${what} is not the shared Error body`);
    const body = resolve(schema);
    assert.deepEqual(Object.keys(body.properties), ['message', 'success'], `${what} body`);
    assert.deepEqual(body.properties.success.enum ?? [body.properties.success.const], [false], `${what} success`);
    assert.equal(body.properties.message.type, 'string');
    assert.notEqual(response.description, 'Default Response', `${what} has no description`);
  }
  function assertRetryAfter(response: any, what: string) {
    const header = response?.headers?.['Retry-After'];
    assert.ok(header, `${what} does not describe Retry-After`);
    assert.equal(header.schema.type, 'integer');
    assert.equal(typeof header.description, 'string');
  }

  test('POST /api/v1/transactions (API key, with a body) lists 413, 415, 429 with Retry-After, and 500', () => {
    const r = doc.paths['/api/v1/transactions'].post.responses;
    for (const s of ['413', '415', '429', '500']) assertMessageOnly(r[s], `POST /api/v1/transactions ${s}`);
    assertRetryAfter(r['429'], 'POST /api/v1/transactions 429');
    // Declared ones stay: success, validation, auth, idempotency conflict.
    for (const s of ['201', '400', '401', '403', '409']) assert.ok(r[s], `${s} lost`);
  });

  test('a GET without a body lists 429 and 500 but not 413/415', () => {
    for (const path of ['/api/v1/transactions', '/api/v1/products/{id}']) {
      const r = doc.paths[path].get.responses;
      assertMessageOnly(r['429'], `GET ${path} 429`);
      assertRetryAfter(r['429'], `GET ${path} 429`);
      assertMessageOnly(r['500'], `GET ${path} 500`);
      assert.equal(r['413'], undefined, `GET ${path} 413`);
      assert.equal(r['415'], undefined, `GET ${path} 415`);
    }
    // Dashboard-token routes have the per-merchant limit too.
    assertMessageOnly(doc.paths['/api/auth/me'].get.responses['429'], 'GET /api/auth/me 429');
  });

  test('a public route lists 500 but not 429 unless it declares it', () => {
    for (const path of ['/health', '/ready', '/api/payment-links/public/slug/{slug}']) {
      const op = doc.paths[path].get;
      assert.deepEqual(op.security ?? [], []);
      assertMessageOnly(op.responses['500'], `GET ${path} 500`);
      for (const s of ['413', '415', '429']) assert.equal(op.responses[s], undefined, `GET ${path} lists ${s}`);
    }
    // Public, with a body: 413/415; the 429 of registration and login is their own (per-IP limits,
    // failed-attempt lockout), not the per-merchant one.
    const register = doc.paths['/api/auth/register'].post.responses;
    for (const s of ['413', '415', '500', '429']) assertMessageOnly(register[s], `POST /api/auth/register ${s}`);
    assertMessageOnly(doc.paths['/api/auth/login'].post.responses['429'], 'POST /api/auth/login 429');
  });

  test('across the document: 500 everywhere, 413/415 exactly where there is a body, 429 wherever there is security', () => {
    const ops = operations();
    assert.ok(ops.length > 40, `only ${ops.length} operations`);
    for (const { name, op } of ops) {
      const r = op.responses;
      assertMessageOnly(r['500'], `${name} 500`);
      if (op.requestBody) {
        assertMessageOnly(r['413'], `${name} 413`);
        assertMessageOnly(r['415'], `${name} 415`);
      } else {
        assert.equal(r['413'], undefined, `${name} lists 413 without a body`);
        assert.equal(r['415'], undefined, `${name} lists 415 without a body`);
      }
      if ((op.security ?? []).length) {
        assertMessageOnly(r['429'], `${name} 429`);
        assertRetryAfter(r['429'], `${name} 429`);
      }
    }
  });

  test('the hook never replaces a declared response, nor touches hidden routes, routes without responses or shared schemas', () => {
    const own429 = { $ref: 'Error', description: 'Per-IP limit' };
    const shared = { body: { type: 'object' }, response: { 200: { type: 'object' }, 429: own429 } };
    const withAuth: any = { method: 'POST', url: '/a', config: { auth: { key: 'products:write' } }, schema: shared };
    const publicRoute: any = { method: 'POST', url: '/b', schema: shared };
    addGenericErrors(withAuth);
    addGenericErrors(publicRoute);
    assert.deepEqual(Object.keys(withAuth.schema.response).sort(), ['200', '413', '415', '429', '500']);
    assert.equal(withAuth.schema.response[429], own429);
    assert.deepEqual(Object.keys(publicRoute.schema.response).sort(), ['200', '413', '415', '429', '500']);
    assert.deepEqual(Object.keys(shared.response).sort(), ['200', '429'], 'shared schema object mutated');

    const publicGet: any = { method: 'GET', url: '/c', schema: { response: { 200: { type: 'object' } } } };
    addGenericErrors(publicGet);
    assert.deepEqual(Object.keys(publicGet.schema.response).sort(), ['200', '500']);

    for (const schema of [undefined, { hide: true, response: { 200: {} } }, { summary: 'no responses' }]) {
      const route: any = { method: 'GET', url: '/d', config: { auth: { token: true } }, schema };
      addGenericErrors(route);
      assert.equal(route.schema, schema);
    }
  });
});

describe('GET /docs', () => {
  test('answers 200 HTML that loads the OpenAPI document', async () => {
    let res = await ctx.app.inject({ method: 'GET', url: '/docs' });
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      const location = String(res.headers.location);
      res = await ctx.app.inject({ method: 'GET', url: new URL(location, 'http://localhost/docs').pathname });
    }
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
    assert.match(res.body, /swagger/i);
    const json = await call(ctx.app, 'GET', '/docs/json');
    assert.equal(json.status, 200);
    assert.equal(json.body.info.version, '2.30.0');
    assert.deepEqual(Object.keys(json.body.paths).sort(), Object.keys(doc.paths).sort());
  });
});

describe('route schemas (compiled on first use: src/http/lazy-schemas.ts)', () => {
  test('every route\'s validators and serializers compile, each once (the server compiles them all before it listens)', async () => {
    const left = ctx.app.schemas.compileAll();
    assert.ok(left > 100, `only ${left} schemas were left to compile: the app compiled them at start`);
    assert.equal(ctx.app.schemas.compileAll(), 0);
    // Compiled or not, a route validates and answers as before.
    const bad = await call(ctx.app, 'POST', '/api/auth/register', { body: { email: 'not an e-mail' } });
    assert.equal(bad.status, 400, bad.raw);
    assert.equal(typeof bad.body.message, 'string', bad.raw);
  });
});
