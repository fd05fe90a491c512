// Advances of card receivables: the quote (rate x days, pro rata, nearest first, split of the last
// instalment), creation rules, every transition (automatic in development; operator approve/reject
// and merchant cancel in production), the ledger, settlement never paying an advanced instalment
// twice, refunds after an advance, permissions, tenant and environment isolation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { settleDue } from '../src/modules/transactions/service.ts';
import { call, emailedCode, merchant, operator, type Merchant } from './helpers.ts';
import { assert400, assertMessageOnly, UUID } from './kit/assert.ts';
import { ready, useApp, useBefore } from './kit/app.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { accounts, balance, DAY, eventsOf, paidCard, paidPix, req, settleAll, type Cred } from './wallet-helpers.ts';

const A = '/api/advances';
const BP = 299; // FEE_ADVANCE_MONTHLY_BP default

// A production payment provider, so production card payments (and so production receivables) exist.
const ctx = useApp({ env: { PAYMENT_PROVIDER: 'sandbox' } });
const op = useBefore('an operator', async () => operator((await ready(ctx)).app));

/** The fee of one part, computed here independently: amount x 2.99% x days / 30, half up. */
const feeOf = (amount: number, days: number) => Math.round((amount * BP * days) / 300_000 + 1e-9);

async function receivablesOf(userId: string, livemode = false) {
  const rows = await ctx.database.db.selectFrom('receivables').selectAll().where('user_id', '=', userId).where('livemode', '=', livemode).orderBy('settle_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, tx: r.transaction_id, n: r.installment_number, amount: Number(r.amount_cents), status: r.status, settleAt: new Date(r.settle_at) }));
}

const days = (settleAt: Date) => Math.max(1, Math.ceil((settleAt.getTime() - Date.now()) / DAY));

/** A merchant with card receivables: one 3x payment (30, 60, 90 days) and one 1x (30 days). */
async function withReceivables(cred?: (m: Merchant) => Cred, opts: Parameters<typeof merchant>[1] = {}) {
  const m = await merchant(ctx.app, opts);
  const k = cred ? cred(m) : { key: m.devKey };
  const a = await paidCard(ctx.app, k, 120_000, 3);
  const b = await paidCard(ctx.app, k, 50_000, 1);
  return { m, k, total: a.net + b.net, txA: a.id, txB: b.id };
}

describe('simulate', () => {
  test('everything: the receivables nearest first, each part’s fee = 2.99% x days / 30, totals and percentage', async () => {
    const { m, k, total } = await withReceivables();
    const recs = await receivablesOf(m.id);
    const res = await req(ctx.app, 'GET', `${A}/simulate`, k);
    assert.equal(res.status, 200, res.raw);
    const s = res.body;
    assert.equal(s.availableToAdvanceCents, total);
    assert.equal(s.monthlyFeePercentage, 2.99);
    assert.equal(s.amountCents, total);
    assert.deepEqual(s.receivables.map((i: { receivableId: string }) => i.receivableId), recs.map((r) => r.id));
    let fee = 0;
    for (const [i, item] of s.receivables.entries()) {
      const r = recs[i];
      assert.equal(item.amountCents, r.amount);
      assert.equal(item.days, days(r.settleAt));
      assert.equal(item.feeCents, feeOf(r.amount, item.days));
      assert.equal(item.transactionId, r.tx);
      assert.equal(item.installmentNumber, r.n);
      fee += item.feeCents;
    }
    assert.deepEqual(s.receivables.map((i: { days: number }) => i.days), [30, 30, 60, 90]);
    assert.equal(s.feeCents, fee);
    assert.equal(s.netAmountCents, total - fee);
    assert.equal(s.feePercentage, Math.round((fee * 10_000) / total) / 100);
    // The balance shows the same receivables as pending.
    assert.equal((await balance(ctx.app, k)).pendingBalanceCents, total);
  });

  test('an amount: whole instalments nearest first, the last one split; bounds', async () => {
    const { m, k, total } = await withReceivables();
    const recs = await receivablesOf(m.id);
    const amount = recs[0].amount + recs[1].amount + 1000;
    const s = (await req(ctx.app, 'GET', `${A}/simulate?amountCents=${amount}`, k)).body;
    assert.equal(s.amountCents, amount);
    assert.deepEqual(
      s.receivables.map((i: { receivableId: string; amountCents: number }) => [i.receivableId, i.amountCents]),
      [
        [recs[0].id, recs[0].amount],
        [recs[1].id, recs[1].amount],
        [recs[2].id, 1000],
      ],
    );
    assert.equal(s.feeCents, feeOf(recs[0].amount, 30) + feeOf(recs[1].amount, 30) + feeOf(1000, 60));
    assert400(await req(ctx.app, 'GET', `${A}/simulate?amountCents=${total + 1}`, k), 'INSUFFICIENT_BALANCE', ['amountCents']);
    assert400(await req(ctx.app, 'GET', `${A}/simulate?amountCents=99`, k), 'VALIDATION_ERROR');
    assert400(await req(ctx.app, 'GET', `${A}/simulate?amountCents=10.5`, k), 'VALIDATION_ERROR');
    assert400(await req(ctx.app, 'GET', `${A}/simulate?amountCents=abc`, k), 'VALIDATION_ERROR');
    // Simulating changes nothing.
    assert.deepEqual(await receivablesOf(m.id), recs);
  });

  test('no card receivables (PIX money is not advanceable): 400 INSUFFICIENT_BALANCE', async () => {
    const m = await merchant(ctx.app);
    await paidPix(ctx.app, { key: m.devKey }, 10_000);
    assert400(await req(ctx.app, 'GET', `${A}/simulate`, { key: m.devKey }), 'INSUFFICIENT_BALANCE');
    assert400(await req(ctx.app, 'POST', A, { key: m.devKey }, { reason: 'capital de giro' }), 'INSUFFICIENT_BALANCE');
  });
});

describe('development: approved at once', () => {
  test('201 {message, advance}: COMPLETED, covered instalments ADVANCED, net credited, fee to the platform, events, ledger', async () => {
    const { m, k, total } = await withReceivables();
    const recs = await receivablesOf(m.id);
    const before = await accounts(ctx, m.id);
    const amount = recs[0].amount + recs[1].amount;
    const quote = (await req(ctx.app, 'GET', `${A}/simulate?amountCents=${amount}`, k)).body;
    const res = await req(ctx.app, 'POST', A, k, { amountCents: amount, reason: 'Capital de giro' });
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['advance', 'message']);
    const adv = res.body.advance;
    assert.match(adv.id, UUID);
    assert.equal(adv.userId, m.id);
    assert.equal(adv.status, 'COMPLETED');
    assert.equal(adv.amountCents, amount);
    assert.equal(adv.feeCents, quote.feeCents);
    assert.equal(adv.netAmountCents, amount - quote.feeCents);
    assert.equal(adv.feePercentage, quote.feePercentage);
    assert.equal(adv.reason, 'Capital de giro');
    assert.equal(adv.decisionReason, 'Approved automatically (development)');
    assert.ok(adv.createdAt && adv.approvedAt && adv.completedAt);
    assert.equal(adv.rejectedAt, null);
    assert.equal(adv.cancelledAt, null);
    assert.deepEqual(adv.receivables, quote.receivables);
    const after = await receivablesOf(m.id);
    assert.deepEqual(after.map((r) => r.status), ['ADVANCED', 'ADVANCED', 'PENDING', 'PENDING']);
    assert.deepEqual(after.map((r) => r.amount), recs.map((r) => r.amount));
    const a = await accounts(ctx, m.id);
    assert.equal(a.receivable, before.receivable - amount);
    assert.equal(a.available, before.available + adv.netAmountCents);
    assert.equal(a.fees, before.fees + adv.feeCents);
    assert.equal(a.external, before.external);
    assert.deepEqual(await balance(ctx.app, k), { availableBalanceCents: a.available, pendingBalanceCents: total - amount, reservedCents: 0 });
    const events = (await eventsOf(ctx, m.id)).filter((e) => e.data.id === adv.id || e.data.referenceId === adv.id);
    // One database transaction: the events share a timestamp, compare them as a set.
    assert.deepEqual(events.map((e) => e.type).sort(), ['advance.approved', 'advance.created', 'balance.updated']);
    assert.equal(events.find((e) => e.type === 'advance.created')!.data.status, 'PENDING');
    const approvedEvent = events.find((e) => e.type === 'advance.approved')!;
    assert.equal(approvedEvent.data.status, 'COMPLETED');
    assert.equal(approvedEvent.data.receivables.length, 2);
    // Readable, listed.
    const one = await req(ctx.app, 'GET', `${A}/${adv.id}`, k);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.advance, adv);
    const list = await req(ctx.app, 'GET', A, k);
    assert.deepEqual(Object.keys(list.body).sort(), ['advances', 'message', 'pagination']);
    assert.equal(list.body.advances[0].id, adv.id);
    assert.equal(list.body.advances[0].receivables, undefined);
    assert.deepEqual(list.body.pagination, { page: 1, limit: 20, total: 1, totalPages: 1 });
    // Completed: nothing active, so another may be requested; a COMPLETED one cannot be cancelled.
    assert400(await req(ctx.app, 'POST', `${A}/${adv.id}/cancel`, k), 'INVALID_STATE_TRANSITION', ['status']);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('advanced instalments are never settled again: the settlement sweep pays only what was not advanced', async () => {
    const { m, k, total } = await withReceivables();
    const recs = await receivablesOf(m.id);
    const amount = recs[0].amount + recs[1].amount + 500; // the third split: 500 advanced, the rest stays
    const adv = (await req(ctx.app, 'POST', A, k, { amountCents: amount, reason: 'estoque' })).body.advance;
    const mid = await receivablesOf(m.id);
    assert.deepEqual(mid.map((r) => [r.status, r.amount]), [['ADVANCED', recs[0].amount], ['ADVANCED', recs[1].amount], ['PENDING', recs[2].amount - 500], ['PENDING', recs[3].amount]]);
    assert.deepEqual(mid.map((r) => r.settleAt), recs.map((r) => r.settleAt), 'the split instalment keeps its date');
    const before = await accounts(ctx, m.id);
    assert.equal(before.receivable, total - amount);
    // Everything falls due: only the two still PENDING settle.
    await settleAll(ctx);
    const done = await receivablesOf(m.id);
    assert.deepEqual(done.map((r) => r.status), ['ADVANCED', 'ADVANCED', 'SETTLED', 'SETTLED']);
    const a = await accounts(ctx, m.id);
    assert.equal(a.receivable, 0);
    assert.equal(a.available, before.available + total - amount);
    const settlements = await ctx.database.db.selectFrom('ledger_journals').select('description').where('user_id', '=', m.id).where('kind', '=', 'settlement').execute();
    assert.equal(settlements.length, 2);
    // In total the merchant got everything its payments netted, minus the advance fee.
    assert.equal(a.available, total - adv.feeCents);
    await assertLedgerBalanced(ctx.database.db);
    // Nothing left to advance.
    assert400(await req(ctx.app, 'POST', A, k, { reason: 'mais' }), 'INSUFFICIENT_BALANCE');
  });

  test('amount omitted: everything that can be advanced; only future instalments count', async () => {
    const { m, k, total } = await withReceivables();
    // One instalment already due (the sweep has not run yet): not advanceable, it settles by itself.
    const recs = await receivablesOf(m.id);
    await ctx.database.db.updateTable('receivables').set({ settle_at: new Date(Date.now() - 1000) }).where('id', '=', recs[0].id).execute();
    const res = await req(ctx.app, 'POST', A, k, { reason: 'tudo' });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.advance.amountCents, total - recs[0].amount);
    assert.equal(res.body.advance.receivables.length, 3);
    await settleDue(ctx.app.deps.transactions, new Date(), 100);
    const after = await receivablesOf(m.id);
    assert.equal(after.find((r) => r.id === recs[0].id)!.status, 'SETTLED');
    assert.equal(after.filter((r) => r.status === 'ADVANCED').length, 3);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('request rules: reason required, amount bounds, no more than can be advanced', async () => {
    const { m, k, total } = await withReceivables();
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: 1000 }), 'VALIDATION_ERROR', ['reason']);
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: 1000, reason: '' }), 'VALIDATION_ERROR', ['reason']);
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: 1000, reason: '<b></b>' }), 'VALIDATION_ERROR', ['reason']);
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: 99, reason: 'x' }), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: 1000.5, reason: 'x' }), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: 1000, reason: 'x', extra: true }), 'VALIDATION_ERROR', ['extra']);
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: total + 1, reason: 'x' }), 'INSUFFICIENT_BALANCE', ['amountCents']);
    assert.equal((await req(ctx.app, 'GET', A, k)).body.pagination.total, 0);
    assert.deepEqual((await receivablesOf(m.id)).map((r) => r.status), ['PENDING', 'PENDING', 'PENDING', 'PENDING']);
  });

  test('a refund after an advance takes the advanced part from the available balance', async () => {
    const { m, k, txA } = await withReceivables();
    await paidPix(ctx.app, k, 200_000); // enough available to cover the refund
    const recs = await receivablesOf(m.id);
    const aRecs = recs.filter((r) => r.tx === txA);
    // Advance the first instalment of payment A (and B's, which settles on the same day).
    await req(ctx.app, 'POST', A, k, { amountCents: recs[0].amount + recs[1].amount, reason: 'x' });
    const before = await accounts(ctx, m.id);
    const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${txA}`, { key: m.devKey })).body.transaction;
    const r = await call(ctx.app, 'POST', `/api/v1/transactions/${txA}/refund`, { key: m.devKey, body: {} });
    assert.equal(r.status, 200, r.raw);
    const a = await accounts(ctx, m.id);
    const stillPending = aRecs.filter((x) => x.id !== recs[0].id && x.id !== recs[1].id).reduce((s, x) => s + x.amount, 0);
    assert.equal(a.receivable, before.receivable - stillPending);
    // A full refund returns the whole fee: the merchant gives back the sale's net, the advanced part from available.
    assert.equal(a.available, before.available - (tx.netAmountCents - stillPending));
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('production: reviewed by an operator', () => {
  const prod = (m: Merchant): Cred => ({ key: m.liveKey! });

  test('needs approved KYC (403 {message})', async () => {
    const m = await merchant(ctx.app);
    const res = await req(ctx.app, 'POST', A, { token: m.token, env: 'production' }, { reason: 'x' });
    assertMessageOnly(res, 403);
    assert.match(res.body.message, /KYC/);
  });

  test('PENDING; one at a time (ADVANCE_ALREADY_ACTIVE); cancel; approve completes it; reject with a reason; every refused transition', async () => {
    const { m, k, total } = await withReceivables(prod, { live: true });
    const recs = await receivablesOf(m.id, true);
    const first = await req(ctx.app, 'POST', A, k, { amountCents: recs[0].amount, reason: 'Folha de pagamento' });
    assert.equal(first.status, 201, first.raw);
    const p1 = first.body.advance;
    assert.equal(p1.status, 'PENDING');
    assert.deepEqual(p1.receivables, []);
    assert.equal(p1.approvedAt, null);
    assert.equal(p1.feeCents, feeOf(recs[0].amount, 30), 'the quote');
    // Nothing moved yet.
    assert.deepEqual(await balance(ctx.app, k), { availableBalanceCents: 0, pendingBalanceCents: total, reservedCents: 0 });
    // One at a time.
    assert400(await req(ctx.app, 'POST', A, k, { amountCents: 1000, reason: 'outra' }), 'ADVANCE_ALREADY_ACTIVE', ['status']);
    assert400(await req(ctx.app, 'POST', A, { token: m.token, env: 'production' }, { reason: 'outra' }), 'ADVANCE_ALREADY_ACTIVE');
    // The development environment is separate.
    await paidCard(ctx.app, { key: m.devKey }, 10_000, 2);
    assert.equal((await req(ctx.app, 'POST', A, { key: m.devKey }, { reason: 'dev' })).status, 201);

    // The merchant cancels it; cancelling again is refused.
    const cancelled = await req(ctx.app, 'POST', `${A}/${p1.id}/cancel`, k);
    assert.equal(cancelled.status, 200, cancelled.raw);
    assert.equal(cancelled.body.advance.status, 'CANCELLED');
    assert.ok(cancelled.body.advance.cancelledAt);
    assert400(await req(ctx.app, 'POST', `${A}/${p1.id}/cancel`, k), 'INVALID_STATE_TRANSITION');
    assert400(await call(ctx.app, 'POST', `/api/admin/advances/${p1.id}/approve`, { token: op.token }), 'INVALID_STATE_TRANSITION');

    // Another: the operator sees it and approves it.
    const p2 = (await req(ctx.app, 'POST', A, k, { amountCents: recs[0].amount + 700, reason: 'Fornecedor' })).body.advance;
    const queue = await call(ctx.app, 'GET', `/api/admin/advances?userId=${m.id}`, { token: op.token });
    assert.equal(queue.status, 200, queue.raw);
    assert.deepEqual(queue.body.data.map((a: { id: string }) => a.id), [p2.id]);
    assert.equal(queue.body.data[0].livemode, true);
    assertMessageOnly(await call(ctx.app, 'POST', `/api/admin/advances/${p2.id}/approve`, { token: m.token }), 403);
    const approved = await call(ctx.app, 'POST', `/api/admin/advances/${p2.id}/approve`, { token: op.token, body: { reason: 'Histórico bom' } });
    assert.equal(approved.status, 200, approved.raw);
    const a2 = approved.body.data;
    assert.equal(a2.status, 'COMPLETED');
    assert.equal(a2.decisionReason, 'Histórico bom');
    assert.equal(a2.receivables.length, 2);
    assert.equal(a2.netAmountCents, p2.amountCents - a2.feeCents);
    assert.deepEqual(await balance(ctx.app, k), { availableBalanceCents: a2.netAmountCents, pendingBalanceCents: total - p2.amountCents, reservedCents: 0 });
    assert.equal((await req(ctx.app, 'GET', `${A}/${p2.id}`, k)).body.advance.status, 'COMPLETED');
    assert400(await call(ctx.app, 'POST', `/api/admin/advances/${p2.id}/approve`, { token: op.token }), 'INVALID_STATE_TRANSITION');
    assert400(await call(ctx.app, 'POST', `/api/admin/advances/${p2.id}/reject`, { token: op.token, body: { reason: 'x' } }), 'INVALID_STATE_TRANSITION');
    assert400(await req(ctx.app, 'POST', `${A}/${p2.id}/cancel`, k), 'INVALID_STATE_TRANSITION');

    // A third: rejected, with the reason shown to the merchant; nothing moves.
    const p3 = (await req(ctx.app, 'POST', A, k, { reason: 'Tudo' })).body.advance;
    assert.equal(p3.amountCents, total - p2.amountCents);
    assert400(await call(ctx.app, 'POST', `/api/admin/advances/${p3.id}/reject`, { token: op.token, body: {} }), 'VALIDATION_ERROR', ['reason']);
    const rejected = await call(ctx.app, 'POST', `/api/admin/advances/${p3.id}/reject`, { token: op.token, body: { reason: 'Limite excedido' } });
    assert.equal(rejected.status, 200, rejected.raw);
    assert.equal(rejected.body.data.status, 'REJECTED');
    const seen = (await req(ctx.app, 'GET', `${A}/${p3.id}`, k)).body.advance;
    assert.equal(seen.status, 'REJECTED');
    assert.equal(seen.decisionReason, 'Limite excedido');
    assert.ok(seen.rejectedAt);
    assert400(await req(ctx.app, 'POST', `${A}/${p3.id}/cancel`, k), 'INVALID_STATE_TRANSITION');
    assert400(await call(ctx.app, 'POST', `/api/admin/advances/${p3.id}/approve`, { token: op.token }), 'INVALID_STATE_TRANSITION');
    assert.deepEqual(await balance(ctx.app, k), { availableBalanceCents: a2.netAmountCents, pendingBalanceCents: total - p2.amountCents, reservedCents: 0 });

    const types = (await eventsOf(ctx, m.id, true)).map((e) => e.type).filter((t) => t.startsWith('advance.'));
    assert.deepEqual(types.sort(), ['advance.approved', 'advance.created', 'advance.created', 'advance.created', 'advance.rejected']);
    const list = await req(ctx.app, 'GET', `${A}?status=PENDING`, k);
    assert.equal(list.body.pagination.total, 0);
    assert.deepEqual((await req(ctx.app, 'GET', A, k)).body.advances.map((a: { status: string }) => a.status), ['REJECTED', 'COMPLETED', 'CANCELLED']);
    assert.deepEqual((await req(ctx.app, 'GET', `${A}?page=2&limit=2`, k)).body.pagination, { page: 2, limit: 2, total: 3, totalPages: 2 });
    await assertLedgerBalanced(ctx.database.db);
  });

  test('approval when the receivables no longer cover the amount (refunded since): 400, stays PENDING, can be rejected', async () => {
    const { m, k, txA, txB } = await withReceivables(prod, { live: true });
    const p = (await req(ctx.app, 'POST', A, k, { reason: 'tudo' })).body.advance;
    // Refund payment B (its receivable goes), so the full amount is no longer there.
    const bNet = (await receivablesOf(m.id, true)).filter((x) => x.tx === txB)[0].amount;
    const r = await call(ctx.app, 'POST', `/api/v1/transactions/${txB}/refund`, { key: m.liveKey!, body: { amountCents: bNet } });
    assert.equal(r.status, 200, r.raw);
    assert400(await call(ctx.app, 'POST', `/api/admin/advances/${p.id}/approve`, { token: op.token }), 'INSUFFICIENT_BALANCE');
    assert.equal((await req(ctx.app, 'GET', `${A}/${p.id}`, k)).body.advance.status, 'PENDING');
    assert.deepEqual((await receivablesOf(m.id, true)).filter((x) => x.tx === txA).map((x) => x.status), ['PENDING', 'PENDING', 'PENDING']);
    assert.equal((await call(ctx.app, 'POST', `/api/admin/advances/${p.id}/reject`, { token: op.token, body: { reason: 'Recebíveis estornados' } })).status, 200);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('operators read one advance; unknown ids 404', async () => {
    const { k } = await withReceivables(prod, { live: true });
    const p = (await req(ctx.app, 'POST', A, k, { amountCents: 5000, reason: 'x' })).body.advance;
    const one = await call(ctx.app, 'GET', `/api/admin/advances/${p.id}`, { token: op.token });
    assert.equal(one.status, 200, one.raw);
    assert.equal(one.body.data.id, p.id);
    assert.equal(one.body.data.livemode, true);
    assertMessageOnly(await call(ctx.app, 'GET', `/api/admin/advances/00000000-0000-4000-8000-000000000000`, { token: op.token }), 404);
    assertMessageOnly(await call(ctx.app, 'POST', `/api/admin/advances/00000000-0000-4000-8000-000000000000/approve`, { token: op.token }), 404);
    assertMessageOnly(await call(ctx.app, 'POST', `/api/admin/advances/00000000-0000-4000-8000-000000000000/reject`, { token: op.token, body: { reason: 'x' } }), 404);
  });
});

describe('permissions and isolation', () => {
  test('withdrawals:read simulates, lists and reads; withdrawals:write requests and cancels; the token does everything', async () => {
    const { m } = await withReceivables(undefined, { live: true });
    const mk = async (permissions: string[], environment = 'PRODUCTION') =>
      (await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'k', environment, permissions }, headers: { 'x-second-factor': await emailedCode(ctx.app, m.token, m.id) } })).body.key as string;
    await paidCard(ctx.app, { key: m.liveKey! }, 30_000, 2);
    const reader = { key: await mk(['withdrawals:read']) };
    const writer = { key: await mk(['withdrawals:write']) };
    const other = { key: await mk(['transactions:read', 'transactions:write']) };
    const p = (await req(ctx.app, 'POST', A, writer, { amountCents: 1000, reason: 'x' })).body.advance;
    assert.equal(p.status, 'PENDING');
    assert.equal((await req(ctx.app, 'GET', `${A}/simulate`, reader)).status, 200);
    assert.equal((await req(ctx.app, 'GET', A, reader)).status, 200);
    assert.equal((await req(ctx.app, 'GET', `${A}/${p.id}`, reader)).status, 200);
    assertMessageOnly(await req(ctx.app, 'POST', `${A}/${p.id}/cancel`, reader), 403);
    assertMessageOnly(await req(ctx.app, 'POST', A, reader, { reason: 'x' }), 403);
    assertMessageOnly(await req(ctx.app, 'GET', A, writer), 403);
    assert.equal((await req(ctx.app, 'POST', `${A}/${p.id}/cancel`, writer)).status, 200);
    for (const [method, url] of [['GET', `${A}/simulate`], ['GET', A], ['GET', `${A}/${p.id}`], ['POST', A], ['POST', `${A}/${p.id}/cancel`]] as const) {
      assertMessageOnly(await req(ctx.app, method, url, other, method === 'POST' && url === A ? { reason: 'x' } : undefined), 403);
      assertMessageOnly(await call(ctx.app, method, url), 401);
    }
    const t = { token: m.token, env: 'production' as const };
    assert.equal((await req(ctx.app, 'GET', `${A}/simulate`, t)).status, 200);
    const byToken = await req(ctx.app, 'POST', A, t, { amountCents: 1000, reason: 'painel' });
    assert.equal(byToken.status, 201, byToken.raw);
    assert.equal((await req(ctx.app, 'GET', `${A}/${byToken.body.advance.id}`, t)).status, 200);
    assert.equal((await req(ctx.app, 'POST', `${A}/${byToken.body.advance.id}/cancel`, t)).status, 200);
  });

  test("another merchant's or environment's advance is a 404; receivables of one environment never back the other's advances", async () => {
    const a = await withReceivables(undefined, { live: true });
    const b = await merchant(ctx.app);
    const adv = (await req(ctx.app, 'POST', A, a.k, { amountCents: 2000, reason: 'x' })).body.advance;
    for (const cred of [{ key: b.devKey }, { key: a.m.liveKey! }, { token: a.m.token, env: 'production' as const }]) {
      assertMessageOnly(await req(ctx.app, 'GET', `${A}/${adv.id}`, cred), 404);
      assertMessageOnly(await req(ctx.app, 'POST', `${A}/${adv.id}/cancel`, cred), 404);
      assert.equal((await req(ctx.app, 'GET', A, cred)).body.pagination.total, 0);
    }
    // Production has no receivables for this merchant: nothing to advance there.
    assert400(await req(ctx.app, 'GET', `${A}/simulate`, { key: a.m.liveKey! }), 'INSUFFICIENT_BALANCE');
    assert400(await req(ctx.app, 'GET', `${A}/simulate`, { key: b.devKey }), 'INSUFFICIENT_BALANCE');
    assert400(await req(ctx.app, 'GET', `${A}/not-a-uuid`, a.k), 'VALIDATION_ERROR');
  });
});
