// Pix Automático in the sandbox (development keys): the same journey as production, simulated
// through POST /api/v1/subscriptions/{id}/simulate: the payer approves or rejects the
// authorisation, the debits are made on their due dates, INSUFFICIENT_FUNDS fails one (the dunning
// retries it), the payer cancels. The ledger balances at the end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';

const DAY = 86_400_000;

describe('Pix Automático in the sandbox', () => {
  let ctx: TestContext;
  let m: Merchant;
  let planId: string;
  before(async () => {
    ctx = await startApp();
    m = await merchant(ctx.app);
    const plan = await call(ctx.app, 'POST', '/api/v1/subscriptions/plans', { key: m.devKey, body: { name: 'Academia', amountCents: 8990, interval: 'MONTHLY', paymentMethods: ['PIX_AUTOMATICO'], dunning: { pixAutomaticoDaysBefore: 5 } } });
    assert.equal(plan.status, 201, plan.raw);
    planId = plan.body.plan.id;
  });
  after(async () => {
    await assertLedgerBalanced(ctx.app.deps.db);
    await ctx.close();
  });

  const subscribe = async () => {
    const res = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId, client: { name: 'Ana Souza', email: `ana.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' } });
    assert.equal(res.status, 201, res.raw);
    return res.body.subscription;
  };
  const get = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/subscriptions/${id}`, { key: m.devKey })).body.subscription;
  const simulate = async (id: string, body: Record<string, unknown>, status = 200) => {
    const res = await call(ctx.app, 'POST', `/api/v1/subscriptions/${id}/simulate`, { key: m.devKey, body });
    assert.equal(res.status, status, res.raw);
    return res.body;
  };
  const payFirst = async (sub: { cycles: Array<{ transactionId: string }> }) => {
    const res = await call(ctx.app, 'POST', `/api/v1/transactions/${sub.cycles[0].transactionId}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    assert.equal(res.status, 200, res.raw);
  };
  /** Whole days from the subscription's clock to `at`. */
  const daysUntil = async (id: string, at: string) => {
    const { clock_offset_ms } = await ctx.app.deps.db.selectFrom('subscriptions').select('clock_offset_ms').where('id', '=', id).executeTakeFirstOrThrow();
    return Math.floor((new Date(at).getTime() - (Date.now() + Number(clock_offset_ms))) / DAY);
  };
  const cycle = (sub: { cycles: Array<{ number: number }> }, n: number) => sub.cycles.find((c) => c.number === n) as any;

  test('approve, renew by automatic debit, insufficient funds then a retry, payer cancels', async () => {
    const sub = await subscribe();
    assert.equal(sub.status, 'INCOMPLETE');
    assert.equal(sub.pixAutomatico.status, 'CRIADA');
    assert.match(sub.pixAutomatico.recurrenceId, /^RRSANDBOX0\d{8}[a-zA-Z0-9]{11}$/);
    assert.ok(sub.payment.pixCode, 'the first charge is a PIX to pay (with the authorisation, at a real PSP)');
    await payFirst(sub);
    await simulate(sub.id, { pixAutomatico: 'APPROVE' });
    let now = await get(sub.id);
    assert.equal(now.status, 'ACTIVE');
    assert.equal(now.pixAutomatico.status, 'APROVADA');

    // The renewal's debit is scheduled 5 days ahead (the plan's pixAutomaticoDaysBefore), with nothing to pay by hand.
    const end1 = now.currentPeriodEnd;
    await simulate(sub.id, { advanceDays: (await daysUntil(sub.id, end1)) - 4 });
    now = await get(sub.id);
    const c2 = cycle(now, 2);
    assert.equal(c2.status, 'OPEN');
    assert.equal(now.payment, null);
    const debit = (await call(ctx.app, 'GET', `/api/v1/transactions/${c2.transactionId}`, { key: m.devKey })).body.transaction;
    assert.equal(debit.paymentMethod, 'PIX');
    assert.equal(debit.status, 'PENDING');
    // Debited on its due date.
    await simulate(sub.id, { advanceDays: 5 });
    now = await get(sub.id);
    assert.equal(cycle(now, 2).status, 'PAID');
    assert.equal(now.status, 'ACTIVE');

    // The next debit fails for insufficient funds: PAST_DUE, retried the day after the due date, then paid.
    const end2 = now.currentPeriodEnd;
    await simulate(sub.id, { advanceDays: (await daysUntil(sub.id, end2)) - 2 });
    await simulate(sub.id, { pixAutomatico: 'INSUFFICIENT_FUNDS' });
    now = await get(sub.id);
    assert.equal(now.status, 'PAST_DUE');
    assert.equal(cycle(now, 3).failureReason, 'INSUFFICIENT_FUNDS');
    assert.equal(new Date(cycle(now, 3).nextRetryAt).getTime(), new Date(cycle(now, 3).dueAt).getTime() + DAY);
    await simulate(sub.id, { advanceDays: 5 });
    now = await get(sub.id);
    assert.equal(cycle(now, 3).status, 'PAID');
    assert.equal(cycle(now, 3).attempts, 2);
    assert.equal(now.status, 'ACTIVE');

    // The payer cancels the authorisation at their bank.
    const res = await simulate(sub.id, { pixAutomatico: 'PAYER_CANCEL' });
    assert.equal(res.subscription.status, 'CANCELLED');
    assert.equal(res.subscription.cancelReason, 'PIX_AUTOMATICO_CANCELLED_BY_PAYER');
    assert.equal(res.subscription.pixAutomatico.status, 'CANCELADA');
    const types = (await ctx.app.deps.db.selectFrom('events').select(['type', 'data']).where('user_id', '=', m.id).where('type', '=', 'subscription.mandate_updated').execute()).filter((e) => (e.data as { id: string }).id === sub.id);
    const data = types.map((t) => t.data as { status: string; cancelReason: string | null; pixAutomatico: { recurrenceId: string; status: string } });
    assert.deepEqual(data.map((d) => d.pixAutomatico.status), ['CRIADA', 'APROVADA', 'CANCELADA']);
    // Each carries the subscription as the change left it: the cancellation's, CANCELLED with its reason.
    assert.deepEqual([data[2].status, data[2].cancelReason], ['CANCELLED', 'PIX_AUTOMATICO_CANCELLED_BY_PAYER']);
    assert.equal(data[0].pixAutomatico.recurrenceId, res.subscription.pixAutomatico.recurrenceId);
  });

  test('the payer rejects the authorisation before paying: EXPIRED, nothing more to pay', async () => {
    const sub = await subscribe();
    const res = await simulate(sub.id, { pixAutomatico: 'REJECT' });
    assert.equal(res.subscription.status, 'EXPIRED');
    assert.equal(res.subscription.cancelReason, 'PIX_AUTOMATICO_REJECTED');
    const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${sub.cycles[0].transactionId}`, { key: m.devKey })).body.transaction;
    assert.equal(tx.status, 'CANCELLED');
  });

  test('unpaid debits past their retries: the dunning\'s final action (at most 3 retries within 7 days)', async () => {
    const sub = await subscribe();
    await payFirst(sub);
    await simulate(sub.id, { pixAutomatico: 'APPROVE' });
    const end = (await get(sub.id)).currentPeriodEnd;
    await simulate(sub.id, { advanceDays: (await daysUntil(sub.id, end)) - 2 });
    // The default retry days are 1, 3, 5, 7: within the 7-day window of Pix Automático, 1, 3 and 5.
    // Day by day, every debit scheduled is failed as soon as it exists.
    let failed = 0;
    for (let day = 0; day < 15 && (await get(sub.id)).status !== 'CANCELLED'; day++) {
      const res = await call(ctx.app, 'POST', `/api/v1/subscriptions/${sub.id}/simulate`, { key: m.devKey, body: { pixAutomatico: 'INSUFFICIENT_FUNDS' } });
      if (res.status === 200) failed += 1;
      await simulate(sub.id, { advanceDays: 1 });
    }
    assert.equal(failed, 4);
    const final = await get(sub.id);
    assert.equal(final.status, 'CANCELLED');
    assert.equal(final.cancelReason, 'PAYMENT_FAILED');
    assert.equal(cycle(final, 2).attempts, 4, 'the first debit and 3 retries');
  });

  test('bad simulations change nothing: 400 with the reason; another merchant gets 404', async () => {
    const sub = await subscribe();
    const twice = await simulate(sub.id, { pixAutomatico: 'INSUFFICIENT_FUNDS' }, 400);
    assert.equal(twice.code, 'INVALID_STATE_TRANSITION');
    await simulate(sub.id, { pixAutomatico: 'APPROVE' });
    const again = await simulate(sub.id, { pixAutomatico: 'REJECT' }, 400);
    assert.match(again.errors[0].message, /APROVADA/);
    await simulate(sub.id, {}, 400);
    await simulate(sub.id, { pixAutomatico: 'SOMETHING' }, 400);
    assert.equal((await get(sub.id)).pixAutomatico.status, 'APROVADA');
    const pixPlan = await call(ctx.app, 'POST', '/api/v1/subscriptions/plans', { key: m.devKey, body: { name: 'PIX', amountCents: 1000, interval: 'MONTHLY', paymentMethods: ['PIX'] } });
    const pixSub = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: pixPlan.body.plan.id, client: { name: 'B', email: 'b@example.com', document: cpf() }, paymentMethod: 'PIX' } });
    assert.equal(pixSub.status, 201, pixSub.raw);
    assert.match((await simulate(pixSub.body.subscription.id, { pixAutomatico: 'APPROVE' }, 400)).message, /not paid by PIX_AUTOMATICO/);
    const other = await merchant(ctx.app);
    assert.equal((await call(ctx.app, 'POST', `/api/v1/subscriptions/${sub.id}/simulate`, { key: other.devKey, body: { pixAutomatico: 'PAYER_CANCEL' } })).status, 404);
    assert.equal((await get(sub.id)).status, 'INCOMPLETE');
  });
});
