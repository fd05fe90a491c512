// Affiliate commissions (issue 14 item 3): extended commission on subscription renewals, and crossed
// refunds on PostgreSQL (no deadlock, every commission undone once).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DAY_MS } from '../src/payments/calendar.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, onPostgres } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { commissionApi, YEAR } from './affiliate-commissions-kit.ts';

const ctx = useApp();
const seller = useMerchant(ctx);
const aff = useMerchant(ctx);
const { setup, buy, pay, commissionOf, sweep } = commissionApi(ctx, seller, aff);

let seq = 0;

describe('extended commission: subscription renewals', () => {
  const CARD = { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: YEAR + 5, cvv: '123' };
  /** A monthly plan selling the program's product, and a card subscription through the affiliate's code. */
  async function subscribed(program: Record<string, unknown>, affiliateCode = true) {
    const s = await setup(4990, program);
    const plan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: seller.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', productId: s.productId } });
    assert.equal(plan.status, 201, plan.raw);
    assert.equal(plan.body.plan.productId, s.productId);
    const res = await call(ctx.app, 'POST', '/api/subscriptions/checkout', {
      body: { planId: plan.body.plan.id, clientName: 'Caio Lima', clientEmail: `caio.${seq++}@example.com`, clientDocument: cpf(), paymentMethod: 'CARD', card: CARD, ...(affiliateCode && { affiliateCode: s.code }) },
    });
    assert.equal(res.status, 201, res.raw);
    return { s, id: res.body.subscription.id as string };
  }
  const renew = async (id: string, months: number) => {
    for (let i = 0; i < months; i++) {
      const res = await call(ctx.app, 'POST', `/api/v1/subscriptions/${id}/simulate`, { key: seller.devKey, body: { advanceDays: 31 } });
      assert.equal(res.status, 200, res.raw);
    }
  };
  /** The subscription's paid charges, oldest first, with their commission (or none). */
  const charges = (id: string) =>
    ctx.database.db
      .selectFrom('transactions as t')
      .leftJoin('affiliate_commissions as c', 'c.transaction_id', 't.id')
      .select(['t.id', 't.status', 't.affiliate_link_id', 'c.amount_cents'])
      .where('t.subscription_id', '=', id)
      .where('t.status', '=', 'PAID')
      .orderBy('t.created_at')
      .execute();

  test('with extendedCommission, every renewal of the product\'s subscriptions pays the affiliate of the first sale', async () => {
    const { s, id } = await subscribed({ extendedCommission: true });
    await renew(id, 3);
    const paid = await charges(id);
    assert.equal(paid.length, 4);
    for (const c of paid) {
      assert.equal(c.affiliate_link_id, s.linkId);
      assert.equal(c.amount_cents, 1996);
    }
    await assertLedgerBalanced(ctx.database.db);
  });

  test('without it only the first charge pays; with a cap of N months, N renewals', async () => {
    const plain = await subscribed({});
    await renew(plain.id, 2);
    assert.deepEqual((await charges(plain.id)).map((c) => c.amount_cents), [1996, null, null]);

    const capped = await subscribed({ extendedCommission: true, extendedCommissionMonths: 2 });
    await renew(capped.id, 4);
    assert.deepEqual((await charges(capped.id)).map((c) => c.amount_cents), [1996, 1996, 1996, null, null]);

    // A subscription sold without the code is nobody's; a plan without a product attributes nothing.
    const none = await subscribed({ extendedCommission: true }, false);
    assert.deepEqual((await charges(none.id)).map((c) => c.affiliate_link_id), [null]);
    await assertLedgerBalanced(ctx.database.db);
  });

  test("a plan's productId must be one of your products", async () => {
    const foreign = await call(ctx.app, 'POST', '/api/v1/products', { key: aff.devKey, body: { name: 'Outro', price: 1000 } });
    const res = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: seller.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', productId: foreign.body.product.id } });
    assert.equal(res.status, 400, res.raw);
    assert.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['productId']);
  });
});

describe('concurrency (PostgreSQL)', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  test('two sellers refunding at once the sales each one affiliated for the other: no deadlock, every commission undone once', async () => {
    // Each is the other's affiliate: a refund by A gives back B's commission, one by B gives back A's.
    const [a, b] = await Promise.all([merchant(ctx.app), merchant(ctx.app)]);
    const forB = await setup(10000, {}, b, a);
    const forA = await setup(10000, {}, a, b);
    const sell = async (n: number) => {
      const ab = await Promise.all(Array.from({ length: n }, () => buy(forB.slug, { affiliateCode: forB.code })));
      const ba = await Promise.all(Array.from({ length: n }, () => buy(forA.slug, { affiliateCode: forA.code })));
      for (const id of ab) await pay(id, a.devKey);
      for (const id of ba) await pay(id, b.devKey);
      return { ab, ba };
    };
    // Half released (a refund then claws back from the other's available balance), half pending.
    const released = await sell(4);
    await sweep(new Date(Date.now() + 8 * DAY_MS));
    const pending = await sell(4);
    const ab = [...released.ab, ...pending.ab];
    const ba = [...released.ba, ...pending.ba];
    for (let round = 0; round < ab.length; round += 4) {
      const res = await Promise.all([
        ...ab.slice(round, round + 4).map((id) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: a.devKey })),
        ...ba.slice(round, round + 4).map((id) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: b.devKey })),
      ]);
      assert.deepEqual([...new Set(res.map((r) => r.status))], [200], res.map((r) => `${r.status} ${r.body?.message}`).join('\n'));
    }
    for (const id of [...ab, ...ba]) {
      const [c] = await commissionOf(id);
      assert.equal(c!.status, 'CANCELLED');
      assert.equal(c!.reason, [...released.ab, ...released.ba].includes(id) ? 'REFUNDED_AFTER_RELEASE' : 'REFUNDED');
    }
    await assertLedgerBalanced(ctx.database.db);
  });
});
