// Who may call what, beyond the generated matrix (security-matrix.test.ts: every route's 401, 403 for
// each permission it lacks, 404 across merchants and environments): every kind of bad API key is a
// 401, how a key may be sent, forged and expired dashboard tokens, X-Environment.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import type { Permission } from '../src/http/auth.ts';
import { call } from './helpers.ts';
import { assert401, assert403 } from './kit/assert.ts';
import { useApp, useMerchant } from './kit/app.ts';

const SECRET = 'test-secret-test-secret-test-secret-0123456789';

const ctx = useApp();
const m = useMerchant(ctx);

async function keyWith(permissions: Permission[], token = m.token): Promise<string> {
  const res = await call(ctx.app, 'POST', '/api/credentials', { token, body: { name: permissions.join(',').slice(0, 90), environment: 'DEVELOPMENT', permissions } });
  assert.equal(res.status, 201, res.raw);
  return res.body.key;
}

describe('bad API keys -> 401 {message}', () => {
  const wellFormed = (env: 'test' | 'live') => `cofre_${env}_${randomBytes(32).toString('base64url')}`;

  async function expect401(headers: Record<string, string>, label: string) {
    const res = await call(ctx.app, 'GET', '/api/v1/products', { headers });
    assert.equal(res.status, 401, `${label}: ${res.status} ${res.raw}`);
    assert401(res);
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
    assert403(await call(ctx.app, 'POST', '/api/v1/products', { headers: { authorization: `Bearer ${read}` }, body: { name: 'x', price: 100 } }));
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

  test('a dashboard JWT sent as an API key is a 401 (a token on an API-key route: the matrix)', async () => {
    assert401(await call(ctx.app, 'GET', '/api/v1/products', { headers: { 'api-key': m.token } }));
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
