// The merchant dashboard (/dashboard) in Debian Chromium, the first part of a new merchant's day:
// sign up, create an API key (permissions as checkboxes, value shown once), make a sandbox sale by
// API with that key, see it on Início and in Vendas, refund it in part and then in full, and
// webhooks (create, test, delivery log, retry against a real local HTTPS receiver); the rest of the
// day is dashboard-account.test.ts. On every screen: axe-core finds no serious or critical
// violation, nothing overflows a 390 px phone, phone and desktop screenshots are saved in
// test-output/dashboard/. First load weighs <= 150 KB compressed. Skips when Chromium is absent.
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import { recordRefund } from '../../src/modules/transactions/service.ts';
import { call } from '../helpers.ts';
import { skipBrowser } from './browser.ts';
import { account, base, brl, checkScreen, ctx, go, page, receiver, story, useDashboardStory } from './dashboard-story.ts';

const FIRST_LOAD_MAX = 150 * 1024;

describe('merchant dashboard in Chromium', { skip: skipBrowser }, () => {
  useDashboardStory();

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
    // Everything but withdrawals:write is checked to start with: take webhooks:write and withdrawals:* away.
    for (const p of ['webhooks:write', 'withdrawals:read', 'withdrawals:write']) await page.locator(`input[name=permissions][value="${p}"]`).uncheck();
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const value = page.getByTestId('secret-value');
    await value.waitFor();
    story.apiKey = (await value.innerText()).trim();
    assert.match(story.apiKey, /^cofre_test_/);
    await page.getByRole('button', { name: 'Copiar chave' }).click();
    await page.getByRole('button', { name: 'Copiado!' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), story.apiKey);
    await checkScreen('developers-key-created');
    await page.getByRole('button', { name: 'Pronto, copiei' }).click();
    // Gone from the screen, listed by prefix only.
    assert.equal(await page.getByText(story.apiKey).count(), 0);
    await page.getByText('Loja virtual').waitFor();
    assert.equal((await call(ctx.app, 'GET', '/api/v1/withdraws', { key: story.apiKey })).status, 403, 'withdrawals:read was unchecked');
    assert.equal((await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: story.apiKey, body: { url: 'https://example.com/x', events: ['transaction.completed'] } })).status, 403, 'webhooks:write was unchecked');
    assert.equal((await call(ctx.app, 'GET', '/api/v1/transactions', { key: story.apiKey })).status, 200);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/checkouts', { key: story.apiKey })).status, 200, 'checkouts:read is offered and checked');
  });

  test('a sandbox sale made by API appears on Início and in Vendas', async (t) => {
    const created = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: story.apiKey,
      body: { product: 'Vaso de cerâmica', amountCents: 123456, clientName: 'Beatriz Nogueira', clientEmail: 'bia@example.com', clientDocument: '52998224725', paymentMethod: 'PIX' },
    });
    assert.equal(created.status, 201, created.raw);
    story.saleId = created.body.transaction.id;
    const paid = await call(ctx.app, 'POST', `/api/v1/transactions/${story.saleId}/simulate`, { key: story.apiKey, body: { outcome: 'PAID' } });
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
    await page.waitForURL(new RegExp(`/dashboard/vendas/${story.saleId}$`));
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
    let tx = await call(ctx.app, 'GET', `/api/v1/transactions/${story.saleId}`, { key: story.apiKey });
    assert.equal(tx.body.transaction.refundedCents, 23456);
    await page.getByRole('button', { name: 'Estornar' }).click();
    assert.equal(await page.getByLabel('Valor do estorno (R$)').inputValue(), '1.000,00');
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await page.locator('.page-header .badge', { hasText: /^Estornada$/ }).waitFor();
    tx = await call(ctx.app, 'GET', `/api/v1/transactions/${story.saleId}`, { key: story.apiKey });
    assert.equal(tx.body.transaction.status, 'REFUNDED');
    assert.equal(tx.body.transaction.refundedCents, 123456);
    // Each refund with its state at the provider: the sandbox's are made at once; one a PSP did not
    // make (a production PIX devolução NAO_REALIZADO, recorded as the PSP's answer is) is undone:
    // the sale is partly refunded again and the money is back in the balance.
    const refunds = page.getByRole('list', { name: 'Estornos' });
    await refunds.getByText(/R\$\s1\.000,00 · devolvido ao cliente/).waitFor();
    assert.match(await refunds.innerText(), /R\$\s234,56 · devolvido ao cliente/);
    const first = await ctx.database.db.updateTable('refunds').set({ status: 'PENDING' }).where('transaction_id', '=', story.saleId).where('amount_cents', '=', 23456).returning('id').executeTakeFirstOrThrow();
    await recordRefund(ctx.app.deps.transactions, first.id, story.saleId, { ok: false, reason: 'NAO_REALIZADO', message: 'Conta do pagador encerrada' });
    await page.reload();
    await page.getByRole('list', { name: 'Estornos' }).getByText(/R\$\s234,56 · não realizado pelo provedor: valor devolvido ao seu saldo/).waitFor();
    await page.locator('.page-header .badge', { hasText: /^Estornada em parte$/ }).waitFor();
    await checkScreen('sale-refunds');
  });

  test('a pending sale can be paid with the sandbox buttons', async () => {
    const created = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: story.apiKey,
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
      key: story.apiKey,
      body: { product: 'Prato fundo', amountCents: 7990, clientName: 'Dora Reis', clientEmail: 'dora@example.com', clientDocument: '52998224725', paymentMethod: 'PIX' },
    });
    await call(ctx.app, 'POST', `/api/v1/transactions/${created.body.transaction.id}/simulate`, { key: story.apiKey, body: { outcome: 'PAID' } });
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
});
