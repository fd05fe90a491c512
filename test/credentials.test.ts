// API keys: creation (shown once), listing without secrets, revocation on this and other instances.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { App } from '../src/deps.ts';
import { PERMISSIONS } from '../src/http/auth.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { appOver, approveKyc, call, emailedCode, merchant, uniqueEmail } from './helpers.ts';
import { useApp } from './kit/app.ts';

const ctx = useApp();

async function register(app: App = ctx.app): Promise<{ token: string; id: string }> {
  const res = await call(app, 'POST', '/api/auth/register', { body: { name: 'Loja Chaves', email: uniqueEmail('keys'), password: 'segredo123' } });
  assert.equal(res.status, 201, res.raw);
  return { token: res.body.token, id: res.body.user.id };
}

/** Creates a key from the dashboard; a production one with an e-mailed second factor (test/account-security covers refusals). */
async function createKey(token: string, body: Record<string, unknown>) {
  const headers: Record<string, string> = body.environment === 'PRODUCTION' ? { 'x-second-factor': await emailedCode(ctx.app, token, await userIdOf(token)) } : {};
  return call(ctx.app, 'POST', '/api/credentials', { token, body, headers });
}

async function userIdOf(token: string): Promise<string> {
  return (await call(ctx.app, 'GET', '/api/auth/me', { token })).body.user.id;
}

describe('POST /api/credentials', () => {
  test('a development key: 201 with message, credential view and a cofre_test_ key matching its prefix', async () => {
    const { token } = await register();
    const res = await createKey(token, { name: 'Loja online', environment: 'DEVELOPMENT', permissions: ['products:read'] });
    assert.equal(res.status, 201, res.raw);
    assert.equal(typeof res.body.message, 'string');
    assert.ok(res.body.message.length > 0);
    const { credential, key } = res.body;
    for (const field of ['id', 'name', 'environment', 'permissions', 'prefix', 'createdAt']) assert.ok(field in credential, `credential.${field} missing`);
    assert.match(credential.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(credential.name, 'Loja online');
    assert.equal(credential.environment, 'DEVELOPMENT');
    assert.deepEqual(credential.permissions, ['products:read']);
    assert.ok(!Number.isNaN(Date.parse(credential.createdAt)));
    assert.match(key, /^cofre_test_[A-Za-z0-9_-]{43}$/);
    assert.ok(credential.prefix.startsWith('cofre_test_'), credential.prefix);
    assert.ok(key.startsWith(credential.prefix));
    assert.ok(credential.prefix.length < key.length - 20, 'the prefix must not reveal the key');
    assert.equal(credential.key, undefined);
  });

  test('a production key needs approved KYC: 403 {message} before, nothing created', async () => {
    const { token } = await register();
    const res = await createKey(token, { name: 'Produção', environment: 'PRODUCTION' });
    assert.equal(res.status, 403, res.raw);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert.match(res.body.message, /KYC/);
    const list = await call(ctx.app, 'GET', '/api/credentials', { token });
    assert.deepEqual(list.body.credentials, []);
    // A development key needs nothing.
    assert.equal((await createKey(token, { name: 'dev', environment: 'DEVELOPMENT' })).status, 201);
  });

  test('a production key starts with cofre_live_ and omitted permissions mean all 23 (auditLog:read, checkouts:write and accounts:write among them)', async () => {
    const { token, id } = await register();
    await approveKyc(ctx.app, id);
    const res = await createKey(token, { name: 'Produção', environment: 'PRODUCTION' });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.credential.environment, 'PRODUCTION');
    assert.match(res.body.key, /^cofre_live_[A-Za-z0-9_-]{43}$/);
    assert.ok(res.body.credential.prefix.startsWith('cofre_live_'));
    assert.ok(res.body.key.startsWith(res.body.credential.prefix));
    assert.equal(PERMISSIONS.length, 23);
    assert.deepEqual([...res.body.credential.permissions].sort(), [...PERMISSIONS].sort());
  });

  test('two keys never share a value', async () => {
    const { token } = await register();
    const a = await createKey(token, { name: 'a', environment: 'DEVELOPMENT' });
    const b = await createKey(token, { name: 'b', environment: 'DEVELOPMENT' });
    assert.notEqual(a.body.key, b.body.key);
    assert.notEqual(a.body.credential.id, b.body.credential.id);
  });

  test('an unknown permission, an empty list, a bad environment or a missing name are 400 with field errors', async () => {
    const { token } = await register();
    const unknown = await createKey(token, { name: 'x', environment: 'DEVELOPMENT', permissions: ['products:read', 'products:delete'] });
    assert.equal(unknown.status, 400, unknown.raw);
    assert.equal(unknown.body.code, 'VALIDATION_ERROR');
    assert.equal(unknown.body.path, '/api/credentials');
    assert.ok(unknown.body.errors.some((e: { field: string }) => e.field.startsWith('permissions')), JSON.stringify(unknown.body.errors));

    const empty = await createKey(token, { name: 'x', environment: 'DEVELOPMENT', permissions: [] });
    assert.equal(empty.status, 400);
    const env = await createKey(token, { name: 'x', environment: 'STAGING' });
    assert.equal(env.status, 400);
    assert.ok(env.body.errors.some((e: { field: string }) => e.field === 'environment'), JSON.stringify(env.body.errors));
    const noName = await createKey(token, { environment: 'DEVELOPMENT' });
    assert.equal(noName.status, 400);
    assert.ok(noName.body.errors.some((e: { field: string }) => e.field === 'name'));

    // Nothing was created by the refused calls.
    const list = await call(ctx.app, 'GET', '/api/credentials', { token });
    assert.equal(list.body.credentials.length, 0);
  });

  test('needs a dashboard token: none -> 401, an API key -> 401', async () => {
    const m = await merchant(ctx.app);
    const none = await call(ctx.app, 'POST', '/api/credentials', { body: { name: 'x', environment: 'DEVELOPMENT' } });
    assert.equal(none.status, 401);
    assert.deepEqual(Object.keys(none.body), ['message']);
    const asKey: Record<string, string>[] = [{ 'api-key': m.devKey }, { authorization: `Bearer ${m.devKey}` }];
    for (const headers of asKey) {
      const create = await call(ctx.app, 'POST', '/api/credentials', { headers, body: { name: 'x', environment: 'DEVELOPMENT' } });
      assert.equal(create.status, 401, create.raw);
      assert.deepEqual(Object.keys(create.body), ['message']);
      const list = await call(ctx.app, 'GET', '/api/credentials', { headers });
      assert.equal(list.status, 401);
    }
    const list = await call(ctx.app, 'GET', '/api/credentials', { token: m.token });
    assert.equal(list.body.credentials.length, 1, 'an API key must not have created a key');
  });
});

describe('the key value is shown only once', () => {
  test('GET /api/credentials lists the keys without value or hash; the database keeps only the SHA-256', async () => {
    const { token, id: userId } = await register();
    const created = await createKey(token, { name: 'Checkout', environment: 'DEVELOPMENT' });
    const { key, credential } = created.body;

    const list = await call(ctx.app, 'GET', '/api/credentials', { token });
    assert.equal(list.status, 200);
    assert.equal(list.body.credentials.length, 1);
    const listed = list.body.credentials[0];
    assert.equal(listed.id, credential.id);
    assert.equal(listed.name, 'Checkout');
    assert.equal(listed.environment, 'DEVELOPMENT');
    assert.equal(listed.prefix, credential.prefix);
    assert.deepEqual(listed.permissions, credential.permissions);
    assert.ok(!list.raw.includes(key), 'the list must not contain the key');
    const hash = createHash('sha256').update(key).digest('hex');
    assert.ok(!list.raw.includes(hash), 'the list must not contain the hash');
    for (const k of Object.keys(listed)) assert.ok(!/key$|hash|secret/i.test(k), `unexpected field ${k}`);

    const rows = await ctx.database.db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.key_hash, hash);
    assert.ok(!JSON.stringify(rows).includes(key), 'the key value must not be stored');

    // /api/auth/me does not expose it either.
    const me = await call(ctx.app, 'GET', '/api/auth/me', { token });
    assert.ok(!me.raw.includes(key));
  });

  test('the list shows only the caller\'s own keys, newest first', async () => {
    const a = await register();
    const b = await register();
    await approveKyc(ctx.app, a.id);
    await createKey(a.token, { name: 'first', environment: 'DEVELOPMENT' });
    await createKey(a.token, { name: 'second', environment: 'PRODUCTION' });
    await createKey(b.token, { name: 'other merchant', environment: 'DEVELOPMENT' });
    const list = await call(ctx.app, 'GET', '/api/credentials', { token: a.token });
    assert.deepEqual(
      list.body.credentials.map((c: { name: string }) => c.name),
      ['second', 'first'],
    );
  });
});

describe('DELETE /api/credentials/{id}', () => {
  test('revokes: the key gets 401 at once on the same instance (even right after a successful call)', async () => {
    const m = await merchant(ctx.app);
    const ok = await call(ctx.app, 'GET', '/api/v1/products', { key: m.devKey });
    assert.equal(ok.status, 200, ok.raw); // the key is now in this instance's cache
    const list = await call(ctx.app, 'GET', '/api/credentials', { token: m.token });
    const id = list.body.credentials[0].id;

    const del = await call(ctx.app, 'DELETE', `/api/credentials/${id}`, { token: m.token });
    assert.equal(del.status, 200, del.raw);
    assert.equal(typeof del.body.message, 'string');

    const after = await call(ctx.app, 'GET', '/api/v1/products', { key: m.devKey });
    assert.equal(after.status, 401, after.raw);
    assert.deepEqual(Object.keys(after.body), ['message']);
    const bearer = await call(ctx.app, 'GET', '/api/v1/products', { headers: { authorization: `Bearer ${m.devKey}` } });
    assert.equal(bearer.status, 401);

    const listed = await call(ctx.app, 'GET', '/api/credentials', { token: m.token });
    assert.ok(listed.body.credentials[0].revokedAt, 'the list shows when it was revoked');
    // Revoking again: nothing left to revoke.
    const again = await call(ctx.app, 'DELETE', `/api/credentials/${id}`, { token: m.token });
    assert.equal(again.status, 404);
  });

  test('revoked while in use: once the DELETE has answered, the key is refused on this instance', async () => {
    // Lookups that read the row before the revocation committed must not put the key back in the cache.
    let stillWorking = 0;
    for (let round = 0; round < 10; round++) {
      const m = await merchant(ctx.app);
      const id = (await call(ctx.app, 'GET', '/api/credentials', { token: m.token })).body.credentials[0].id;
      const use = () => Array.from({ length: 25 }, () => call(ctx.app, 'GET', '/api/clients?limit=1', { key: m.devKey }));
      const before = use();
      const del = call(ctx.app, 'DELETE', `/api/credentials/${id}`, { token: m.token });
      const during = use();
      const results = await Promise.all([...before, del, ...during]);
      assert.ok(results.every((r) => r.status === 200 || r.status === 401), 'only 200 or 401 while revoking');
      assert.equal((await del).status, 200);
      if ((await call(ctx.app, 'GET', '/api/clients?limit=1', { key: m.devKey })).status !== 401) stillWorking++;
    }
    assert.equal(stillWorking, 0, `${stillWorking} of 10 revoked keys still worked after the DELETE answered`);
  });

  test('revoking one key leaves the merchant\'s other keys working', async () => {
    const m = await merchant(ctx.app, { live: true });
    const list = await call(ctx.app, 'GET', '/api/credentials', { token: m.token });
    const dev = list.body.credentials.find((c: { environment: string }) => c.environment === 'DEVELOPMENT');
    assert.equal((await call(ctx.app, 'DELETE', `/api/credentials/${dev.id}`, { token: m.token })).status, 200);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: m.devKey })).status, 401);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: m.liveKey! })).status, 200);
  });

  test('another instance sharing the database stops accepting the revoked key at once (announced), well inside its 4 s cache', async () => {
    const second = await appOver(ctx.config, ctx.database, { limiter: new MemoryLimiter(), logStream: { write() {} } });
    try {
      const m = await merchant(ctx.app);
      // The second instance knows (and caches for 4 s) the key.
      const warm = await call(second, 'GET', '/api/v1/products', { key: m.devKey });
      assert.equal(warm.status, 200, warm.raw);
      const cachedAt = Date.now();
      assert.equal((await call(second, 'GET', '/api/v1/products', { key: m.devKey })).status, 200);
      const id = (await call(ctx.app, 'GET', '/api/credentials', { token: m.token })).body.credentials[0].id;
      assert.equal((await call(ctx.app, 'DELETE', `/api/credentials/${id}`, { token: m.token })).status, 200);
      let status = 0;
      while (Date.now() - cachedAt < 5000) {
        status = (await call(second, 'GET', '/api/v1/products', { key: m.devKey })).status;
        if (status === 401) break;
        assert.equal(status, 200);
        await sleep(50);
      }
      const elapsed = Date.now() - cachedAt;
      assert.equal(status, 401, 'the revoked key still works on the other instance after 5 s');
      // Before the cached copy would have expired: the announcement dropped it, not the TTL.
      assert.ok(elapsed < 3000, `flipped ${elapsed} ms after the key was cached`);
      await sleep(300);
      assert.equal((await call(second, 'GET', '/api/v1/products', { key: m.devKey })).status, 401);
    } finally {
      await second.close();
    }
  });

  test('another merchant\'s key -> 404 and the key keeps working; a malformed id -> 400', async () => {
    const owner = await merchant(ctx.app);
    const intruder = await merchant(ctx.app);
    const id = (await call(ctx.app, 'GET', '/api/credentials', { token: owner.token })).body.credentials[0].id;
    const res = await call(ctx.app, 'DELETE', `/api/credentials/${id}`, { token: intruder.token });
    assert.equal(res.status, 404, res.raw);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: owner.devKey })).status, 200);
    const row = await ctx.database.db.selectFrom('api_keys').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null);

    const unknown = await call(ctx.app, 'DELETE', '/api/credentials/01890000-0000-7000-8000-000000000000', { token: owner.token });
    assert.equal(unknown.status, 404);
    const bad = await call(ctx.app, 'DELETE', '/api/credentials/not-a-uuid', { token: owner.token });
    assert.equal(bad.status, 400);
  });

  test('an API key cannot revoke keys', async () => {
    const m = await merchant(ctx.app);
    const id = (await call(ctx.app, 'GET', '/api/credentials', { token: m.token })).body.credentials[0].id;
    const res = await call(ctx.app, 'DELETE', `/api/credentials/${id}`, { key: m.devKey });
    assert.equal(res.status, 401);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: m.devKey })).status, 200);
  });
});
