import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, uniqueEmail } from './helpers.ts';
import { useApp } from './kit/app.ts';
import { countingReads } from './kit/reads.ts';

const ctx = useApp();

describe('register', () => {
  test('creates an account and returns a token', async () => {
    const email = uniqueEmail();
    const res = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Ana Souza', email, password: 'segredo123' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.user.email, email);
    assert.equal(res.body.user.role, 'USER');
    assert.match(res.body.user.referralCode, /^[A-Z2-9]{8}$/);
    assert.ok(res.body.token.split('.').length === 3);
    assert.equal(res.body.user.password, undefined);
    assert.equal(res.body.user.password_hash, undefined);
    const row = await ctx.database.db.selectFrom('users').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$/);
  });

  test('e-mail is unique case-insensitively', async () => {
    const email = uniqueEmail();
    assert.equal((await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'A', email, password: 'segredo123' } })).status, 201);
    const dup = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'B', email: email.toUpperCase(), password: 'segredo123' } });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.code, 'EMAIL_ALREADY_REGISTERED');
    assert.deepEqual(dup.body.errors, [{ field: 'email', message: 'is already registered' }]);
  });

  test('short password, bad e-mail and missing name are 400 with field errors', async () => {
    const res = await call(ctx.app, 'POST', '/api/auth/register', { body: { email: 'not-an-email', password: 'short' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.equal(res.body.path, '/api/auth/register');
    assert.ok(!Number.isNaN(Date.parse(res.body.timestamp)));
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['email', 'name', 'password']);
  });

  test('a referral code links the new account to its referrer; an unknown one is refused', async () => {
    const first = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'R', email: uniqueEmail(), password: 'segredo123' } });
    const code = first.body.user.referralCode;
    const second = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'S', email: uniqueEmail(), password: 'segredo123', referralCode: code.toLowerCase() } });
    assert.equal(second.status, 201);
    const row = await ctx.database.db.selectFrom('users').select('referred_by').where('id', '=', second.body.user.id).executeTakeFirstOrThrow();
    assert.equal(row.referred_by, first.body.user.id);
    const bad = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'T', email: uniqueEmail(), password: 'segredo123', referralCode: 'NOPE1234' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'referralCode');
  });
});

describe('login', () => {
  test('returns token, expiresIn and user; the token opens /api/auth/me', async () => {
    const email = uniqueEmail();
    await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Bia', email, password: 'segredo123' } });
    const res = await call(ctx.app, 'POST', '/api/auth/login', { body: { email: email.toUpperCase(), password: 'segredo123' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.expiresIn, 86400);
    assert.equal(res.body.user.email, email);
    const me = await call(ctx.app, 'GET', '/api/auth/me', { token: res.body.token });
    assert.equal(me.status, 200);
    assert.equal(me.body.user.id, res.body.user.id);
  });

  test('wrong password and unknown e-mail give the same 401', async () => {
    const email = uniqueEmail();
    await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Caio', email, password: 'segredo123' } });
    const wrong = await call(ctx.app, 'POST', '/api/auth/login', { body: { email, password: 'errado123' } });
    const unknown = await call(ctx.app, 'POST', '/api/auth/login', { body: { email: uniqueEmail(), password: 'segredo123' } });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.deepEqual(wrong.body, unknown.body);
    assert.deepEqual(Object.keys(wrong.body), ['message']);
  });

  test('five failures for one e-mail and IP lock further attempts with 429 and Retry-After', async () => {
    const email = uniqueEmail();
    await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Duda', email, password: 'segredo123' } });
    for (let i = 0; i < 5; i++) assert.equal((await call(ctx.app, 'POST', '/api/auth/login', { body: { email, password: 'errado' + i } })).status, 401);
    const locked = await call(ctx.app, 'POST', '/api/auth/login', { body: { email, password: 'segredo123' } });
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    assert.deepEqual(Object.keys(locked.body), ['message']);
    // Another IP is not locked out by this one's failures.
    const other = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: '10.9.8.7', payload: { email, password: 'segredo123' } });
    assert.equal(other.statusCode, 200);
  });

  test('/api/auth/me refuses missing, malformed and forged tokens', async () => {
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me')).status, 401);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { headers: { authorization: 'Basic abc' } })).status, 401);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.invalid' })).status, 401);
  });
});

describe('API key cache', () => {
  test('requests that miss the cache together share one read of the key; each still gets its answer', async () => {
    const { Authenticator } = await import('../src/http/auth.ts');
    const { MemoryLimiter } = await import('../src/http/ratelimit.ts');
    const { merchant } = await import('./helpers.ts');
    const m = await merchant(ctx.app);
    const { db, reads } = countingReads(ctx.database.db, 'api_keys');
    const limiter = new MemoryLimiter();
    const auth = new Authenticator({ db, jwtSecret: ctx.config.jwtSecret, limiter, perUserPerMinute: 1000 });
    const as = (key: string, permission: 'transactions:write' | 'transactions:read' = 'transactions:write') =>
      auth.authenticate({ headers: { 'api-key': key } } as never, { key: permission });
    const answers = await Promise.all(Array.from({ length: 20 }, () => as(m.devKey)));
    assert.equal(reads(), 1);
    assert.ok(answers.every((a) => a.userId === m.id && a.livemode === false && a.via === 'key'));
    // Cached now: no read; a key that does not exist is read once for all who ask together, and refused.
    await as(m.devKey);
    assert.equal(reads(), 1);
    const unknown = `cofre_test_${'x'.repeat(43)}`;
    const refused = await Promise.allSettled(Array.from({ length: 5 }, () => as(unknown)));
    assert.equal(reads(), 2);
    assert.ok(refused.every((r) => r.status === 'rejected' && (r.reason as { status?: number }).status === 401));
    await limiter.close();
  });
});
