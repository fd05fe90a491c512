// The merchant dashboard (/dashboard) in Debian Chromium: the main flow a new merchant follows —
// sign up, create an API key (permissions as checkboxes, value shown once), make a sandbox sale by
// API with that key, see it on Início and in Vendas, refund it in part and then in full — plus
// webhooks (create, test, delivery log, retry against a real local HTTPS receiver), the environment
// switch, log out (the token is revoked) and log in. On every screen: axe-core finds no serious or
// critical violation, nothing overflows a 390 px phone, and phone and desktop screenshots are saved
// in test-output/dashboard/. First load weighs <= 150 KB compressed. Skips when Chromium is absent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { BrowserContext, Page } from 'playwright-core';
import { createUser } from '../../src/modules/auth/service.ts';
import { recordRefund } from '../../src/modules/transactions/service.ts';
import { call, uniqueEmail, type TestContext } from '../helpers.ts';
import type { Receiver } from '../webhook-receiver.ts';
import { skipBrowser } from './browser.ts';
import { startDashboard, type DashboardRun } from './dashboard-kit.ts';

const FIRST_LOAD_MAX = 150 * 1024;

let ctx: TestContext;
let base: string;
let run: DashboardRun;
let context: BrowserContext;
let page: Page;
let receiver: Receiver;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

const account = { name: 'Ateliê Aurora', email: uniqueEmail('aurora'), password: 'aurora-vende-bem-2026' };
let apiKey = '';
let saleId = '';

/** Every screen: no serious/critical axe violation, nothing wider than a phone, screenshots at both sizes. */
const checkScreen = (name: string, on?: Page) => run.check(name, on);

async function go(path: string) {
  await page.goto(`${base}/dashboard${path}`);
}

describe('merchant dashboard in Chromium', { skip: skipBrowser }, () => {
  before(async () => {
    run = await startDashboard({ page: pageErrors, csp: cspViolations });
    ({ ctx, base, context, page, receiver } = run);
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(pageErrors, [], 'no script errors');
    assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violations');
  });

  test('first load: the login screen, <= 150 KB compressed, hashed assets cached for a year', async (t) => {
    const sizes: Promise<number>[] = [];
    const responses: { url: string; cache: string | null; encoding: string | null }[] = [];
    const onFinished = (req: import('playwright-core').Request) => sizes.push(req.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
    const onResponse = (res: import('playwright-core').Response) => responses.push({ url: res.url(), cache: res.headers()['cache-control'] ?? null, encoding: res.headers()['content-encoding'] ?? null });
    page.on('requestfinished', onFinished);
    page.on('response', onResponse);
    await go('');
    await page.waitForURL(/\/dashboard\/entrar$/);
    await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
    await page.waitForLoadState('networkidle');
    page.off('requestfinished', onFinished);
    page.off('response', onResponse);
    const total = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
    t.diagnostic(`first load: ${total} bytes transferred in ${sizes.length} requests`);
    assert.ok(total <= FIRST_LOAD_MAX, `first load weighs ${total} bytes`);
    const assets = responses.filter((r) => r.url.includes('/dashboard/assets/'));
    assert.ok(assets.length >= 2, 'script and style come from /dashboard/assets');
    for (const a of assets) {
      assert.equal(a.cache, 'public, max-age=31536000, immutable', a.url);
      assert.ok(a.encoding === 'br' || a.encoding === 'gzip', `${a.url} is compressed`);
    }
    assert.equal(responses.find((r) => r.url === `${base}/dashboard`)?.cache, 'no-cache');
    await checkScreen('login');
  });

  test('sign up: the API\'s field errors beside the fields, then the account opens on Início in development', async () => {
    await page.getByRole('link', { name: 'Criar conta' }).click();
    await page.waitForURL(/\/dashboard\/cadastro$/);
    await checkScreen('signup');
    await page.getByLabel('Nome da empresa ou seu nome').fill(account.name);
    await page.getByLabel('E-mail').fill('não-é-email');
    await page.getByLabel('Senha').fill('123');
    await page.getByRole('button', { name: 'Criar conta' }).click();
    const emailField = page.getByLabel('E-mail');
    await page.waitForSelector('.field-invalid');
    assert.equal(await emailField.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Senha').getAttribute('aria-invalid'), 'true');
    const messages = await page.locator('.field-message').allTextContents();
    assert.ok(messages.length >= 2, `field messages: ${messages}`);
    await checkScreen('signup-errors');
    await emailField.fill(account.email);
    await page.getByLabel('Senha').fill(account.password);
    await page.getByRole('button', { name: 'Criar conta' }).click();
    await page.waitForURL(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Início' }).waitFor();
    // Development is the default, and the sandbox is marked on the screen.
    assert.equal(await page.getByRole('radio', { name: 'Desenvolvimento' }).getAttribute('aria-checked'), 'true');
    assert.match(await page.locator('.sandbox-bar').innerText(), /sandbox/);
  });

  test('create an API key with chosen permissions: shown once with a copy button, and it works as chosen', async () => {
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Desenvolvedores' }).click();
    await page.getByRole('heading', { name: 'Nova chave de API' }).waitFor();
    await checkScreen('developers-keys');
    await page.getByLabel('Nome').fill('Loja virtual');
    // Everything is checked to start with: take webhooks:write and withdrawals:* away.
    for (const p of ['webhooks:write', 'withdrawals:read', 'withdrawals:write']) await page.locator(`input[name=permissions][value="${p}"]`).uncheck();
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const value = page.getByTestId('secret-value');
    await value.waitFor();
    apiKey = (await value.innerText()).trim();
    assert.match(apiKey, /^cofre_test_/);
    await page.getByRole('button', { name: 'Copiar chave' }).click();
    await page.getByRole('button', { name: 'Copiado!' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), apiKey);
    await checkScreen('developers-key-created');
    await page.getByRole('button', { name: 'Pronto, copiei' }).click();
    // Gone from the screen, listed by prefix only.
    assert.equal(await page.getByText(apiKey).count(), 0);
    await page.getByText('Loja virtual').waitFor();
    assert.equal((await call(ctx.app, 'GET', '/api/v1/withdraws', { key: apiKey })).status, 403, 'withdrawals:read was unchecked');
    assert.equal((await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: apiKey, body: { url: 'https://example.com/x', events: ['transaction.completed'] } })).status, 403, 'webhooks:write was unchecked');
    assert.equal((await call(ctx.app, 'GET', '/api/v1/transactions', { key: apiKey })).status, 200);
  });

  test('a sandbox sale made by API appears on Início and in Vendas', async (t) => {
    const created = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: apiKey,
      body: { product: 'Vaso de cerâmica', amountCents: 123456, clientName: 'Beatriz Nogueira', clientEmail: 'bia@example.com', clientDocument: '52998224725', paymentMethod: 'PIX' },
    });
    assert.equal(created.status, 201, created.raw);
    saleId = created.body.transaction.id;
    const paid = await call(ctx.app, 'POST', `/api/v1/transactions/${saleId}/simulate`, { key: apiKey, body: { outcome: 'PAID' } });
    assert.equal(paid.status, 200, paid.raw);
    const net = paid.body.transaction.netAmountCents as number;

    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Início' }).click();
    await page.getByRole('heading', { name: 'Início' }).waitFor();
    await page.waitForSelector('.spinner', { state: 'detached' });
    const available = page.locator('section[aria-label=Saldo] .card', { hasText: 'Disponível' });
    assert.equal(await available.locator('.stat-value').innerText(), brl(net));
    if (ctx.app.hasRoute({ method: 'GET', url: '/api/v1/reports/summary' })) {
      const gross = page.locator('.card', { hasText: 'Vendas brutas' }).locator('.stat-value');
      assert.equal(await gross.innerText(), 'R$ 1.234,56');
      assert.equal(await page.locator('.card', { hasText: 'Vendas pagas' }).locator('.stat-value').innerText(), '1');
      await page.locator('.chart-box canvas').waitFor();
    } else {
      // The reports API is another change (docs/dashboard.md): until it is here the screen says so.
      await page.getByRole('alert').first().waitFor();
      t.diagnostic('GET /api/v1/reports/summary is not in this build: Início shows its error state');
    }
    await page.getByRole('button', { name: '7 dias' }).click();
    await page.waitForSelector('.spinner', { state: 'detached' });
    await checkScreen('home');

    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Vendas' }).click();
    const row = page.locator('tbody tr', { hasText: 'Beatriz Nogueira' });
    await row.waitFor();
    assert.match(await row.innerText(), /R\$ 1\.234,56/);
    assert.match(await row.innerText(), /Paga/);
    assert.match(await row.innerText(), /\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}/);
    await checkScreen('sales');
    // Filters go to the API and into the address.
    await page.getByLabel('Situação').selectOption('FAILED');
    await page.waitForURL(/status=FAILED/);
    await page.getByText('Nenhuma venda com esses filtros.').waitFor();
    await checkScreen('sales-empty-filter');
    await page.getByLabel('Situação').selectOption('PAID');
    await page.getByLabel('Forma de pagamento').selectOption('PIX');
    await page.getByLabel('Cliente').fill('Beatriz');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.waitForURL(/cliente=/);
    await row.waitFor();
    const exportHref = await page.getByRole('link', { name: 'Exportar CSV' }).getAttribute('href');
    assert.ok(exportHref?.startsWith('/api/v1/transactions/export?format=csv&'), exportHref ?? '');
    const q = new URLSearchParams(exportHref!.split('?')[1]);
    assert.equal(q.get('status'), 'PAID');
    assert.equal(q.get('paymentMethod'), 'PIX');
    assert.equal(q.get('clientId'), created.body.transaction.client.id);
  });

  test('the sale\'s page: timeline, partial refund then full refund', async () => {
    await page.locator('tbody tr', { hasText: 'Beatriz Nogueira' }).getByRole('link').click();
    await page.waitForURL(new RegExp(`/dashboard/vendas/${saleId}$`));
    await page.getByRole('heading', { name: 'Linha do tempo' }).waitFor();
    const timeline = await page.locator('.timeline').innerText();
    assert.match(timeline, /Criada/);
    assert.match(timeline, /Paga/);
    await checkScreen('sale');
    await page.getByRole('button', { name: 'Estornar' }).click();
    const amount = page.getByLabel('Valor do estorno (R$)');
    assert.equal(await amount.inputValue(), '1.234,56');
    await amount.fill('abc');
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await page.locator('.field-message', { hasText: '1.234,56' }).waitFor();
    await amount.fill('2.000,00');
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    // The API refuses more than was paid: its message is shown, nothing changed.
    await page.locator('.form-error').waitFor();
    await checkScreen('sale-refund');
    await amount.fill('234,56');
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await page.locator('.badge', { hasText: 'Estornada em parte' }).waitFor();
    let tx = await call(ctx.app, 'GET', `/api/v1/transactions/${saleId}`, { key: apiKey });
    assert.equal(tx.body.transaction.refundedCents, 23456);
    await page.getByRole('button', { name: 'Estornar' }).click();
    assert.equal(await page.getByLabel('Valor do estorno (R$)').inputValue(), '1.000,00');
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await page.locator('.page-header .badge', { hasText: /^Estornada$/ }).waitFor();
    tx = await call(ctx.app, 'GET', `/api/v1/transactions/${saleId}`, { key: apiKey });
    assert.equal(tx.body.transaction.status, 'REFUNDED');
    assert.equal(tx.body.transaction.refundedCents, 123456);
    // Each refund with its state at the provider: the sandbox's are made at once; one a PSP did not
    // make (a production PIX devolução NAO_REALIZADO, recorded as the PSP's answer is) is undone:
    // the sale is partly refunded again and the money is back in the balance.
    const refunds = page.getByRole('list', { name: 'Estornos' });
    await refunds.getByText(/R\$\s1\.000,00 · devolvido ao cliente/).waitFor();
    assert.match(await refunds.innerText(), /R\$\s234,56 · devolvido ao cliente/);
    const first = await ctx.database.db.updateTable('refunds').set({ status: 'PENDING' }).where('transaction_id', '=', saleId).where('amount_cents', '=', 23456).returning('id').executeTakeFirstOrThrow();
    await recordRefund(ctx.app.deps.transactions, first.id, saleId, { ok: false, reason: 'NAO_REALIZADO', message: 'Conta do pagador encerrada' });
    await page.reload();
    await page.getByRole('list', { name: 'Estornos' }).getByText(/R\$\s234,56 · não realizado pelo provedor: valor devolvido ao seu saldo/).waitFor();
    await page.locator('.page-header .badge', { hasText: /^Estornada em parte$/ }).waitFor();
    await checkScreen('sale-refunds');
  });

  test('a pending sale can be paid with the sandbox buttons', async () => {
    const created = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: apiKey,
      body: { product: 'Caneca', amountCents: 4990, clientName: 'Carlos Lima', clientEmail: 'carlos@example.com', clientDocument: '52998224725', paymentMethod: 'BOLETO' },
    });
    assert.equal(created.status, 201, created.raw);
    await go(`/vendas/${created.body.transaction.id}`);
    await page.getByRole('heading', { name: 'Simular no sandbox' }).waitFor();
    await page.getByRole('button', { name: 'Simular pagamento' }).click();
    await page.locator('.page-header .badge', { hasText: 'Paga' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Simular no sandbox' }).count(), 0);
  });

  test('webhooks: create (secret shown once), send a test, see the delivery with its payload, retry it', async () => {
    receiver.on('/cofre', (_r, n) => (n === 1 ? 200 : n === 2 ? 500 : 200));
    await go('/desenvolvedores?aba=webhooks');
    await page.getByRole('heading', { name: 'Novo webhook' }).waitFor();
    await page.locator('input[name=events]').first().waitFor();
    await checkScreen('developers-webhooks');
    await page.getByLabel('URL (HTTPS) que recebe os eventos').fill(receiver.url('/cofre'));
    await page.getByRole('button', { name: 'Criar webhook' }).click();
    await page.getByRole('heading', { name: 'Segredo de assinatura' }).waitFor();
    assert.match(await page.locator('.secret').innerText(), /\S{16,}/);
    await page.getByRole('button', { name: 'Pronto, copiei' }).click();
    await page.getByRole('button', { name: 'Enviar teste' }).click();
    await page.getByText(/Teste entregue: a URL respondeu 200/).waitFor();
    assert.equal(receiver.at('/cofre').length, 1);

    // A sale paid now makes a real delivery; the receiver answers 500 to it.
    const created = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: apiKey,
      body: { product: 'Prato fundo', amountCents: 7990, clientName: 'Dora Reis', clientEmail: 'dora@example.com', clientDocument: '52998224725', paymentMethod: 'PIX' },
    });
    await call(ctx.app, 'POST', `/api/v1/transactions/${created.body.transaction.id}/simulate`, { key: apiKey, body: { outcome: 'PAID' } });
    await receiver.waitFor('/cofre', 2, 15_000);

    await page.getByRole('link', { name: 'Entregas' }).click();
    const delivery = page.locator('.delivery', { hasText: 'transaction.completed' });
    await delivery.waitFor();
    await delivery.getByRole('button').first().click();
    await delivery.locator('.payload').waitFor();
    assert.match(await delivery.locator('.payload').innerText(), new RegExp(created.body.transaction.id));
    await checkScreen('developers-deliveries');
    await delivery.getByRole('button', { name: 'Reenviar agora' }).click();
    await page.getByText(/Reenviado: a URL respondeu 200/).waitFor();
    assert.equal(receiver.at('/cofre').length, 3);

    await page.getByRole('link', { name: 'Eventos' }).click();
    await page.getByRole('cell', { name: 'transaction.refunded' }).waitFor();
    await checkScreen('developers-events');
  });

  test('Catálogo: product, payment link (copy, QR code, its /pay page), coupon and client, with field errors', async () => {
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Catálogo' }).click();
    await page.getByRole('heading', { name: 'Novo produto' }).waitFor();
    await page.getByText('Nenhum produto ainda.').waitFor();
    await checkScreen('catalog-products-empty');
    // Sent empty: every required field says so at once, not one per submit.
    await page.getByRole('button', { name: 'Criar produto' }).click();
    for (const label of ['Nome', 'Preço (R$)']) await page.locator('.field-invalid', { hasText: label }).waitFor();
    assert.equal(await page.getByLabel('Nome', { exact: true }).getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Nome', { exact: true }).fill('Vaso grande');
    await page.getByLabel('Preço (R$)').fill('79,9x');
    await page.getByRole('button', { name: 'Criar produto' }).click();
    assert.equal(await page.getByLabel('Preço (R$)').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Preço (R$)').fill('1.079,90');
    await page.getByRole('button', { name: 'Criar produto' }).click();
    await page.locator('.cards-list li', { hasText: 'Vaso grande' }).getByText('R$ 1.079,90').waitFor();
    await checkScreen('catalog-products');

    await page.getByRole('link', { name: 'Links de pagamento' }).click();
    await page.getByLabel('Título').fill('Oficina de cerâmica');
    await page.getByLabel('Valor (R$)').fill('150,00');
    await page.getByRole('button', { name: 'Criar link' }).click();
    const item = page.locator('.cards-list li', { hasText: 'Oficina de cerâmica' });
    await item.waitFor();
    const url = (await item.locator('.mono a').innerText()).trim();
    assert.match(url, new RegExp(`^${base}/pay/`));
    await item.getByRole('button', { name: 'Copiar link' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
    await item.getByRole('button', { name: 'QR code' }).click();
    await item.locator('img.qr').waitFor();
    assert.match((await item.locator('img.qr').getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    await checkScreen('catalog-links');
    const pay = await context.newPage();
    await pay.goto(url);
    await pay.getByRole('heading', { name: 'Oficina de cerâmica' }).waitFor();
    assert.match(await pay.locator('body').innerText(), /R\$\s150,00/);
    // A customer pays the link by PIX (the sales' CPF: one client); the sale shows in Vendas below.
    await pay.fill('#name', 'Helena Prado');
    await pay.fill('#email', 'helena@example.com');
    await pay.fill('#document', '52998224725');
    await Promise.all([pay.waitForURL(/\/checkout\/[0-9a-f-]{36}$/), pay.click('#submit')]);
    await pay.waitForSelector('img.qr');
    const linkSale = pay.url().split('/').pop()!;
    assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${linkSale}/simulate`, { key: apiKey, body: { outcome: 'PAID' } })).status, 200);
    await pay.waitForSelector('#status:text("Pagamento confirmado")', { timeout: 15_000 });
    await pay.close();

    await page.getByRole('link', { name: 'Cupons' }).click();
    await page.getByLabel('Código').fill('bemvindo10');
    await page.getByLabel('Desconto (%)').fill('10');
    await page.getByRole('button', { name: 'Criar cupom' }).click();
    await page.locator('.cards-list li', { hasText: 'BEMVINDO10' }).getByText(/10% de desconto/).waitFor();
    await checkScreen('catalog-coupons');

    await page.getByRole('link', { name: 'Clientes' }).click();
    await page.getByRole('heading', { name: 'Novo cliente' }).waitFor();
    await page.getByLabel('Nome', { exact: true }).fill('Eva Souza');
    await page.getByLabel('E-mail').fill('eva@example.com');
    await page.getByLabel('CPF ou CNPJ').fill('111.111.111-11');
    await page.getByRole('button', { name: 'Cadastrar cliente' }).click();
    await page.locator('.field-invalid', { hasText: 'CPF ou CNPJ' }).waitFor();
    assert.equal(await page.getByLabel('CPF ou CNPJ').getAttribute('aria-invalid'), 'true');
    await checkScreen('catalog-clients-error');
    await page.getByLabel('CPF ou CNPJ').fill('390.533.447-05');
    await page.getByRole('button', { name: 'Cadastrar cliente' }).click();
    await page.locator('.cards-list li', { hasText: 'Eva Souza' }).waitFor();
    // The sales' client (one CPF for all of them) is listed too; "Ver vendas" opens Vendas filtered by it.
    await page.locator('.cards-list li', { hasNotText: 'Eva Souza' }).getByRole('link', { name: 'Ver vendas' }).click();
    await page.waitForURL(/\/dashboard\/vendas\?cliente=/);
    await page.locator('tbody tr', { hasText: 'Beatriz Nogueira' }).waitFor();
    await page.locator('tbody tr', { hasText: 'Helena Prado' }).getByText('Paga').waitFor(); // the link's sale, paid on /pay
  });

  test('Dinheiro: statement, a withdrawal requested then cancelled, advances, fees', async () => {
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Dinheiro' }).click();
    await page.getByRole('region', { name: 'Extrato' }).waitFor();
    const statement = await page.getByRole('region', { name: 'Extrato' }).innerText();
    assert.match(statement, /Venda\s+Pagamento \w+ \(PIX\)\s+Disponível\s+R\$ 1\.222,34/, statement); // R$ 1.234,56 less the PIX fee
    assert.match(statement, /Estorno\s+Estorno de \w+/);
    await checkScreen('money-statement');
    await page.getByRole('link', { name: 'Saques' }).click();
    await page.getByLabel('Valor (R$)').fill('5.000,00');
    await page.getByLabel('Chave PIX', { exact: true }).fill('52998224725');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.locator('.form-error', { hasText: 'Saldo insuficiente' }).waitFor();
    assert.equal(await page.getByLabel('Valor (R$)').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Valor (R$)').fill('10,00');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    const w = page.locator('.cards-list li', { hasText: 'R$ 10,00' });
    await w.getByText('Pendente').waitFor();
    await w.getByRole('list', { name: 'Andamento do saque' }).waitFor();
    await checkScreen('money-withdrawals');
    await w.getByRole('button', { name: 'Cancelar' }).click();
    await w.getByText('Cancelada').waitFor();
    await page.getByRole('link', { name: 'Antecipações' }).click();
    await page.getByText('Nenhum recebível de cartão para antecipar agora').waitFor();
    await checkScreen('money-advances');
    await page.getByRole('link', { name: 'Taxas' }).click();
    await page.getByText('0,99% por venda').waitFor();
    await checkScreen('money-fees');
  });

  test('Conta: KYC with a document uploaded (status shown), then a password change', async () => {
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Conta' }).click();
    await page.getByRole('heading', { name: /Verificação da conta/ }).waitFor();
    await checkScreen('account');
    await page.getByLabel('Nome completo').fill('Aurora Campos');
    await page.getByLabel('CPF', { exact: true }).fill('529.982.247-25');
    await page.getByLabel('Data de nascimento').fill('31021990');
    assert.equal(await page.getByLabel('Data de nascimento').inputValue(), '31/02/1990');
    await page.locator('.field-message', { hasText: 'Data inválida' }).waitFor();
    await page.getByLabel('Data de nascimento').fill('15031990');
    await page.getByLabel('CEP').fill('01001-000');
    await page.getByLabel('Rua').fill('Praça da Sé');
    await page.getByLabel('Número').fill('1');
    await page.getByLabel('Bairro').fill('Sé');
    await page.getByLabel('Cidade').fill('São Paulo');
    await page.getByLabel('UF').fill('sp');
    // A real PNG (the smallest valid one): its bytes must match its declared type.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await page.getByLabel('Documento de identidade (frente)').setInputFiles({ name: 'rg-frente.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: 'Enviar para análise' }).click();
    await page.locator('.badge', { hasText: 'Em análise' }).waitFor();
    const kyc = await call(ctx.app, 'GET', '/api/kyc', { token: (await page.evaluate(() => localStorage.getItem('cofre.token')))! });
    assert.equal(kyc.body.status, 'SUBMITTED');
    assert.equal(kyc.body.kyc.birthDate, '1990-03-15');
    assert.equal(kyc.body.kyc.documents.length, 1);

    await page.getByLabel('Senha atual').fill('errada-errada');
    await page.getByLabel('Nova senha').fill('aurora-nova-senha-2026');
    await page.getByRole('button', { name: 'Trocar senha' }).click();
    await page.locator('.field-invalid', { hasText: 'Senha atual' }).waitFor();
    await page.getByLabel('Senha atual').fill(account.password);
    await page.getByRole('button', { name: 'Trocar senha' }).click();
    await page.getByText('Senha trocada.').waitFor();
    account.password = 'aurora-nova-senha-2026';
    await checkScreen('account-submitted');
    // Still logged in with the new token.
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Vendas' }).click();
    await page.locator('tbody tr').first().waitFor();
  });

  test('the environment switch: production needs approved KYC, then shows production data only, and no sandbox mark', async () => {
    await go('/vendas');
    await page.locator('tbody tr').first().waitFor();
    await page.getByRole('radio', { name: 'Produção' }).click();
    // Production needs approved KYC: the KYC sent from Conta is under review, and the screens that
    // production keys serve say so instead of showing what would be refused (403).
    const closed = page.getByRole('status').filter({ hasText: 'Produção ainda não liberada' });
    await closed.getByText(/está em análise/).waitFor();
    assert.equal(await closed.getByRole('link', { name: 'Ver meu cadastro' }).getAttribute('href'), '/dashboard/conta');
    await checkScreen('production-closed');
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Desenvolvedores' }).click();
    await page.getByText(/Chaves de produção são liberadas quando seu cadastro/).waitFor();
    assert.deepEqual(await page.getByLabel('Ambiente').locator('option').allTextContents(), ['Desenvolvimento (sandbox)']);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await closed.waitFor();
    // An operator approves the KYC sent from Conta, in Operação (another browser session).
    const operator = { email: uniqueEmail('operador'), password: 'operador-cofre-2026' };
    await createUser(ctx.database.db, { name: 'Olga Operadora', email: operator.email, password: operator.password, role: 'ADMIN' });
    const { context: opContext, page: op } = await run.newSession();
    try {
      await op.goto(`${base}/dashboard/entrar`);
      await op.getByLabel('E-mail').fill(operator.email);
      await op.getByLabel('Senha').fill(operator.password);
      await op.getByRole('button', { name: 'Entrar' }).click();
      await op.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Operação' }).click();
      const submission = op.locator('.cards-list li', { hasText: 'Aurora Campos' });
      await submission.getByRole('button', { name: /Aurora Campos/ }).click();
      await submission.getByText('rg-frente.png').waitFor();
      const [file] = await Promise.all([op.waitForEvent('download'), submission.getByRole('button', { name: 'Baixar' }).click()]);
      assert.equal(file.suggestedFilename(), 'rg-frente.png');
      await submission.getByRole('button', { name: 'Rejeitar' }).click();
      await submission.locator('.field-invalid', { hasText: 'Motivo' }).waitFor(); // a rejection needs a reason
        await checkScreen('operations-kyc', op);
      await submission.getByRole('button', { name: 'Aprovar' }).click();
      await op.getByText('Nenhum cadastro aguardando análise.').waitFor();
    } finally {
      await opContext.close();
    }
    await go('/vendas');
    await page.getByText('Você ainda não tem vendas neste ambiente.').waitFor();
    assert.equal(await page.locator('.sandbox-bar').count(), 0);
    await checkScreen('sales-production');
    await page.reload();
    assert.equal(await page.getByRole('radio', { name: 'Produção' }).getAttribute('aria-checked'), 'true', 'the choice survives a reload');
    await page.getByRole('radio', { name: 'Desenvolvimento' }).click();
    await page.locator('tbody tr').first().waitFor();
  });

  test('keyboard: the skip link, the menu and a form work without a mouse', async () => {
    await go('/vendas');
    await page.locator('tbody tr').first().waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Pular para o conteúdo');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'conteudo');
    // Tab to the menu's "Desenvolvedores" and open it with Enter.
    const menuLink = page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Desenvolvedores' });
    await menuLink.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Nova chave de API' }).waitFor();
  });

  test('log out revokes the token; a wrong password is refused; logging in again works', async () => {
    const token = await page.evaluate(() => localStorage.getItem('cofre.token'));
    assert.ok(token);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/dashboard\/entrar$/);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: token! })).status, 401, 'the token is revoked');
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Senha').fill('senha-errada-123');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.locator('.form-error').waitFor();
    await checkScreen('login-error');
    await page.getByLabel('Senha').fill(account.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Início' }).waitFor();
  });
});

function brl(cents: number) {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100).replace(/\u00a0/g, ' ');
}
