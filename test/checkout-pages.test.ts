// Public checkout: the hosted pages (HTML, CSP, pixel, escaping), the status endpoint and the card
// step of API transactions. PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400, assertFieldError } from './kit/assert.ts';
import { card, checkoutApi, order } from './checkout-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx, { live: true });
const { link, checkout, pay, getTx } = checkoutApi(ctx, m);

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
    assertFieldError(await call(ctx.app, 'POST', `/api/checkout/transactions/${tx.id}/card`, { body: { card: card('1234567812345678') } }), 'card.number', 'VALIDATION_ERROR');
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
