// The subscription page where the bank registers boletos (production, the inter connector over a bank
// in memory), in Chromium at 390 px: the Boleto panel asks the payer's address, checks it before
// sending (CEP, UF, the required fields), masks CEP and UF, and sends it as clientAddress; picking
// another method hides it and leaves it unchecked; the confirmation says the bank is registering the
// boleto. Skips when the browser tests do not run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { InterConnector } from '../../src/payments/inter/connector.ts';
import { Books } from '../boleto-bank-kit.ts';
import { call, merchant, type Merchant, type TestContext } from '../helpers.ts';
import { after, axeViolations, before, describe, launchBrowser, OUT, servedApp, skipBrowser, test } from './browser.ts';

const QUIET = { info() {}, warn() {}, error() {} };

describe('subscription page: the payer address of a registered boleto, in Chromium', { skip: skipBrowser }, () => {
  let ctx: TestContext;
  let base: string;
  let browser: Browser;
  let m: Merchant;

  before(async () => {
    const bank = new Books();
    ({ ctx, base } = await servedApp({
      deps: { connectors: { extra: [(db) => new InterConnector(bank, db, QUIET, { reconcileMinutes: 60, issuing: { nudge: false } })], production: { BOLETO: ['inter'], PAYOUT: ['sandbox'] } } },
    }));
    m = await merchant(ctx.app, { live: true });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  async function phone(): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'pt-BR' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    return { page, errors };
  }

  test('Boleto asks the address, checks it, and subscribes with it', async () => {
    const plan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.liveKey, body: { name: 'Clube do Café', amountCents: 5990, interval: 'MONTHLY', paymentMethods: ['CARD', 'BOLETO'] } });
    assert.equal(plan.status, 201, plan.raw);
    const { page, errors } = await phone();
    await page.goto(`${base}/subscribe/${plan.body.plan.id}`);
    assert.ok(!(await page.isVisible('#zip')), 'hidden while Card is picked');
    await page.fill('#name', 'Maria das Graças');
    await page.fill('#email', 'maria.boleto@example.com');
    await page.fill('#document', '52998224725');
    await page.check('input[name=paymentMethod][value=BOLETO]');
    assert.ok(await page.isVisible('#zip'));
    assert.match((await page.textContent('#panel-BOLETO'))!, /Endereço do pagador/);
    assert.deepEqual(await axeViolations(page), []);
    await page.screenshot({ path: join(OUT, 'subscribe-boleto-address-390.png'), fullPage: true });

    await page.click('#submit');
    assert.equal(await page.getAttribute('#zip', 'aria-invalid'), 'true');
    assert.equal(await page.textContent('#zip-error'), 'CEP inválido');
    assert.equal(await page.getAttribute('#street', 'aria-invalid'), 'true');
    assert.equal(await page.textContent('#form-error'), 'Confira os campos destacados.');
    assert.equal(await ctx.app.deps.db.selectFrom('subscriptions').select('id').where('user_id', '=', m.id).executeTakeFirst(), undefined, 'nothing sent');

    await page.fill('#zip', '01310100');
    assert.equal(await page.inputValue('#zip'), '01310-100');
    await page.fill('#street', 'Avenida Paulista');
    await page.fill('#number', '1000');
    await page.fill('#neighborhood', 'Bela Vista');
    await page.fill('#city', 'São Paulo');
    await page.fill('#state', 'sp');
    assert.equal(await page.inputValue('#state'), 'SP');
    await page.click('#submit');
    // The confirmation: the bank is still registering the boleto (no line yet); its page is a link away.
    await page.waitForURL(/\/subscription\/[0-9a-f-]+\?t=[^&]+&assinado=1$/);
    assert.match((await page.textContent('#confirmation'))!, /O banco está registrando o boleto/);
    const sub = await ctx.app.deps.db.selectFrom('subscriptions').select(['id', 'client_address', 'status']).where('user_id', '=', m.id).executeTakeFirstOrThrow();
    const cycle = await ctx.app.deps.db.selectFrom('subscription_cycles').select('transaction_id').where('subscription_id', '=', sub.id).executeTakeFirstOrThrow();
    assert.match((await page.getAttribute('a:text("Abrir o boleto")', 'href'))!, new RegExp(`/boleto/${cycle.transaction_id}$`));
    assert.equal(await page.getAttribute('#app', 'data-boleto'), 'ISSUING', 'the page reloads once the bank has issued it');
    assert.equal(sub.status, 'INCOMPLETE');
    assert.deepEqual(sub.client_address, { zipCode: '01310100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' });
    assert.deepEqual(errors, []);
  });
});
