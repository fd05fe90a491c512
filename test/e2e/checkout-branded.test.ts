// The branded hosted checkout with order bumps in real Chromium (issue 37): the merchant's colour,
// logo and banner served by Cofre (the page loads nothing from the merchant's host), two bumps ticked
// and paid by card in one charge, a PIX with a bump and a coupon on the main product; the page's
// weight; the upsell (one click on the same card) and the downsell on the branded payment step;
// screenshots at 390 px and desktop in test-output/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, merchant, type Merchant, type TestContext } from '../helpers.ts';
import { startImageHost, type ImageHost } from '../media-kit.ts';
import { after, before, describe, test } from './browser.ts';
import { DESKTOP, launchBrowser, OUT, PHONE, servedApp, skipBrowser } from './browser.ts';

const MAX_PAGE_BYTES = 150 * 1024;
const YEAR = new Date().getUTCFullYear();
const NBSP = '\u00a0';

let ctx: TestContext;
let browser: Browser;
let host: ImageHost;
let m: Merchant;

async function api(method: string, path: string, body?: Record<string, unknown>) {
  const res = await call(ctx.app, method, path, { key: m.devKey, body });
  assert.ok(res.status < 300, res.raw);
  return res.body;
}

/** A course link with the merchant's brand and two bumps (an e-book R$ 29,90 at R$ 24,90, a class R$ 50,00 at 10% off). */
async function brandedShop(title: string) {
  const link = (await api('POST', '/api/v1/payment-links', { title, description: 'Aprenda a fazer pão de fermentação natural em casa', amountCents: 19700, checkoutConfig: { theme: { bannerUrl: host.url('/logo.jpg'), bannerLayout: 'compact' } } })).paymentLink;
  const checkout = (
    await api('POST', '/api/v1/checkouts', {
      name: 'Página do curso',
      paymentLinkId: link.id,
      customization: { primaryColor: '#5b21b6', logoUrl: host.url('/logo.png') },
      checkoutConfig: { theme: { buttonText: 'Quero meu acesso', borderRadius: 'rounded' }, showSocialProof: true, showTermsFooter: true, termsUrl: 'https://padaria.example/termos' },
    })
  ).checkout;
  const ebook = (await api('POST', '/api/v1/products', { name: 'E-book 50 receitas de pão', price: 2990 })).product;
  const aula = (await api('POST', '/api/v1/products', { name: 'Aula ao vivo de fermentação', price: 5000 })).product;
  await api('POST', `/api/v1/checkouts/${checkout.id}/order-bumps`, { productId: ebook.id, discountCents: 500, description: 'Receitas testadas, em PDF, para ler no celular' });
  await api('POST', `/api/v1/checkouts/${checkout.id}/order-bumps`, { productId: aula.id, discountPercentage: 10 });
  return { link, checkout, ebook, aula };
}

async function fillCustomer(page: Page) {
  await page.fill('#name', 'Maria das Graças');
  await page.fill('#email', `maria.${Date.now()}@example.com`);
  await page.fill('#document', '52998224725');
}

describe('branded checkout with order bumps in Chromium', { skip: skipBrowser }, () => {
  before(async () => {
    host = await startImageHost();
    ({ ctx } = await servedApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: host.certFile } }));
    m = await merchant(ctx.app);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
    await host?.close();
  });

  test('two bumps ticked and paid by card in one charge; the brand drawn from Cofre alone; screenshots', async (t) => {
    const s = await brandedShop('Curso de Pão Caseiro');
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'pt-BR' });
    const page = await context.newPage();
    const requests: string[] = [];
    let bytes = 0;
    page.on('requestfinished', async (req) => {
      requests.push(req.url());
      const sizes = await req.sizes().catch(() => null);
      if (sizes) bytes += sizes.responseBodySize + sizes.responseHeadersSize;
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    try {
      const fetched = host.total();
      await page.goto(s.link.url);
      await page.waitForLoadState('networkidle');
      t.diagnostic(`branded /pay page: ${bytes} bytes transferred`);
      assert.ok(bytes <= MAX_PAGE_BYTES, `the page weighs ${bytes} bytes`);
      const origin = new URL(s.link.url).origin;
      assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:')), [], 'only Cofre is loaded');
      assert.equal(host.total(), fetched, "the merchant's host is not asked again");
      assert.ok(await page.$eval('img.logo', (i) => (i as HTMLImageElement).naturalWidth > 0), 'the logo shows');
      assert.ok(await page.$eval('img.banner', (i) => (i as HTMLImageElement).naturalWidth > 0), 'the banner shows');
      assert.equal(await page.$eval('#submit', (b) => getComputedStyle(b).backgroundColor), 'rgb(91, 33, 182)');
      assert.equal((await page.textContent('#submit'))?.trim(), 'Quero meu acesso');
      assert.equal(await page.getAttribute('footer a', 'href'), 'https://padaria.example/termos');

      assert.equal(await page.textContent('#total'), `R$${NBSP}197,00`);
      const boxes = page.locator('.bump');
      assert.equal(await boxes.count(), 2);
      assert.match((await boxes.nth(0).textContent())!, /Adicionar por R\$\s24,90\s*R\$\s29,90/);
      await fillCustomer(page);
      await page.check('input[name=orderBump] >> nth=0');
      assert.equal(await page.textContent('#total'), `R$${NBSP}221,90`);
      await page.check('input[name=orderBump] >> nth=1');
      assert.equal(await page.textContent('#total'), `R$${NBSP}266,90`);
      await page.check('input[name=paymentMethod][value=CARD]');
      await page.fill('#card-number', '4242424242424242');
      await page.fill('#card-name', 'MARIA DAS GRACAS');
      await page.fill('#card-exp', `12${String(YEAR + 2).slice(2)}`);
      await page.fill('#card-cvv', '123');
      await page.screenshot({ path: join(OUT, 'checkout-branded-bumps-390.png'), fullPage: true });
      await page.setViewportSize(DESKTOP);
      await page.screenshot({ path: join(OUT, 'checkout-branded-bumps-desktop.png'), fullPage: true });
      await Promise.all([page.waitForURL(/\/checkout\/[0-9a-f-]{36}/), page.click('#submit')]);
      const id = new URL(page.url()).pathname.split('/').pop()!;
      const tx = (await api('GET', `/api/v1/transactions/${id}`)).transaction;
      assert.equal(tx.status, 'PAID');
      assert.equal(tx.amountCents, 26690);
      assert.deepEqual(
        tx.items.map((l: { kind: string; name: string; totalCents: number }) => [l.kind, l.name, l.totalCents]),
        [['MAIN', 'Curso de Pão Caseiro', 19700], ['BUMP', 'E-book 50 receitas de pão', 2490], ['BUMP', 'Aula ao vivo de fermentação', 4500]],
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('PIX with a bump and a coupon: the coupon takes the main product only; the QR is for the whole order', async () => {
    const s = await brandedShop('Curso de Pão Integral');
    const coupon = (await api('POST', '/api/v1/coupons', { code: `PAO${Date.now() % 100000}`, discountType: 'PERCENTAGE', discountValue: 10 })).coupon;
    const context = await browser.newContext({ viewport: PHONE, locale: 'pt-BR' });
    const page = await context.newPage();
    try {
      await page.goto(s.link.url);
      await fillCustomer(page);
      await page.check('input[name=orderBump] >> nth=0');
      await page.fill('#coupon', coupon.code);
      await page.click('#apply-coupon');
      await page.waitForSelector('#coupon-msg.ok');
      // 197,00 - 19,70 + 24,90
      assert.equal(await page.textContent('#total'), `R$${NBSP}202,20`);
      await page.uncheck('input[name=orderBump] >> nth=0');
      await page.waitForFunction(() => document.querySelector('#total')?.textContent === 'R$\u00a0177,30');
      await page.check('input[name=orderBump] >> nth=0');
      await page.waitForFunction(() => document.querySelector('#total')?.textContent === 'R$\u00a0202,20');
      await Promise.all([page.waitForURL(/\/checkout\//), page.click('#submit')]);
      await page.waitForSelector('img.qr');
      const id = new URL(page.url()).pathname.split('/').pop()!;
      const tx = (await api('GET', `/api/v1/transactions/${id}`)).transaction;
      assert.equal(tx.amountCents, 20220);
      assert.equal(tx.discountCents, 1970);
      assert.match(await page.inputValue('#pix-code'), /5406202\.20/);
    } finally {
      await context.close();
    }
  });

  test('upsell accepted with one click after a card payment; a downsell shown after a decline; screenshots', async () => {
    const s = await brandedShop('Curso de Pão Doce');
    const up = (await api('POST', '/api/v1/products', { name: 'Mentoria de panificação', price: 49700 })).product;
    const down = (await api('POST', '/api/v1/products', { name: 'Mentoria em grupo', price: 19700 })).product;
    await api('POST', `/api/v1/checkouts/${s.checkout.id}/upsell`, { productId: up.id, discountPercentage: 10, description: 'Quatro encontros ao vivo, só para você' });
    await api('POST', `/api/v1/checkouts/${s.checkout.id}/upsell/downsell`, { productId: down.id });
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'pt-BR' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    try {
      await page.goto(s.link.url);
      await fillCustomer(page);
      await page.check('input[name=paymentMethod][value=CARD]');
      await page.fill('#card-number', '5555555555554444');
      await page.fill('#card-name', 'MARIA DAS GRACAS');
      await page.fill('#card-exp', `12${String(YEAR + 2).slice(2)}`);
      await page.fill('#card-cvv', '123');
      await Promise.all([page.waitForURL(/\/checkout\//), page.click('#submit')]);
      await page.waitForSelector('#offer-accept');
      assert.equal(await page.$eval('#offer-accept', (b) => getComputedStyle(b).backgroundColor), 'rgb(91, 33, 182)', "the payment step carries the link's brand");
      assert.ok(await page.$eval('img.logo', (i) => (i as HTMLImageElement).naturalWidth > 0));
      assert.match((await page.textContent('.offer'))!, /Mentoria de panificação[\s\S]*R\$\s447,30[\s\S]*final 4444/);
      await page.screenshot({ path: join(OUT, 'checkout-upsell-390.png'), fullPage: true });
      await page.setViewportSize(DESKTOP);
      await page.screenshot({ path: join(OUT, 'checkout-upsell-desktop.png'), fullPage: true });
      await page.click('#offer-accept');
      await page.waitForSelector('text=Compra adicional confirmada');
      const parentId = new URL(page.url()).pathname.split('/').pop()!;
      const kids = await ctx.database.db.selectFrom('transactions').select(['status', 'amount_cents', 'card_last4']).where('parent_transaction_id', '=', parentId).execute();
      assert.deepEqual(kids, [{ status: 'PAID', amount_cents: 44730, card_last4: '4444' }]);

      // Another buyer, by PIX: paid in the sandbox, the page shows the upsell; declined, the downsell.
      await page.setViewportSize(PHONE);
      await page.goto(s.link.url);
      await fillCustomer(page);
      await Promise.all([page.waitForURL(/\/checkout\//), page.click('#submit')]);
      await page.waitForSelector('img.qr');
      const pixId = new URL(page.url()).pathname.split('/').pop()!;
      await api('POST', `/api/v1/transactions/${pixId}/simulate`, { outcome: 'PAID' });
      await page.waitForSelector('#offer-decline', { timeout: 15_000 });
      assert.match((await page.textContent('.offer'))!, /novo PIX/);
      await page.click('#offer-decline');
      await page.waitForSelector('text=Que tal esta outra opção?');
      assert.match((await page.textContent('.offer'))!, /Mentoria em grupo[\s\S]*R\$\s197,00/);
      await page.screenshot({ path: join(OUT, 'checkout-downsell-390.png'), fullPage: true });
      await page.click('#offer-decline');
      await page.waitForSelector('text=Tudo certo! Seu pagamento está confirmado.');
      assert.equal((await ctx.database.db.selectFrom('transactions').select('id').where('parent_transaction_id', '=', pixId).execute()).length, 0);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
