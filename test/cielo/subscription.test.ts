// A card subscription in production over Cielo: the card is tokenised (POST /1/card: no CVV kept),
// the first charge and each renewal are sales with CreditCard.CardToken and Brand, no SecurityCode,
// as merchant-initiated recurring charges (Recurrent, CardOnFile Used/Recurring).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { advance } from '../../src/modules/subscriptions/sweep.ts';
import { call, cpf } from '../helpers.ts';
import { card, cielo, ctx, journals, m, orderOf, saleOf } from './kit.ts';

const DAY = 86_400_000;

describe('Cielo: a card subscription renewed through a card token', () => {
  test('tokenised once, charged by token at the start and at the renewal; the PAN and CVV kept nowhere here', async () => {
    const plan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.liveKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY' } });
    assert.equal(plan.status, 201, plan.raw);
    const theCard = card('1');
    const res = await call(ctx.app, 'POST', '/api/v1/subscriptions', {
      key: m.liveKey,
      body: { planId: plan.body.plan.id, paymentMethod: 'CREDIT_CARD', card: theCard, client: { name: 'Ana Souza', email: 'ana.sub@example.com', document: cpf() } },
    });
    assert.equal(res.status, 201, res.raw);
    const sub = res.body.subscription;
    assert.equal(sub.status, 'ACTIVE');
    assert.deepEqual(sub.card, { brand: 'VISA', last4: theCard.number.slice(-4), expMonth: 7, expYear: theCard.expYear });

    const tokenCalls = cielo.calls('POST', '/1/card');
    assert.equal(tokenCalls.length, 1);
    assert.equal(tokenCalls[0].body.SecurityCode, undefined, 'the CVV is not sent to be kept');
    const row = await ctx.app.deps.db.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    const [brand, token] = row.card_token!.split(':');
    assert.equal(brand, 'Visa');
    assert.ok(cielo.cards.has(token), 'the token is the one Cielo gave');
    assert.ok(!JSON.stringify(row).includes(theCard.number));

    // The renewal: a month later, by the subscription engine.
    await advance(ctx.app.deps.subscriptions, sub.id, new Date(Date.now() + 32 * DAY));
    const cycles = await ctx.app.deps.db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', sub.id).orderBy('number').execute();
    assert.ok(cycles.length >= 2, 'renewed');
    for (const cycle of cycles.slice(0, 2)) {
      assert.equal(cycle.status, 'PAID');
      const sale = saleOf(cycle.transaction_id!);
      assert.deepEqual([sale.cardToken, sale.brand, sale.recurrent, sale.amount, sale.status], [token, 'Visa', true, 4990, 2]);
      assert.deepEqual(sale.cardOnFile, { Usage: 'Used', Reason: 'Recurring' });
      const sent = cielo.calls('POST', '/1/sales').find((c) => c.body.MerchantOrderId === orderOf(cycle.transaction_id!))!;
      assert.equal(sent.body.Payment.CreditCard.SecurityCode, undefined, 'no CVV on a token charge');
      assert.equal(sent.body.Payment.CreditCard.CardNumber, undefined);
      assert.deepEqual(await journals(cycle.transaction_id!), ['payment']);
    }
  });

  test('a Mastercard subscription: the sign-up charge is told cardholder-initiated (C1), the renewal merchant-initiated (M1)', async () => {
    const plan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.liveKey, body: { name: 'Clube Master', amountCents: 2990, interval: 'MONTHLY' } });
    const res = await call(ctx.app, 'POST', '/api/v1/subscriptions', {
      key: m.liveKey,
      body: { planId: plan.body.plan.id, paymentMethod: 'CREDIT_CARD', card: { ...card('1'), number: '5448280000000031' }, client: { name: 'Ana Souza', email: 'ana.master@example.com', document: cpf() } },
    });
    assert.equal(res.status, 201, res.raw);
    await advance(ctx.app.deps.subscriptions, res.body.subscription.id, new Date(Date.now() + 32 * DAY));
    const cycles = await ctx.app.deps.db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', res.body.subscription.id).orderBy('number').execute();
    const told = cycles.slice(0, 2).map((c) => saleOf(c.transaction_id!).initiator);
    assert.deepEqual(told, [{ Category: 'C1', Subcategory: 'Subscription' }, { Category: 'M1', Subcategory: 'Subscription' }]);
  });
});
