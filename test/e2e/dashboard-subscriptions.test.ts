// The dashboard's Assinaturas and Afiliados/Indicações screens in Debian Chromium: a plan created
// from the dashboard (money typed in reais, the API's field error beside the field), edited, its
// public link copied; a subscriber made by API with the sandbox card seen in the list and on its
// page, the clock advanced, paused, resumed and cancelled; the month's metrics and the MRR chart; an
// affiliate program opened, joined from a second account through the marketplace, approved by its
// owner, the affiliate's link copied; the invite code and link, which opens the sign-up with the
// code. axe-core, the 390 px check and the screenshots on every screen (browser.ts checkScreen).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildDashboard } from '../../web/dashboard/build.ts';
import { call, uniqueEmail, type TestContext } from '../helpers.ts';
import { checkScreen, DESKTOP, launchBrowser, servedApp, skipBrowser } from './browser.ts';

let ctx: TestContext;
let base: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];
const cspViolations: string[] = [];

const owner = { name: 'Torrefação Serra', email: uniqueEmail('serra'), password: 'cafe-da-serra-2026', token: '', key: '', referralCode: '' };
const affiliate = { name: 'Márcia Divulga', email: uniqueEmail('marcia'), password: 'marcia-divulga-2026', token: '' };
let page: Page; // the owner's
let planId = '';
let subscriptionId = '';

async function register(a: { name: string; email: string; password: string }) {
  const r = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: a.name, email: a.email, password: a.password } });
  assert.equal(r.status, 201, r.raw);
  return r.body;
}

/** A browser session logged in through the login screen. */
async function loggedIn(a: { email: string; password: string }): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
  contexts.push(context);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  context.setDefaultTimeout(10_000);
  const p = await context.newPage();
  p.on('pageerror', (err) => pageErrors.push(err.message));
  p.on('dialog', (d) => void d.accept()); // confirmations are answered yes
  p.on('console', (msg) => {
    if (msg.type() === 'error' && /Content.Security.Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
  await p.goto(`${base}/dashboard/entrar`);
  await p.getByLabel('E-mail').fill(a.email);
  await p.getByLabel('Senha').fill(a.password);
  await p.getByRole('button', { name: 'Entrar' }).click();
  await p.getByRole('heading', { name: 'Início' }).waitFor();
  return p;
}

const menu = (p: Page, name: string) => p.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name });
/** The figure of a stat card by its title. */
const stat = (p: Page, title: string) => p.locator('.card.stat', { has: p.getByRole('heading', { name: title, exact: true }) }).locator('.stat-value');
const clipboard = (p: Page) => p.evaluate(() => navigator.clipboard.readText());

describe('dashboard: Assinaturas and Afiliados/Indicações in Chromium', { skip: skipBrowser }, () => {
  before(async () => {
    await buildDashboard();
    ({ ctx, base } = await servedApp());
    browser = await launchBrowser();
    const reg = await register(owner);
    owner.token = reg.token;
    owner.referralCode = reg.user.referralCode;
    const key = await call(ctx.app, 'POST', '/api/credentials', { token: owner.token, body: { name: 'Loja', environment: 'DEVELOPMENT' } });
    assert.equal(key.status, 201, key.raw);
    owner.key = key.body.key;
    affiliate.token = (await register(affiliate)).token;
    page = await loggedIn(owner);
  });
  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await ctx?.close();
    assert.deepEqual(pageErrors, [], 'no script errors');
    assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violations');
  });

  test('plans: empty state, the API\'s field error beside the amount, create, copy the public link, edit', async () => {
    // Reached with the keyboard from the menu.
    await menu(page, 'Assinaturas').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/assinaturas$/);
    await page.getByText('Nenhum plano ainda.').waitFor();
    await checkScreen(page, 'subscriptions-plans-empty');

    await page.getByLabel('Nome do plano').fill('Clube do café');
    const amount = page.getByLabel('Valor de cada cobrança (R$)');
    await amount.fill('4,00'); // below R$ 5,00: said in pt-BR before any request
    await page.getByLabel('Limite de assinantes (opcional)').fill('10');
    await page.getByRole('checkbox', { name: 'Boleto' }).uncheck();
    await page.getByRole('button', { name: 'Criar plano' }).click();
    await page.locator('.field-invalid', { has: amount }).getByText('O valor mínimo de um plano é R$ 5,00.').waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    // The API's own field error shows beside its field: a trial longer than the API allows.
    await amount.fill('49,90');
    const trial = page.getByLabel('Dias de teste grátis');
    await trial.fill('1000');
    await page.getByRole('button', { name: 'Criar plano' }).click();
    await page.locator('.field-invalid', { has: trial }).locator('.field-message').waitFor();
    assert.equal(await trial.getAttribute('aria-invalid'), 'true');
    assert.equal(await amount.getAttribute('aria-invalid'), null);
    let plans = await call(ctx.app, 'GET', '/api/v1/subscriptions/plans', { token: owner.token });
    assert.equal(plans.body.plans.length, 0, 'nothing created on a refused form');
    await checkScreen(page, 'subscriptions-plan-error');
    await trial.fill('0');

    await page.getByRole('button', { name: 'Criar plano' }).click();
    const card = page.locator('.cards-list li', { hasText: 'Clube do café' });
    await card.getByText('R$ 49,90 por mês').waitFor();
    assert.match(await card.innerText(), /0 de 10 assinante\(s\)/);
    plans = await call(ctx.app, 'GET', '/api/v1/subscriptions/plans', { token: owner.token });
    const plan = plans.body.plans[0];
    planId = plan.id;
    assert.equal(plan.amountCents, 4990);
    assert.deepEqual(plan.paymentMethods, ['CARD', 'PIX']);
    assert.equal(plan.maxSubscribers, 10);
    assert.equal(plan.interval, 'MONTHLY');
    assert.equal(await page.getByRole('form', { name: 'Novo plano' }).count(), 0, 'the form closes once there is a plan');

    await card.getByRole('button', { name: 'Copiar link de assinatura' }).click();
    await card.getByRole('button', { name: 'Copiado!' }).waitFor();
    assert.equal(await clipboard(page), plan.publicUrl);
    assert.match(plan.publicUrl, new RegExp(`/subscribe/${planId}$`));

    await card.getByRole('button', { name: 'Editar o plano Clube do café' }).click();
    const editor = page.getByRole('form', { name: 'Editar o plano Clube do café' });
    assert.equal(await editor.getByLabel('Valor de cada cobrança (R$)').inputValue(), '49,90');
    await editor.getByLabel('Valor de cada cobrança (R$)').fill('59,90');
    await editor.getByLabel('Dias de teste grátis').fill('abc');
    await editor.getByRole('button', { name: 'Salvar plano' }).click();
    assert.equal(await editor.getByLabel('Dias de teste grátis').getAttribute('aria-invalid'), 'true');
    await editor.getByLabel('Dias de teste grátis').fill('0');
    // Offering Pix Automático asks how early its charges go to the PSP (2 to 10 days: the API says so on the field).
    await editor.getByRole('checkbox', { name: 'Pix Automático' }).check();
    const pixDays = editor.getByLabel('Pix Automático enviado quantos dias antes do vencimento');
    await pixDays.fill('1');
    await editor.getByRole('button', { name: 'Salvar plano' }).click();
    await editor.locator('.field-invalid', { has: page.getByLabel('Pix Automático enviado quantos dias antes do vencimento') }).locator('.field-message').waitFor();
    assert.equal(await pixDays.getAttribute('aria-invalid'), 'true');
    await pixDays.fill('4');
    await editor.getByRole('button', { name: 'Salvar plano' }).click();
    await card.getByText('R$ 59,90 por mês').waitFor();
    const edited = (await call(ctx.app, 'GET', `/api/v1/subscriptions/plans/${planId}`, { token: owner.token })).body.plan;
    assert.equal(edited.amountCents, 5990);
    assert.deepEqual(edited.paymentMethods, ['CARD', 'PIX', 'PIX_AUTOMATICO']);
    assert.equal(edited.dunning.pixAutomaticoDaysBefore, 4);
    assert.deepEqual(edited.dunning.retryDays, [1, 3, 5, 7]);
    await page.getByRole('button', { name: 'Novo plano' }).click();
    await page.getByRole('form', { name: 'Novo plano' }).getByLabel('Nome do plano').waitFor();
    await page.getByRole('button', { name: 'Cancelar', exact: true }).click();
    await checkScreen(page, 'subscriptions-plans');
  });

  test('a subscriber made by API with the sandbox card: list with filters, its page, the clock, pause, resume, cancel', async () => {
    await page.getByRole('link', { name: 'Assinantes', exact: true }).click();
    await page.getByText('Nenhum assinante ainda.').waitFor();
    const sub = await call(ctx.app, 'POST', '/api/v1/subscriptions', {
      key: owner.key,
      body: {
        planId,
        paymentMethod: 'CARD',
        client: { name: 'Maria Souza', email: 'maria@example.com', document: '52998224725' },
        card: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123' },
      },
    });
    assert.equal(sub.status, 201, sub.raw);
    assert.equal(sub.body.subscription.status, 'ACTIVE');
    subscriptionId = sub.body.subscription.id;

    await page.reload();
    const row = page.locator('.cards-list li', { hasText: 'Maria Souza' });
    await row.waitFor();
    assert.match(await row.innerText(), /Ativa/);
    assert.match(await row.innerText(), /Clube do café/);
    assert.match(await row.innerText(), /Próxima cobrança: \d{2}\/\d{2}\/\d{4}/);
    await checkScreen(page, 'subscriptions-subscribers');
    // Filters go to the API and into the address.
    await page.getByLabel('Situação').selectOption('CANCELLED');
    await page.waitForURL(/situacao=CANCELLED/);
    await page.getByText('Nenhuma assinatura com esses filtros.').waitFor();
    await page.getByLabel('Situação').selectOption('ACTIVE');
    await page.getByLabel('Plano').selectOption(planId);
    await row.waitFor();

    await row.getByRole('link', { name: 'Maria Souza' }).click();
    await page.waitForURL(new RegExp(`/dashboard/assinaturas/${subscriptionId}$`));
    const cycles = page.getByRole('region', { name: 'Cobranças da assinatura' }).locator('tbody tr');
    await cycles.first().waitFor();
    assert.equal(await cycles.count(), 1);
    assert.match(await cycles.first().innerText(), /R\$ 59,90/);
    assert.match(await cycles.first().innerText(), /Paga/);
    assert.match(await page.locator('.facts').innerText(), /visa final 4242|final 4242/i);
    await checkScreen(page, 'subscription');

    // The sandbox clock: a month later the card is charged again.
    await page.getByLabel('Avançar o relógio desta assinatura (dias)').fill('31');
    await page.getByRole('button', { name: 'Simular' }).click();
    await cycles.nth(1).waitFor();
    assert.equal(await cycles.count(), 2);
    assert.match(await cycles.first().innerText(), /Paga/);

    await page.getByRole('button', { name: 'Pausar' }).click();
    await page.locator('.page-header .badge', { hasText: 'Pausada' }).waitFor();
    await page.getByRole('button', { name: 'Retomar' }).click();
    await page.locator('.page-header .badge', { hasText: 'Ativa' }).waitFor();
    await page.getByRole('button', { name: 'Cancelar no fim do período' }).click();
    await page.locator('.facts', { hasText: 'no fim do período' }).waitFor();
    let api = await call(ctx.app, 'GET', `/api/v1/subscriptions/${subscriptionId}`, { key: owner.key });
    assert.equal(api.body.subscription.cancelAtPeriodEnd, true);
    assert.equal(api.body.subscription.status, 'ACTIVE');
    await page.getByRole('button', { name: 'Cancelar agora' }).click();
    await page.locator('.page-header .badge', { hasText: 'Cancelada' }).waitFor();
    api = await call(ctx.app, 'GET', `/api/v1/subscriptions/${subscriptionId}`, { key: owner.key });
    assert.equal(api.body.subscription.status, 'CANCELLED');
    await page.getByText('Esta assinatura terminou').waitFor();
    await checkScreen(page, 'subscription-cancelled');
  });

  test('metrics of the month: MRR, subscribers, churn, movements, and the MRR chart', async () => {
    // A second subscriber, active.
    const sub = await call(ctx.app, 'POST', '/api/v1/subscriptions', {
      key: owner.key,
      body: { planId, paymentMethod: 'CARD', client: { name: 'João Lima', email: 'joao@example.com', document: '11144477735' }, card: { number: '4242424242424242', holderName: 'JOAO LIMA', expMonth: 12, expYear: 2030, cvv: '123' } },
    });
    assert.equal(sub.status, 201, sub.raw);
    const metrics = (await call(ctx.app, 'GET', '/api/v1/subscriptions/metrics', { key: owner.key })).body.metrics;
    await page.goto(`${base}/dashboard/assinaturas?aba=metricas`);
    const mrr = stat(page, 'MRR');
    await mrr.waitFor();
    // Metrics follow the wall clock: the cancelled subscription's clock was moved a month ahead by the
    // simulation, so its cancellation counts only when that day comes (docs/subscriptions.md).
    assert.ok(metrics.mrrCents >= 5990, `MRR ${metrics.mrrCents}`);
    assert.equal(await mrr.innerText(), brl(metrics.mrrCents));
    assert.equal(await stat(page, 'Assinantes ativos').innerText(), String(metrics.activeSubscribers));
    const net = page.getByRole('region', { name: 'Movimentação do MRR' }).getByRole('row', { name: /Variação líquida/ });
    assert.match(await net.innerText(), new RegExp(brl(metrics.movements.netCents).replace(/[$.]/g, '\\$&')));
    await page.locator('.chart-box canvas').waitFor();
    await page.getByText('Ver os números em tabela').click();
    const months = page.getByRole('region', { name: 'MRR por mês' }).locator('tbody tr');
    assert.equal(await months.count(), 6);
    assert.ok((await months.last().innerText()).includes(brl(metrics.mrrCents)));
    await checkScreen(page, 'subscriptions-metrics');
  });

  test('affiliates: a program on a product, joined from a second account through the marketplace, approved, the link copied', async () => {
    const product = await call(ctx.app, 'POST', '/api/v1/products', { key: owner.key, body: { name: 'Curso de torra', price: 19700 } });
    assert.equal(product.status, 201, product.raw);
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: owner.key, body: { title: 'Curso de torra', products: [{ productId: product.body.product.id, quantity: 1 }] } });
    assert.equal(link.status, 201, link.raw);

    await menu(page, 'Afiliados').click();
    await page.getByRole('heading', { name: 'Novo programa de afiliados' }).waitFor();
    await page.getByText('Nenhum programa ainda.').waitFor();
    await page.getByLabel('Produto').selectOption(product.body.product.id);
    await page.getByLabel('Comissão (%)').fill('140');
    await page.getByRole('button', { name: 'Criar programa' }).click();
    assert.equal(await page.getByLabel('Comissão (%)').getAttribute('aria-invalid'), 'true');
    await checkScreen(page, 'affiliates-programs-error');
    await page.getByLabel('Comissão (%)').fill('40');
    await page.getByLabel('Aprovação de afiliados').selectOption('MANUAL');
    await page.getByLabel('Validade do clique (dias de cookie)').fill('60');
    await page.getByRole('button', { name: 'Criar programa' }).click();
    const program = page.locator('.cards-list li', { hasText: 'Curso de torra' });
    await program.getByText('40% do valor pago').waitFor();
    assert.match(await program.innerText(), /Cookie de 60 dia\(s\).*aprovação manual/);
    await page.getByText('Todos os seus produtos já têm um programa').waitFor();
    const programs = await call(ctx.app, 'GET', '/api/affiliate/programs', { token: owner.token });
    assert.equal(programs.body.data[0].commissionValue, 4000);
    assert.equal(programs.body.data[0].approval, 'MANUAL');
    await checkScreen(page, 'affiliates-programs');

    // The affiliate, in their own browser session: the marketplace.
    const other = await loggedIn(affiliate);
    await other.goto(`${base}/dashboard/afiliados?aba=vitrine`);
    const offer = other.locator('.cards-list li', { hasText: 'Curso de torra' });
    await offer.waitFor();
    assert.match(await offer.innerText(), /Você ganha R\$ 78,80 por venda/);
    await other.getByLabel('Buscar produto').fill('nada-assim');
    await other.getByRole('button', { name: 'Buscar' }).click();
    await other.getByText('Nenhum programa encontrado para “nada-assim”.').waitFor();
    await other.getByLabel('Buscar produto').fill('torra');
    await other.getByRole('button', { name: 'Buscar' }).click();
    await offer.waitFor();
    await checkScreen(other, 'affiliates-marketplace');
    await offer.getByRole('button', { name: 'Quero me afiliar a Curso de torra' }).click();
    await offer.getByText(/aguardando aprovação/).waitFor();
    await offer.getByRole('link', { name: 'Ver meus links' }).click();
    const mine = other.locator('.cards-list li', { hasText: 'Curso de torra' });
    await mine.getByText('Aguardando aprovação').waitFor();

    // The owner approves.
    await program.getByRole('button', { name: 'Ver afiliados de Curso de torra' }).click();
    const row = program.locator('li', { hasText: affiliate.name });
    await row.getByRole('button', { name: `Aprovar ${affiliate.name}` }).click();
    await row.getByText('Ativo').waitFor();
    await checkScreen(page, 'affiliates-program-affiliates');

    await other.reload();
    await mine.getByText('Ativo', { exact: true }).waitFor();
    const links = await call(ctx.app, 'GET', '/api/affiliate/links', { token: affiliate.token });
    const url = links.body.data[0].urls[0].url as string;
    assert.match(url, /\/pay\/.+\?aff=/);
    await mine.getByText(url).waitFor();
    await mine.getByRole('button', { name: 'Copiar link' }).click();
    assert.equal(await clipboard(other), url);
    assert.equal(await stat(other, 'Links ativos').innerText(), '1');
    await checkScreen(other, 'affiliates-links');

    await other.getByRole('link', { name: 'Comissões' }).click();
    await other.getByText('Nenhuma comissão ainda.').waitFor();

    // A buyer comes through the affiliate's link and pays: a commission, pending until the guarantee ends.
    const slug = link.body.paymentLink.slug as string;
    const code = links.body.data[0].code as string;
    const sale = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: 'joana@example.com', clientDocument: '39053344705', paymentMethod: 'PIX', affiliateCode: code },
    });
    assert.equal(sale.status, 201, sale.raw);
    const paid = await call(ctx.app, 'POST', `/api/v1/transactions/${sale.body.transaction.id}/simulate`, { key: owner.key, body: { outcome: 'PAID' } });
    assert.equal(paid.status, 200, paid.raw);
    await other.reload();
    const commission = other.getByRole('region', { name: 'Comissões' }).locator('tbody tr', { hasText: 'Curso de torra' });
    await commission.waitFor();
    assert.match(await commission.innerText(), /R\$ 197,00/);
    assert.match(await commission.innerText(), /R\$ 78,80/);
    assert.match(await commission.innerText(), /A liberar/);
    assert.match(await commission.innerText(), /libera em \d{2}\/\d{2}\/\d{4}/);
    await checkScreen(other, 'affiliates-commissions');
    await other.getByLabel('Situação').selectOption('PAID');
    await other.getByText('Nenhuma comissão com essa situação.').waitFor();
    await other.getByRole('link', { name: 'Links', exact: true }).click();
    assert.equal(await stat(other, 'A liberar').innerText(), 'R$ 78,80');
  });

  test('referrals: the invite code and link; the link opens the sign-up with the code filled in', async () => {
    await menu(page, 'Indicações').click();
    await page.getByRole('heading', { name: 'Indicações' }).waitFor();
    await page.getByText(owner.referralCode, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Copiar link de convite' }).click();
    const link = await clipboard(page);
    assert.equal(link, `${base}/cadastro?ref=${owner.referralCode}`);
    await page.getByText('Nenhuma recompensa ainda.').waitFor();
    assert.equal(await stat(page, 'Contas indicadas').innerText(), '0');
    await checkScreen(page, 'referrals');

    const visitor = await browser.newContext({ viewport: DESKTOP, locale: 'pt-BR' });
    contexts.push(visitor);
    const v = await visitor.newPage();
    v.on('pageerror', (err) => pageErrors.push(err.message));
    await v.goto(link);
    await v.waitForURL(/\/dashboard\/cadastro\?ref=/);
    assert.equal(await v.getByLabel('Código de convite (opcional)').inputValue(), owner.referralCode);
  });
});

function brl(cents: number) {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100).replace(/\u00a0/g, ' ');
}
