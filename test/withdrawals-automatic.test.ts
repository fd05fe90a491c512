// Payouts without a person: withdrawals to an account's data, the sandbox told to fail one, review
// and daily limits with an operator's approval, the platform's own funds lacking at the PSP (held and
// sent again under the same reference), confirmed notifications, and the operators' health view.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PayoutRequest, PayoutSent, PayoutState } from '../src/payments/connector.ts';
import { applyPayout } from '../src/modules/withdrawals/payouts.ts';
import { call, merchant, operator, startApp, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { accounts, assert400, assertMessageOnly, balance, eventsOf, liveMerchantWithFunds, payoutConnectors, req, runPayouts, ScriptedProvider } from './wallet-helpers.ts';
import { ctx, FEE, funded, W, wBody, withdraw } from './withdrawals-kit.ts';

const account = (over: Record<string, unknown> = {}) => ({ ispb: '60701190', branch: '0001', account: '123456', accountType: 'checking', holderName: 'Loja Exemplo Ltda', holderDocument: '11.222.333/0001-81', ...over });

describe('withdrawals to an account (a Pix by account data)', () => {
  test('paid like a key: the view carries the account, events mask the holder, the ledger names no account', async () => {
    const m = await funded(20_000);
    const w = await withdraw(m.k, 10_000, { pixKeyType: undefined, pixKey: undefined, bankAccount: account() });
    assert.equal(w.pixKey, null);
    assert.equal(w.pixKeyType, null);
    assert.deepEqual(w.bankAccount, { ...account(), holderDocument: '11222333000181' });
    await runPayouts(ctx);
    const done = (await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data;
    assert.equal(done.status, 'COMPLETED');
    const events = await eventsOf(ctx, m.id, false);
    const completed = events.find((e) => e.type === 'withdrawal.completed')!;
    assert.equal(completed.data.bankAccount.holderDocument, '**.222.333/0001-**');
    assert.equal(JSON.stringify(events).includes('11222333000181'), false);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('refused with a clear error and nothing written: both destinations, neither, a bad document, a bad ISPB', async () => {
    const m = await funded(20_000);
    const before = await balance(ctx.app, m.k);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(5000, { bankAccount: account() })), 'VALIDATION_ERROR', ['bankAccount']);
    assert400(await req(ctx.app, 'POST', W, m.k, { amountCents: 5000 }), 'VALIDATION_ERROR', ['pixKey']);
    assert400(await req(ctx.app, 'POST', W, m.k, { amountCents: 5000, bankAccount: account({ holderDocument: '123.456.789-00' }) }), 'INVALID_DOCUMENT', ['bankAccount.holderDocument']);
    assert400(await req(ctx.app, 'POST', W, m.k, { amountCents: 5000, bankAccount: account({ ispb: '123' }) }), 'VALIDATION_ERROR');
    assert400(await req(ctx.app, 'POST', W, m.k, { amountCents: 5000, bankAccount: account({ accountType: 'poupanca' }) }), 'VALIDATION_ERROR');
    assert.deepEqual(await balance(ctx.app, m.k), before);
  });

  test('the sandbox fails its magic accounts with a code and pt-BR words; the money is back', async () => {
    const m = await funded(20_000);
    const w = await withdraw(m.k, 10_000, { pixKeyType: undefined, pixKey: undefined, bankAccount: account({ account: '9990002' }) });
    await runPayouts(ctx);
    const done = (await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data;
    assert.equal(done.status, 'FAILED');
    assert.equal(done.failureCode, 'ACCOUNT_CLOSED');
    assert.match(done.failureReason, /encerrada/);
    assert.equal((await balance(ctx.app, m.k)).availableBalanceCents, 20_000);
  });
});

describe('sandbox simulate', () => {
  test('fails a pending development withdrawal on request (withdrawal.failed, funds back); once settled it is refused; 404 for another merchant', async () => {
    const m = await funded(20_000);
    const w = await withdraw(m.k, 10_000);
    const other = await funded(0);
    assertMessageOnly(await req(ctx.app, 'POST', `${W}/${w.id}/simulate`, other.k, { outcome: 'FAILED' }), 404);
    const res = await req(ctx.app, 'POST', `${W}/${w.id}/simulate`, m.k, { outcome: 'FAILED', reason: 'DOCUMENT_MISMATCH' });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.data.status, 'FAILED');
    assert.equal(res.body.data.failureCode, 'DOCUMENT_MISMATCH');
    assert.match(res.body.data.failureReason, /titular/);
    assert.equal((await balance(ctx.app, m.k)).availableBalanceCents, 20_000);
    assert.ok((await eventsOf(ctx, m.id, false)).some((e) => e.type === 'withdrawal.failed'));
    assert400(await req(ctx.app, 'POST', `${W}/${w.id}/simulate`, m.k, { outcome: 'COMPLETED' }), 'INVALID_STATE_TRANSITION');
    assert400(await req(ctx.app, 'POST', `${W}/${w.id}/simulate`, m.k, { outcome: 'FAILED', reason: 'BECAUSE' }), 'VALIDATION_ERROR');
    // The payout job finds nothing left to send.
    await runPayouts(ctx);
    assert.equal((await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data.status, 'FAILED');
    await assertLedgerBalanced(ctx.database.db);
  });
});

/** A payout connector standing for the PSP: each send answers what `next` says (SENT by default); lookups answer `states`. */
class Psp extends ScriptedProvider {
  next: (r: PayoutRequest) => PayoutSent = () => ({ status: 'SENT', providerId: 'E6070119020261128120000000000001' });
  sends: string[] = [];
  found = new Map<string, PayoutState>();
  override async sendPayout(r: PayoutRequest): Promise<PayoutSent> {
    this.sends.push(r.externalId);
    return this.next(r);
  }
  override async findPayout(reference: string): Promise<PayoutState | null> {
    return this.found.get(reference) ?? (this.sends.includes(reference) ? { status: 'PROCESSING', providerId: 'E6070119020261128120000000000001' } : null);
  }
}

describe('production payouts: review, limits, funds, notifications, health', () => {
  let live: TestContext;
  before(async () => {
    live = await startApp({ env: { PAYMENT_PROVIDER: 'sandbox', PAYOUT_PROVIDER: 'sandbox', PAYOUT_REVIEW_ABOVE_CENTS: '30000', PAYOUT_DAILY_LIMIT_CENTS: '50000', PAYOUT_NEW_DESTINATION_HOLD_HOURS: '0' } });
  });
  after(() => live.close());

  const liveMerchant = (funds?: number) => liveMerchantWithFunds(live, funds);

  test('above the review threshold or past the daily limit: held (PENDING, not sent) until another operator approves', async () => {
    const { m, lk } = await liveMerchant();
    const psp = new Psp(live);
    const connectors = payoutConnectors(live, { sandbox: psp, production: 'sandbox' });
    const big = (await req(live.app, 'POST', W, lk, wBody(40_000))).body.data;
    assert.equal(big.holdReason, 'ABOVE_REVIEW_THRESHOLD');
    // The held one counts toward the day: 40,000 + 10,000 = the 50,000 limit, allowed; 10,000 more is past it.
    const a = (await req(live.app, 'POST', W, lk, wBody(10_000))).body.data;
    assert.equal(a.holdReason, null);
    const b = (await req(live.app, 'POST', W, lk, wBody(10_000))).body.data;
    assert.equal(b.holdReason, 'DAILY_LIMIT');
    assertMessageOnly(await req(live.app, 'POST', `${W}/${b.id}/simulate`, lk, { outcome: 'FAILED' }), 403);
    await runPayouts(live, connectors);
    assert.equal(psp.sends.length, 1);
    assert.equal((await req(live.app, 'GET', `${W}/${a.id}`, lk)).body.data.status, 'PROCESSING');
    assert.equal((await req(live.app, 'GET', `${W}/${big.id}`, lk)).body.data.status, 'PENDING');

    const op = await operator(live.app);
    assertMessageOnly(await call(live.app, 'POST', `/api/admin/withdrawals/${big.id}/approve`, { token: m.token, body: {} }), 403);
    const approved = await call(live.app, 'POST', `/api/admin/withdrawals/${big.id}/approve`, { token: op.token });
    assert.equal(approved.status, 200, approved.raw);
    assert.equal(approved.body.data.holdReason, null);
    assert.ok(approved.body.data.approvedAt);
    assert400(await call(live.app, 'POST', `/api/admin/withdrawals/${big.id}/approve`, { token: op.token }), 'INVALID_STATE_TRANSITION');
    assert400(await call(live.app, 'POST', `/api/admin/withdrawals/${a.id}/approve`, { token: op.token }), 'INVALID_STATE_TRANSITION');
    await runPayouts(live, connectors);
    assert.equal(psp.sends.length, 2);
    // The merchant may still cancel a held one: funds back.
    const cancelled = await req(live.app, 'POST', `${W}/${b.id}/cancel`, lk);
    assert.equal(cancelled.status, 200, cancelled.raw);
  });

  test("the platform's account lacking funds is not the merchant's failure: PENDING again, the same reference later, operators alerted", async () => {
    const { m, lk } = await liveMerchant(50_000);
    const psp = new Psp(live);
    psp.next = () => ({ status: 'HELD', reason: 'PLATFORM_FUNDS', message: 'Saldo insuficiente na conta pagadora' });
    const connectors = payoutConnectors(live, { sandbox: psp, production: 'sandbox' });
    const w = (await req(live.app, 'POST', W, lk, wBody(20_000))).body.data;
    const t0 = new Date();
    await runPayouts(live, connectors, t0);
    const held = (await req(live.app, 'GET', `${W}/${w.id}`, lk)).body.data;
    assert.equal(held.status, 'PENDING');
    assert.equal(held.failureReason, null);
    assert.ok(live.logs.some((l) => l.includes('lacks funds') && l.includes(w.id)), 'logged at error for operators');
    const op = await operator(live.app);
    const health = await call(live.app, 'GET', '/api/admin/payouts/health', { token: op.token });
    assert.equal(health.status, 200, health.raw);
    assert.equal(health.body.status, 'attention');
    assert.ok(health.body.heldForFunds >= 1);
    assertMessageOnly(await call(live.app, 'GET', '/api/admin/payouts/health', { token: m.token }), 403);

    // Within the backoff nothing is sent; after it, the same reference goes again and is taken.
    await runPayouts(live, connectors, new Date(t0.getTime() + 5000));
    assert.equal(psp.sends.length, 1);
    psp.next = () => ({ status: 'SENT', providerId: 'E6070119020261128120000000000001' });
    await runPayouts(live, connectors, new Date(t0.getTime() + 31_000));
    assert.equal(psp.sends.length, 2);
    assert.equal(psp.sends[0], psp.sends[1], 'the same idEnvio on every try');
    const processing = (await req(live.app, 'GET', `${W}/${w.id}`, lk)).body.data;
    assert.equal(processing.status, 'PROCESSING');
    assert.equal(processing.externalId, 'E6070119020261128120000000000001', "externalId is the PSP's end-to-end id");
  });

  test('a confirmed notification completes it once; a repeated one changes nothing', async () => {
    const { m, lk } = await liveMerchant(50_000);
    const psp = new Psp(live);
    const connectors = payoutConnectors(live, { sandbox: psp, production: 'sandbox' });
    const w = (await req(live.app, 'POST', W, lk, wBody(20_000))).body.data;
    await runPayouts(live, connectors);
    const ref = psp.sends.at(-1)!;
    const before = await accounts(live, m.id, true);
    // What ConnectorCore.applyPayout does once a connector has confirmed a notification by lookup.
    const deps = { ...live.app.deps.withdrawals, connectors };
    await applyPayout(deps, 'sandbox', ref, { status: 'COMPLETED' });
    await applyPayout(deps, 'sandbox', ref, { status: 'COMPLETED' });
    await applyPayout(deps, 'sandbox', ref, { status: 'FAILED', reason: 'PAYOUT_REJECTED', message: 'late and wrong' });
    await applyPayout(deps, 'other-psp', ref, { status: 'FAILED', reason: 'PAYOUT_REJECTED', message: 'not its payout' });
    const done = (await req(live.app, 'GET', `${W}/${w.id}`, lk)).body.data;
    assert.equal(done.status, 'COMPLETED');
    const after = await accounts(live, m.id, true);
    assert.equal(after.external, before.external + 20_000 - FEE);
    assert.equal((await eventsOf(live, m.id, true)).filter((e) => e.type === 'withdrawal.completed' && e.data.id === w.id).length, 1);
    await assertLedgerBalanced(live.database.db);
  });
});

test('health without a payout provider: production withdrawals wait for an operator', async () => {
  const op = await operator(ctx.app);
  const m = await merchant(ctx.app, { live: true });
  const res = await call(ctx.app, 'GET', '/api/admin/payouts/health', { token: op.token });
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.body.provider, null);
  assert.equal(res.body.reachable, null);
  assertMessageOnly(await call(ctx.app, 'GET', '/api/admin/payouts/health', { token: m.token }), 403);
});
