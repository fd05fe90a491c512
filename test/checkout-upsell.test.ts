// Upsell and downsell after a hosted checkout's payment (issue 37): offered once the payment is
// paid, one click charges the same card through its connector's token (or makes a new PIX), accepted
// once whatever the clicks, declined into the downsell, expired after UPSELL_OFFER_MINUTES; each
// accepted offer its own transaction linked to the first. PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { card, checkoutApi, order } from './checkout-kit.ts';
import { CK, checkoutsApi } from './checkouts-kit.ts';
import { dropStaleTokens } from '../src/modules/checkout/upsell.ts';

const ctx = useApp();
const m = useMerchant(ctx);
const { checkout, pay, getTx } = checkoutApi(ctx, m);
const api = checkoutsApi(ctx);
const offerOf = (parentId: string) => ctx.database.db.selectFrom('upsell_offers').selectAll().where('parent_transaction_id', '=', parentId).orderBy('created_at').execute();
const accept = (id: string) => call(ctx.app, 'POST', `/api/checkout/offers/${id}/accept`);
const decline = (id: string) => call(ctx.app, 'POST', `/api/checkout/offers/${id}/decline`);
const page = async (txId: string) => (await ctx.app.inject({ method: 'GET', url: `/checkout/${txId}` })).body;
const children = (parentId: string) => ctx.database.db.selectFrom('transactions').selectAll().where('parent_transaction_id', '=', parentId).execute();

/** A link whose checkout offers a R$ 497,00 mentoring at 10% off, and a R$ 197,00 group one if declined. */
async function funnel() {
  const l = await api.link(m.devKey);
  const c = await api.checkout(m.devKey, { paymentLinkId: l.id });
  const up = await api.product(m.devKey, { name: 'Mentoria individual', price: 49700 });
  const down = await api.product(m.devKey, { name: 'Mentoria em grupo', price: 19700 });
  assert.equal((await call(ctx.app, 'POST', `${CK}/${c.id}/upsell`, { key: m.devKey, body: { productId: up.id, discountPercentage: 10, description: 'Quatro encontros de uma hora' } })).status, 201);
  assert.equal((await call(ctx.app, 'POST', `${CK}/${c.id}/upsell/downsell`, { key: m.devKey, body: { productId: down.id } })).status, 201);
  return { link: l, checkout: c, up, down };
}

describe('upsell after a card payment', () => {
  test('"Sim, quero" charges the same card with one click: its own PAID transaction, linked to the first; repeated clicks charge once', async () => {
    const f = await funnel();
    const res = await checkout(f.link.slug, order({ paymentMethod: 'CARD', card: card('5555555555554444'), installments: 1 }));
    assert.equal(res.status, 201, res.raw);
    const parent = res.body.transaction;
    assert.equal(parent.status, 'PAID');
    const [offer] = await offerOf(parent.id);
    assert.equal(offer.kind, 'UPSELL');
    assert.equal(offer.price_cents, 44730);
    assert.equal(offer.card_last4, '4444');
    assert.ok(offer.card_token);
    const html = await page(parent.id);
    assert.match(html, /Oferta especial para você/);
    assert.match(html, /Mentoria individual/);
    assert.match(html, /mesmo cartão \(final 4444\)/);
    assert.match(html, new RegExp(`data-offer="${offer.id}"`));

    const clicks = await Promise.all([accept(offer.id), accept(offer.id), accept(offer.id)]);
    for (const c of clicks) assert.equal(c.status, 200, c.raw);
    const ids = new Set(clicks.map((c) => c.body.transaction.id));
    assert.equal(ids.size, 1, 'one transaction whatever the clicks');
    const kids = await children(parent.id);
    assert.equal(kids.length, 1);
    const child = await getTx(kids[0].id);
    assert.equal(child.status, 'PAID');
    assert.equal(child.amountCents, 44730);
    assert.equal(child.parentTransactionId, parent.id);
    assert.equal(child.client.email, (await getTx(parent.id)).client.email);
    assert.deepEqual(child.items, [{ kind: 'MAIN', productId: f.up.id, name: 'Mentoria individual', quantity: 1, unitPriceCents: 49700, discountCents: 4970, totalCents: 44730 }]);
    assert.deepEqual(child.card, { brand: 'MASTERCARD', last4: '4444', installmentCents: 44730, interestCents: 0 });
    // Accepted: the token is dropped, a refresh gets the same transaction, the page no longer offers.
    assert.equal((await offerOf(parent.id))[0].card_token, null);
    assert.equal((await accept(offer.id)).body.transaction.id, child.id);
    assert.doesNotMatch(await page(parent.id), /Oferta especial/);
    assert.equal((await decline(offer.id)).status, 409);
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('upsell after a PIX payment', () => {
  test('offered once paid (409 before); accepting makes a new PIX for the offer', async () => {
    const f = await funnel();
    const parent = (await checkout(f.link.slug, order())).body.transaction;
    const [offer] = await offerOf(parent.id);
    assert.equal(offer.card_token, null);
    assert.doesNotMatch(await page(parent.id), /Oferta especial/, 'not before the payment');
    assert.equal((await accept(offer.id)).status, 409);
    await pay(parent.id);
    assert.match(await page(parent.id), /Você paga com um novo PIX/);
    const res = await accept(offer.id);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.paymentMethod, 'PIX');
    assert.equal(res.body.transaction.status, 'PENDING');
    assert.equal(res.body.transaction.amountCents, 44730);
    assert.ok(res.body.transaction.pix.qrCode);
    assert.equal((await getTx(res.body.transaction.id)).parentTransactionId, parent.id);
  });
});

describe('downsell and expiry', () => {
  test('"Não, obrigado" on the upsell offers the downsell (same card); declining it ends the offers', async () => {
    const f = await funnel();
    const parent = (await checkout(f.link.slug, order({ paymentMethod: 'CARD', card: card(), installments: 1 }))).body.transaction;
    const [upsell] = await offerOf(parent.id);
    const d = await decline(upsell.id);
    assert.equal(d.status, 200, d.raw);
    assert.ok(d.body.nextOfferId);
    assert.equal((await accept(upsell.id)).status, 409, 'a declined upsell cannot be accepted');
    assert.match(await page(parent.id), /Que tal esta outra opção\?[\s\S]*Mentoria em grupo/);
    const rows = await offerOf(parent.id);
    assert.deepEqual(rows.map((r) => [r.kind, r.status, !!r.card_token]), [['UPSELL', 'DECLINED', false], ['DOWNSELL', 'OPEN', true]]);
    assert.equal((await decline(d.body.nextOfferId)).body.nextOfferId, null);
    assert.doesNotMatch(await page(parent.id), /Que tal/);
    assert.equal((await children(parent.id)).length, 0);
  });

  test('an upsell expires UPSELL_OFFER_MINUTES after its payment; unknown offers are 404', async () => {
    const f = await funnel();
    const parent = (await checkout(f.link.slug, order())).body.transaction;
    await pay(parent.id);
    const [offer] = await offerOf(parent.id);
    await ctx.database.db.updateTable('transactions').set({ paid_at: new Date(Date.now() - 16 * 60_000) }).where('id', '=', parent.id).execute();
    assert.doesNotMatch(await page(parent.id), /Oferta especial/);
    const late = await accept(offer.id);
    assert.equal(late.status, 409);
    assert.match(late.body.message, /expired/);
    assert.equal((await accept('01900000-0000-7000-8000-000000000000')).status, 404);
    assert.equal((await children(parent.id)).length, 0);
  });

  test("an undecided offer's card token is dropped a day later by the sweep", async () => {
    const f = await funnel();
    const parent = (await checkout(f.link.slug, order({ paymentMethod: 'CARD', card: card(), installments: 1 }))).body.transaction;
    assert.ok((await offerOf(parent.id))[0].card_token);
    assert.equal(await dropStaleTokens(ctx.database.db, new Date(Date.now() + 23 * 3_600_000)), 0);
    assert.ok(await dropStaleTokens(ctx.database.db, new Date(Date.now() + 25 * 3_600_000)) >= 1);
    assert.equal((await offerOf(parent.id))[0].card_token, null);
  });
});
