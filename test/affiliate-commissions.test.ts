// Affiliate commissions (issue 14 item 3): a checkout with an affiliate's code attributes the sale;
// the payment splits the commission off the seller's net in the sale's own journal (PENDING in the
// affiliate's commission_pending), the sweep releases it (PAID, available), a refund before that
// cancels it (split reversed), after it claws it back; self-purchases pay nothing; one commission per
// sale even when confirmations race. The ledger check runs after each. PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { releaseAt, releaseDue } from '../src/modules/affiliates/commissions.ts';
import { DAY_MS } from '../src/payments/calendar.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, onPostgres, startApp, type Merchant, type TestContext } from './helpers.ts';

let ctx: TestContext;
let seller: Merchant;
let aff: Merchant;
before(async () => {
  ctx = await startApp();
  [seller, aff] = await Promise.all([merchant(ctx.app), merchant(ctx.app)]);
});
after(() => ctx.close());

const YEAR = new Date().getUTCFullYear();
const pixFee = (c: number) => Math.floor((c * 99 + 5000) / 10000);

/** A product at `price`, its payment link, a program on it and `affiliate` joined: the code and slug. */
async function setup(price: number, program: Record<string, unknown> = {}, affiliate = aff, owner = seller) {
  const p = await call(ctx.app, 'POST', '/api/v1/products', { key: owner.devKey, body: { name: `Curso ${price}`, price } });
  assert.equal(p.status, 201, p.raw);
  const l = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: owner.devKey, body: { title: 'Curso', products: [{ productId: p.body.product.id, quantity: 1 }] } });
  assert.equal(l.status, 201, l.raw);
  const pr = await call(ctx.app, 'POST', '/api/affiliate/programs', { key: owner.devKey, body: { productId: p.body.product.id, commissionType: 'PERCENTAGE', commissionValue: 4000, ...program } });
  assert.equal(pr.status, 201, pr.raw);
  const j = await call(ctx.app, 'POST', `/api/affiliate/join/${pr.body.data.id}`, { key: affiliate.devKey });
  return { productId: p.body.product.id as string, slug: l.body.paymentLink.slug as string, programId: pr.body.data.id as string, code: j.body.data.code as string, linkId: j.body.data.id as string };
}

let seq = 0;
async function buy(slug: string, over: Record<string, unknown> = {}) {
  seq++;
  const res = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, {
    body: { clientName: 'Joana Lima', clientEmail: `joana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction.id as string;
}
const simulatePaid = (id: string, key = seller.devKey) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key, body: { outcome: 'PAID' } });
async function pay(id: string, key = seller.devKey) {
  const res = await simulatePaid(id, key);
  assert.equal(res.status, 200, res.raw);
  return res.body.transaction ?? res.body;
}
async function refund(id: string, amountCents?: number, key = seller.devKey) {
  const res = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key, body: amountCents === undefined ? undefined : { amountCents } });
  assert.ok(res.status === 200 || res.status === 201, res.raw);
}
const commissionOf = (transactionId: string) => ctx.database.db.selectFrom('affiliate_commissions').selectAll().where('transaction_id', '=', transactionId).execute();
async function accounts(userId: string) {
  const rows = await ctx.database.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('user_id', '=', userId).where('livemode', '=', false).execute();
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.balance_cents)])) as Record<string, number>;
}
const stats = async (key: string) => (await call(ctx.app, 'GET', '/api/affiliate/stats', { key })).body.data;
const sweep = (now: Date) => releaseDue(ctx.app.deps.commissions, now, 100);

describe('release dates (properties)', () => {
  test('the later of the guarantee and the settlement: PIX and boleto at once, a card at its last instalment', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 365 }), fc.constantFrom('PIX', 'BOLETO', 'CARD') as fc.Arbitrary<'PIX' | 'BOLETO' | 'CARD'>, fc.integer({ min: 1, max: 12 }), (days, method, n) => {
        const paid = new Date('2026-03-01T12:00:00Z');
        const at = releaseAt(paid, days, method, n).getTime() - paid.getTime();
        assert.equal(at, Math.max(days, method === 'CARD' ? 30 * n : 0) * DAY_MS);
      }),
    );
  });
});

describe('commissions', () => {
  test('a PIX sale with the code: the split is in the sale journal, PENDING until the guarantee, then PAID by the sweep', async () => {
    const s = await setup(10000);
    const before = await accounts(aff.id);
    const id = await buy(s.slug, { affiliateCode: s.code.toLowerCase() });
    const tx = await pay(id);
    const [c] = await commissionOf(id);
    assert.ok(c);
    assert.equal(c.status, 'PENDING');
    assert.equal(c.amount_cents, 4000);
    assert.equal(c.base_cents, 10000);
    assert.equal(new Date(c.release_at).getTime(), new Date(tx.paidAt ?? c.created_at).getTime() + 7 * DAY_MS);
    // One journal: the seller's payment, with the affiliate's entries in it.
    const journal = await ctx.database.db
      .selectFrom('ledger_journals as j')
      .innerJoin('ledger_entries as e', 'e.journal_id', 'j.id')
      .select(['e.user_id', 'e.account_kind', 'e.amount_cents'])
      .where('j.reference_id', '=', id)
      .where('j.kind', '=', 'payment')
      .execute();
    const of = (user: string, kind: string) => journal.find((e) => e.user_id === user && e.account_kind === kind)?.amount_cents;
    assert.equal(of(seller.id, 'available'), 10000 - pixFee(10000) - 4000);
    assert.equal(of(seller.id, 'transfers'), 4000);
    assert.equal(of(aff.id, 'transfers'), -4000);
    assert.equal(of(aff.id, 'commission_pending'), 4000);
    const after1 = await accounts(aff.id);
    assert.equal(after1.commission_pending - (before.commission_pending ?? 0), 4000);
    assert.equal((after1.available ?? 0) - (before.available ?? 0), 0);
    await assertLedgerBalanced(ctx.database.db);

    const list = await call(ctx.app, 'GET', '/api/affiliate/commissions?status=PENDING', { key: aff.devKey });
    assert.equal(list.status, 200, list.raw);
    const view = list.body.data.find((x: { transactionId: string }) => x.transactionId === id);
    assert.deepEqual(
      { ...view, id: undefined, releaseAt: undefined, createdAt: undefined, product: undefined },
      { id: undefined, programId: s.programId, transactionId: id, code: s.code, amountCents: 4000, baseCents: 10000, commissionType: 'PERCENTAGE', commissionValue: 4000, status: 'PENDING', reason: null, releaseAt: undefined, paidAt: null, cancelledAt: null, createdAt: undefined, product: undefined },
    );
    const links = await call(ctx.app, 'GET', '/api/affiliate/links', { key: aff.devKey });
    assert.equal(links.body.data.find((l: { id: string }) => l.id === s.linkId).conversions, 1);
    for (const who of [seller.id, aff.id]) {
      const ev = await ctx.database.db.selectFrom('events').select('data').where('user_id', '=', who).where('type', '=', 'commission.created').execute();
      assert.ok(ev.some((e) => (e.data as { transactionId: string }).transactionId === id), who);
    }

    // Not before the guarantee ends; then PAID into the affiliate's available balance.
    await sweep(new Date(Date.now() + 6 * DAY_MS));
    assert.equal((await commissionOf(id))[0]!.status, 'PENDING');
    await sweep(new Date(Date.now() + 8 * DAY_MS));
    const [paid] = await commissionOf(id);
    assert.equal(paid!.status, 'PAID');
    const after2 = await accounts(aff.id);
    assert.equal(after2.commission_pending, before.commission_pending ?? 0);
    assert.equal((after2.available ?? 0) - (before.available ?? 0), 4000);
    const bal = await call(ctx.app, 'GET', '/api/withdraws/balance', { key: aff.devKey });
    assert.equal(bal.status, 200, bal.raw);
    assert.equal(bal.body.availableBalanceCents, after2.available);
    // Withdrawable like any balance.
    const w = await call(ctx.app, 'POST', '/api/withdraws', { key: aff.devKey, body: { amountCents: 4000, pixKeyType: 'email', pixKey: 'afiliado@example.com' } });
    assert.equal(w.status, 201, w.raw);
    assert.equal((await accounts(aff.id)).reserved, 4000);
    await assertLedgerBalanced(ctx.database.db);

    // A refund after the release claws the commission back from the affiliate's balance.
    await refund(id);
    const [clawed] = await commissionOf(id);
    assert.equal(clawed!.status, 'CANCELLED');
    assert.equal(clawed!.reason, 'REFUNDED_AFTER_RELEASE');
    assert.ok(clawed!.clawed_back_at);
    // The affiliate had withdrawn it: its balance goes negative by the commission (a debt).
    assert.equal((await accounts(aff.id)).available, (before.available ?? 0) - 4000);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a refund before the release cancels the commission and reverses the split; the seller can refund in full', async () => {
    const s = await setup(10000, { commissionType: 'FIXED', commissionValue: 10000 });
    const id = await buy(s.slug, { affiliateCode: s.code });
    const sellerBefore = await accounts(seller.id);
    await pay(id);
    const [c] = await commissionOf(id);
    // A FIXED commission of the whole price is capped at what the seller nets (the fee is the seller's).
    assert.equal(c!.amount_cents, 10000 - pixFee(10000));
    assert.equal((await accounts(seller.id)).available, sellerBefore.available ?? 0);
    const st = await stats(aff.devKey);
    assert.ok(st.pendingCents >= c!.amount_cents);
    await refund(id);
    const [cancelled] = await commissionOf(id);
    assert.equal(cancelled!.status, 'CANCELLED');
    assert.equal(cancelled!.reason, 'REFUNDED');
    assert.equal((await stats(aff.devKey)).pendingCents, st.pendingCents - c!.amount_cents);
    for (const who of [seller.id, aff.id]) {
      const ev = await ctx.database.db.selectFrom('events').select('data').where('user_id', '=', who).where('type', '=', 'commission.cancelled').execute();
      assert.ok(ev.some((e) => (e.data as { transactionId: string }).transactionId === id), who);
    }
    const market = await call(ctx.app, 'GET', '/api/affiliate/marketplace?limit=100', { key: aff.devKey });
    const item = market.body.data.find((x: { programId: string }) => x.programId === s.programId);
    assert.equal(item.refundRate, 1);
    // Released never: the sweep leaves it alone.
    await sweep(new Date(Date.now() + 400 * DAY_MS));
    assert.equal((await commissionOf(id))[0]!.status, 'CANCELLED');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a card sale in 3 instalments: the instalments carry the net less the commission; released when the last settles', async () => {
    const s = await setup(30000);
    const id = await buy(s.slug, { affiliateCode: s.code, paymentMethod: 'CARD', installments: 3, card: { number: '4242424242424242', holderName: 'JOANA LIMA', expMonth: 12, expYear: YEAR + 2, cvv: '123' } });
    const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: seller.devKey })).body.transaction;
    assert.equal(tx.status, 'PAID');
    const [c] = await commissionOf(id);
    const base = Math.min(tx.amountCents, tx.chargedCents);
    assert.equal(c!.amount_cents, Math.floor((base * 4000) / 10000));
    const rec = await ctx.database.db.selectFrom('receivables').select('amount_cents').where('transaction_id', '=', id).execute();
    assert.equal(rec.reduce((a, r) => a + Number(r.amount_cents), 0), tx.chargedCents - tx.feeCents - c!.amount_cents);
    assert.ok(Math.abs(new Date(c!.release_at).getTime() - (new Date(c!.created_at).getTime() + 90 * DAY_MS)) < 1000);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('no commission: a self-purchase (recorded with the reason), unknown, pending or foreign codes (the sale goes on)', async () => {
    const s = await setup(5000);
    const self = await buy(s.slug, { affiliateCode: s.code, clientEmail: aff.email.toUpperCase() });
    await pay(self);
    const [c] = await commissionOf(self);
    assert.equal(c!.status, 'CANCELLED');
    assert.equal(c!.reason, 'SELF_PURCHASE');
    const link = (await call(ctx.app, 'GET', '/api/affiliate/links', { key: aff.devKey })).body.data.find((l: { id: string }) => l.id === s.linkId);
    assert.equal(link.conversions, 0);

    const manual = await setup(5000, { approval: 'MANUAL' });
    const other = await setup(5000);
    for (const [slug, code] of [[s.slug, 'NOBODY-AAAAAA'], [manual.slug, manual.code], [s.slug, other.code]] as const) {
      const id = await buy(slug, { affiliateCode: code });
      await pay(id);
      assert.deepEqual(await commissionOf(id), [], code);
      const row = await ctx.database.db.selectFrom('transactions').select('affiliate_link_id').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.affiliate_link_id, null);
    }
    await assertLedgerBalanced(ctx.database.db);
  });

  test('program changes apply to later sales; a blocked affiliate earns nothing on sales confirmed afterwards', async () => {
    const s = await setup(10000);
    const first = await buy(s.slug, { affiliateCode: s.code });
    await pay(first);
    await call(ctx.app, 'PATCH', `/api/affiliate/programs/${s.programId}`, { key: seller.devKey, body: { commissionValue: 1000 } });
    const second = await buy(s.slug, { affiliateCode: s.code });
    await pay(second);
    assert.equal((await commissionOf(first))[0]!.amount_cents, 4000);
    assert.equal((await commissionOf(second))[0]!.amount_cents, 1000);
    const third = await buy(s.slug, { affiliateCode: s.code });
    const blocked = await call(ctx.app, 'POST', `/api/affiliate/programs/${s.programId}/links/${s.linkId}/block`, { key: seller.devKey });
    assert.equal(blocked.status, 200, blocked.raw);
    await pay(third);
    assert.deepEqual(await commissionOf(third), []);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('concurrency: one commission per sale when confirmations race; crossed sellers and affiliates do not deadlock', async () => {
    const s = await setup(10000);
    const ids = await Promise.all(Array.from({ length: 6 }, () => buy(s.slug, { affiliateCode: s.code })));
    // Each sale confirmed twice at once.
    const results = await Promise.all(ids.flatMap((id) => [simulatePaid(id), simulatePaid(id)]));
    assert.ok(results.every((r) => r.status === 200 || r.status === 400), results.map((r) => r.raw).join('\n'));
    for (const id of ids) assert.equal((await commissionOf(id)).length, 1, id);
    // A sells with B as affiliate while B sells with A as affiliate.
    const back = await setup(10000, {}, seller, aff);
    const ab = await Promise.all(Array.from({ length: 4 }, () => buy(s.slug, { affiliateCode: s.code })));
    const ba = await Promise.all(Array.from({ length: 4 }, () => buy(back.slug, { affiliateCode: back.code })));
    const paid = await Promise.all([...ab.map((id) => simulatePaid(id, seller.devKey)), ...ba.map((id) => simulatePaid(id, aff.devKey))]);
    assert.deepEqual([...new Set(paid.map((r) => r.status))], [200], paid.map((r) => r.raw).join('\n'));
    for (const id of [...ab, ...ba]) assert.equal((await commissionOf(id)).length, 1);
    await assertLedgerBalanced(ctx.database.db);
    // Releases racing: each commission released once.
    await Promise.all([sweep(new Date(Date.now() + 8 * DAY_MS)), sweep(new Date(Date.now() + 8 * DAY_MS))]);
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('affiliate coupons', () => {
  test("a coupon tied to an affiliate attributes the sale to it, over the cookie and the body's code", async () => {
    const s = await setup(12000);
    const other = await merchant(ctx.app);
    const second = (await call(ctx.app, 'POST', `/api/affiliate/join/${s.programId}`, { key: other.devKey })).body.data;
    const coupon = await call(ctx.app, 'POST', '/api/v1/coupons', {
      key: seller.devKey,
      body: { code: `AFF${seq++}X`, discountType: 'PERCENTAGE', discountValue: 10, affiliateCode: s.code.toLowerCase() },
    });
    assert.equal(coupon.status, 201, coupon.raw);
    assert.equal(coupon.body.coupon.affiliateCode, s.code);
    const couponCode = coupon.body.coupon.code as string;

    // The buyer followed the other affiliate (cookie and body), then used the first one's coupon.
    const jar = `cofre_aff=${encodeURIComponent(`${second.code}.${Math.floor(Date.now() / 1000) - 60}`)}`;
    const res = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${s.slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: `joana.cupom.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', couponCode, affiliateCode: second.code },
      headers: { cookie: jar },
    });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.amountCents, 10800);
    await pay(res.body.transaction.id);
    const [c] = await commissionOf(res.body.transaction.id);
    assert.equal(c!.link_id, s.linkId);
    assert.equal(c!.amount_cents, Math.floor((10800 * 4000) / 10000));

    // Without the coupon the click decides.
    const plain = await buy(s.slug, { affiliateCode: second.code });
    await pay(plain);
    assert.equal((await commissionOf(plain))[0]!.link_id, second.id);

    // A coupon whose affiliate was blocked attributes nothing itself: the clicks decide again.
    const blocked = await call(ctx.app, 'POST', `/api/affiliate/programs/${s.programId}/links/${s.linkId}/block`, { key: seller.devKey });
    assert.equal(blocked.status, 200, blocked.raw);
    const after = await buy(s.slug, { couponCode, affiliateCode: second.code });
    await pay(after);
    assert.equal((await commissionOf(after))[0]!.link_id, second.id);

    // The code is cleared with null, and changed with PATCH.
    const cleared = await call(ctx.app, 'PATCH', `/api/v1/coupons/${coupon.body.coupon.id}`, { key: seller.devKey, body: { affiliateCode: null } });
    assert.equal(cleared.status, 200, cleared.raw);
    assert.equal(cleared.body.coupon.affiliateCode, null);
    const changed = await call(ctx.app, 'PATCH', `/api/v1/coupons/${coupon.body.coupon.id}`, { key: seller.devKey, body: { affiliateCode: second.code } });
    assert.equal(changed.body.coupon.affiliateCode, second.code);
    await assertLedgerBalanced(ctx.database.db);
  });

  test("only a code of an affiliate of one of your programs: unknown codes and other merchants' affiliates are a 400 that creates nothing", async () => {
    const theirs = await setup(5000, {}, aff, await merchant(ctx.app));
    for (const affiliateCode of ['NOPE-ABCDEF', theirs.code, 'not a code']) {
      const code = `BAD${seq++}X`;
      const res = await call(ctx.app, 'POST', '/api/v1/coupons', { key: seller.devKey, body: { code, discountType: 'FIXED', discountValue: 100, affiliateCode } });
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['affiliateCode']);
      assert.equal((await call(ctx.app, 'GET', `/api/v1/coupons?search=${code}`, { key: seller.devKey })).body.pagination.total, 0);
    }
  });
});

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

describe('attribution', () => {
  test('windows (properties): only clicks within cookieDays count, null is forever; FIRST_CLICK takes the earliest, LAST_CLICK the latest', async () => {
    const { chooseClick } = await import('../src/modules/affiliates/attribution.ts');
    const day = 86_400;
    fc.assert(
      fc.property(
        fc.array(fc.record({ code: fc.constantFrom('ANA-AAAAAA', 'BIA-BBBBBB', 'CAU-CCCCCC'), at: fc.integer({ min: 1, max: 400 * day }) }), { maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 365 }), { nil: null }),
        fc.constantFrom('FIRST_CLICK', 'LAST_CLICK') as fc.Arbitrary<'FIRST_CLICK' | 'LAST_CLICK'>,
        (clicks, cookieDays, attribution) => {
          const now = 400 * day;
          const got = chooseClick(clicks, { cookieDays, attribution }, now);
          const live = clicks.filter((c) => cookieDays === null || now - c.at <= cookieDays * day);
          if (!live.length) return assert.equal(got, null);
          const ats = live.map((c) => c.at);
          assert.ok(got);
          assert.equal(got.at, attribution === 'FIRST_CLICK' ? Math.min(...ats) : Math.max(...ats));
          assert.ok(live.some((c) => c.code === got.code && c.at === got.at));
        },
      ),
    );
  });

  test('the cookie keeps each code\'s first and latest click, at most 12, and survives garbage', async () => {
    const { addClick, parseClicks, formatClicks, MAX_CLICKS } = await import('../src/modules/affiliates/attribution.ts');
    fc.assert(
      fc.property(fc.array(fc.record({ code: fc.constantFrom('ANA-AAAAAA', 'BIA-BBBBBB'), at: fc.integer({ min: 1, max: 1e9 }) }), { maxLength: 30 }), (seq) => {
        let clicks = parseClicks(null);
        for (const c of seq) clicks = parseClicks(formatClicks(addClick(clicks, c)));
        assert.ok(clicks.length <= MAX_CLICKS);
        for (const code of ['ANA-AAAAAA', 'BIA-BBBBBB']) {
          const mine = seq.filter((c) => c.code === code).map((c) => c.at);
          if (mine.length) assert.equal(Math.max(...clicks.filter((c) => c.code === code).map((c) => c.at)), Math.max(...mine));
        }
      }),
    );
    assert.deepEqual(parseClicks('x|ANA-AAAAAA.abc|<script>|ANA-AAAAAA.5'), [{ code: 'ANA-AAAAAA', at: 5 }]);
    assert.deepEqual(parseClicks('%E0%A4%A'), []);
    fc.assert(fc.property(fc.string(), (junk) => void parseClicks(junk)));
  });

  test('the promotion URL: a click counted once per IP and hour, a cookie that attributes a later checkout without the code', async () => {
    const s = await setup(8000, { attribution: 'FIRST_CLICK' });
    const other = await merchant(ctx.app);
    const joined = await call(ctx.app, 'POST', `/api/affiliate/join/${s.programId}`, { key: other.devKey });
    const second = joined.body.data.code as string;
    const visit = (code: string, cookie?: string, ip = '203.0.113.7') =>
      ctx.app.inject({ method: 'GET', url: `/pay/${s.slug}?aff=${code}`, remoteAddress: ip, headers: cookie ? { cookie } : {} });
    const first = await visit(s.code);
    assert.equal(first.statusCode, 200);
    const set = [first.headers['set-cookie']].flat().find((c) => String(c).startsWith('cofre_aff='));
    assert.ok(set, JSON.stringify(first.headers['set-cookie']));
    const jar = String(set).split(';')[0]!;
    await visit(s.code, jar);
    await visit(s.code, jar, '203.0.113.8');
    // Then the buyer follows another affiliate's URL: FIRST_CLICK keeps the first.
    const again = await visit(second, jar);
    const jar2 = String([again.headers['set-cookie']].flat().find((c) => String(c).startsWith('cofre_aff='))).split(';')[0]!;
    await ctx.app.deps.affiliates.clicks.flush();
    const link = await ctx.database.db.selectFrom('affiliate_links').select('clicks').where('id', '=', s.linkId).executeTakeFirstOrThrow();
    assert.equal(link.clicks, 2, 'one click per IP and hour');

    // A mangled cookie is no clicks, on the page and at the checkout alike.
    assert.equal((await visit(s.code, 'cofre_aff=%E0%A4%A')).statusCode, 200);
    const mangled = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${s.slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: 'joana.mangled@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
      headers: { cookie: 'cofre_aff=%E0%A4%A' },
    });
    assert.equal(mangled.status, 201, mangled.raw);
    const res = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${s.slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: 'joana.cookie@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
      headers: { cookie: jar2 },
    });
    assert.equal(res.status, 201, res.raw);
    await pay(res.body.transaction.id);
    const [c] = await commissionOf(res.body.transaction.id);
    assert.equal(c!.link_id, s.linkId);
    await assertLedgerBalanced(ctx.database.db);
  });
});
