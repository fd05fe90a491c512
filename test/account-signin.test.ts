// Two-factor sign-in (issue 39): enrolment, the two-step login, replay and recovery codes, the login
// limits on codes, turning it off, operators without it, and the secrets never seen again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createUser } from '../src/modules/auth/service.ts';
import { base32Decode, totp } from '../src/modules/auth/totp.ts';
import { call, enrolMfa, merchant, totpCode, uniqueEmail } from './helpers.ts';
import { useApp } from './kit/app.ts';

const ctx = useApp();
const login = (email: string, password: string) => call(ctx.app, 'POST', '/api/auth/login', { body: { email, password } });
const second = (challenge: string, code: string) => call(ctx.app, 'POST', '/api/auth/login/mfa', { body: { challenge, code } });

describe('enrolment', () => {
  test('start gives a QR code, an otpauth URI and the base32 secret; a wrong code is 400; a right one turns it on with ten recovery codes', async () => {
    const m = await merchant(ctx.app);
    assert.deepEqual((await call(ctx.app, 'GET', '/api/auth/mfa', { token: m.token })).body.mfa, { enabled: false, enabledAt: null, recoveryCodesLeft: 0 });
    const start = await call(ctx.app, 'POST', '/api/auth/mfa/enrol', { token: m.token });
    assert.equal(start.status, 201, start.raw);
    assert.match(start.body.secret, /^[A-Z2-7]{32}$/);
    assert.match(start.body.otpauthUri, /^otpauth:\/\/totp\/Cofre:.+\?secret=[A-Z2-7]{32}&issuer=Cofre&algorithm=SHA1&digits=6&period=30$/);
    assert.match(start.body.qrCode, /^data:image\/png;base64,/);
    // Not on until confirmed: login still gives a token.
    assert.ok((await login(m.email, m.password)).body.token);
    const wrong = await call(ctx.app, 'POST', '/api/auth/mfa/confirm', { token: m.token, body: { code: totp(base32Decode(start.body.secret), Date.now() - 120_000) } });
    assert.equal(wrong.status, 400, wrong.raw);
    assert.equal(wrong.body.errors[0].field, 'code');
    const ok = await call(ctx.app, 'POST', '/api/auth/mfa/confirm', { token: m.token, body: { code: totpCode(start.body.secret) } });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.recoveryCodes.length, 10);
    assert.equal(new Set(ok.body.recoveryCodes).size, 10);
    const status = (await call(ctx.app, 'GET', '/api/auth/mfa', { token: m.token })).body.mfa;
    assert.equal(status.enabled, true);
    assert.equal(status.recoveryCodesLeft, 10);
    assert.equal((await call(ctx.app, 'POST', '/api/auth/mfa/enrol', { token: m.token })).status, 409);
    // Stored sealed and hashed: neither the secret nor a recovery code is in the database as given.
    const row = await ctx.app.deps.db.selectFrom('totp_factors').selectAll().where('user_id', '=', m.id).executeTakeFirstOrThrow();
    assert.ok(!row.secret_enc.includes(start.body.secret));
    const hashes = await ctx.app.deps.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', m.id).execute();
    assert.ok(hashes.every((h) => !ok.body.recoveryCodes.some((c: string) => h.code_hash.includes(c.replace('-', '')))));
  });

  test('API keys cannot enrol (dashboard token only)', async () => {
    const m = await merchant(ctx.app);
    assert.equal((await call(ctx.app, 'POST', '/api/auth/mfa/enrol', { key: m.devKey })).status, 401);
  });
});

describe('two-step login', () => {
  test('password then code: challenge instead of token; the code gives the token; a replayed code and a used challenge are refused', async () => {
    const m = await merchant(ctx.app);
    const { secret } = await enrolMfa(ctx.app, m.token);
    const first = await login(m.email, m.password);
    assert.equal(first.status, 200, first.raw);
    assert.equal(first.body.mfaRequired, true);
    assert.equal(first.body.token, undefined);
    assert.equal(first.body.expiresIn, 300);
    const code = totpCode(secret);
    const done = await second(first.body.challenge, code);
    assert.equal(done.status, 200, done.raw);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: done.body.token })).body.user.id, m.id);
    // The same challenge again: used up.
    assert.equal((await second(first.body.challenge, totpCode(secret, Date.now() + 30_000))).status, 401);
    // The same code on a new challenge, in its window: a replay.
    const again = await login(m.email, m.password);
    const replay = await second(again.body.challenge, code);
    assert.equal(replay.status, 401, replay.raw);
    assert.deepEqual(replay.body, { message: 'Invalid or expired code' });
    // The next step's code still works on that challenge (clock drift of one step is accepted).
    assert.equal((await second(again.body.challenge, totpCode(secret, Date.now() + 30_000))).status, 200);
  });

  test('an expired challenge is refused', async () => {
    const m = await merchant(ctx.app);
    const { secret } = await enrolMfa(ctx.app, m.token);
    const first = await login(m.email, m.password);
    await ctx.app.deps.db.updateTable('login_challenges').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', m.id).execute();
    const res = await second(first.body.challenge, totpCode(secret));
    assert.equal(res.status, 401, res.raw);
    assert.match(res.body.message, /challenge/);
  });

  test('recovery codes: each works once, in any case and spacing', async () => {
    const m = await merchant(ctx.app);
    const { recoveryCodes } = await enrolMfa(ctx.app, m.token);
    const a = await login(m.email, m.password);
    assert.equal((await second(a.body.challenge, recoveryCodes[0].toUpperCase().replace('-', ' '))).status, 200);
    const b = await login(m.email, m.password);
    assert.equal((await second(b.body.challenge, recoveryCodes[0])).status, 401);
    assert.equal((await second(b.body.challenge, recoveryCodes[1])).status, 200);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/mfa', { token: m.token })).body.mfa.recoveryCodesLeft, 8);
  });

  test('wrong codes count against the login limits: the sixth try is 429 even with the right code', async () => {
    const m = await merchant(ctx.app);
    const { secret } = await enrolMfa(ctx.app, m.token);
    const first = await login(m.email, m.password);
    const wrong = String((Number(totpCode(secret)) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) assert.equal((await second(first.body.challenge, wrong)).status, 401);
    const locked = await second(first.body.challenge, totpCode(secret));
    assert.equal(locked.status, 429, locked.raw);
    assert.ok(locked.headers['retry-after']);
    // The password step shares the count.
    assert.equal((await login(m.email, m.password)).status, 429);
  });

  test('turning it off needs a current code in X-Second-Factor; then login gives a token again', async () => {
    const m = await merchant(ctx.app);
    const { secret } = await enrolMfa(ctx.app, m.token);
    const none = await call(ctx.app, 'DELETE', '/api/auth/mfa', { token: m.token });
    assert.equal(none.status, 403);
    assert.equal(none.headers['x-error-code'], 'SECOND_FACTOR_REQUIRED');
    assert.deepEqual(none.body, { message: 'This action needs a second factor: send the code in the X-Second-Factor header' });
    const bad = await call(ctx.app, 'DELETE', '/api/auth/mfa', { token: m.token, headers: { 'x-second-factor': '000000' } });
    assert.equal(bad.headers['x-error-code'], 'SECOND_FACTOR_INVALID');
    const off = await call(ctx.app, 'DELETE', '/api/auth/mfa', { token: m.token, headers: { 'x-second-factor': totpCode(secret) } });
    assert.equal(off.status, 200, off.raw);
    assert.ok((await login(m.email, m.password)).body.token);
    assert.equal(await ctx.app.deps.db.selectFrom('recovery_codes').select('user_id').where('user_id', '=', m.id).executeTakeFirst(), undefined);
  });
});

describe('operators need two-factor authentication', () => {
  test('an ADMIN without it gets 403 MFA_ENROLMENT_REQUIRED on operator routes; once enrolled, the same token acts', async () => {
    const email = uniqueEmail('op');
    await createUser(ctx.app.deps.db, { name: 'Op', email, password: 'operator password', role: 'ADMIN' });
    const token = (await login(email, 'operator password')).body.token;
    const refused = await call(ctx.app, 'GET', '/api/admin/merchants', { token });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers['x-error-code'], 'MFA_ENROLMENT_REQUIRED');
    assert.deepEqual(Object.keys(refused.body), ['message']);
    await enrolMfa(ctx.app, token);
    assert.equal((await call(ctx.app, 'GET', '/api/admin/merchants', { token })).status, 200);
    assert.equal((await login(email, 'operator password')).body.mfaRequired, true);
  });
});

describe('secrets are shown once', () => {
  test('the TOTP secret, recovery codes and challenges are in no log and no later answer', async () => {
    const m = await merchant(ctx.app);
    const { secret, recoveryCodes } = await enrolMfa(ctx.app, m.token);
    const challenge = (await login(m.email, m.password)).body.challenge as string;
    const token = (await second(challenge, totpCode(secret))).body.token as string;
    const later = [
      await call(ctx.app, 'GET', '/api/auth/mfa', { token }),
      await call(ctx.app, 'GET', '/api/auth/me', { token }),
      await call(ctx.app, 'GET', '/api/auth/sessions', { token }),
      await call(ctx.app, 'GET', '/api/v1/emails', { token }),
    ].map((r) => r.raw);
    const logs = ctx.logs.join('\n');
    for (const s of [secret, challenge, ...recoveryCodes]) {
      assert.ok(!logs.includes(s), 'a secret reached the log');
      for (const body of later) assert.ok(!body.includes(s), 'a secret came back in an answer');
    }
  });
});
