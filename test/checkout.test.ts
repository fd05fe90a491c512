// Public checkout of payment links: refusals, the transaction it makes (environment, price, coupon,
// instalments with the link's interest), stock decremented at payment (and the out-of-stock sale),
// paymentLinkId on API transactions, cart abandonment and its recovery, the hosted pages (HTML, CSP,
// pixel, escaping), the status endpoint and the card step of API transactions.
// PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { priceTableInstallments } from '../src/payments/card.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, startApp, type Merchant, type Res, type TestContext } from './helpers.ts';
import { specBody } from './envelope.ts';

const YEAR = new Date().getUTCFullYear();
let ctx: TestContext;
let m: Merchant;
let other: Merchant;

before(async () => {
  ctx = await startApp();
  m = await merchant(ctx.app, { live: true });
  other = await merchant(ctx.app);
});
after(() => ctx.close());

function assert400(res: Res, code: string, field?: string) {
  assert.equal(res.status, 400, res.raw);
  assert.equal(res.body.code, code, res.raw);
  if (field) assert.ok(res.body.errors.some((e: { field: string }) => e.field === field), `expected an error on ${field}: ${res.raw}`);
}

async function link(body: Record<string, unknown> = {}, key = m.devKey) {
  const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key, body: { title: 'Ingresso Show', amountCents: 10000, ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.paymentLink;
}
let seq = 0;
function order(over: Record<string, unknown> = {}) {
  seq++;
  return { clientName: 'Joana Lima', clientEmail: `joana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over };
}
const card = (number = '4242424242424242') => ({ number, holderName: 'JOANA LIMA', expMonth: 12, expYear: YEAR + 2, cvv: '123' });
const checkout = (slug: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, { body, headers });
const pay = (id: string, key = m.devKey) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key, body: { outcome: 'PAID' } });
const getLink = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/payment-links/${id}`, { key: m.devKey })).body.paymentLink;
const getTx = async (id: string, key = m.devKey) => (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key })).body.transaction;

describe('checkout refusals', () => {
  test('unknown and archived links are 404', async () => {
    assert.equal((await checkout('no-such-link', order())).status, 404);
    const l = await link();
    await call(ctx.app, 'DELETE', `/api/v1/payment-links/${l.id}`, { key: m.devKey });
    assert.equal((await checkout(l.slug, order())).status, 404);
  });

  test('inactive and expired links: 400 PAYMENT_LINK_UNAVAILABLE; sold out: 400 INSUFFICIENT_STOCK', async () => {
    assert400(await checkout((await link({ status: 'INACTIVE' })).slug, order()), 'PAYMENT_LINK_UNAVAILABLE', 'slug');
    const expired = await link();
    await ctx.database.db.updateTable('payment_links').set({ expires_at: new Date(Date.now() - 1) }).where('id', '=', expired.id).execute();
    assert400(await checkout(expired.slug, order()), 'PAYMENT_LINK_UNAVAILABLE', 'slug');
    assert400(await checkout((await link({ stockEnabled: true, stockQuantity: 0 })).slug, order()), 'INSUFFICIENT_STOCK');
  });

  test('methods the link disabled, missing phone or address, too many instalments, card data rules', async () => {
    const l = await link({ settings: { boletoEnabled: false, requirePhone: true, requireAddress: true, maxInstallments: 3 } });
    const address = { zipCode: '01310-100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };
    const full = { clientPhone: '11987654321', address };
    assert400(await checkout(l.slug, order({ ...full, paymentMethod: 'BOLETO' })), 'VALIDATION_ERROR', 'paymentMethod');
    assert400(await checkout(l.slug, order({ address })), 'VALIDATION_ERROR', 'clientPhone');
    assert400(await checkout(l.slug, order({ clientPhone: '11987654321' })), 'VALIDATION_ERROR', 'address');
    assert400(await checkout(l.slug, order({ ...full, address: { ...address, zipCode: '123' } })), 'VALIDATION_ERROR', 'address.zipCode');
    assert400(await checkout(l.slug, order({ ...full, paymentMethod: 'CARD', card: card(), installments: 4 })), 'VALIDATION_ERROR', 'installments');
    assert400(await checkout(l.slug, order({ ...full, paymentMethod: 'CARD' })), 'VALIDATION_ERROR', 'card');
    assert400(await checkout(l.slug, order({ ...full, card: card() })), 'VALIDATION_ERROR', 'card');
    assert400(await checkout(l.slug, order({ ...full, installments: 2 })), 'VALIDATION_ERROR', 'installments');
    assert400(await checkout(l.slug, order({ ...full, paymentMethod: 'CARD', card: card('4242424242424241') })), 'VALIDATION_ERROR', 'card.number');
    assert400(await checkout(l.slug, order({ ...full, clientDocument: '12345678900' })), 'INVALID_DOCUMENT', 'clientDocument');
    assert400(await checkout(l.slug, order({ ...full, clientEmail: 'not-an-email' })), 'VALIDATION_ERROR', 'clientEmail');
    assert400(await checkout(l.slug, order({ ...full, amountCents: 1 })), 'VALIDATION_ERROR', 'amountCents');
    const ok = await checkout(l.slug, order(full));
    assert.equal(ok.status, 201, ok.raw);
    const tx = await getTx(ok.body.transaction.id);
    assert.deepEqual(tx.address, { zipCode: '01310100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' });
    assert.equal(tx.client.phone, '11987654321');
  });

  test('a coupon that does not apply: 400 INVALID_COUPON, and it counts against the coupon limits', async () => {
    const l = await link();
    const device = `dev-${randomBytes(6).toString('hex')}`;
    for (let i = 0; i < 5; i++) assert400(await checkout(l.slug, order({ couponCode: 'NOPE' }), { 'x-device-id': device }), 'INVALID_COUPON', 'couponCode');
    const limited = await checkout(l.slug, order({ couponCode: 'NOPE' }), { 'x-device-id': device });
    assert.equal(limited.status, 429, limited.raw);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    // Checkouts without a coupon are not limited.
    assert.equal((await checkout(l.slug, order(), { 'x-device-id': device })).status, 201);
  });

  test('a coupon may not make the payment free', async () => {
    const l = await link({ amountCents: 500 });
    const c = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `FREE${randomBytes(3).toString('hex')}`, discountType: 'PERCENTAGE', discountValue: 100 } });
    assert400(await checkout(l.slug, order({ couponCode: c.body.coupon.code })), 'VALIDATION_ERROR', 'couponCode');
  });
});

describe('the transaction a checkout makes', () => {
  test('PIX in the link\'s merchant and environment, linked to it; timesUsed counts checkouts', async () => {
    const l = await link();
    const res = await checkout(l.slug, order({ trackingParams: { utm_source: 'instagram' } }));
    assert.equal(res.status, 201, res.raw);
    const pub = res.body.transaction;
    assert.deepEqual(Object.keys(pub).sort(), ['amountCents', 'chargedCents', 'checkoutUrl', 'discountCents', 'failureReason', 'id', 'installmentCents', 'installments', 'paymentMethod', 'pix', 'redirectUrl', 'status']);
    assert.equal(pub.status, 'PENDING');
    assert.equal(pub.checkoutUrl, `${ctx.config.checkoutUrl}/checkout/${pub.id}`);
    assert.match(pub.pix.qrCodeImage, /\/pix\/[A-Za-z0-9]{25}\/qr\.png$/);
    const tx = await getTx(pub.id);
    assert.equal(tx.paymentLinkId, l.id);
    assert.equal(tx.amountCents, 10000);
    assert.equal(tx.product, l.title);
    assert.equal(tx.livemode, false);
    assert.deepEqual(tx.trackingParams, { utm_source: 'instagram' });
    assert.equal((await call(ctx.app, 'GET', `/api/v1/transactions/${pub.id}`, { key: other.devKey })).status, 404);
    const after = await getLink(l.id);
    assert.equal(after.timesUsed, 1);
    assert.equal(after.salesCount, 0);
  });

  test('a production link without a payment provider: 503 before anything is written', async () => {
    const l = await link({}, m.liveKey);
    const res = await checkout(l.slug, order());
    assert.equal(res.status, 503, res.raw);
  });

  test('card instalments use the link\'s interest settings, not the gateway defaults', async () => {
    const l = await link({ amountCents: 12000, settings: { interestFreeInstallments: 3, interestRate: 1.49, maxInstallments: 10 } });
    const free = await checkout(l.slug, order({ paymentMethod: 'CARD', card: card(), installments: 3 }));
    assert.equal(free.status, 201, free.raw);
    assert.equal(free.body.transaction.status, 'PAID');
    assert.equal(free.body.transaction.chargedCents, 12000);
    const six = await checkout(l.slug, order({ paymentMethod: 'CARD', card: card(), installments: 6 }));
    const plan = priceTableInstallments({ amountCents: 12000, installments: 6, interestFreeInstallments: 3, monthlyInterestRatePercent: 1.49 });
    assert.equal(six.body.transaction.chargedCents, plan.totalCents);
    assert.equal(six.body.transaction.installmentCents, plan.installmentCents);
    assert.ok(plan.totalCents > 12000);
    // interestFreeInstallments 0 still means a single payment carries no interest.
    const zero = await link({ amountCents: 5000, settings: { interestFreeInstallments: 0, interestRate: 2 } });
    assert.equal((await checkout(zero.slug, order({ paymentMethod: 'CARD', card: card(), installments: 1 }))).body.transaction.chargedCents, 5000);
    const linkAfter = await getLink(l.id);
    assert.equal(linkAfter.salesCount, 2);
  });

  test('a declined card: 201 with status FAILED and the reason; no sale', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 2 });
    const res = await checkout(l.slug, order({ paymentMethod: 'CARD', card: card('4000000000000002') }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.status, 'FAILED');
    assert.equal(res.body.transaction.failureReason, 'CARD_DECLINED');
    const after = await getLink(l.id);
    assert.equal(after.stockQuantity, 2);
    assert.equal(after.salesCount, 0);
  });

  test('coupon by the link\'s products: discount taken off, recorded on the transaction', async () => {
    const p = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Livro', price: 4000 } });
    const l = await link({ amountCents: undefined, products: [{ productId: p.body.product.id, quantity: 2 }] });
    const c = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `LIVRO${randomBytes(3).toString('hex')}`, discountType: 'FIXED', discountValue: 1500, productIds: [p.body.product.id] } });
    const res = await checkout(l.slug, order({ couponCode: c.body.coupon.code.toLowerCase() }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.amountCents, 6500);
    assert.equal(res.body.transaction.discountCents, 1500);
    const tx = await getTx(res.body.transaction.id);
    assert.equal(tx.couponId, c.body.coupon.id);
    assert.equal(tx.discountCents, 1500);
    // The coupon is restricted to that product: another link does not take it.
    assert400(await checkout((await link()).slug, order({ couponCode: c.body.coupon.code })), 'INVALID_COUPON');
  });
});

describe('stock', () => {
  test('decremented when paid, not at checkout; sold out refuses checkouts', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 2 });
    const a = (await checkout(l.slug, order())).body.transaction.id;
    const b = (await checkout(l.slug, order())).body.transaction.id;
    assert.equal((await getLink(l.id)).stockQuantity, 2, 'nothing reserved at checkout');
    await pay(a);
    assert.equal((await getLink(l.id)).stockQuantity, 1);
    await pay(b);
    const after = await getLink(l.id);
    assert.equal(after.stockQuantity, 0);
    assert.equal(after.salesCount, 2);
    assert400(await checkout(l.slug, order()), 'INSUFFICIENT_STOCK');
    const pub = await call(ctx.app, 'GET', `/api/payment-links/public/slug/${l.slug}`);
    assert.equal(pub.body.paymentLink.unavailableReason, 'SOLD_OUT');
    // Restocking opens it again.
    await call(ctx.app, 'PATCH', `/api/v1/payment-links/${l.id}`, { key: m.devKey, body: { amountCents: 10000, stockQuantity: 1 } });
    assert.equal((await checkout(l.slug, order())).status, 201);
  });

  test('a payment that finds the stock gone fails OUT_OF_STOCK: no oversale, ledger balanced', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await checkout(l.slug, order())).body.transaction.id);
    const outcomes = [];
    for (const id of ids) outcomes.push((await pay(id)).body.transaction);
    assert.deepEqual(outcomes.map((t) => t.status), ['PAID', 'FAILED', 'FAILED']);
    assert.deepEqual(outcomes.map((t) => t.failureReason), [null, 'OUT_OF_STOCK', 'OUT_OF_STOCK']);
    const after = await getLink(l.id);
    assert.equal(after.stockQuantity, 0);
    assert.equal(after.salesCount, 1);
    const failedEvents = await ctx.database.db.selectFrom('events').select('data').where('type', '=', 'transaction.failed').where('user_id', '=', m.id).execute();
    assert.ok(failedEvents.some((e) => (e.data as { id: string }).id === ids[1]));
    await assertLedgerBalanced(ctx.database.db);
  });

  test('links without stock count sales without limit', async () => {
    const l = await link();
    for (let i = 0; i < 3; i++) await pay((await checkout(l.slug, order())).body.transaction.id);
    const after = await getLink(l.id);
    assert.equal(after.salesCount, 3);
    assert.equal(after.stockQuantity, null);
  });
});

describe('paymentLinkId on POST /api/v1/transactions', () => {
  const base = (over: Record<string, unknown>) => ({ product: 'Venda', amountCents: 2500, clientName: 'Rui', clientEmail: 'rui@example.com', clientDocument: cpf(), paymentMethod: 'PIX', ...over });
  test('a link of the same merchant and environment: the payment is the link\'s sale', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 1 });
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: l.id }) });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.paymentLinkId, l.id);
    await pay(res.body.transaction.id);
    const after = await getLink(l.id);
    assert.equal(after.salesCount, 1);
    assert.equal(after.stockQuantity, 0);
    assert400(await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: l.id }) }), 'INSUFFICIENT_STOCK');
  });

  test('an inactive or expired link is refused as its checkout refuses it, and nothing is written', async () => {
    const inactive = await link({ status: 'INACTIVE' });
    const expired = await link();
    await ctx.database.db.updateTable('payment_links').set({ expires_at: new Date(Date.now() - 1) }).where('id', '=', expired.id).execute();
    const before = (await call(ctx.app, 'GET', '/api/v1/transactions?limit=100', { key: m.devKey })).body.transactions.length;
    for (const l of [inactive, expired]) {
      assert400(await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: l.id }) }), 'PAYMENT_LINK_UNAVAILABLE', 'paymentLinkId');
    }
    assert.equal((await call(ctx.app, 'GET', '/api/v1/transactions?limit=100', { key: m.devKey })).body.transactions.length, before);
  });

  test('anything else: 400 VALIDATION_ERROR on paymentLinkId', async () => {
    const foreign = await link({}, other.devKey);
    const live = await link({}, m.liveKey);
    const archived = await link();
    await call(ctx.app, 'DELETE', `/api/v1/payment-links/${archived.id}`, { key: m.devKey });
    for (const id of [foreign.id, live.id, archived.id, '01890000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      assert400(await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: id }) }), 'VALIDATION_ERROR', 'paymentLinkId');
    }
  });
});

describe('cart abandonment', () => {
  const abandon = (slug: string, body: Record<string, unknown>, ip = '10.9.9.9') =>
    ctx.app.inject({ method: 'POST', url: `/api/payment-links/public/slug/${slug}/cart-abandonment`, payload: body, remoteAddress: ip }).then((r) => ({ status: r.statusCode, body: specBody('cart-abandonment', r.statusCode, JSON.parse(r.body)) as any, raw: r.body }));
  const list = (q = '') => call(ctx.app, 'GET', `/api/v1/cart-abandonments${q}`, { key: m.devKey });

  test('201 with an id; one open abandonment per link and e-mail; validation', async () => {
    const l = await link();
    const a = await abandon(l.slug, { clientEmail: 'Lead@Example.com' });
    assert.equal(a.status, 201, a.raw);
    const doc = cpf();
    const again = await abandon(l.slug, { clientEmail: 'lead@example.com', clientName: 'Lia', clientDocument: doc, clientPhone: '11912345678' });
    assert.equal(again.body.cartAbandonment.id, a.body.cartAbandonment.id);
    const rows = (await list(`?paymentLinkId=${l.id}`)).body.cartAbandonments;
    assert.equal(rows.length, 1);
    assert.equal(rows[0].clientEmail, 'lead@example.com');
    assert.equal(rows[0].clientName, 'Lia');
    assert.equal(rows[0].clientDocument, doc);
    assert.equal(rows[0].recovered, false);
    assert.equal((await abandon(l.slug, { clientName: 'Sem e-mail' })).status, 400);
    assert.equal((await abandon(l.slug, { clientEmail: 'x@example.com', clientDocument: '11111111111' })).status, 400);
    assert.equal((await abandon('no-such-link', { clientEmail: 'x@example.com' })).status, 404);
    assert.equal((await abandon((await link({ status: 'INACTIVE' })).slug, { clientEmail: 'x@example.com' })).status, 400);
    // Other merchants do not see it.
    const theirs = await call(ctx.app, 'GET', '/api/v1/cart-abandonments', { key: other.devKey });
    assert.ok(!theirs.body.cartAbandonments.some((r: { id: string }) => r.id === a.body.cartAbandonment.id));
  });

  test('recover by id or e-mail; paying the link recovers it by itself', async () => {
    const l = await link();
    const a = (await abandon(l.slug, { clientEmail: 'um@example.com' })).body.cartAbandonment.id;
    await abandon(l.slug, { clientEmail: 'dois@example.com' });
    const doc = cpf();
    await abandon(l.slug, { clientEmail: 'tres@example.com', clientDocument: doc });
    const recover = (body: unknown) => call(ctx.app, 'POST', `/api/payment-links/public/slug/${l.slug}/cart-abandonment/recover`, { body });
    const noted = { message: 'Cart abandonment recovery noted' };
    // The same answer whether something matched or not: the route reveals nothing about an e-mail.
    for (const body of [{ id: a }, { clientEmail: 'DOIS@example.com' }, { clientEmail: 'nobody@example.com' }, { id: a }, { id: '0190f0f0-0000-7000-8000-000000000000' }]) {
      const res = await recover(body);
      assert.equal(res.status, 200, res.raw);
      assert.deepEqual(res.body, noted, JSON.stringify(body));
    }
    const open = (await list(`?paymentLinkId=${l.id}&recovered=false`)).body.cartAbandonments.map((r: { clientEmail: string }) => r.clientEmail);
    assert.deepEqual(open, ['tres@example.com'], 'by id and by e-mail both recovered');
    assert.equal((await recover({})).status, 400);
    // The third customer pays (another e-mail, same document): a checkout alone does not recover, payment does.
    const co = await checkout(l.slug, order({ clientEmail: 'outro@example.com', clientDocument: doc }));
    let rows = (await list(`?paymentLinkId=${l.id}&recovered=false`)).body.cartAbandonments;
    assert.equal(rows.length, 1);
    await pay(co.body.transaction.id);
    rows = (await list(`?paymentLinkId=${l.id}`)).body.cartAbandonments;
    assert.ok(rows.every((r: { recovered: boolean }) => r.recovered));
    const third = rows.find((r: { clientEmail: string }) => r.clientEmail === 'tres@example.com');
    assert.equal(third.transactionId, co.body.transaction.id);
    assert.ok(third.recoveredAt);
    // After recovery the same e-mail can abandon again (a new open abandonment).
    const fresh = await abandon(l.slug, { clientEmail: 'um@example.com' });
    assert.notEqual(fresh.body.cartAbandonment.id, a);
  });

  test('limited per IP', async () => {
    const l = await link();
    const ip = `10.8.${Math.floor(Math.random() * 250)}.1`;
    for (let i = 0; i < 29; i++) assert.equal((await abandon(l.slug, { clientEmail: `c${i}@example.com` }, ip)).status, 201);
    assert.equal((await abandon(l.slug, {}, ip)).status, 400, 'a malformed report is the 30th');
    assert.equal((await abandon(l.slug, { clientEmail: 'c31@example.com' }, ip)).status, 429);
    assert.equal((await abandon(l.slug, {}, ip)).status, 429);
  });
});

describe('hosted pages', () => {
  test('/pay/{slug}: pt-BR page, strict CSP without a pixel, device cookie, escaped content', async () => {
    const l = await link({ title: 'Oficina "Arte" & Cia', description: 'Tudo < R$ 100 > sempre', settings: { boletoEnabled: false, requirePhone: true } });
    const res = await call(ctx.app, 'GET', `/pay/${l.slug}`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self';/);
    assert.ok(!csp.includes('facebook'));
    assert.match(String(res.headers['set-cookie']), /^cofre_did=[A-Za-z0-9_-]{16,}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax/);
    const html = res.raw;
    assert.match(html, /<html lang="pt-BR">/);
    assert.match(html, /R\$\s100,00/);
    assert.ok(html.includes('Oficina &#34;Arte&#34; &#38; Cia'));
    assert.ok(html.includes('Tudo &#60; R$ 100 &#62; sempre'));
    assert.ok(!/<script>/.test(html), 'no inline script without a pixel');
    assert.match(html, /<script src="\/assets\/checkout\.js\?v=[0-9a-f]{12}" defer><\/script>/);
    assert.match(html, /value="PIX"/);
    assert.match(html, /value="CARD"/);
    assert.ok(!html.includes('value="BOLETO"'), 'boleto disabled by the link');
    assert.match(html, /<label for="phone">Celular<\/label><input id="phone"[^>]* required/);
    assert.ok(!html.includes('id="zip"'), 'no address fields unless required');
    for (const id of ['name', 'email', 'document', 'coupon']) assert.ok(new RegExp(`id="${id}"`).test(html), id);
    for (const label of ['name', 'email', 'document', 'phone']) assert.ok(html.includes(`<label for="${label}">`), `label for ${label}`);
    // A browser that already has the cookie keeps it.
    const again = await call(ctx.app, 'GET', `/pay/${l.slug}`, { headers: { cookie: 'cofre_did=abcdefgh12345678' } });
    assert.equal(again.headers['set-cookie'], undefined);
  });

  test('Meta pixel: only with a pixel id, as the standard snippet allowed by its CSP hash', async () => {
    const l = await link({ metaPixelCode: '123456789012345' });
    const res = await call(ctx.app, 'GET', `/pay/${l.slug}`);
    const scripts = [...res.raw.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((x) => x[1]);
    assert.equal(scripts.length, 1);
    assert.ok(scripts[0].includes("fbq('init','123456789012345')"));
    assert.ok(scripts[0].includes('https://connect.facebook.net/en_US/fbevents.js'));
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(scripts[0]).digest('base64');
    const csp = String(res.headers['content-security-policy']);
    assert.ok(csp.includes(`'sha256-${hash}'`), csp);
    assert.ok(csp.includes('https://connect.facebook.net'));
    assert.ok(!csp.includes('unsafe-inline') || !/script-src[^;]*unsafe-inline/.test(csp));
    // Removing the pixel through the API takes it off the (cached) page at once, CSP allowance included.
    await call(ctx.app, 'PATCH', `/api/v1/payment-links/${l.id}`, { key: m.devKey, body: { amountCents: 10000, metaPixelCode: null } });
    const none = await call(ctx.app, 'GET', `/pay/${l.slug}`);
    assert.ok(!none.raw.includes('fbq'));
    assert.ok(!String(none.headers['content-security-policy']).includes('facebook'));
    // The database refuses anything but digits too.
    await assert.rejects(ctx.database.db.updateTable('payment_links').set({ meta_pixel_code: "1');alert(1);//" }).where('id', '=', l.id).execute());
  });

  test('unknown links 404; inactive, expired and sold-out links get a clear page', async () => {
    const unknown = await call(ctx.app, 'GET', '/pay/nao-existe');
    assert.equal(unknown.status, 404);
    assert.match(unknown.raw, /Link não encontrado/);
    assert.equal((await call(ctx.app, 'GET', '/pay/%3Cscript%3E')).status, 404);
    const inactive = await call(ctx.app, 'GET', `/pay/${(await link({ status: 'INACTIVE' })).slug}`);
    assert.match(inactive.raw, /Link indisponível/);
    const expired = await link();
    await ctx.database.db.updateTable('payment_links').set({ expires_at: new Date(Date.now() - 1) }).where('id', '=', expired.id).execute();
    assert.match((await call(ctx.app, 'GET', `/pay/${expired.slug}`)).raw, /Link expirado/);
    assert.match((await call(ctx.app, 'GET', `/pay/${(await link({ stockEnabled: true, stockQuantity: 0 })).slug}`)).raw, /Esgotado/);
  });

  test('/checkout/{id}: QR and copy code for PIX, boleto line, confirmation once paid; 404 unknown', async () => {
    const l = await link({ redirectUrl: 'https://loja.example.com/obrigado' });
    const pix = (await checkout(l.slug, order())).body.transaction;
    const page = await call(ctx.app, 'GET', `/checkout/${pix.id}`);
    assert.equal(page.status, 200);
    assert.match(page.raw, /Pague com PIX/);
    assert.match(page.raw, /<img class="qr" src="\/pix\/[A-Za-z0-9]{25}\/qr\.png"/);
    assert.ok(page.raw.includes('data-copy="pix-code"'));
    assert.ok(page.raw.includes('data-poll="1"'));
    assert.ok(page.raw.includes('data-redirect="https://loja.example.com/obrigado"'));
    assert.ok(page.raw.includes('aria-live="polite"'));
    const boleto = (await checkout(l.slug, order({ paymentMethod: 'BOLETO' }))).body.transaction;
    const bpage = await call(ctx.app, 'GET', `/checkout/${boleto.id}`);
    assert.match(bpage.raw, /Linha digitável/);
    assert.ok(bpage.raw.includes(`href="/boleto/${boleto.id}"`));
    await pay(pix.id);
    assert.match((await call(ctx.app, 'GET', `/checkout/${pix.id}`)).raw, /Pagamento confirmado/);
    assert.equal((await call(ctx.app, 'GET', '/checkout/01890000-0000-7000-8000-000000000000')).status, 404);
    assert.equal((await call(ctx.app, 'GET', '/checkout/nope')).status, 404);
  });

  test('/checkout/{id} after refunds: heading and status box agree, with the amounts in BRL', async () => {
    const l = await link({ amountCents: 7990 });
    const tx = (await checkout(l.slug, order())).body.transaction;
    await pay(tx.id);
    const refund = (amountCents?: number) => call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.devKey, body: amountCents ? { amountCents } : {} });
    const r = await refund(1000);
    assert.equal(r.status, 200, r.raw);
    const heading = (html: string) => /<h1 id="heading"[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];
    const box = (html: string) => /<p id="status"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];
    const partial = (await call(ctx.app, 'GET', `/checkout/${tx.id}`)).raw;
    assert.equal(heading(partial), 'Pagamento estornado parcialmente');
    assert.equal(box(partial), 'Estorno parcial: R$\u00a010,00 de R$\u00a079,90 devolvidos');
    assert.ok(partial.includes('R$\u00a069,90'), 'what stays paid');
    assert.doesNotMatch(partial, /Pagamento confirmado/);
    await pay((await checkout(l.slug, order())).body.transaction.id); // another sale's net covers the refunded fee
    const all = await refund();
    assert.equal(all.status, 200, all.raw);
    const full = (await call(ctx.app, 'GET', `/checkout/${tx.id}`)).raw;
    assert.equal(heading(full), 'Pagamento estornado');
    assert.equal(box(full), 'Estorno total: R$\u00a079,90 devolvidos');
  });

  test('the payer\'s personal data never appears on the payment page', async () => {
    const l = await link();
    const doc = cpf();
    const tx = (await checkout(l.slug, order({ clientName: 'Fulana Secreta', clientEmail: 'fulana@example.com', clientDocument: doc }))).body.transaction;
    const html = (await call(ctx.app, 'GET', `/checkout/${tx.id}`)).raw;
    for (const s of ['Fulana', 'fulana@example.com', doc]) assert.ok(!html.includes(s), s);
  });

  test('/assets/checkout.js is served as JavaScript, immutable; small', async () => {
    const res = await call(ctx.app, 'GET', '/assets/checkout.js?v=x');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/javascript/);
    assert.match(String(res.headers['cache-control']), /immutable/);
    assert.ok(res.raw.length < 40_000);
  });

  test('status endpoint: only the status', async () => {
    const l = await link();
    const tx = (await checkout(l.slug, order())).body.transaction;
    const res = await call(ctx.app, 'GET', `/api/checkout/transactions/${tx.id}/status`);
    assert.deepEqual(res.body, { status: 'PENDING' });
    assert.equal(res.headers['cache-control'], 'no-store');
    await pay(tx.id);
    assert.deepEqual((await call(ctx.app, 'GET', `/api/checkout/transactions/${tx.id}/status`)).body, { status: 'PAID' });
    assert.equal((await call(ctx.app, 'GET', '/api/checkout/transactions/01890000-0000-7000-8000-000000000000/status')).status, 404);
  });
});

describe('card step of an API transaction (paymentUrl)', () => {
  const create = () =>
    call(ctx.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'Assinatura', amountCents: 9900, clientName: 'Leo', clientEmail: 'leo@example.com', clientDocument: cpf(), paymentMethod: 'CARD', installments: 2 },
    });

  test('the hosted page shows the card form; paying charges once', async () => {
    const tx = (await create()).body.transaction;
    assert.equal(tx.paymentUrl, `${ctx.config.checkoutUrl}/checkout/${tx.id}`);
    const page = await call(ctx.app, 'GET', `/checkout/${tx.id}`);
    assert.match(page.raw, /Pague com cartão/);
    assert.ok(page.raw.includes('id="card-form"'));
    const paid = await call(ctx.app, 'POST', `/api/checkout/transactions/${tx.id}/card`, { body: { card: card() } });
    assert.equal(paid.status, 200, paid.raw);
    assert.equal(paid.body.transaction.status, 'PAID');
    assert.deepEqual(paid.body.transaction.card, { brand: 'VISA', last4: '4242' });
    assert400(await call(ctx.app, 'POST', `/api/checkout/transactions/${tx.id}/card`, { body: { card: card() } }), 'INVALID_STATE_TRANSITION');
    const merchantView = await getTx(tx.id);
    assert.equal(merchantView.status, 'PAID');
    assert.equal(merchantView.installments, 2);
  });

  test('declined cards fail the transaction; bad card data is a 400 and charges nothing; PIX cannot be paid by card', async () => {
    const tx = (await create()).body.transaction;
    assert400(await call(ctx.app, 'POST', `/api/checkout/transactions/${tx.id}/card`, { body: { card: card('1234567812345678') } }), 'VALIDATION_ERROR', 'card.number');
    const declined = await call(ctx.app, 'POST', `/api/checkout/transactions/${tx.id}/card`, { body: { card: card('4000000000009995') } });
    assert.equal(declined.body.transaction.status, 'FAILED');
    assert.equal(declined.body.transaction.failureReason, 'INSUFFICIENT_FUNDS');
    const l = await link();
    const pix = (await checkout(l.slug, order())).body.transaction;
    assert400(await call(ctx.app, 'POST', `/api/checkout/transactions/${pix.id}/card`, { body: { card: card() } }), 'INVALID_STATE_TRANSITION');
    assert.equal((await call(ctx.app, 'POST', '/api/checkout/transactions/01890000-0000-7000-8000-000000000000/card', { body: { card: card() } })).status, 404);
  });

  test('card numbers never reach the logs', async () => {
    const l = await link();
    await checkout(l.slug, order({ paymentMethod: 'CARD', card: card('5555555555554444') }));
    assert.ok(!ctx.logs.join('').includes('5555555555554444'));
    await assertLedgerBalanced(ctx.database.db);
  });
});
