// The hosted subscription pages in a real browser (Debian Chromium through playwright-core), on a
// phone-sized viewport: subscribing on /subscribe/{planId} lands on the confirmation (what was
// subscribed, the price, the next charge; by card with a trial or charged at once; by PIX with the
// code to pay, confirming by itself once paid; by boleto with its line), a declined card, an
// unavailable plan, and on /subscription/{id}: a card update, cancelling with a reason, an
// expired link. 390 px screenshots in test-output/ (the confirmations at a desktop's width too). Skips when /usr/bin/chromium is absent.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Browser, Page } from 'playwright-core';
import { linkToken } from '../../src/modules/subscriptions/links.ts';
import { call, merchant, type Merchant, type TestContext } from '../helpers.ts';
import { axeViolations, launchBrowser, OUT, servedApp, skipBrowser } from './browser.ts';

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

/** dd/mm/aaaa of an instant in São Paulo. */
const dayBR = (iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date(iso)).split('-').reverse().join('/');

/** The confirmation's facts, [term, value] each, spaces as typed. */
const facts = (page: Page) => page.locator('#confirmation .items li').evaluateAll((lis) => lis.map((li) => Array.from(li.children).map((c) => c.textContent!.replace(/\s+/g, ' ').trim())));

/** The subscription the page is about (its id is in the address), as the API shows it. */
async function subscriptionOf(page: Page) {
  const id = new URL(page.url()).pathname.split('/').pop()!;
  return (await call(ctx.app, 'GET', `/api/v1/subscriptions/${id}`, { key: m.devKey })).body.subscription;
}

/** The confirmation, checked as a screen: no serious axe violation, fits 390 px; screenshots at 390 px and at a desktop's width. */
async function confirmationShots(page: Page, name: string) {
  assert.deepEqual(await axeViolations(page), []);
  assert.ok(await noOverflow(page), 'fits 390 px');
  await page.screenshot({ path: join(OUT, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(OUT, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
}

const CONFIRMED = /\/subscription\/[0-9a-f-]+\?t=[^&]+&assinado=1$/;

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

  test('card with a trial: the plan page subscribes and lands on the confirmation: the plan, its price, the trial and the first charge', async () => {
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
    await page.waitForURL(CONFIRMED);
    assert.equal(await page.textContent('h1'), 'Assinatura confirmada');
    assert.equal(await page.textContent('.status'), 'Em período de teste');
    assert.match((await page.textContent('#confirmation'))!, /Você assinou Clube do Café de Loja Teste: R\$\s59,90 por mês\./);
    const sub = await subscriptionOf(page);
    const day = dayBR(sub.trialEnd);
    assert.deepEqual(await facts(page), [
      ['Plano', 'Clube do Café'],
      ['Valor', 'R$ 59,90 por mês'],
      ['Forma de pagamento', 'Cartão VISA final 4242'],
      ['Teste grátis até', day],
      ['Primeira cobrança', day],
    ]);
    assert.match((await page.textContent('#confirmation'))!, /As próximas cobranças são feitas no mesmo cartão\./);
    assert.equal(await page.locator('#pix-code').count(), 0, 'nothing to pay now');
    await confirmationShots(page, 'subscription-confirmed-trial');
    // The same link without the flag: the self-service page as the e-mails open it.
    await page.goto(page.url().replace('&assinado=1', ''));
    assert.equal(await page.textContent('h1'), 'Clube do Café');
    assert.equal(await page.locator('#confirmation').count(), 0);
    await page.screenshot({ path: join(OUT, 'subscription-390.png'), fullPage: true });
    assert.deepEqual(errors, []);
  });

  test('card without a trial: charged at once; the confirmation says what was paid and when the next charge is', async () => {
    const p = await plan({});
    const { page, errors } = await phone();
    await page.goto(`${base}/subscribe/${p.id}`);
    await fillCustomer(page);
    await fillCard(page, '4242424242424242');
    await page.click('#submit');
    await page.waitForURL(CONFIRMED);
    assert.equal(await page.textContent('h1'), 'Assinatura confirmada');
    assert.equal(await page.textContent('.status'), 'Ativa');
    const sub = await subscriptionOf(page);
    assert.deepEqual((await facts(page)).slice(2), [
      ['Forma de pagamento', 'Cartão VISA final 4242'],
      ['Já pago', 'R$ 59,90'],
      ['Próxima cobrança', dayBR(sub.currentPeriodEnd)],
    ]);
    await confirmationShots(page, 'subscription-confirmed-card');
    assert.deepEqual(errors, []);
  });

  test('PIX: the confirmation shows the first PIX to pay (code, QR, until when) and the next charge; paid, it confirms by itself', async () => {
    const p = await plan({ paymentMethods: ['PIX', 'CARD'] });
    const { page, errors } = await phone();
    await page.goto(`${base}/subscribe/${p.id}`);
    await fillCustomer(page);
    await page.check('input[name=paymentMethod][value=PIX]');
    assert.equal(await page.isVisible('#card-number'), false, 'the card panel hides');
    await page.click('#submit');
    await page.waitForURL(CONFIRMED);
    assert.equal(await page.textContent('h1'), 'Falta só o primeiro pagamento');
    assert.equal((await page.textContent('#confirmation h2'))!.replace(/\s+/g, ' '), 'Para ativar, pague agora o PIX de R$ 59,90');
    const sub = await subscriptionOf(page);
    const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${sub.payment.transactionId}`, { key: m.devKey })).body.transaction;
    assert.equal(await page.inputValue('#pix-code'), tx.pix.qrCode);
    assert.equal(await page.getAttribute('img.qr', 'src'), `/pix/${tx.pix.txid}/qr.png`);
    assert.ok(await page.evaluate(() => (document.querySelector('img.qr') as HTMLImageElement).naturalWidth > 0), 'the QR image loads');
    assert.match((await page.textContent('#confirmation'))!, new RegExp(`Válido até ${dayBR(tx.pix.expiresAt)} às \\d{2}:\\d{2}\\.`));
    assert.equal(await page.getAttribute('a:text("Abrir a página de pagamento")', 'href'), `${base}/checkout/${tx.id}`);
    assert.deepEqual((await facts(page)).at(-1), ['Próxima cobrança', dayBR(sub.currentPeriodEnd)]);
    assert.match((await page.textContent('#confirmation'))!, /A cada cobrança, o PIX chega ao seu e-mail alguns dias antes do vencimento\./);
    await confirmationShots(page, 'subscription-confirmed-pix');
    // Paid (the sandbox's PSP): the page notices and confirms the subscription.
    assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } })).status, 200);
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Assinatura confirmada', null, { timeout: 15_000 });
    assert.equal(await page.textContent('.status'), 'Ativa');
    assert.deepEqual((await facts(page)).find(([k]) => k === 'Já pago'), ['Já pago', 'R$ 59,90']);
    assert.equal(await page.locator('#pix-code').count(), 0);
    await confirmationShots(page, 'subscription-confirmed-pix-paid');
    assert.deepEqual(errors, []);
  });

  test('boleto: the confirmation shows the boleto to pay, its due date and line', async () => {
    const p = await plan({ paymentMethods: ['BOLETO'] });
    const { page, errors } = await phone();
    await page.goto(`${base}/subscribe/${p.id}`);
    await fillCustomer(page);
    await page.click('#submit');
    await page.waitForURL(CONFIRMED);
    const sub = await subscriptionOf(page);
    const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${sub.payment.transactionId}`, { key: m.devKey })).body.transaction;
    const due = tx.boleto.dueDate.split('-').reverse().join('/');
    assert.equal((await page.textContent('#confirmation h2'))!.replace(/\s+/g, ' '), `Para ativar, pague o boleto de R$ 59,90 até ${due}`);
    assert.equal(await page.inputValue('#boleto-line'), tx.boleto.digitableLine);
    assert.equal(await page.getAttribute('a:text("Abrir o boleto")', 'href'), tx.boleto.url);
    assert.deepEqual((await facts(page)).at(-1), ['Próxima cobrança', dayBR(sub.currentPeriodEnd)]);
    assert.match((await page.textContent('#confirmation'))!, /A cada cobrança, o boleto chega ao seu e-mail alguns dias antes do vencimento\./);
    await confirmationShots(page, 'subscription-confirmed-boleto');
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
    await page.waitForURL(CONFIRMED);
    assert.match((await page.textContent('#confirmation'))!, /o app do seu banco pede a autorização do Pix Automático para as próximas cobranças/);
    assert.ok((await page.inputValue('#pix-code')).length > 0, 'the first PIX to pay');
    const subId = (await subscriptionOf(page)).id;
    const own = await phone();
    await own.page.goto(`${base}/subscription/${subId}?t=${linkToken(ctx.config, subId, new Date())}`);
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
