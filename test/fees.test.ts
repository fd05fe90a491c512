// Per-merchant fees: an operator overrides the platform's fees for one merchant; payments (API and
// checkout), withdrawals and advances made afterwards use them; earlier ones keep their fee; other
// merchants are untouched. PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, cpf, merchant, operator, type Merchant } from './helpers.ts';
import { assert400, assertMessageOnly } from './kit/assert.ts';
import { ready, useApp, useBefore } from './kit/app.ts';
import { countingReads } from './kit/reads.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { paidCard, paidPix, req } from './wallet-helpers.ts';

const ctx = useApp();
const op = useBefore('an operator', async () => operator((await ready(ctx)).app));

const PLATFORM = { pixPercentBp: 99, boletoFixedCents: 349, cardPercentBp: 399, cardFixedCents: 39, withdrawalCents: 350, advanceMonthlyBp: 299 };
const feesUrl = (id: string) => `/api/admin/merchants/${id}/fees`;
const setFees = (id: string, body: unknown, token = op.token) => call(ctx.app, 'PUT', feesUrl(id), { token, body });

async function pix(m: Merchant, amountCents: number) {
  const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
    key: m.devKey,
    body: { product: 'Plano', amountCents, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}

describe('per-merchant fees', () => {
  test('the platform\'s fees until an operator sets some; then new payments, withdrawals and advances use them, earlier ones keep theirs', async () => {
    const m = await merchant(ctx.app);
    const other = await merchant(ctx.app);
    const initial = await call(ctx.app, 'GET', feesUrl(m.id), { token: op.token });
    assert.equal(initial.status, 200, initial.raw);
    assert.deepEqual(initial.body, { message: 'OK', fees: PLATFORM, overrides: {} });
    // The merchant sees its fees too, with a key or its dashboard token.
    const mine = () => call(ctx.app, 'GET', '/api/v1/fees', { key: m.devKey });
    assert.deepEqual((await mine()).body, { message: 'OK', fees: PLATFORM });
    const before_ = await pix(m, 10_000);
    assert.equal(before_.feeCents, 99);

    const set = await setFees(m.id, { pixPercentBp: 50, withdrawalCents: 100, advanceMonthlyBp: 150 });
    assert.equal(set.status, 200, set.raw);
    assert.deepEqual(set.body.overrides, { pixPercentBp: 50, withdrawalCents: 100, advanceMonthlyBp: 150 });
    assert.deepEqual(set.body.fees, { ...PLATFORM, pixPercentBp: 50, withdrawalCents: 100, advanceMonthlyBp: 150 });
    assert.deepEqual((await call(ctx.app, 'GET', feesUrl(m.id), { token: op.token })).body.fees, set.body.fees);
    assert.deepEqual((await mine()).body.fees, set.body.fees);
    assert.deepEqual((await call(ctx.app, 'GET', '/api/v1/fees', { token: m.token })).body.fees, set.body.fees);
    assert.deepEqual((await call(ctx.app, 'GET', '/api/v1/fees', { key: other.devKey })).body.fees, PLATFORM);
    const after_ = await pix(m, 10_000);
    assert.equal(after_.feeCents, 50);
    assert.equal(after_.netAmountCents, 9950);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/transactions/${before_.id}`, { key: m.devKey })).body.transaction.feeCents, 99);
    assert.equal((await pix(other, 10_000)).feeCents, 99);

    // Withdrawal fee.
    await paidPix(ctx.app, { key: m.devKey }, 20_000);
    const w = await req(ctx.app, 'POST', '/api/withdraws', { key: m.devKey }, { amountCents: 5000, pixKeyType: 'email', pixKey: 'loja@example.com' });
    assert.equal(w.status, 201, w.raw);
    assert.equal(w.body.data.feeCents, 100);
    assert.equal(w.body.data.netAmount, 4900);

    // Advance rate (a card payment in 3 instalments makes receivables to advance).
    await paidCard(ctx.app, { key: m.devKey }, 30_000, 3);
    const sim = await req(ctx.app, 'GET', '/api/advances/simulate', { key: m.devKey });
    assert.equal(sim.status, 200, sim.raw);
    assert.equal(sim.body.monthlyFeePercentage, 1.5);

    // A checkout of the merchant's payment link too.
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Curso', amountCents: 20_000 } });
    const paidByLink = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${link.body.paymentLink.slug}/checkout`, {
      body: { clientName: 'Bia Lima', clientEmail: 'bia@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
    });
    assert.equal(paidByLink.status, 201, paidByLink.raw);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/transactions/${paidByLink.body.transaction.id}`, { key: m.devKey })).body.transaction.feeCents, 100);

    // {} goes back to the platform's fees.
    const reset = await setFees(m.id, {});
    assert.deepEqual(reset.body, { message: 'Fees updated', fees: PLATFORM, overrides: {} });
    assert.equal((await pix(m, 10_000)).feeCents, 99);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('an operator finds a merchant by name, e-mail or id (GET /api/admin/merchants), sees who has negotiated fees; merchants get 403', async () => {
    const m = await merchant(ctx.app);
    const other = await merchant(ctx.app);
    const me = (await call(ctx.app, 'GET', '/api/auth/me', { token: m.token })).body.user;
    const find = (search: string) => call(ctx.app, 'GET', `/api/admin/merchants?search=${encodeURIComponent(search)}`, { token: op.token });
    const byEmail = await find(me.email.toUpperCase());
    assert.equal(byEmail.status, 200, byEmail.raw);
    assert.deepEqual(byEmail.body.data.map((x: { id: string }) => x.id), [m.id]);
    assert.deepEqual(byEmail.body.meta, { page: 1, limit: 20, total: 1, totalPages: 1 });
    assert.deepEqual(Object.keys(byEmail.body.data[0]).sort(), ['createdAt', 'customFees', 'email', 'id', 'name', 'referralCode', 'role', 'walletId']);
    assert.equal(byEmail.body.data[0].customFees, false);
    assert.deepEqual((await find(m.id)).body.data.map((x: { id: string }) => x.id), [m.id]);
    assert.ok((await find(me.name.slice(0, 4))).body.data.some((x: { id: string }) => x.id === m.id));
    // LIKE's wildcards are literal: "%" finds no one.
    assert.equal((await find('%')).body.meta.total, 0);
    await setFees(m.id, { pixPercentBp: 10 });
    assert.equal((await find(me.email)).body.data[0].customFees, true);
    await setFees(m.id, {});
    assert.equal((await find(me.email)).body.data[0].customFees, false);
    // Without search: every account, newest first, paged.
    const all = await call(ctx.app, 'GET', '/api/admin/merchants?limit=2', { token: op.token });
    assert.deepEqual(all.body.data.map((x: { id: string }) => x.id), [other.id, m.id]);
    assert.ok(all.body.meta.total >= 3);
    assertMessageOnly(await call(ctx.app, 'GET', '/api/admin/merchants', { token: m.token }), 403);
    assertMessageOnly(await call(ctx.app, 'GET', '/api/admin/merchants', { key: m.devKey }), 401);
    assert400(await call(ctx.app, 'GET', '/api/admin/merchants?limit=101', { token: op.token }), 'VALIDATION_ERROR');
  });

  test('bounds and unknown fields are 400 and change nothing; merchants get 403; unknown merchants 404', async () => {
    const m = await merchant(ctx.app);
    for (const body of [{ pixPercentBp: -1 }, { pixPercentBp: 10_001 }, { cardFixedCents: 1.5 }, { boletoFixedCents: 100_001 }, { pixFee: 10 }, { withdrawalCents: '100' }]) {
      assert400(await setFees(m.id, body), 'VALIDATION_ERROR');
    }
    assert.deepEqual((await call(ctx.app, 'GET', feesUrl(m.id), { token: op.token })).body.overrides, {});
    assertMessageOnly(await setFees(m.id, { pixPercentBp: 0 }, m.token), 403);
    assertMessageOnly(await call(ctx.app, 'GET', feesUrl(m.id), { key: m.devKey }), 401);
    assertMessageOnly(await setFees('01890000-0000-7000-8000-000000000000', { pixPercentBp: 0 }), 404);
    // Free PIX for a partner: 0 is a valid fee.
    assert.equal((await setFees(m.id, { pixPercentBp: 0 })).status, 200);
    const t = await pix(m, 777);
    assert.equal(t.feeCents, 0);
    assert.equal(t.netAmountCents, 777);
  });
});

describe('fee cache', () => {
  test('requests that miss the cache together share one read of the merchant\'s fees; a change made here is read at once', async () => {
    const { FeeSchedule } = await import('../src/modules/fees/schedule.ts');
    const m = await merchant(ctx.app);
    const { db, reads } = countingReads(ctx.database.db, 'fees');
    const schedule = new FeeSchedule(db, ctx.config.fees);
    const answers = await Promise.all(Array.from({ length: 20 }, () => schedule.of(m.id)));
    assert.equal(reads(), 1);
    assert.ok(answers.every((f) => f.pixPercentBp === PLATFORM.pixPercentBp));
    await schedule.of(m.id);
    assert.equal(reads(), 1, 'cached now');
    await schedule.set(m.id, { pixPercentBp: 50 }, { type: 'OPERATOR', id: op.id, ip: null, userAgent: null });
    assert.equal((await schedule.of(m.id)).pixPercentBp, 50);
  });
});
