// The hosted subscription pages in a real browser (Debian Chromium through playwright-core), on a
// phone-sized viewport: subscribing by card on /subscribe/{planId} (trial) and landing on the
// self-service page, subscribing by PIX and landing on the payment page, a declined card, an
// unavailable plan, and on /subscription/{id}: a card update, cancelling with a reason, an
// expired link. 390 px screenshots in test-output/. Skips when /usr/bin/chromium is absent.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Browser, Page } from 'playwright-core';
import { linkToken } from '../../src/modules/subscriptions/links.ts';
import { call, merchant, type Merchant, type TestContext } from '../helpers.ts';
import { launchBrowser, OUT, servedApp, skipBrowser } from './browser.ts';

const skip = skipBrowser;
const YEAR = new Date().getUTCFullYear();

let ctx: TestContext;
let base: string;
let browser: Browser;
let m: Merchant;

async function phone(): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'pt-BR' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('dialog', (d) => d.accept());
  return { page, errors };
}

async function plan(body: Record<string, unknown>) {
  const res = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube do Café', description: 'Um pacote de 500 g de café especial por mês', amountCents: 5990, interval: 'MONTHLY', ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.plan;
}

async function fillCustomer(page: Page) {
  await page.fill('#name', 'Maria das Graças');
  await page.fill('#email', `maria.${Date.now()}@example.com`);
  await page.fill('#document', '52998224725');
}

async function fillCard(page: Page, number: string) {
  await page.fill('#card-number', number);
  await page.fill('#card-name', 'MARIA DAS GRACAS');
  await page.fill('#card-exp', `12${String(YEAR + 2).slice(2)}`);
  await page.fill('#card-cvv', '123');
}

const noOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('hosted subscription pages in Chromium', { skip }, () => {
  before(async () => {
    ({ ctx, base } = await servedApp());
    m = await merchant(ctx.app);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('card with a trial: the plan page subscribes and lands on the self-service page', async () => {
    const p = await plan({ trialDays: 7 });
    const { page, errors } = await phone();
    await page.goto(`${base}/subscribe/${p.id}`);
    assert.equal(await page.textContent('h1'), 'Clube do Café');
    assert.match((await page.textContent('.amount'))!, /R\$\s?59,90/);
    assert.match((await page.textContent('.total'))!, /Por mês/);
    assert.match((await page.textContent('.status'))!, /7 dias grátis/);
    assert.ok(await noOverflow(page), 'fits 390 px');
    await page.screenshot({ path: join(OUT, 'subscribe-390.png'), fullPage: true });
    await fillCustomer(page);
    await page.check('input[name=paymentMethod][value=CARD]');
    await fillCard(page, '4242424242424242');
    await page.click('#submit');
    await page.waitForURL(/\/subscription\/[0-9a-f-]+\?t=/);
    assert.equal(await page.textContent('.status'), 'Em período de teste');
    assert.match((await page.textContent('main'))!, /Cartão VISA final 4242/);
    assert.ok(await noOverflow(page));
    await page.screenshot({ path: join(OUT, 'subscription-390.png'), fullPage: true });
    assert.deepEqual(errors, []);
  });

  test('PIX: subscribing leads to the payment page with the code', async () => {
    const p = await plan({ paymentMethods: ['PIX', 'CARD'] });
    const { page, errors } = await phone();
    await page.goto(`${base}/subscribe/${p.id}`);
    await fillCustomer(page);
    await page.check('input[name=paymentMethod][value=PIX]');
    assert.equal(await page.isVisible('#card-number'), false, 'the card panel hides');
    await page.click('#submit');
    await page.waitForURL(/\/checkout\/[0-9a-f-]+$/);
    assert.match((await page.textContent('main'))!, /PIX/);
    assert.deepEqual(errors, []);
  });

  test('Pix Automático: the tab explains the authorisation; subscribing leads to the code; the self-service page names it', async () => {
    const p = await plan({ paymentMethods: ['PIX_AUTOMATICO', 'CARD'] });
    const { page, errors } = await phone();
    await page.goto(`${base}/subscribe/${p.id}`);
    await fillCustomer(page);
    await page.check('input[name=paymentMethod][value=PIX_AUTOMATICO]');
    assert.match((await page.textContent('label.tab.active'))!, /Pix Automático/);
    assert.match((await page.textContent('#panel-PIX_AUTOMATICO'))!, /autoriza no app do seu banco/);
    assert.equal(await page.isVisible('#card-number'), false, 'the card panel hides');
    assert.ok(await noOverflow(page));
    await page.screenshot({ path: join(OUT, 'subscribe-pix-automatico-390.png'), fullPage: true });
    await page.click('#submit');
    await page.waitForURL(/\/checkout\/[0-9a-f-]+$/);
    assert.match((await page.textContent('main'))!, /PIX/);
    const txId = page.url().split('/').pop()!;
    const tx = await ctx.app.deps.db.selectFrom('transactions').select('subscription_id').where('id', '=', txId).executeTakeFirstOrThrow();
    const own = await phone();
    await own.page.goto(`${base}/subscription/${tx.subscription_id}?t=${linkToken(ctx.config, tx.subscription_id!, new Date())}`);
    assert.match((await own.page.textContent('main'))!, /Forma de pagamento: Pix Automático/);
    await own.page.screenshot({ path: join(OUT, 'subscription-pix-automatico-390.png'), fullPage: true });
    assert.deepEqual([...errors, ...own.errors], []);
  });

  test('a declined first card stays on the page with the reason; a field error is shown before submitting', async () => {
    const p = await plan({});
    const { page } = await phone();
    await page.goto(`${base}/subscribe/${p.id}`);
    await page.click('#submit');
    assert.equal(await page.textContent('#form-error'), 'Confira os campos destacados.');
    assert.equal(await page.getAttribute('#name', 'aria-invalid'), 'true');
    await fillCustomer(page);
    await fillCard(page, '4000000000009995');
    await page.click('#submit');
    await page.waitForFunction(() => /recusado/.test(document.getElementById('form-error')!.textContent!));
    assert.match(page.url(), /\/subscribe\//);
  });

  test('self-service: update the card of a PAST_DUE subscription (recovered), then cancel with a reason', async () => {
    const p = await plan({ trialDays: 1 });
    const sub = (await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: p.id, paymentMethod: 'CARD', card: { number: '4000000000009995', holderName: 'Maria', expMonth: 12, expYear: YEAR + 2, cvv: '123' }, client: { name: 'Maria', email: 'maria@example.com', document: '52998224725' } } })).body.subscription;
    await call(ctx.app, 'POST', `/api/v1/subscriptions/${sub.id}/simulate`, { key: m.devKey, body: { advanceDays: 1 } });
    const { page, errors } = await phone();
    await page.goto(`${base}/subscription/${sub.id}?t=${linkToken(ctx.config, sub.id, new Date())}`);
    assert.equal(await page.textContent('.status'), 'Pagamento pendente');
    assert.match((await page.textContent('main'))!, /Atualize o cartão abaixo/);
    await page.screenshot({ path: join(OUT, 'subscription-past-due-390.png'), fullPage: true });
    await fillCard(page, '5555555555554444');
    await page.click('#card-submit');
    await page.waitForFunction(() => document.querySelector('.status')?.textContent === 'Ativa');
    assert.match((await page.textContent('main'))!, /MASTERCARD final 4444/);
    await page.selectOption('#reason', 'Ficou caro');
    await page.click('#cancel');
    await page.waitForFunction(() => /termina em/.test(document.querySelector('main')!.textContent!));
    const after = (await call(ctx.app, 'GET', `/api/v1/subscriptions/${sub.id}`, { key: m.devKey })).body.subscription;
    assert.equal(after.cancelAtPeriodEnd, true);
    assert.equal(after.cancelReason, 'Ficou caro');
    assert.deepEqual(errors, []);
  });

  test('an expired or forged link and an unavailable plan show a page saying so', async () => {
    const p = await plan({ paymentMethods: ['PIX'] });
    const sub = (await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: p.id, paymentMethod: 'PIX', client: { name: 'Maria', email: 'maria@example.com', document: '52998224725' } } })).body.subscription;
    const { page } = await phone();
    const expired = linkToken(ctx.config, sub.id, new Date(Date.now() - 31 * 86_400_000));
    let res = await page.goto(`${base}/subscription/${sub.id}?t=${expired}`);
    assert.equal(res!.status(), 404);
    assert.equal(await page.textContent('h1'), 'Link inválido ou expirado');
    res = await page.goto(`${base}/subscription/${sub.id}?t=${linkToken(ctx.config, '00000000-0000-4000-8000-000000000000', new Date())}`);
    assert.equal(res!.status(), 404);
    await call(ctx.app, 'PATCH', `/api/subscriptions/plans/${p.id}`, { key: m.devKey, body: { status: 'INACTIVE' } });
    await page.goto(`${base}/subscribe/${p.id}`);
    assert.equal(await page.textContent('h1'), 'Plano indisponível');
  });
});
