// Splits saved on a payment link, a checkout and a subscription plan, applied to every sale they make
// (renewals too); boletos and chargebacks; a stored rule's recipient that left is left out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, cpf, merchant } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { card } from './checkout-kit.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { splitKit, T } from './splits-kit.ts';
import { recordRefund } from '../src/modules/transactions/refund.ts';

const ctx = useApp();
const seller = useMerchant(ctx);
let seq = 0;
const buyer = () => ({ clientName: 'Caio Lima', clientEmail: `caio.${seq++}@example.com`, clientDocument: cpf() });

describe('a payment link and its checkout', () => {
  test("the link's split pays every checkout sale; its checkout's split replaces it", async () => {
    const kit = splitKit(ctx);
    const [a, b] = [await kit.partnerOf(seller), await kit.partnerOf(seller)];
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: seller.devKey, body: { title: 'Curso', amountCents: 20_000, split: [{ walletId: a.walletId, percentageBp: 1000 }] } });
    assert.equal(link.status, 201, link.raw);
    assert.deepEqual(link.body.paymentLink.split, [{ walletId: a.walletId, percentageBp: 1000 }]);
    const buy = async () => {
      const res = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${link.body.paymentLink.slug}/checkout`, { body: { ...buyer(), paymentMethod: 'PIX' } });
      assert.equal(res.status, 201, res.raw);
      const id = res.body.transaction.id as string;
      assert.equal((await call(ctx.app, 'POST', `${T}/${id}/simulate`, { key: seller.devKey, body: { outcome: 'PAID' } })).status, 200);
      return kit.shares(id);
    };
    assert.deepEqual((await buy()).map((s) => s.recipient_id), [a.id]);
    // The API sale naming the link gets the link's split too.
    const api = await kit.paid(seller.devKey, { amountCents: 20_000, paymentLinkId: link.body.paymentLink.id });
    assert.deepEqual((await kit.shares(api)).map((s) => s.recipient_id), [a.id]);

    const co = await call(ctx.app, 'POST', '/api/v1/checkouts', { key: seller.devKey, body: { name: 'Página', paymentLinkId: link.body.paymentLink.id, split: [{ walletId: b.walletId, fixedCents: 3_000 }] } });
    assert.equal(co.status, 201, co.raw);
    assert.deepEqual(co.body.checkout.split, [{ walletId: b.walletId, fixedCents: 3_000 }]);
    assert.deepEqual((await buy()).map((s) => [s.recipient_id, s.amount_cents]), [[b.id, 3_000]]);

    // A partner that leaves is left out of the stored rule's next sales: its share stays with the seller.
    const partnership = await call(ctx.app, 'GET', '/api/v1/split-partners?role=sent&status=ACCEPTED&limit=100', { key: seller.devKey });
    const ended = partnership.body.data.find((p: { partner: { walletId: string } }) => p.partner.walletId === b.walletId);
    assert.equal((await call(ctx.app, 'DELETE', `/api/v1/split-partners/${ended.id}`, { key: b.devKey })).status, 200);
    assert.deepEqual(await buy(), []);
    // Cleared with null: no split.
    const cleared = await call(ctx.app, 'PATCH', `/api/v1/payment-links/${link.body.paymentLink.id}`, { key: seller.devKey, body: { amountCents: 20_000, split: null } });
    assert.equal(cleared.status, 200, cleared.raw);
    assert.equal(cleared.body.paymentLink.split, null);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a rule is checked when saved: recipients allowed, shares within the price', async () => {
    const kit = splitKit(ctx);
    const a = await kit.partnerOf(seller);
    const stranger = await kit.walletOf(await merchant(ctx.app));
    const bad = [
      [[{ walletId: stranger, percentageBp: 100 }], 'SPLIT_RECIPIENT_NOT_ALLOWED'],
      [[{ walletId: a.walletId, fixedCents: 20_001 }], 'SPLIT_EXCEEDS_AMOUNT'],
      [[{ walletId: a.walletId, percentageBp: 100, fixedCents: 1 }], 'VALIDATION_ERROR'],
    ] as const;
    for (const [split, code] of bad) {
      for (const [path, body] of [
        ['/api/v1/payment-links', { title: 'X', amountCents: 20_000, split }],
        ['/api/subscriptions/plans', { name: 'Clube', amountCents: 20_000, interval: 'MONTHLY', split }],
      ] as const) {
        const res = await call(ctx.app, 'POST', path, { key: seller.devKey, body: body });
        assert.equal(res.status, 400, `${path} ${res.raw}`);
        assert.equal(res.body.code, code, res.raw);
      }
    }
  });
});

describe('a subscription plan', () => {
  test("splits its first charge and every renewal by the plan's rule", async () => {
    const kit = splitKit(ctx);
    const a = await kit.partnerOf(seller);
    const plan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: seller.devKey, body: { name: 'Clube', amountCents: 4_990, interval: 'MONTHLY', split: [{ walletId: a.walletId, percentageBp: 5000 }] } });
    assert.equal(plan.status, 201, plan.raw);
    assert.deepEqual(plan.body.plan.split, [{ walletId: a.walletId, percentageBp: 5000 }]);
    const sub = await call(ctx.app, 'POST', '/api/subscriptions/checkout', { body: { planId: plan.body.plan.id, ...buyer(), paymentMethod: 'CARD', card: card() } });
    assert.equal(sub.status, 201, sub.raw);
    for (let i = 0; i < 2; i++) {
      const res = await call(ctx.app, 'POST', `/api/v1/subscriptions/${sub.body.subscription.id}/simulate`, { key: seller.devKey, body: { advanceDays: 31 } });
      assert.equal(res.status, 200, res.raw);
    }
    const charges = await ctx.database.db
      .selectFrom('transactions as t')
      .innerJoin('transaction_splits as s', 's.transaction_id', 't.id')
      .select(['t.charged_cents', 't.fee_cents', 's.amount_cents', 's.recipient_id', 's.account'])
      .where('t.subscription_id', '=', sub.body.subscription.id)
      .where('t.status', '=', 'PAID')
      .execute();
    assert.equal(charges.length, 3);
    for (const c of charges) {
      assert.equal(c.recipient_id, a.id);
      assert.equal(c.amount_cents, Math.floor(((c.charged_cents - c.fee_cents) * 5000) / 10_000));
      assert.equal(c.account, 'receivable');
    }
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('boletos and chargebacks', () => {
  test('a boleto paid by its barcode lands the share as receivable until the bank credits it', async () => {
    const kit = splitKit(ctx);
    const a = await kit.partnerOf(seller);
    const id = await kit.paid(seller.devKey, { paymentMethod: 'BOLETO', split: [{ walletId: a.walletId, fixedCents: 2_000 }] });
    const [share] = await kit.shares(id);
    assert.equal(share.amount_cents, 2_000);
    const bal = await kit.balance(a);
    assert.equal(bal.available + bal.receivable, 2_000);
    await kit.refund(seller.devKey, id);
    const after = await kit.balance(a);
    assert.equal(after.available + after.receivable, 0);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a chargeback takes every share back; a won case leaves them reversed and the ledger whole', async () => {
    const kit = splitKit(ctx);
    const [a, b] = [await kit.partnerOf(seller), await kit.partnerOf(seller)];
    const id = await kit.paid(seller.devKey, { paymentMethod: 'CARD', card: card(), split: [{ walletId: a.walletId, percentageBp: 2000 }, { walletId: b.walletId, fixedCents: 1_000 }] });
    await kit.refund(seller.devKey, id, 3_000);
    const cb = await call(ctx.app, 'POST', `${T}/${id}/simulate`, { key: seller.devKey, body: { outcome: 'CHARGEBACK' } });
    assert.equal(cb.status, 200, cb.raw);
    const shares = await kit.shares(id);
    assert.deepEqual(shares.map((s) => [s.status, s.reversed_cents === s.amount_cents]), [['REVERSED', true], ['REVERSED', true]]);
    assert.deepEqual(await kit.balance(a), { available: 0, receivable: 0 });
    assert.equal((await kit.events(b, 'transaction.split_reversed')).length, 2);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a chargeback won and a refund the provider did not make give the shares back', async () => {
    const kit = splitKit(ctx);
    const a = await kit.partnerOf(seller);
    const id = await kit.paid(seller.devKey, { paymentMethod: 'CARD', card: card(), split: [{ walletId: a.walletId, percentageBp: 2000 }] });
    const [share] = await kit.shares(id);
    assert.equal((await call(ctx.app, 'POST', `${T}/${id}/simulate`, { key: seller.devKey, body: { outcome: 'CHARGEBACK' } })).status, 200);
    assert.equal((await kit.balance(a)).receivable, 0);
    const contest = await call(ctx.app, 'POST', `${T}/${id}/dispute`, { key: seller.devKey, body: { action: 'CONTEST', text: 'Curso entregue em 10/11: acesso liberado e 12 aulas assistidas.' } });
    assert.equal(contest.status, 200, contest.raw);
    assert.equal((await call(ctx.app, 'POST', `${T}/${id}/simulate`, { key: seller.devKey, body: { outcome: 'CHARGEBACK_WON' } })).status, 200);
    assert.deepEqual((await kit.shares(id)).map((s) => [s.reversed_cents, s.status]), [[0, 'PAID']]);
    assert.equal((await kit.balance(a)).available, share.amount_cents);
    await assertLedgerBalanced(ctx.database.db);

    // A refund whose answer was lost (PENDING) and that the provider then reports as not made.
    const refunded = await kit.refund(seller.devKey, id, 4_000);
    assert.equal(refunded.status, 'PARTIALLY_REFUNDED');
    const refund = await ctx.database.db.selectFrom('refunds').select('id').where('transaction_id', '=', id).executeTakeFirstOrThrow();
    await ctx.database.db.updateTable('refunds').set({ status: 'PENDING' }).where('id', '=', refund.id).execute();
    assert.ok((await kit.shares(id))[0].reversed_cents > 0);
    await recordRefund(ctx.app.deps.transactions, refund.id, id, { ok: false, reason: 'NAO_REALIZADO', message: 'recusado' });
    assert.deepEqual((await kit.shares(id)).map((s) => [s.reversed_cents, s.status]), [[0, 'PAID']]);
    assert.equal((await kit.balance(a)).available, share.amount_cents);
    await assertLedgerBalanced(ctx.database.db);
  });
});
