// Affiliate commissions (issue 14 item 3): a checkout with an affiliate's code attributes the sale;
// the payment splits the commission off the seller's net in the sale's own journal (PENDING in the
// affiliate's commission_pending), the sweep releases it (PAID, available), a refund before that
// cancels it (split reversed), after it claws it back; self-purchases pay nothing; one commission per
// sale even when confirmations race. The ledger check runs after each. PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { releaseAt } from '../src/modules/affiliates/commissions.ts';
import { DAY_MS } from '../src/payments/calendar.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { commissionApi, pixFee, YEAR } from './affiliate-commissions-kit.ts';

const ctx = useApp();
const seller = useMerchant(ctx);
const aff = useMerchant(ctx);
const { setup, buy, simulatePaid, pay, refund, commissionOf, accounts, stats, sweep } = commissionApi(ctx, seller, aff);

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
