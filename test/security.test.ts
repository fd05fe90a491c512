// Who may call what: the permission matrix, 401s for every bad credential, key vs dashboard token.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { PERMISSIONS, type Permission } from '../src/http/auth.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';

const SECRET = 'test-secret-test-secret-test-secret-0123456789';

let ctx: TestContext;
let m: Merchant;
before(async () => {
  ctx = await startApp();
  m = await merchant(ctx.app);
});
after(() => ctx.close());

async function keyWith(permissions: Permission[], token = m.token): Promise<string> {
  const res = await call(ctx.app, 'POST', '/api/credentials', { token, body: { name: permissions.join(',').slice(0, 90), environment: 'DEVELOPMENT', permissions } });
  assert.equal(res.status, 201, res.raw);
  return res.body.key;
}

async function newProduct(): Promise<string> {
  const res = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Caneca', price: 3500 } });
  assert.equal(res.status, 201, res.raw);
  return res.body.product.id;
}

async function newClient(): Promise<string> {
  const res = await call(ctx.app, 'POST', '/api/clients', { key: m.devKey, body: { name: 'Pedro', email: 'pedro@example.com', document: cpf() } });
  assert.equal(res.status, 201, res.raw);
  return res.body.client.id;
}

interface RouteCase {
  name: string;
  permission: Permission;
  /** Builds a fresh request (resources a call may consume are created here). */
  request(): Promise<{ method: string; url: string; body?: unknown }>;
  okStatus: number;
}

/** Every API-key route of products and clients, with the permission it needs. */
const ROUTES: RouteCase[] = [
  { name: 'POST /api/v1/products', permission: 'products:write', okStatus: 201, request: async () => ({ method: 'POST', url: '/api/v1/products', body: { name: 'Boné', price: 2500 } }) },
  { name: 'GET /api/v1/products', permission: 'products:read', okStatus: 200, request: async () => ({ method: 'GET', url: '/api/v1/products' }) },
  { name: 'GET /api/v1/products/{id}', permission: 'products:read', okStatus: 200, request: async () => ({ method: 'GET', url: `/api/v1/products/${await newProduct()}` }) },
  { name: 'PATCH /api/v1/products/{id}', permission: 'products:write', okStatus: 200, request: async () => ({ method: 'PATCH', url: `/api/v1/products/${await newProduct()}`, body: { price: 4000 } }) },
  { name: 'DELETE /api/v1/products/{id}', permission: 'products:write', okStatus: 200, request: async () => ({ method: 'DELETE', url: `/api/v1/products/${await newProduct()}` }) },
  { name: 'POST /api/clients', permission: 'customers:write', okStatus: 201, request: async () => ({ method: 'POST', url: '/api/clients', body: { name: 'Ana', email: 'ana@example.com', document: cpf() } }) },
  { name: 'GET /api/clients', permission: 'customers:read', okStatus: 200, request: async () => ({ method: 'GET', url: '/api/clients' }) },
  { name: 'GET /api/clients/{id}', permission: 'customers:read', okStatus: 200, request: async () => ({ method: 'GET', url: `/api/clients/${await newClient()}` }) },
  { name: 'PATCH /api/clients/{id}', permission: 'customers:write', okStatus: 200, request: async () => ({ method: 'PATCH', url: `/api/clients/${await newClient()}`, body: { name: 'Ana Maria' } }) },
  { name: 'DELETE /api/clients/{id}', permission: 'customers:write', okStatus: 200, request: async () => ({ method: 'DELETE', url: `/api/clients/${await newClient()}` }) },
];

const send = async (key: string, r: { method: string; url: string; body?: unknown }) => call(ctx.app, r.method, r.url, { key, body: r.body });

describe('permission matrix', () => {
  test('the route list covers both resources\' five operations', () => {
    assert.equal(ROUTES.length, 10);
    assert.equal(new Set(ROUTES.map((r) => r.name)).size, 10);
  });

  for (const route of ROUTES) {
    test(`${route.name} needs ${route.permission}`, async () => {
      // Every other permission together is not enough, and the refused call changes nothing.
      const allBut = await keyWith(PERMISSIONS.filter((p) => p !== route.permission));
      const refusedReq = await route.request();
      const refused = await send(allBut, refusedReq);
      assert.equal(refused.status, 403, `all but ${route.permission}: ${refused.status} ${refused.raw}`);
      assert.deepEqual(Object.keys(refused.body), ['message']);
      assert.equal(typeof refused.body.message, 'string');
      if (refusedReq.method === 'DELETE' || refusedReq.method === 'PATCH') {
        const still = await call(ctx.app, 'GET', refusedReq.url, { key: m.devKey });
        assert.equal(still.status, 200, 'a refused call must not have changed the resource');
        if (still.body.product) assert.equal(still.body.product.price, 3500);
        if (still.body.client) assert.equal(still.body.client.name, 'Pedro');
      }

      // The one permission alone is enough.
      const only = await keyWith([route.permission]);
      const allowed = await send(only, await route.request());
      assert.equal(allowed.status, route.okStatus, `only ${route.permission}: ${allowed.status} ${allowed.raw}`);
    });
  }

  test('each of the 18 permissions alone opens exactly the routes that need it', async () => {
    const keys = new Map<Permission, string>();
    for (const p of PERMISSIONS) keys.set(p, await keyWith([p]));
    for (const route of ROUTES) {
      for (const p of PERMISSIONS) {
        const res = await send(keys.get(p)!, await route.request());
        if (p === route.permission) assert.equal(res.status, route.okStatus, `${p} on ${route.name}: ${res.raw}`);
        else assert.equal(res.status, 403, `${p} on ${route.name}: ${res.status} ${res.raw}`);
      }
    }
  });

  test('a read permission does not allow writing and vice versa', async () => {
    const read = await keyWith(['products:read', 'customers:read']);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: read })).status, 200);
    assert.equal((await call(ctx.app, 'POST', '/api/v1/products', { key: read, body: { name: 'x', price: 100 } })).status, 403);
    assert.equal((await call(ctx.app, 'POST', '/api/clients', { key: read, body: { name: 'x', email: 'x@example.com', document: cpf() } })).status, 403);
    const write = await keyWith(['products:write', 'customers:write']);
    assert.equal((await call(ctx.app, 'POST', '/api/v1/products', { key: write, body: { name: 'x', price: 100 } })).status, 201);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: write })).status, 403);
    assert.equal((await call(ctx.app, 'GET', '/api/clients', { key: write })).status, 403);
  });
});

describe('bad API keys -> 401 {message}', () => {
  const wellFormed = (env: 'test' | 'live') => `cofre_${env}_${randomBytes(32).toString('base64url')}`;

  async function expect401(headers: Record<string, string>, label: string) {
    const res = await call(ctx.app, 'GET', '/api/v1/products', { headers });
    assert.equal(res.status, 401, `${label}: ${res.status} ${res.raw}`);
    assert.deepEqual(Object.keys(res.body), ['message'], label);
    assert.equal(typeof res.body.message, 'string');
    assert.ok(res.body.message.length > 0);
  }

  test('missing', async () => {
    await expect401({}, 'no header');
    await expect401({ 'api-key': '' }, 'empty API-Key');
  });

  test('wrong (well-formed but unknown)', async () => {
    await expect401({ 'api-key': wellFormed('test') }, 'unknown test key');
    await expect401({ 'api-key': wellFormed('live') }, 'unknown live key');
    await expect401({ authorization: `Bearer ${wellFormed('test')}` }, 'unknown key as Bearer');
    // One character changed.
    const k = m.devKey;
    await expect401({ 'api-key': k.slice(0, -1) + (k.endsWith('A') ? 'B' : 'A') }, 'altered key');
    // Same secret, other environment prefix.
    await expect401({ 'api-key': k.replace('cofre_test_', 'cofre_live_') }, 'prefix swapped');
  });

  test('malformed', async () => {
    await expect401({ 'api-key': 'cofre_test_short' }, 'too short');
    await expect401({ 'api-key': m.devKey + 'x' }, 'too long');
    await expect401({ 'api-key': 'cofre_prod_' + randomBytes(32).toString('base64url') }, 'unknown environment');
    await expect401({ 'api-key': 'not-a-key-at-all' }, 'garbage');
    await expect401({ authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }, 'Basic auth');
    await expect401({ authorization: 'Bearer' }, 'Bearer without value');
    await expect401({ authorization: `Bearer ${m.devKey} extra` }, 'Bearer with two values');
    await expect401({ authorization: m.devKey }, 'key without Bearer');
  });

  test('revoked', async () => {
    const key = await keyWith(['products:read']);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key })).status, 200);
    const list = await call(ctx.app, 'GET', '/api/credentials', { token: m.token });
    const id = list.body.credentials.find((c: { prefix: string }) => key.startsWith(c.prefix)).id;
    assert.equal((await call(ctx.app, 'DELETE', `/api/credentials/${id}`, { token: m.token })).status, 200);
    await expect401({ 'api-key': key }, 'revoked via API-Key');
    await expect401({ authorization: `Bearer ${key}` }, 'revoked via Bearer');
  });

  test('401 wins over 403: a bad key on a route it could not use anyway is still 401', async () => {
    const res = await call(ctx.app, 'POST', '/api/clients', { key: wellFormed('test'), body: { name: 'x', email: 'x@example.com', document: cpf() } });
    assert.equal(res.status, 401);
  });
});

describe('how a key is sent', () => {
  test('API-Key header and Authorization: Bearer <key> both work (Bearer case-insensitively)', async () => {
    const a = await call(ctx.app, 'GET', '/api/v1/products', { headers: { 'api-key': m.devKey } });
    assert.equal(a.status, 200, a.raw);
    const b = await call(ctx.app, 'GET', '/api/v1/products', { headers: { authorization: `Bearer ${m.devKey}` } });
    assert.equal(b.status, 200, b.raw);
    const c = await call(ctx.app, 'GET', '/api/v1/products', { headers: { authorization: `bearer ${m.devKey}` } });
    assert.equal(c.status, 200, c.raw);
    assert.deepEqual(a.body, b.body);
    const created = await call(ctx.app, 'POST', '/api/v1/products', { headers: { authorization: `Bearer ${m.devKey}` }, body: { name: 'Via Bearer', price: 990 } });
    assert.equal(created.status, 201, created.raw);
  });

  test('the permission check is the same whichever header carries the key', async () => {
    const read = await keyWith(['products:read']);
    const res = await call(ctx.app, 'POST', '/api/v1/products', { headers: { authorization: `Bearer ${read}` }, body: { name: 'x', price: 100 } });
    assert.equal(res.status, 403);
  });
});

describe('dashboard tokens', () => {
  const secret = new TextEncoder().encode(SECRET);
  const now = () => Math.floor(Date.now() / 1000);
  // A token names its session (jti): forged ones reuse the merchant's live session unless told otherwise.
  const sessionOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti as string;
  const sign = (claims: { sub: string; aud?: string; iat: number; exp: number; role?: string; jti?: string }, key = secret) =>
    new SignJWT({ role: claims.role ?? 'USER' })
      .setProtectedHeader({ alg: 'HS256' })
      .setJti(claims.jti ?? sessionOf(m.token))
      .setSubject(claims.sub)
      .setAudience(claims.aud ?? 'cofre-dashboard')
      .setIssuedAt(claims.iat)
      .setExpirationTime(claims.exp)
      .sign(key);

  test('a dashboard JWT is refused on an API-key route with 401', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/products'],
      ['POST', '/api/v1/products'],
      ['GET', '/api/clients'],
    ] as const) {
      const res = await call(ctx.app, method, url, { token: m.token, body: method === 'POST' ? { name: 'x', price: 100 } : undefined });
      assert.equal(res.status, 401, `${method} ${url}: ${res.raw}`);
      assert.deepEqual(Object.keys(res.body), ['message']);
    }
    const viaHeader = await call(ctx.app, 'GET', '/api/v1/products', { headers: { 'api-key': m.token } });
    assert.equal(viaHeader.status, 401);
  });

  test('a token signed like the server\'s opens /api/auth/me; expired, wrong audience, wrong secret or unsigned ones are 401', async () => {
    const valid = await sign({ sub: m.id, iat: now() - 10, exp: now() + 600 });
    const ok = await call(ctx.app, 'GET', '/api/auth/me', { token: valid });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.user.id, m.id);

    const expired = await sign({ sub: m.id, iat: now() - 7200, exp: now() - 3600 });
    const res = await call(ctx.app, 'GET', '/api/auth/me', { token: expired });
    assert.equal(res.status, 401, res.raw);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert.equal((await call(ctx.app, 'GET', '/api/credentials', { token: expired })).status, 401);

    const otherAudience = await sign({ sub: m.id, aud: 'someone-else', iat: now(), exp: now() + 600 });
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: otherAudience })).status, 401);
    const otherSecret = await sign({ sub: m.id, iat: now(), exp: now() + 600 }, new TextEncoder().encode('another-secret-another-secret-another-1234'));
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: otherSecret })).status, 401);
    const [, payload] = valid.split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: unsigned })).status, 401);
    const tampered = valid.replace(/\.[^.]+\./, `.${Buffer.from(JSON.stringify({ sub: m.id, role: 'ADMIN', aud: 'cofre-dashboard', exp: now() + 600 })).toString('base64url')}.`);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: tampered })).status, 401);
  });

  test('X-Environment on a token route: development/production accepted, anything else 400', async () => {
    for (const env of ['development', 'production', 'PRODUCTION']) {
      const res = await call(ctx.app, 'GET', '/api/credentials', { token: m.token, headers: { 'x-environment': env } });
      assert.equal(res.status, 200, `${env}: ${res.raw}`);
    }
    for (const env of ['staging', 'live', '']) {
      const res = await call(ctx.app, 'GET', '/api/credentials', { token: m.token, headers: { 'x-environment': env } });
      assert.equal(res.status, 400, `${JSON.stringify(env)}: ${res.status} ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.errors.some((e: { field: string }) => /x-environment/i.test(e.field)), JSON.stringify(res.body.errors));
    }
  });
});
