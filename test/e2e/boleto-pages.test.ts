// The boleto's pages in Chromium (playwright-core), at 390 px and at desktop width: the printable
// hybrid boleto with its Pix (copy button, QR, order by screen), the bank's PDF downloaded from it,
// the page of a boleto the bank is still registering reloading itself into the boleto; the link
// checkout asking the payer's address when Boleto is picked in production, and its payment step
// polling until the bank has issued the boleto. Production boletos come from a bank standing in for
// Inter (test/kit/fake-boleto-bank.ts). axe-core on every page; screenshots in test-output/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, merchant, type Merchant, type TestContext } from '../helpers.ts';
import { FakeBoletoBank, withFakeBank } from '../kit/fake-boleto-bank.ts';
import { after, axeViolations, before, describe, DESKTOP, launchBrowser, OUT, PHONE, servedApp, skipBrowser, test } from './browser.ts';

const ADDRESS = { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };

let ctx: TestContext;
let base: string;
let browser: Browser;
let m: Merchant;
const bank = new FakeBoletoBank();

/** A page at `size` (the phone as a touch device, as the shopper's), with its script and CSP errors collected. */
async function open(size: typeof PHONE | typeof DESKTOP) {
  const phone = size === PHONE;
  const context = await browser.newContext({ viewport: size, locale: 'pt-BR', ...(phone ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}), acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text())); // CSP violations land here
  return { page, errors, close: () => context.close() };
}

/** What every page must be: no serious axe violation, nothing wider than the screen; then its screenshot. */
async function check(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], `${name}: accessibility violations\n${JSON.stringify(violations, null, 2)}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${name}: ${overflow} px wider than the screen`);
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
}

/** Waits until the QR image has loaded (a broken image has no natural width). */
const qrShown = (page: Page) => page.waitForFunction(() => ((document.querySelector('img.qr') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
const top = async (page: Page, selector: string) => (await page.locator(selector).boundingBox())!.y;

async function boleto(key: string, body: Record<string, unknown> = {}) {
  const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
    key,
    body: { product: 'Curso de Marcenaria', amountCents: 24_990, clientName: 'Helena Rocha', clientEmail: 'helena@example.com', clientDocument: '52998224725', paymentMethod: 'BOLETO', ...body },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}
const issue = (t: { id: string; chargedCents: number; boleto: { dueDate: string } }) => bank.issue(t.id, `inter-${t.id}`, t.chargedCents, t.boleto.dueDate);

describe('boleto pages in Chromium', { skip: skipBrowser }, () => {
  before(async () => {
    ({ ctx, base } = await servedApp({ deps: { connectors: withFakeBank(bank) } }));
    m = await merchant(ctx.app, { live: true });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('the printable hybrid boleto: "Pague com Pix" copies the code and shows the QR (copy first on a phone, QR first on a desktop)', async () => {
    const t = await boleto(m.devKey);
    for (const [size, label] of [
      [PHONE, '390'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { page, errors, close } = await open(size);
      try {
        await page.goto(`${base}/boleto/${t.id}`);
        await qrShown(page);
        const copy = page.locator('button[data-copy="pix-code"]');
        assert.ok(await copy.isVisible(), 'the copy button is shown once the script runs');
        const [copyTop, qrTop] = [await top(page, 'button[data-copy="pix-code"]'), await top(page, 'img.qr')];
        if (label === '390') assert.ok(copyTop < qrTop, `phone: copy at ${copyTop} px, QR at ${qrTop} px`);
        else assert.ok(qrTop < copyTop, `desktop: QR at ${qrTop} px, copy at ${copyTop} px`);
        assert.ok((await top(page, '#pix-title')) < (await top(page, '#linha-title')), 'the Pix before the line');
        await copy.click();
        await page.waitForSelector('button[data-copy="pix-code"]:text("Copiado!")');
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), t.boleto.pixCode);
        await check(page, `boleto-pix-${label}`);
        // Printed: the QR stays (a phone scans the paper), the copia e cola and the buttons go.
        await page.emulateMedia({ media: 'print' });
        assert.ok(await page.locator('img.qr').isVisible());
        assert.equal(await page.locator('#pix-code').isVisible(), false);
        assert.deepEqual(errors, [], 'no script error or CSP violation');
      } finally {
        await close();
      }
    }
  });

  test("a bank's boleto: registered while the page waits (it reloads once issued), then its numbers, its Pix and the bank's PDF to download", async () => {
    const t = await boleto(m.liveKey!, { clientAddress: ADDRESS });
    assert.equal(t.boleto.status, 'ISSUING');
    const { page, errors, close } = await open(PHONE);
    try {
      await page.goto(`${base}/boleto/${t.id}`);
      assert.equal(await page.textContent('h1'), 'Seu boleto está sendo registrado no banco');
      await check(page, 'boleto-issuing-390');
      let loads = 0;
      page.on('load', () => loads++);
      await page.waitForTimeout(3_000);
      assert.equal(loads, 0, 'not reloaded while the bank has no numbers');
      // The numbers are in the page before its load event (the QR image still loading): wait for the event.
      const reloaded = page.waitForEvent('load', { timeout: 10_000 });
      await issue(t);
      await reloaded;
      await page.waitForSelector('#linha');
      assert.equal(loads, 1, 'reloaded once');
      assert.match((await page.textContent('h1'))!, /Boleto bancário/);
      await qrShown(page);
      const pdf = page.locator('a:text("Baixar PDF do banco")');
      assert.ok(await pdf.isVisible());
      const [download] = await Promise.all([page.waitForEvent('download'), pdf.click()]);
      assert.equal(download.suggestedFilename(), `boleto-${t.displayId}.pdf`);
      assert.deepEqual(bank.pdfCalls.slice(-1), [`inter-${t.id}`]);
      await check(page, 'boleto-bank-390');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
    const d = await open(DESKTOP);
    try {
      await d.page.goto(`${base}/boleto/${t.id}`);
      await qrShown(d.page);
      await check(d.page, 'boleto-bank-desktop');
      // The bank down: a page that says so, not a broken download.
      bank.pdfFails = true;
      const res = await d.page.goto(`${base}/boleto/${t.id}.pdf`);
      assert.equal(res?.status(), 503);
      assert.equal(await d.page.textContent('h1'), 'O banco não respondeu');
      await check(d.page, 'boleto-pdf-503-desktop');
    } finally {
      bank.pdfFails = false;
      await d.close();
    }
  });

  test('without JavaScript, the waiting page refreshes itself every 5 s until the boleto is there', async () => {
    const t = await boleto(m.liveKey!, { clientAddress: ADDRESS });
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false, locale: 'pt-BR' });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/boleto/${t.id}`);
      assert.equal(await page.textContent('h1'), 'Seu boleto está sendo registrado no banco');
      await issue(t);
      await page.waitForSelector('#linha', { timeout: 12_000 });
      assert.equal(await page.locator('button[data-copy="pix-code"]').isVisible(), false, 'the copy buttons need the script');
    } finally {
      await context.close();
    }
  });

  async function productionLink() {
    const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.liveKey!, body: { title: 'Mentoria de Carreira', amountCents: 30_000, settings: { creditCardEnabled: false } } });
    assert.equal(res.status, 201, res.raw);
    return res.body.paymentLink;
  }

  test('the link checkout asks the payer\'s address only when Boleto is picked, as required fields; PIX sends none', async () => {
    const l = await productionLink();
    const { page, errors, close } = await open(PHONE);
    try {
      await page.goto(l.url);
      assert.equal(await page.locator('#zip').isVisible(), false, 'no address while PIX is picked');
      await page.fill('#name', 'Maria das Graças');
      await page.fill('#email', 'maria@example.com');
      await page.fill('#document', '52998224725');
      // PIX: the hidden address is neither checked nor sent (production has no PIX here: a 503).
      const [pix] = await Promise.all([page.waitForRequest((r) => r.url().endsWith('/checkout') && r.method() === 'POST'), page.click('#submit')]);
      assert.equal(pix.postDataJSON().address, undefined);
      await page.waitForSelector('#form-error:text("Não foi possível concluir")');

      await page.check('input[name=paymentMethod][value=BOLETO]');
      assert.ok(await page.locator('#zip').isVisible());
      assert.equal(await page.textContent('#panel-BOLETO legend'), 'Endereço do pagador');
      await page.click('#submit');
      await page.waitForSelector('#zip-error:text("CEP inválido")');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'zip', 'the first missing field gets the focus');
      for (const id of ['street', 'number', 'neighborhood', 'city']) assert.equal(await page.textContent(`#${id}-error`), 'Campo obrigatório', id);
      assert.equal(await page.textContent('#state-error'), 'UF inválida');
      await check(page, 'checkout-boleto-address-errors-390');

      await page.fill('#zip', '01310100');
      assert.equal(await page.inputValue('#zip'), '01310-100', 'CEP mask');
      assert.equal(await page.isVisible('#zip-error'), false, 'a field edited is no longer marked wrong');
      assert.equal(await page.getAttribute('#zip', 'aria-invalid'), 'false');
      assert.equal(await page.isVisible('#street-error'), true, 'the others until they are edited');
      await page.fill('#street', 'Avenida Paulista');
      await page.fill('#number', '1000');
      await page.fill('#neighborhood', 'Bela Vista');
      await page.fill('#city', 'São Paulo');
      await page.fill('#state', 'sp');
      await check(page, 'checkout-boleto-address-390');
      const [sent] = await Promise.all([page.waitForRequest((r) => r.url().endsWith('/checkout') && r.method() === 'POST'), page.waitForURL(/\/checkout\/[0-9a-f-]{36}$/), page.click('#submit')]);
      assert.deepEqual(sent.postDataJSON().address, { zipCode: '01310100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' });

      // The payment step waits for the bank, polling the status, and shows the boleto once issued.
      assert.equal(await page.textContent('#heading'), 'Gerando seu boleto');
      await check(page, 'checkout-boleto-issuing-390');
      const id = page.url().split('/').pop()!;
      const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey! })).body.transaction;
      assert.equal(tx.address.state, 'SP');
      await issue(tx);
      await page.waitForSelector('#boleto-pix', { timeout: 10_000 });
      assert.equal(await page.textContent('#heading'), 'Pague com Pix ou boleto');
      await qrShown(page);
      assert.ok((await top(page, 'button[data-copy="boleto-pix"]')) < (await top(page, 'img.qr')), 'phone: the Pix code before its QR');
      await check(page, 'checkout-boleto-issued-390');
      assert.deepEqual(
        errors.filter((e) => !e.includes('503')),
        [],
      );
    } finally {
      await close();
    }
  });

  test('the same at desktop width: the address in the Boleto panel, the issued step with the QR first', async () => {
    const l = await productionLink();
    const { page, close } = await open(DESKTOP);
    try {
      await page.goto(l.url);
      await page.check('input[name=paymentMethod][value=BOLETO]');
      await page.fill('#name', 'Maria das Graças');
      await page.fill('#email', 'maria@example.com');
      await page.fill('#document', '52998224725');
      await page.fill('#zip', '01310100');
      await page.fill('#street', 'Avenida Paulista');
      await page.fill('#number', '1000');
      await page.fill('#complement', 'Conjunto 42');
      await page.fill('#neighborhood', 'Bela Vista');
      await page.fill('#city', 'São Paulo');
      await page.fill('#state', 'SP');
      await check(page, 'checkout-boleto-address-desktop');
      await Promise.all([page.waitForURL(/\/checkout\/[0-9a-f-]{36}$/), page.click('#submit')]);
      const id = page.url().split('/').pop()!;
      const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey! })).body.transaction;
      assert.equal(tx.address.complement, 'Conjunto 42');
      await issue(tx);
      await page.waitForSelector('#boleto-pix', { timeout: 10_000 });
      await qrShown(page);
      assert.ok((await top(page, 'img.qr')) < (await top(page, 'button[data-copy="boleto-pix"]')), 'desktop: the QR first');
      await check(page, 'checkout-boleto-issued-desktop');
    } finally {
      await close();
    }
  });
});
