// Every action the audit log records writes exactly one entry with its actor, origin and the object
// before and after; a refused action writes none. Withdrawals, advances, refunds, chargeback
// answers, KYC, fees, operators' decisions, the password and sign-in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, enrolMfa, merchant, operator, totpCode, type Merchant } from './helpers.ts';
import { ctx, entries, keyId, one, send, useAuditApp } from './audit-kit.ts';
import { kycBody, liveFunds, paidCard, paidPix } from './wallet-helpers.ts';

useAuditApp();
const W = '/api/withdraws';
const wBody = (amountCents: number, over: Record<string, unknown> = {}) => ({ amountCents, pixKeyType: 'cpf', pixKey: '529.982.247-25', ...over });
const apiKey = async (m: Merchant, live = false) => ({ type: 'API_KEY', id: await keyId(live ? m.liveKey! : m.devKey) });

describe('withdrawals', () => {
  test('created, cancelled and simulated: one entry each, the Pix key (a CPF) masked', async () => {
    const m = await merchant(ctx.app);
    await paidPix(ctx.app, { key: m.devKey }, 100_000);
    const w1 = await send('POST', W, { key: m.devKey }, wBody(10_000));
    assert.equal(w1.status, 201, w1.raw);
    const created = await one(m.id, 'withdrawal.created', await apiKey(m));
    assert.equal(created.object_id, w1.body.data.id);
    assert.equal(created.livemode, false);
    assert.equal(created.before, null);
    assert.equal(created.after?.amountCents, 10_000);
    assert.equal(created.after?.pixKey, '***.982.247-**');
    assert.ok(!JSON.stringify(created).includes('52998224725'));

    assert.equal((await send('POST', `${W}/${w1.body.data.id}/cancel`, { token: m.token })).status, 200);
    const cancelled = await one(m.id, 'withdrawal.cancelled', { type: 'USER', id: m.id });
    assert.equal(cancelled.before?.status, 'PENDING');
    assert.equal(cancelled.after?.status, 'CANCELLED');

    const w2 = await send('POST', W, { key: m.devKey }, wBody(10_000));
    const sim = await send('POST', `${W}/${w2.body.data.id}/simulate`, { key: m.devKey }, { outcome: 'FAILED' });
    assert.equal(sim.status, 200, sim.raw);
    const simulated = await one(m.id, 'withdrawal.simulated', await apiKey(m));
    assert.equal(simulated.after?.status, 'FAILED');
  });

  test('refused for insufficient balance, a validation error or a foreign id: no entry', async () => {
    const m = await merchant(ctx.app);
    const other = await merchant(ctx.app);
    await paidPix(ctx.app, { key: other.devKey }, 100_000);
    const w = await send('POST', W, { key: other.devKey }, wBody(10_000));
    const before = await entries(m.id);
    assert.equal((await send('POST', W, { key: m.devKey }, wBody(10_000))).body.code, 'INSUFFICIENT_BALANCE');
    assert.equal((await send('POST', W, { key: m.devKey }, wBody(10_000, { pixKey: '111.111.111-11' }))).status, 400);
    assert.equal((await send('POST', `${W}/${w.body.data.id}/cancel`, { key: m.devKey })).status, 404);
    assert.deepEqual(await entries(m.id), before);
  });

  test('production: held, approved by an operator, completed and failed by hand; the operator is the actor', async () => {
    const m = await merchant(ctx.app, { live: true });
    const live = { key: m.liveKey! };
    await liveFunds(ctx, live, 2_000_000);
    const held = await send('POST', W, live, wBody(600_000, { pixKeyType: 'email', pixKey: 'loja@example.com' }));
    assert.equal(held.body.data.holdReason, 'ABOVE_REVIEW_THRESHOLD', held.raw);
    const other = await send('POST', W, live, wBody(10_000, { pixKeyType: 'email', pixKey: 'loja@example.com' }));
    const op = await operator(ctx.app);
    assert.equal((await send('POST', `/api/admin/withdrawals/${held.body.data.id}/approve`, { token: op.token })).status, 200);
    const approved = await one(m.id, 'withdrawal.approved', { type: 'OPERATOR', id: op.id });
    assert.equal(approved.before?.holdReason, 'ABOVE_REVIEW_THRESHOLD');
    assert.equal(approved.after?.holdReason, null);
    assert.equal(approved.livemode, true);
    await send('POST', `/api/admin/withdrawals/${held.body.data.id}/complete`, { token: op.token }, { externalId: 'E1234' });
    await send('POST', `/api/admin/withdrawals/${other.body.data.id}/fail`, { token: op.token }, { reason: 'Conta encerrada' });
    assert.equal((await one(m.id, 'withdrawal.completed_by_operator', { type: 'OPERATOR', id: op.id })).after?.status, 'COMPLETED');
    assert.equal((await one(m.id, 'withdrawal.failed_by_operator', { type: 'OPERATOR', id: op.id })).after?.failureReason, 'Conta encerrada');
    // A second approval is refused: still one entry.
    assert.equal((await send('POST', `/api/admin/withdrawals/${held.body.data.id}/approve`, { token: op.token })).status, 400);
    assert.equal((await entries(m.id, 'withdrawal.approved')).length, 1);
  });
});

describe('advances', () => {
  test('development: created (approved by the system in the same commit); refused ones write none', async () => {
    const m = await merchant(ctx.app);
    assert.equal((await send('POST', '/api/advances', { key: m.devKey }, { reason: 'Capital de giro' })).status, 400);
    assert.equal((await entries(m.id, 'advance.created')).length, 0);
    await paidCard(ctx.app, { key: m.devKey }, 60_000, 3);
    const res = await send('POST', '/api/advances', { key: m.devKey }, { reason: 'Capital de giro' });
    assert.equal(res.status, 201, res.raw);
    const e = await one(m.id, 'advance.created', await apiKey(m));
    assert.equal(e.after?.status, 'COMPLETED');
  });

  test('production: an operator approves one and rejects another; the merchant cancels a third', async () => {
    const m = await merchant(ctx.app, { live: true });
    const live = { key: m.liveKey! };
    const op = await operator(ctx.app);
    const decide = async (path: 'approve' | 'reject' | 'cancel') => {
      await paidCard(ctx.app, live, 60_000, 3);
      const a = await send('POST', '/api/advances', live, { reason: 'Estoque' });
      assert.equal(a.status, 201, a.raw);
      const id = a.body.advance.id;
      const res = path === 'cancel' ? await send('POST', `/api/advances/${id}/cancel`, { token: m.token, env: 'production' }) : await send('POST', `/api/admin/advances/${id}/${path}`, { token: op.token }, { reason: 'Análise' });
      assert.equal(res.status, 200, res.raw);
    };
    await decide('approve');
    await decide('reject');
    await decide('cancel');
    assert.equal((await entries(m.id, 'advance.created')).length, 3);
    assert.equal((await one(m.id, 'advance.approved', { type: 'OPERATOR', id: op.id })).after?.status, 'COMPLETED');
    const rejected = await one(m.id, 'advance.rejected', { type: 'OPERATOR', id: op.id });
    assert.equal(rejected.before?.status, 'PENDING');
    assert.equal(rejected.after?.status, 'REJECTED');
    assert.equal((await one(m.id, 'advance.cancelled', { type: 'USER', id: m.id })).after?.status, 'CANCELLED');
  });
});

describe('refunds and chargebacks', () => {
  test('a refund writes one entry; one over what is left writes none', async () => {
    const m = await merchant(ctx.app);
    const id = await paidPix(ctx.app, { key: m.devKey }, 10_000);
    assert.equal((await send('POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey }, { amountCents: 20_000 })).status, 400);
    assert.equal((await send('POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey }, { amountCents: 4_000 })).status, 200);
    const e = await one(m.id, 'refund.created', await apiKey(m));
    assert.equal(e.before?.status, 'PAID');
    assert.equal(e.after?.status, 'PARTIALLY_REFUNDED');
    assert.deepEqual((e.after as { refund: { amountCents: number } }).refund.amountCents, 4_000);
    assert.equal(e.livemode, false);
  });

  test('accepting and contesting a chargeback: one entry each with the case before and after', async () => {
    const m = await merchant(ctx.app);
    const open = async () => {
      const { id } = await paidCard(ctx.app, { key: m.devKey }, 10_000, 1);
      assert.equal((await send('POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey }, { outcome: 'CHARGEBACK' })).status, 200);
      return id;
    };
    const a = await open();
    assert.equal((await send('POST', `/api/v1/transactions/${a}/dispute`, { key: m.devKey }, { action: 'ACCEPT' })).status, 200);
    const b = await open();
    assert.equal((await send('POST', `/api/v1/transactions/${b}/dispute`, { key: m.devKey }, { action: 'CONTEST' })).status, 400); // text required
    assert.equal((await send('POST', `/api/v1/transactions/${b}/dispute`, { key: m.devKey }, { action: 'CONTEST', text: 'Produto entregue em 10/11 ao cliente.' })).status, 200);
    const accepted = await one(m.id, 'chargeback.accepted', await apiKey(m));
    assert.equal(accepted.before?.status, 'OPEN');
    assert.equal(accepted.after?.status, 'LOST');
    assert.equal((await one(m.id, 'chargeback.contested', await apiKey(m))).after?.status, 'CONTESTED');
  });
});

describe('KYC, fees, password and sign-in', () => {
  test('KYC submitted by the merchant and decided by an operator; the document masked', async () => {
    const m = await merchant(ctx.app);
    const op = await operator(ctx.app);
    const sub = await send('POST', '/api/kyc', { token: m.token }, kycBody({ document: '529.982.247-25' }));
    assert.equal(sub.status, 201, sub.raw);
    const submitted = await one(m.id, 'kyc.submitted', { type: 'USER', id: m.id });
    assert.equal(submitted.after?.document, '***.982.247-**');
    assert.ok(!JSON.stringify(submitted.after).includes('contentBase64'));
    assert.equal((await send('POST', `/api/admin/kyc/${sub.body.kyc.id}/reject`, { token: op.token }, {})).status, 400);
    assert.equal((await send('POST', `/api/admin/kyc/${sub.body.kyc.id}/reject`, { token: op.token }, { reason: 'Documento ilegível' })).status, 200);
    const rejected = await one(m.id, 'kyc.rejected', { type: 'OPERATOR', id: op.id });
    assert.equal(rejected.before?.status, 'SUBMITTED');
    assert.equal(rejected.after?.reviewReason, 'Documento ilegível');
    const again = await send('POST', '/api/kyc', { token: m.token }, kycBody());
    assert.equal((await send('POST', `/api/admin/kyc/${again.body.kyc.id}/approve`, { token: op.token }, {})).status, 200);
    assert.equal((await one(m.id, 'kyc.approved', { type: 'OPERATOR', id: op.id })).after?.status, 'APPROVED');
  });

  test("an operator's change of a merchant's fees: before and after; a refused one writes none", async () => {
    const m = await merchant(ctx.app);
    const op = await operator(ctx.app);
    assert.equal((await send('PUT', `/api/admin/merchants/${m.id}/fees`, { token: op.token }, { pixPercentBp: 20_000 })).status, 400);
    assert.equal((await send('PUT', `/api/admin/merchants/${m.id}/fees`, { token: op.token }, { pixPercentBp: 50 })).status, 200);
    assert.equal((await send('PUT', `/api/admin/merchants/${m.id}/fees`, { token: op.token }, {})).status, 200);
    const rows = await entries(m.id, 'fees.updated');
    assert.deepEqual(rows.map((r) => [r.before, r.after]), [
      [{ overrides: {} }, { overrides: { pixPercentBp: 50 } }],
      [{ overrides: { pixPercentBp: 50 } }, { overrides: {} }],
    ]);
    assert.ok(rows.every((r) => r.actor_type === 'OPERATOR' && r.actor_id === op.id && r.livemode === null));
  });

  test('a password change and a sign-in are recorded; a wrong password writes nothing', async () => {
    const m = await merchant(ctx.app);
    const login = (password: string) => call(ctx.app, 'POST', '/api/auth/login', { body: { email: m.email, password }, headers: { 'user-agent': 'AuditTest/1.0 (Chromium)' } });
    // The session its registration opened is recorded too.
    const opened = (await entries(m.id, 'session.created')).length;
    assert.equal((await login('not the password')).status, 401);
    assert.equal((await entries(m.id, 'session.created')).length, opened);
    assert.equal((await login(m.password)).status, 200);
    const signIns = await entries(m.id, 'session.created');
    assert.equal(signIns.length, opened + 1);
    const signIn = signIns.at(-1)!;
    assert.deepEqual([signIn.actor_type, signIn.actor_id, signIn.ip, signIn.user_agent, signIn.livemode], ['USER', m.id, '127.0.0.1', 'AuditTest/1.0 (Chromium)', null]);
    assert.equal((await send('POST', '/api/auth/password', { token: m.token }, { currentPassword: 'wrong one here', newPassword: 'uma senha nova e longa' })).status, 400);
    assert.equal((await send('POST', '/api/auth/password', { token: m.token }, { currentPassword: m.password, newPassword: 'uma senha nova e longa' })).status, 200);
    const changed = await one(m.id, 'password.changed', { type: 'USER', id: m.id });
    assert.equal(changed.before, null);
    assert.equal(changed.after, null);
  });

  test('two-factor authentication on and off, sessions ended: one entry each, no secret nor code in any', async () => {
    const m = await merchant(ctx.app);
    const { secret, recoveryCodes } = await enrolMfa(ctx.app, m.token);
    const actorOf = async (action: string) => (await entries(m.id, action)).map((e) => [e.actor_type, e.actor_id, e.object_id]);
    assert.deepEqual(await actorOf('mfa.enabled'), [['USER', m.id, m.id]]);
    const second = await call(ctx.app, 'POST', '/api/auth/login', { body: { email: m.email, password: m.password } });
    assert.equal(second.body.mfaRequired, true, second.raw);
    const mfa = await call(ctx.app, 'POST', '/api/auth/login/mfa', { body: { challenge: second.body.challenge, code: totpCode(secret) } });
    assert.equal(mfa.status, 200, mfa.raw);
    const sessions = await call(ctx.app, 'GET', '/api/auth/sessions', { token: m.token });
    const other = sessions.body.sessions.find((s: { current: boolean }) => !s.current);
    assert.equal((await send('DELETE', `/api/auth/sessions/${other.id}`, { token: m.token })).status, 200);
    assert.equal((await one(m.id, 'session.revoked', { type: 'USER', id: m.id })).object_id, other.id);
    assert.equal((await send('DELETE', '/api/auth/sessions/others', { token: m.token })).status, 200);
    await one(m.id, 'sessions.revoked', { type: 'USER', id: m.id });
    // Turning it off needs a code: refused without one, and nothing written.
    assert.equal((await send('DELETE', '/api/auth/mfa', { token: m.token })).status, 403);
    assert.equal((await entries(m.id, 'mfa.disabled')).length, 0);
    assert.equal((await call(ctx.app, 'DELETE', '/api/auth/mfa', { token: m.token, headers: { 'x-second-factor': recoveryCodes[0] } })).status, 200);
    assert.deepEqual(await actorOf('mfa.disabled'), [['USER', m.id, m.id]]);
    const all = JSON.stringify(await entries(m.id));
    for (const s of [secret, ...recoveryCodes]) assert.ok(!all.includes(s));
  });
});

