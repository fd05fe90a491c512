// Sessions and password reset (issue 39): the list (device, address, last use, the current one), ending
// one or all others (refused at once, also on a second instance over the same database), a password
// change ending the others, and the e-mailed reset link (single use, expiring, ending every session).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../src/deps.ts';
import { call, enrolMfa, merchant, secondInstance, totpCode, uniqueEmail } from './helpers.ts';
import { ready, useApp } from './kit/app.ts';

const ctx = useApp();
let other: App;
before(async () => {
  other = await secondInstance(await ready(ctx));
});
after(() => other.close());

const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const loginFrom = async (email: string, password: string, ua: string) => (await call(ctx.app, 'POST', '/api/auth/login', { body: { email, password }, headers: { 'user-agent': ua } })).body.token as string;
const me = (app: App, token: string) => call(app, 'GET', '/api/auth/me', { token });

/** The reset link of the latest reset e-mail to the account (the outbox keeps it until an SMTP server takes it). */
async function resetToken(userId: string): Promise<string> {
  const mail = await ctx.app.deps.db.selectFrom('emails').select(['text_body', 'subject']).where('user_id', '=', userId).where('template', '=', 'password_reset').orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
  assert.equal(mail.subject, 'Redefina sua senha da Cofre');
  return new URL(/http\S+redefinir-senha\S+/.exec(mail.text_body)![0]).searchParams.get('token')!;
}

describe('sessions', () => {
  test('listed with device, address, created and last used; the current one marked; another account sees none of them', async () => {
    const m = await merchant(ctx.app);
    const desk = await loginFrom(m.email, m.password, CHROME_WINDOWS);
    const phone = await loginFrom(m.email, m.password, SAFARI_IPHONE);
    const list = await call(ctx.app, 'GET', '/api/auth/sessions', { token: phone });
    assert.equal(list.status, 200, list.raw);
    assert.equal(list.body.sessions.length, 3);
    const current = list.body.sessions.filter((s: { current: boolean }) => s.current);
    assert.equal(current.length, 1);
    assert.equal(current[0].device, 'Safari · iPhone');
    assert.ok(list.body.sessions.some((s: { device: string }) => s.device === 'Chrome · Windows'));
    for (const s of list.body.sessions) {
      assert.equal(s.ip, '127.0.0.1');
      assert.ok(Date.parse(s.lastUsedAt) >= Date.parse(s.createdAt));
    }
    const stranger = await merchant(ctx.app);
    const id = list.body.sessions.find((s: { device: string }) => s.device === 'Chrome · Windows').id;
    assert.equal((await call(ctx.app, 'DELETE', `/api/auth/sessions/${id}`, { token: stranger.token })).status, 404);
    assert.equal((await me(ctx.app, desk)).status, 200);
  });

  test('last used is written at most once a minute', async () => {
    const m = await merchant(ctx.app);
    const stale = new Date(Date.now() - 120_000);
    await ctx.app.deps.db.updateTable('sessions').set({ last_used_at: stale }).where('user_id', '=', m.id).execute();
    await me(ctx.app, m.token);
    const seen = (await ctx.app.deps.db.selectFrom('sessions').select('last_used_at').where('user_id', '=', m.id).executeTakeFirstOrThrow()).last_used_at!;
    assert.ok(seen.getTime() > stale.getTime());
    await me(ctx.app, m.token);
    const again = (await ctx.app.deps.db.selectFrom('sessions').select('last_used_at').where('user_id', '=', m.id).executeTakeFirstOrThrow()).last_used_at!;
    assert.equal(again.getTime(), seen.getTime());
  });

  test('ending one session: its token is 401 at once, on this instance and on a second one; ending it twice is 404', async () => {
    const m = await merchant(ctx.app);
    const desk = await loginFrom(m.email, m.password, CHROME_WINDOWS);
    assert.equal((await me(other, desk)).status, 200);
    const id = JSON.parse(Buffer.from(desk.split('.')[1], 'base64url').toString()).jti;
    const del = await call(ctx.app, 'DELETE', `/api/auth/sessions/${id}`, { token: m.token });
    assert.equal(del.status, 200, del.raw);
    assert.equal((await me(ctx.app, desk)).status, 401);
    assert.equal((await me(other, desk)).status, 401);
    assert.equal((await call(ctx.app, 'DELETE', `/api/auth/sessions/${id}`, { token: m.token })).status, 404);
    assert.equal((await me(other, m.token)).status, 200);
  });

  test('ending all others keeps the current one; the others are 401 on both instances', async () => {
    const m = await merchant(ctx.app);
    const a = await loginFrom(m.email, m.password, CHROME_WINDOWS);
    const b = await loginFrom(m.email, m.password, SAFARI_IPHONE);
    assert.equal((await me(other, a)).status, 200);
    const res = await call(ctx.app, 'DELETE', '/api/auth/sessions/others', { token: b });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.revoked, 2);
    for (const t of [a, m.token]) {
      assert.equal((await me(ctx.app, t)).status, 401);
      assert.equal((await me(other, t)).status, 401);
    }
    assert.equal((await me(other, b)).status, 200);
  });

  test('a password change ends the other sessions; the answer carries a working token', async () => {
    const m = await merchant(ctx.app);
    const a = await loginFrom(m.email, m.password, CHROME_WINDOWS);
    const res = await call(ctx.app, 'POST', '/api/auth/password', { token: m.token, body: { currentPassword: m.password, newPassword: 'a brand new passphrase' } });
    assert.equal(res.status, 200, res.raw);
    assert.equal((await me(other, a)).status, 401);
    assert.equal((await me(other, res.body.token)).status, 200);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/sessions', { token: res.body.token })).body.sessions.length, 1);
  });
});

describe('password reset by e-mail', () => {
  test('forgot answers 202 alike for a known and an unknown e-mail; only the known one gets a pt-BR message', async () => {
    const m = await merchant(ctx.app);
    const known = await call(ctx.app, 'POST', '/api/auth/password/forgot', { body: { email: m.email.toUpperCase() } });
    const unknown = await call(ctx.app, 'POST', '/api/auth/password/forgot', { body: { email: uniqueEmail('ninguem') } });
    assert.equal(known.status, 202);
    assert.equal(unknown.status, 202);
    assert.deepEqual(known.body, unknown.body);
    const token = await resetToken(m.id);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const mail = await ctx.app.deps.db.selectFrom('emails').select(['text_body', 'to_address']).where('user_id', '=', m.id).where('template', '=', 'password_reset').executeTakeFirstOrThrow();
    assert.equal(mail.to_address, m.email);
    assert.match(mail.text_body, /Redefinir senha: http:\/\/localhost:3000\/dashboard\/redefinir-senha\?token=/);
    // Stored hashed only.
    assert.equal(await ctx.app.deps.db.selectFrom('password_resets').select('user_id').where('token_hash', '=', token).executeTakeFirst(), undefined);
    // Not in the merchant's e-mail log, nor in the server log.
    assert.ok(!(await call(ctx.app, 'GET', '/api/v1/emails', { key: m.devKey })).raw.includes(token));
    assert.ok(!ctx.logs.join('\n').includes(token));
  });

  test('reset: new password works, every session ends (both instances), the token works once; 2FA is still asked', async () => {
    const m = await merchant(ctx.app);
    const { secret } = await enrolMfa(ctx.app, m.token);
    await call(ctx.app, 'POST', '/api/auth/password/forgot', { body: { email: m.email } });
    const token = await resetToken(m.id);
    const weak = await call(ctx.app, 'POST', '/api/auth/password/reset', { body: { token, password: 'password123' } });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.errors[0].field, 'password');
    const ok = await call(ctx.app, 'POST', '/api/auth/password/reset', { body: { token, password: 'another good passphrase' } });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal((await me(ctx.app, m.token)).status, 401);
    assert.equal((await me(other, m.token)).status, 401);
    const again = await call(ctx.app, 'POST', '/api/auth/password/reset', { body: { token, password: 'yet another passphrase' } });
    assert.equal(again.status, 400);
    assert.equal(again.body.errors[0].field, 'token');
    assert.equal((await call(ctx.app, 'POST', '/api/auth/login', { body: { email: m.email, password: m.password } })).status, 401);
    const step = await call(ctx.app, 'POST', '/api/auth/login', { body: { email: m.email, password: 'another good passphrase' } });
    assert.equal(step.body.mfaRequired, true);
    assert.equal((await call(ctx.app, 'POST', '/api/auth/login/mfa', { body: { challenge: step.body.challenge, code: totpCode(secret) } })).status, 200);
  });

  test('an expired link is refused; an unknown token too', async () => {
    const m = await merchant(ctx.app);
    await call(ctx.app, 'POST', '/api/auth/password/forgot', { body: { email: m.email } });
    const token = await resetToken(m.id);
    await ctx.app.deps.db.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', m.id).execute();
    const res = await call(ctx.app, 'POST', '/api/auth/password/reset', { body: { token, password: 'another good passphrase' } });
    assert.equal(res.status, 400, res.raw);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.equal((await call(ctx.app, 'POST', '/api/auth/password/reset', { body: { token: 'x'.repeat(43), password: 'another good passphrase' } })).status, 400);
    assert.equal((await me(ctx.app, m.token)).status, 200);
  });

  test('forgot is limited to 5 per e-mail per hour, known or not (429)', async () => {
    const email = uniqueEmail('ninguem');
    for (let i = 0; i < 5; i++) assert.equal((await call(ctx.app, 'POST', '/api/auth/password/forgot', { body: { email } })).status, 202);
    const limited = await call(ctx.app, 'POST', '/api/auth/password/forgot', { body: { email } });
    assert.equal(limited.status, 429);
    assert.ok(limited.headers['retry-after']);
  });
});
