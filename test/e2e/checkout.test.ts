// The hosted checkout in a real browser (Debian Chromium through playwright-core), against the app on
// a real port: PIX end to end (link made through the API, form filled in, QR shown, sandbox payment,
// "Pagamento confirmado", redirect), card approved and declined, a coupon recalculating the total,
// an invalid CPF refused before submit, cart abandonment on leaving, page weight, and a 390 px phone
// screenshot in test-output/. Skips with a message when /usr/bin/chromium is absent.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, merchant, type Merchant, type TestContext } from '../helpers.ts';
import { launchBrowser, OUT, servedApp, skipBrowser } from './browser.ts';

const skip = skipBrowser;
const MAX_PAGE_BYTES = 150 * 1024;
const YEAR = new Date().getUTCFullYear();

let ctx: TestContext;
let base: string;
let browser: Browser;
let m: Merchant;

async function link(body: Record<string, unknown> = {}) {
  const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Workshop de Fotografia', description: 'Turma de sábado, 9h às 13h', amountCents: 10000, ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.paymentLink;
}

/** A phone-sized page that records the bytes transferred (headers + encoded body) of every finished request. */
async function phone(): Promise<{ page: Page; context: BrowserContext; bytes: () => Promise<number>; reset: () => void; requests: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'pt-BR' });
  const page = await context.newPage();
  let sizes: Promise<number>[] = [];
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('requestfinished', (req) => {
    requests.push(req.url());
    // Read at once, awaited only by tests that weigh the page: one still reading when its page closes
    // (a test that never weighs) must not become an unhandled rejection after the suite.
    const size = req.sizes().then((s) => s.responseBodySize + s.responseHeadersSize);
    size.catch(() => {});
    sizes.push(size);
  });
  page.on('pageerror', (err) => errors.push(err.message));
  const bytes = async () => {
    await page.waitForLoadState('networkidle');
    return (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
  };
  return { page, context, bytes, reset: () => (sizes = []), requests, errors };
}

async function fillCustomer(page: Page, doc = '529.982.247-25') {
  await page.fill('#name', 'Maria das Graças');
  await page.fill('#email', `maria.${Date.now()}@example.com`);
  await page.fill('#document', doc.replace(/\D/g, ''));
}

async function fillCard(page: Page, number: string) {
  await page.check('input[name=paymentMethod][value=CARD]');
  await page.fill('#card-number', number);
  await page.fill('#card-name', 'MARIA DAS GRACAS');
  await page.fill('#card-exp', `12${String(YEAR + 2).slice(2)}`);
  await page.fill('#card-cvv', '123');
}

describe('hosted checkout in Chromium', { skip }, () => {
  before(async () => {
    ({ ctx, base } = await servedApp());
    m = await merchant(ctx.app);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('an affiliate URL attributes the sale even when the browser drops the cookie (the page sends the code)', async () => {
    const product = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Curso de Fotografia', price: 10000 } });
    const l = await link({ amountCents: undefined, products: [{ productId: product.body.product.id, quantity: 1 }] });
    const program = await call(ctx.app, 'POST', '/api/affiliate/programs', { key: m.devKey, body: { productId: product.body.product.id, commissionType: 'PERCENTAGE', commissionValue: 3000 } });
    const affiliate = await merchant(ctx.app);
    const joined = await call(ctx.app, 'POST', `/api/affiliate/join/${program.body.data.id}`, { key: affiliate.devKey });
    const url = joined.body.data.urls[0].url as string;
    assert.equal(url, `${l.url}?aff=${joined.body.data.code}`);
    const { page, context, errors } = await phone();
    try {
      await page.goto(url);
      assert.ok((await context.cookies()).some((c) => c.name === 'cofre_aff'), 'click cookie set');
      await context.clearCookies();
      await fillCustomer(page);
      await Promise.all([page.waitForURL(/\/checkout\/[0-9a-f-]{36}$/), page.click('#submit')]);
      const id = page.url().split('/').pop()!;
      const sim = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
      assert.equal(sim.status, 200, sim.raw);
      const commission = await ctx.database.db.selectFrom('affiliate_commissions').selectAll().where('transaction_id', '=', id).executeTakeFirst();
      assert.equal(commission?.link_id, joined.body.data.id);
      assert.equal(commission?.amount_cents, 3000);
      assert.deepEqual(errors, [], 'no script errors');
    } finally {
      await context.close();
    }
  });

  test('PIX end to end: form, QR, sandbox payment, "Pagamento confirmado", redirect; page weight', async (t) => {
    const redirect = `${base}/health`;
    const l = await link({ redirectUrl: redirect });
    assert.ok(l.url.startsWith(base));
    const { page, context, bytes, reset, errors } = await phone();
    try {
      await page.goto(l.url);
      const payBytes = await bytes();
      t.diagnostic(`/pay page: ${payBytes} bytes transferred`);
      assert.ok(payBytes <= MAX_PAGE_BYTES, `pay page weighs ${payBytes} bytes`);
      await assert.doesNotReject(page.waitForSelector('h1:text("Workshop de Fotografia")'));
      assert.equal(await page.textContent('#total'), 'R$ 100,00'.replace(' ', '\u00a0'));
      // Every visible field has a label.
      const unlabeled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('input:not([type=radio]), select'))
          .filter((el) => !(el as HTMLElement).closest('[hidden]'))
          .filter((el) => !el.getAttribute('aria-label') && !document.querySelector(`label[for="${el.id}"]`))
          .map((el) => el.id),
      );
      assert.deepEqual(unlabeled, []);

      await fillCustomer(page);
      assert.equal(await page.inputValue('#document'), '529.982.247-25', 'CPF mask');
      reset();
      await Promise.all([page.waitForURL(/\/checkout\/[0-9a-f-]{36}$/), page.click('#submit')]);
      await page.waitForSelector('img.qr');
      await page.waitForFunction(() => (document.querySelector('img.qr') as HTMLImageElement).naturalWidth > 0);
      const stepBytes = await bytes();
      t.diagnostic(`/checkout page with the QR: ${stepBytes} bytes transferred`);
      assert.ok(stepBytes <= MAX_PAGE_BYTES, `payment step weighs ${stepBytes} bytes`);
      const code = await page.inputValue('#pix-code');
      assert.match(code, /^000201/);
      assert.match(code, /br\.gov\.bcb\.pix/);
      assert.equal((await page.textContent('#status'))?.trim(), 'Aguardando pagamento…');
      await page.screenshot({ path: join(OUT, 'checkout-pix-390.png'), fullPage: true });

      const id = page.url().split('/').pop()!;
      const sim = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
      assert.equal(sim.status, 200, sim.raw);
      await page.waitForSelector('#status:text("Pagamento confirmado")', { timeout: 15_000 });
      assert.equal(await page.getAttribute('#status', 'role'), 'status');
      await page.waitForURL(redirect, { timeout: 15_000 });
      assert.deepEqual(errors, [], 'no script errors');
    } finally {
      await context.close();
    }
  });

  test('card approved and card declined', async () => {
    const l = await link({ settings: { maxInstallments: 6, interestFreeInstallments: 2, interestRate: 1.99 } });
    const { page, context } = await phone();
    try {
      await page.goto(l.url);
      await fillCustomer(page, '111.444.777-35');
      await fillCard(page, '4000000000000002');
      assert.equal(await page.inputValue('#card-number'), '4000 0000 0000 0002', 'card mask');
      const options = await page.$$eval('#installments option', (os) => os.map((o) => o.textContent));
      assert.equal(options.length, 6);
      assert.match(options[1]!, /^2x de R\$\s50,00 sem juros$/);
      assert.match(options[5]!, /^6x de R\$\s[\d,]+ \(total R\$\s[\d.,]+\)$/);
      await page.selectOption('#installments', '3');
      assert.match((await page.textContent('#submit'))!, /^Pagar R\$\s10[0-9],\d\d$/);
      await page.click('#submit');
      await page.waitForSelector('#form-error:text("Pagamento recusado")');
      assert.match((await page.textContent('#form-error'))!, /recusado pelo emissor/);
      assert.equal(await page.isEnabled('#submit'), true, 'the customer can try another card');

      await page.fill('#card-number', '5555555555554444');
      await Promise.all([page.waitForURL(/\/checkout\//), page.click('#submit')]);
      await page.waitForSelector('#status:text("Pagamento confirmado")');
      const id = page.url().split('/').pop()!;
      const tx = await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.devKey });
      assert.equal(tx.body.transaction.status, 'PAID');
      assert.equal(tx.body.transaction.installments, 3);
      assert.ok(tx.body.transaction.chargedCents > 10000);
    } finally {
      await context.close();
    }
  });

  test('a coupon recalculates the total, and the payment is made at the discounted price', async () => {
    const l = await link();
    const c = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'BEMVINDO10', discountType: 'PERCENTAGE', discountValue: 10 } });
    assert.equal(c.status, 201, c.raw);
    const { page, context } = await phone();
    try {
      await page.goto(l.url);
      await page.fill('#coupon', 'nao-existe');
      await page.click('#apply-coupon');
      await page.waitForSelector('#coupon-msg:text("Cupom inválido ou indisponível")');
      assert.equal(await page.textContent('#total'), 'R$\u00a0100,00');
      // Typed but not applied: the page says so instead of charging the full price.
      await page.fill('#coupon', 'bemvindo10');
      await fillCustomer(page, '39053344705');
      await page.click('#submit');
      await page.waitForSelector('#coupon-msg:text("Toque em Aplicar")');
      assert.equal(page.url(), l.url);
      await page.click('#apply-coupon');
      await page.waitForSelector('#coupon-msg:text("aplicado")');
      assert.equal(await page.textContent('#form-error'), '', 'the "not applied" message goes once it is applied');
      await page.waitForSelector('#coupon-msg:text("aplicado")');
      assert.equal(await page.textContent('#total'), 'R$\u00a090,00');
      assert.match((await page.textContent('#discount'))!, /R\$\s10,00/);
      assert.equal(await page.textContent('#submit'), 'Pagar R$\u00a090,00');
      await fillCustomer(page, '39053344705');
      await page.screenshot({ path: join(OUT, 'checkout-390.png'), fullPage: true });
      await Promise.all([page.waitForURL(/\/checkout\//), page.click('#submit')]);
      const id = page.url().split('/').pop()!;
      const tx = await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.devKey });
      assert.equal(tx.body.transaction.amountCents, 9000);
      assert.equal(tx.body.transaction.discountCents, 1000);
    } finally {
      await context.close();
    }
  });

  test('an invalid CPF is refused on the page before anything is sent', async () => {
    const l = await link();
    const { page, context, requests } = await phone();
    try {
      await page.goto(l.url);
      await fillCustomer(page, '123.456.789-00');
      await page.click('#submit');
      await page.waitForSelector('#document-error:text("CPF inválido")');
      assert.equal(await page.getAttribute('#document', 'aria-invalid'), 'true');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'document');
      assert.ok(!requests.some((u) => u.endsWith('/checkout')), `no checkout request: ${requests.join(' ')}`);
      const txs = await ctx.database.db.selectFrom('transactions').select('id').where('payment_link_id', '=', l.id).execute();
      assert.equal(txs.length, 0);
      // Fixing it clears the error on the next attempt.
      await page.fill('#document', '52998224725');
      await Promise.all([page.waitForURL(/\/checkout\//), page.click('#submit')]);
    } finally {
      await context.close();
    }
  });

  test('leaving after typing an e-mail reports a cart abandonment', async () => {
    const l = await link();
    const { page, context } = await phone();
    try {
      await page.goto(l.url);
      await page.fill('#name', 'Quase Cliente');
      await page.fill('#email', 'quase@example.com');
      await page.goto('about:blank');
      let rows: unknown[] = [];
      for (let i = 0; i < 50 && !rows.length; i++) {
        rows = (await call(ctx.app, 'GET', `/api/v1/cart-abandonments?paymentLinkId=${l.id}`, { key: m.devKey })).body.cartAbandonments;
        if (!rows.length) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(rows.length, 1);
      assert.equal((rows[0] as { clientEmail: string }).clientEmail, 'quase@example.com');
    } finally {
      await context.close();
    }
  });

  test('inactive and unknown links show a clear page', async () => {
    const l = await link({ status: 'INACTIVE' });
    const { page, context } = await phone();
    try {
      await page.goto(l.url);
      assert.equal(await page.textContent('h1'), 'Link indisponível');
      const res = await page.goto(`${base}/pay/nao-existe-mesmo`);
      assert.equal(res?.status(), 404);
      assert.equal(await page.textContent('h1'), 'Link não encontrado');
    } finally {
      await context.close();
    }
  });

  /** A transaction made through the API (development key), as a merchant's integration makes it. */
  async function charge(body: Record<string, unknown>) {
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'Camiseta Cofre', amountCents: 7990, clientName: 'João Silva', clientEmail: 'joao@example.com', clientDocument: '52998224725', paymentMethod: 'PIX', ...body },
    });
    assert.equal(res.status, 201, res.raw);
    return res.body.transaction;
  }

  async function desktop() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pt-BR' });
    return { context, page: await context.newPage() };
  }

  test('a PIX with a due date and late-payment terms shows them, in pt-BR, on a phone', async () => {
    const due = new Date(Date.now() + 5 * 86_400_000 - 3 * 3_600_000).toISOString().slice(0, 10);
    const tx = await charge({ dueDate: due, latePayment: { daysAfterDue: 10, fineBp: 200, interestMonthlyBp: 100 } });
    const { page, context } = await phone();
    try {
      await page.goto(`${base}/checkout/${tx.id}`);
      await page.waitForSelector('img.qr');
      const text = await page.textContent('.pix .after');
      assert.ok(text!.includes(`Vencimento: ${due.split('-').reverse().join('/')}. Após o vencimento: multa de 2,00% e juros de 1,00% ao mês.`), text!);
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
      await page.screenshot({ path: join(OUT, 'checkout-pix-late-390.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  test('PIX on a phone: the copy-and-paste button comes before the QR code; on a desktop the QR code comes first', async () => {
    const tx = await charge({});
    const { page, context } = await phone();
    try {
      await page.goto(`${base}/checkout/${tx.id}`);
      await page.waitForSelector('img.qr');
      const copyTop = (await page.locator('button[data-copy="pix-code"]').boundingBox())!.y;
      const qrTop = (await page.locator('img.qr').boundingBox())!.y;
      assert.ok(copyTop < qrTop, `phone: copy button at ${copyTop} px, QR at ${qrTop} px`);
      assert.ok(copyTop < 844, 'the copy button is on the first screen of the phone');
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
      await page.screenshot({ path: join(OUT, 'checkout-pix-order-390.png'), fullPage: true });
    } finally {
      await context.close();
    }
    const d = await desktop();
    try {
      await d.page.goto(`${base}/checkout/${tx.id}`);
      await d.page.waitForSelector('img.qr');
      const copyTop = (await d.page.locator('button[data-copy="pix-code"]').boundingBox())!.y;
      const qrTop = (await d.page.locator('img.qr').boundingBox())!.y;
      assert.ok(qrTop < copyTop, `desktop: QR at ${qrTop} px, copy button at ${copyTop} px`);
      await d.page.screenshot({ path: join(OUT, 'checkout-pix-desktop.png'), fullPage: true });
    } finally {
      await d.context.close();
    }
  });

  test('the printable boleto at 390 px: fits the screen, copies the linha digitável, can print; beneficiário, instructions, yellow sandbox notice; desktop too', async () => {
    const tx = await charge({ paymentMethod: 'BOLETO' });
    const url = `${base}/boleto/${tx.id}`;
    const { page, context, errors } = await phone();
    const consoleErrors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && consoleErrors.push(msg.text())); // CSP violations land here
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      const res = await page.goto(url);
      assert.match(String(res?.headers()['content-security-policy']), /script-src 'self'(;|$)/, 'no inline script allowed');
      assert.match(String(res?.headers()['content-security-policy']), /frame-ancestors 'none'/);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390 px`);
      const svg = (await page.locator('.barcode svg').boundingBox())!;
      assert.ok(svg.x >= 0 && svg.x + svg.width <= 390, `barcode from ${svg.x} to ${svg.x + svg.width}`);

      const body = (await page.textContent('body'))!;
      assert.match(body, /Beneficiário\s*Loja Teste/);
      assert.match(body, /Instruções/);
      assert.match(body, /Não receber após o vencimento/);
      const notice = page.locator('.sandbox');
      assert.match((await notice.textContent())!, /Ambiente de testes/);
      assert.equal(await notice.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 244, 214)', 'the same yellow as the checkout pages');

      const copy = page.locator('button[data-copy="linha"]');
      assert.ok(await copy.isVisible(), 'copy button shown once the script runs');
      await copy.click();
      await page.waitForSelector('button[data-copy="linha"]:text("Copiado!")');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(copied.replace(/\D/g, ''), tx.boleto.digitableLine, 'the clipboard holds the linha digitável');

      const print = page.locator('button[data-print]');
      assert.ok(await print.isVisible());
      await page.evaluate(() => {
        (window as any).printed = 0;
        window.print = () => void (window as any).printed++;
      });
      await print.click();
      assert.equal(await page.evaluate(() => (window as any).printed), 1, 'the print button opens the print dialog');
      await page.screenshot({ path: join(OUT, 'boleto-390.png'), fullPage: true });
      assert.deepEqual(errors, []);
      assert.deepEqual(consoleErrors, [], 'no CSP violation or script error');
    } finally {
      await context.close();
    }
    const d = await desktop();
    try {
      await d.page.goto(url);
      assert.ok((await d.page.evaluate(() => document.documentElement.scrollWidth)) <= 1280);
      assert.ok(await d.page.locator('button[data-print]').isVisible());
      await d.page.screenshot({ path: join(OUT, 'boleto-desktop.png'), fullPage: true });
      // Printed, the barcode has the FEBRABAN size and the buttons are gone.
      await d.page.emulateMedia({ media: 'print' });
      const printed = (await d.page.locator('.barcode svg').boundingBox())!;
      assert.ok(Math.abs(printed.width - (103 / 25.4) * 96) < 2, `printed barcode ${printed.width} px wide`);
      assert.equal(await d.page.locator('button[data-print]').isVisible(), false);
    } finally {
      await d.context.close();
    }
  });
});
