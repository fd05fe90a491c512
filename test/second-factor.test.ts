// The second factor of money-moving dashboard actions (issue 39): a production withdrawal, a
// production API key, a webhook receiving production events and turning 2FA off are refused from a
// dashboard token without X-Second-Factor (403 SECOND_FACTOR_REQUIRED) or with a wrong one
// (SECOND_FACTOR_INVALID) and accepted with it; API keys are not asked; the e-mailed code's rules.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, emailedCode, enrolMfa, merchant, totpCode, type Merchant, type Res } from './helpers.ts';
import { useApp } from './kit/app.ts';
import { liveFunds } from './wallet-helpers.ts';

const ctx = useApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', PAYMENT_PROVIDER: 'sandbox', PAYOUT_PROVIDER: 'sandbox' } });
const PROD = { 'x-environment': 'production' };
const withdrawal = { amountCents: 1000, pixKeyType: 'email', pixKey: 'loja@example.com' };

function refused(res: Res, code: 'SECOND_FACTOR_REQUIRED' | 'SECOND_FACTOR_INVALID') {
  assert.equal(res.status, 403, res.raw);
  assert.equal(res.headers['x-error-code'], code);
  assert.deepEqual(Object.keys(res.body), ['message']);
}

type Action = { name: string; send: (m: Merchant, headers: Record<string, string>) => Promise<Res>; created: number };
const ACTIONS: Action[] = [
  { name: 'a production withdrawal', send: (m, h) => call(ctx.app, 'POST', '/api/withdraws', { token: m.token, body: withdrawal, headers: { ...PROD, ...h } }), created: 201 },
  { name: 'a production API key', send: (m, h) => call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'k', environment: 'PRODUCTION' }, headers: h }), created: 201 },
  { name: 'a production webhook', send: (m, h) => call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { token: m.token, body: { url: 'https://127.0.0.1/hook', events: ['transaction.completed'] }, headers: { ...PROD, ...h } }), created: 201 },
];

async function liveMerchant(): Promise<Merchant> {
  const m = await merchant(ctx.app, { live: true });
  await liveFunds(ctx, { key: m.liveKey! }, 50_000);
  return m;
}

describe('money-moving actions from the dashboard', () => {
  for (const action of ACTIONS) {
    test(`${action.name}: refused without and with a wrong second factor, accepted with the e-mailed code or the TOTP code`, async () => {
      const m = await liveMerchant();
      refused(await action.send(m, {}), 'SECOND_FACTOR_REQUIRED');
      refused(await action.send(m, { 'x-second-factor': '123456' }), 'SECOND_FACTOR_INVALID');
      const code = await emailedCode(ctx.app, m.token, m.id);
      const ok = await action.send(m, { 'x-second-factor': code });
      assert.equal(ok.status, action.created, ok.raw);
      // Single use.
      refused(await action.send(m, { 'x-second-factor': code }), 'SECOND_FACTOR_INVALID');
      const { secret } = await enrolMfa(ctx.app, m.token);
      assert.equal((await action.send(m, { 'x-second-factor': totpCode(secret) })).status, action.created);
    });
  }

  test('nothing was done by a refused request: no withdrawal, no key, no webhook', async () => {
    const m = await liveMerchant();
    for (const a of ACTIONS) await a.send(m, {});
    const db = ctx.app.deps.db;
    assert.equal((await db.selectFrom('withdrawals').select('id').where('user_id', '=', m.id).execute()).length, 0);
    assert.equal((await db.selectFrom('api_keys').select('id').where('user_id', '=', m.id).execute()).length, 2);
    assert.equal((await db.selectFrom('webhook_subscriptions').select('id').where('user_id', '=', m.id).execute()).length, 0);
  });

  test('API keys are not asked; development actions from the dashboard are not either', async () => {
    const m = await liveMerchant();
    assert.equal((await call(ctx.app, 'POST', '/api/withdraws', { key: m.liveKey!, body: withdrawal })).status, 201);
    assert.equal((await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: m.liveKey!, body: { url: 'https://127.0.0.1/k', events: ['transaction.completed'] } })).status, 201);
    assert.equal((await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'dev', environment: 'DEVELOPMENT' } })).status, 201);
    assert.equal((await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { token: m.token, body: { url: 'https://127.0.0.1/d', events: ['transaction.completed'] } })).status, 201);
  });

  test('a refusal is not stored for its Idempotency-Key: the retry with the code goes through', async () => {
    const m = await liveMerchant();
    const key = { 'idempotency-key': `sf-${m.id}` };
    refused(await call(ctx.app, 'POST', '/api/withdraws', { token: m.token, body: withdrawal, headers: { ...PROD, ...key } }), 'SECOND_FACTOR_REQUIRED');
    const code = await emailedCode(ctx.app, m.token, m.id);
    const ok = await call(ctx.app, 'POST', '/api/withdraws', { token: m.token, body: withdrawal, headers: { ...PROD, ...key, 'x-second-factor': code } });
    assert.equal(ok.status, 201, ok.raw);
  });
});

describe('the e-mailed code', () => {
  test('5 tries: after five wrong codes the right one is refused; a new code works', async () => {
    const m = await merchant(ctx.app);
    const code = await emailedCode(ctx.app, m.token, m.id);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const off = (h: Record<string, string>) => call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'k', environment: 'PRODUCTION' }, headers: h });
    for (let i = 0; i < 5; i++) refused(await off({ 'x-second-factor': wrong }), 'SECOND_FACTOR_INVALID');
    const locked = await off({ 'x-second-factor': code });
    assert.equal(locked.status, 429, locked.raw);
    await ctx.limiter.reset(`second-factor:fail:${m.id}`);
    refused(await off({ 'x-second-factor': code }), 'SECOND_FACTOR_INVALID');
  });

  test('expires after 5 minutes', async () => {
    const m = await merchant(ctx.app);
    const code = await emailedCode(ctx.app, m.token, m.id);
    await ctx.app.deps.db.updateTable('second_factor_codes').set({ expires_at: new Date(Date.now() - 1) }).where('user_id', '=', m.id).execute();
    refused(await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'k', environment: 'PRODUCTION' }, headers: { 'x-second-factor': code } }), 'SECOND_FACTOR_INVALID');
  });

  test('pt-BR message; the code is stored keyed-hashed, absent from the e-mail log and the server log; 409 once TOTP is on', async () => {
    const m = await merchant(ctx.app);
    const code = await emailedCode(ctx.app, m.token, m.id);
    const mail = await ctx.app.deps.db.selectFrom('emails').select(['subject', 'to_address']).where('user_id', '=', m.id).where('template', '=', 'second_factor_code').executeTakeFirstOrThrow();
    assert.equal(mail.subject, `Seu código de confirmação da Cofre: ${code}`);
    assert.equal(mail.to_address, m.email);
    const row = await ctx.app.deps.db.selectFrom('second_factor_codes').select('code_hash').where('user_id', '=', m.id).executeTakeFirstOrThrow();
    assert.match(row.code_hash, /^[0-9a-f]{64}$/);
    assert.ok(!(await call(ctx.app, 'GET', '/api/v1/emails', { key: m.devKey })).raw.includes(code));
    assert.ok(!ctx.logs.join('\n').includes(`"${code}"`));
    await enrolMfa(ctx.app, m.token);
    assert.equal((await call(ctx.app, 'POST', '/api/auth/second-factor', { token: m.token })).status, 409);
  });
});
