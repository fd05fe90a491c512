// The merchant dashboard in Chromium, what a merchant manages after the first sale: the forms' field
// errors in Portuguese beside the fields; products, payment links and coupons edited in place (the
// link's /pay page follows); a sale's own webhook deliveries on its page, retried from there; the
// next releases of a card sale on Início; an operator finding a merchant and setting its fees in
// Operação; the extrato's running total per balance; a sale's payment link and UTM parameters; webhook
// event types in Portuguese, grouped. Every screen: axe-core, a 390 px phone, screenshots
// (test-output/dashboard/). Skips when Chromium is absent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Page } from 'playwright-core';
import { call, cpf, uniqueEmail } from '../helpers.ts';
import { skipBrowser } from './browser.ts';
import { fieldMessage, operatorSignsIn, registerAndSignIn, startDashboard, type DashboardRun } from './dashboard-kit.ts';

let run: DashboardRun;
const errors = { page: [] as string[], csp: [] as string[] };

const account = { name: 'Cerâmica Serena', email: uniqueEmail('serena'), password: 'serena-vende-bem-2026' };
let userId = '';
let apiKey = '';

const checkScreen = (name: string, on?: Page) => run.check(name, on);
const menu = (p: Page, name: string) => p.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name }).click();

describe('merchant dashboard in Chromium: managing the catalog, a sale\'s webhooks, releases and fees', { skip: skipBrowser }, () => {
  before(async () => {
    run = await startDashboard(errors);

    ({ userId, apiKey } = await registerAndSignIn(run, account));
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });

  test('field errors: the API\'s, in Portuguese, beside each field (the form sends; the API validates)', async () => {
    await menu(run.page, 'Catálogo');
    await run.page.getByRole('heading', { name: 'Novo produto' }).waitFor();
    // Nothing typed in Nome, and a price above the API's maximum.
    await run.page.getByLabel('Preço (R$)').fill('2.000.000,00');
    await run.page.getByRole('button', { name: 'Criar produto' }).click();
    await run.page.locator('.field-invalid').first().waitFor();
    assert.equal(await fieldMessage(run.page, 'Nome'), 'Preencha este campo.');
    assert.equal(await fieldMessage(run.page, 'Preço (R$)'), 'O máximo é R$ 1.000.000,00.');
    assert.equal(await run.page.locator('.form-error').innerText(), 'Dados inválidos: corrija os campos destacados.');
    await checkScreen('catalog-field-errors');

    await run.page.getByRole('link', { name: 'Cupons' }).click();
    await run.page.getByLabel('Código').fill('com espaço');
    await run.page.getByLabel('Desconto (%)').fill('10');
    await run.page.getByRole('button', { name: 'Criar cupom' }).click();
    await run.page.locator('.field-invalid').first().waitFor();
    assert.equal(await fieldMessage(run.page, 'Código'), 'Use de 3 a 50 letras, números, - ou _ (sem espaços).');

    await run.page.getByRole('link', { name: 'Clientes' }).click();
    await run.page.getByLabel('Nome', { exact: true }).fill('Gil Prado');
    await run.page.getByLabel('E-mail').fill('gil@');
    await run.page.getByLabel('CPF ou CNPJ').fill('52998224725');
    await run.page.getByRole('button', { name: 'Cadastrar cliente' }).click();
    await run.page.locator('.field-invalid').first().waitFor();
    assert.equal(await fieldMessage(run.page, 'E-mail'), 'Informe um e-mail válido, como nome@empresa.com.br.');
  });

  test('Catálogo: a product, a payment link and a coupon edited in place; the link\'s page follows', async () => {
    await run.page.getByRole('link', { name: 'Produtos' }).click();
    await run.page.getByLabel('Nome', { exact: true }).fill('Travessa oval');
    await run.page.getByLabel('Preço (R$)').fill('89,90');
    await run.page.getByRole('button', { name: 'Criar produto' }).click();
    const product = run.page.locator('.cards-list > li', { hasText: 'Travessa' });
    await product.getByText('R$ 89,90').waitFor();
    await product.getByRole('button', { name: 'Editar Travessa oval' }).click();
    assert.equal(await product.getByLabel('Preço (R$)').inputValue(), '89,90');
    await product.getByLabel('Nome', { exact: true }).fill('Travessa oval grande');
    await product.getByLabel('Situação').selectOption('INACTIVE');
    await checkScreen('catalog-product-edit');
    await product.getByLabel('Preço (R$)').fill('0');
    await product.getByRole('button', { name: 'Salvar alterações' }).click();
    assert.equal(await fieldMessage(product, 'Preço (R$)'), 'Informe um valor em reais maior que zero, como 1.234,56.');
    await product.getByLabel('Preço (R$)').fill('1.099,00');
    await product.getByRole('button', { name: 'Salvar alterações' }).click();
    await product.getByText('R$ 1.099,00').waitFor();
    assert.match(await product.innerText(), /Travessa oval grande[\s\S]*Inativo/);
    const products = await call(run.ctx.app, 'GET', '/api/v1/products?status=INACTIVE', { key: apiKey });
    const saved = products.body.products.find((p: { name: string }) => p.name === 'Travessa oval grande');
    assert.deepEqual([saved?.price, saved?.status], [109900, 'INACTIVE']);

    await run.page.getByRole('link', { name: 'Links de pagamento' }).click();
    await run.page.getByLabel('Título').fill('Aula de torno');
    await run.page.getByLabel('Valor (R$)').fill('120,00');
    await run.page.getByRole('button', { name: 'Criar link' }).click();
    const link = run.page.locator('.cards-list > li', { hasText: 'Aula de torno' });
    await link.waitFor();
    const url = (await link.locator('.mono a').innerText()).trim();
    await link.getByRole('button', { name: 'Editar Aula de torno' }).click();
    await link.getByLabel('Título').fill('Aula de torno (2 horas)');
    await link.getByLabel('Valor (R$)').fill('180,00');
    await link.getByRole('button', { name: 'Salvar alterações' }).click();
    await link.getByText('R$ 180,00').waitFor();
    assert.equal((await link.locator('.mono a').innerText()).trim(), url, 'the link keeps its address');
    await link.getByRole('button', { name: 'QR code' }).click();
    await link.locator('img.qr').waitFor();
    await checkScreen('catalog-link-edited');
    const pay = await run.context.newPage();
    await pay.goto(url);
    await pay.getByRole('heading', { name: 'Aula de torno (2 horas)' }).waitFor();
    assert.match(await pay.locator('body').innerText(), /R\$\s180,00/);
    await pay.close();

    await run.page.getByRole('link', { name: 'Cupons' }).click();
    await run.page.getByLabel('Código').fill('serena10');
    await run.page.getByLabel('Desconto (%)').fill('10');
    await run.page.getByRole('button', { name: 'Criar cupom' }).click();
    const coupon = run.page.locator('.cards-list > li', { hasText: 'SERENA10' });
    await coupon.getByText(/10% de desconto/).waitFor();
    await coupon.getByRole('button', { name: 'Editar SERENA10' }).click();
    await coupon.getByLabel('Tipo de desconto').selectOption('FIXED');
    await coupon.getByLabel('Desconto (R$)').fill('5,00');
    await coupon.getByLabel('Situação').selectOption('INACTIVE');
    await coupon.getByRole('button', { name: 'Salvar alterações' }).click();
    await coupon.getByText(/R\$ 5,00 de desconto/).waitFor();
    assert.match(await coupon.innerText(), /Inativo/);
    await checkScreen('catalog-coupons-edited');
  });

  test('a sale\'s page lists the webhooks sent about it; one the endpoint refused is retried from there', async () => {
    let refused = false;
    run.receiver.on('/serena', (r) => (r.body?.type === 'transaction.completed' && !refused ? ((refused = true), 500) : 200));
    const sub = await call(run.ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: apiKey, body: { url: run.receiver.url('/serena'), events: ['transaction.created', 'transaction.completed'] } });
    assert.equal(sub.status, 201, sub.raw);
    const created = await call(run.ctx.app, 'POST', '/api/v1/transactions', {
      key: apiKey,
      body: { product: 'Jarra azul', amountCents: 15900, clientName: 'Helena Dias', clientEmail: 'helena@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
    });
    assert.equal(created.status, 201, created.raw);
    const id = created.body.transaction.id as string;
    await call(run.ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: apiKey, body: { outcome: 'PAID' } });
    await run.receiver.waitFor('/serena', 2, 15_000);
    // Another sale's deliveries are not on this one's page.
    const other = await call(run.ctx.app, 'POST', '/api/v1/transactions', {
      key: apiKey,
      body: { product: 'Pote', amountCents: 2500, clientName: 'Ivo Reis', clientEmail: 'ivo@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
    });
    await run.receiver.waitFor('/serena', 3, 15_000);

    await run.page.goto(`${run.base}/dashboard/vendas/${id}`);
    const section = run.page.getByRole('region', { name: 'Webhooks desta venda' });
    const completed = section.locator('.delivery', { hasText: 'transaction.completed' });
    await completed.waitFor();
    assert.equal(await section.locator('.delivery').count(), 2, 'transaction.created and transaction.completed of this sale only');
    assert.match(await completed.innerText(), /Pendente[\s\S]*1 tentativa\(s\) · HTTP 500/);
    await completed.getByRole('button').first().click();
    await completed.locator('.payload').waitFor();
    assert.match(await completed.locator('.payload').innerText(), new RegExp(id));
    assert.doesNotMatch(await section.innerText(), new RegExp(other.body.transaction.id));
    assert.match(await completed.innerText(), /^Pagamento confirmado\s+transaction\.completed/, 'the event by its name, its raw type beside it');
    await checkScreen('sale-webhooks');
    await completed.getByRole('button', { name: 'Reenviar agora' }).click();
    await run.page.getByText('Reenviado: a URL respondeu 200.').waitFor();
    await completed.getByText('Entregue').waitFor();
    assert.match(await completed.innerText(), /2 tentativa\(s\) · HTTP 200/);
  });

  test('Início: the next releases of a card sale, day by day, next to the balances', async () => {
    const sale = await call(run.ctx.app, 'POST', '/api/v1/transactions', {
      key: apiKey,
      body: {
        product: 'Jogo de pratos',
        amountCents: 60000,
        installments: 3,
        clientName: 'Júlia Moraes',
        clientEmail: 'julia@example.com',
        clientDocument: cpf(),
        paymentMethod: 'CARD',
        card: { number: '4242424242424242', holderName: 'JULIA MORAES', expMonth: 12, expYear: new Date().getFullYear() + 3, cvv: '123' },
      },
    });
    assert.equal(sale.status, 201, sale.raw);
    assert.equal(sale.body.transaction.status, 'PAID');
    const releases = (await call(run.ctx.app, 'GET', '/api/v1/balance/releases', { key: apiKey })).body.releases as { date: string; amountCents: number }[];
    assert.equal(releases.length, 3);
    await menu(run.page, 'Início');
    const section = run.page.getByRole('region', { name: 'Próximas liberações' });
    await section.locator('li').first().waitFor();
    const rows = await section.locator('li').allInnerTexts();
    assert.equal(rows.length, 3);
    releases.forEach((r, i) => {
      assert.match(rows[i], new RegExp(`^${r.date.split('-').reverse().join('/')} · 1 parcela\\(s\\)`));
      assert.match(rows[i], new RegExp(brl(r.amountCents).replace(/[.$]/g, '\\$&')));
    });
    const receivable = await run.page.locator('section[aria-label=Saldo] .card', { hasText: 'A receber' }).locator('.stat-value').innerText();
    assert.equal(receivable, brl(sale.body.transaction.netAmountCents));
    await checkScreen('home-releases');
    // A week on the chart: one dd/mm label per day (drawn on the canvas: checked on the screenshot).
    await run.page.getByRole('button', { name: '7 dias' }).click();
    await run.page.locator('.chart-box canvas').waitFor();
    await checkScreen('home-7-days');
  });

  test('Dinheiro › Extrato: one running total per balance, each right for a history that moves both', async () => {
    // After the card sale (a receivable), part of the first PIX sale refunded (available): the balances interleave.
    const pix = (await call(run.ctx.app, 'GET', '/api/v1/transactions?paymentMethod=PIX&status=PAID', { key: apiKey })).body.transactions[0];
    assert.equal((await call(run.ctx.app, 'POST', `/api/v1/transactions/${pix.id}/refund`, { key: apiKey, body: { amountCents: 1000 } })).status, 200);
    await run.page.goto(`${run.base}/dashboard/dinheiro?aba=extrato`);
    const region = run.page.getByRole('region', { name: 'Extrato' });
    await region.locator('tbody tr').first().waitFor();
    assert.deepEqual(await region.locator('thead th').allInnerTexts(), ['Data', 'Lançamento', 'Saldo', 'Valor', 'Saldo disponível depois', 'Saldo a receber depois']);
    // What each row should say: the whole history (one page) summed per balance from the oldest entry.
    const entries = (await call(run.ctx.app, 'GET', '/api/v1/wallet/statement?limit=100', { key: apiKey })).body.entries as { account: 'available' | 'receivable'; amountCents: number }[];
    assert.deepEqual([...new Set(entries.map((e) => e.account))].sort(), ['available', 'receivable']);
    const sums = { available: 0, receivable: 0 };
    const expected = [...entries].reverse().map((e) => ((sums[e.account] += e.amountCents), [brl(e.amountCents), brl(sums.available), brl(sums.receivable)])).reverse();
    const shown = await region.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).slice(3).map((td) => td.textContent!.trim())));
    assert.deepEqual(shown, expected);
    const balance = (await call(run.ctx.app, 'GET', '/api/v1/balance', { key: apiKey })).body;
    assert.deepEqual(shown[0].slice(1), [brl(balance.availableCents), brl(balance.receivableCents)], 'the newest row holds the balances now');
    await checkScreen('money-statement-balances');
  });

  test('a sale\'s page shows where it came from: its payment link and UTM parameters', async () => {
    const link = (await call(run.ctx.app, 'POST', '/api/v1/payment-links', { key: apiKey, body: { title: 'Oficina de esmaltes', amountCents: 25000 } })).body.paymentLink;
    const trackingParams = { utm_source: 'instagram', utm_medium: 'stories', utm_campaign: 'inverno-2026', src: 'bio' };
    const body = { product: 'Oficina de esmaltes', amountCents: 25000, paymentLinkId: link.id, trackingParams, clientName: 'Lia Torres', clientEmail: 'lia@example.com', clientDocument: cpf(), paymentMethod: 'PIX' };
    const sale = await call(run.ctx.app, 'POST', '/api/v1/transactions', { key: apiKey, body });
    assert.equal(sale.status, 201, sale.raw);
    await run.page.goto(`${run.base}/dashboard/vendas/${sale.body.transaction.id}`);
    const origin = run.page.getByRole('region', { name: 'Origem da venda' });
    await origin.getByText('Oficina de esmaltes').waitFor();
    const words = (t: string) => t.replace(/\s+/g, ' ').trim();
    const terms = (await origin.locator('dt').allInnerTexts()).map(words);
    const values = (await origin.locator('dd').allInnerTexts()).map(words);
    assert.deepEqual(terms, ['Link de pagamento', 'Origem utm_source', 'Mídia utm_medium', 'Campanha utm_campaign', 'Código de origem src']);
    assert.deepEqual(values, [`Oficina de esmaltes /pay/${link.slug} Ver links de pagamento`, 'instagram', 'stories', 'inverno-2026', 'bio']);
    assert.equal(await origin.getByRole('link', { name: `/pay/${link.slug}` }).getAttribute('href'), link.url);
    await checkScreen('sale-origin');
    // A sale with neither has no such section.
    await run.page.goto(`${run.base}/dashboard/vendas/${(await call(run.ctx.app, 'GET', '/api/v1/transactions?paymentMethod=CARD', { key: apiKey })).body.transactions[0].id}`);
    await run.page.getByRole('heading', { name: 'Linha do tempo' }).waitFor();
    assert.equal(await run.page.getByRole('region', { name: 'Origem da venda' }).count(), 0);
  });

  test("a hosted checkout's sale lists its lines (the order bump marked); an accepted upsell links to the sale it followed", async () => {
    const post = async (path: string, body: unknown) => {
      const res = await call(run.ctx.app, 'POST', path, { key: apiKey, body });
      assert.ok(res.status < 300, res.raw);
      return res.body;
    };
    const link = (await post('/api/v1/payment-links', { title: 'Curso de cerâmica', amountCents: 30000 })).paymentLink;
    const checkout = (await post('/api/v1/checkouts', { name: 'Curso', paymentLinkId: link.id })).checkout;
    const glaze = (await post('/api/v1/products', { name: 'Kit de esmaltes', price: 8000 })).product;
    const bump = (await post(`/api/v1/checkouts/${checkout.id}/order-bumps`, { productId: glaze.id, discountCents: 1000 })).orderBump;
    await post(`/api/v1/checkouts/${checkout.id}/upsell`, { productId: glaze.id });
    const order = { clientName: 'Lia Torres', clientEmail: 'lia@example.com', clientDocument: cpf(), paymentMethod: 'PIX', orderBumps: [bump.id] };
    const sale = (await post(`/api/payment-links/public/slug/${link.slug}/checkout`, order)).transaction;
    await post(`/api/v1/transactions/${sale.id}/simulate`, { outcome: 'PAID' });
    const offer = await run.ctx.database.db.selectFrom('upsell_offers').select('id').where('parent_transaction_id', '=', sale.id).executeTakeFirstOrThrow();
    const upsell = (await post(`/api/checkout/offers/${offer.id}/accept`, undefined)).transaction;

    await run.page.goto(`${run.base}/dashboard/vendas/${sale.id}`);
    const items = run.page.getByRole('region', { name: 'Itens do pedido' });
    await items.getByText('Kit de esmaltes').waitFor();
    const rows = (await items.locator('tbody tr').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
    assert.deepEqual(rows, ['Curso de cerâmica 1 R$ 300,00 — R$ 300,00', 'Kit de esmaltes order bump 1 R$ 80,00 − R$ 10,00 R$ 70,00']);
    await checkScreen('sale-items');
    await run.page.goto(`${run.base}/dashboard/vendas/${upsell.id}`);
    await run.page.getByRole('region', { name: 'Itens do pedido' }).getByRole('link', { name: 'que a originou' }).click();
    await run.page.waitForURL(`${run.base}/dashboard/vendas/${sale.id}`);
  });

  test('Desenvolvedores: event types named in Portuguese and grouped, the raw type small beside each', async () => {
    await run.page.goto(`${run.base}/dashboard/desenvolvedores?aba=eventos`);
    const table = run.page.getByRole('region', { name: 'Tipos de evento' });
    await table.locator('th.group-row').first().waitFor();
    assert.deepEqual(await table.locator('th.group-row').allInnerTexts(), ['Transações (vendas)', 'Divisões de pagamento', 'Links de pagamento', 'Saldo', 'Saques', 'Antecipações', 'Assinaturas', 'Afiliados e comissões', 'Verificação da conta (KYC)']);
    // Every type the API lists, once, named (no type left to its raw name).
    const types = (await call(run.ctx.app, 'GET', '/api/v1/webhooks/events', { key: apiKey })).body.events.map((e: { type: string }) => e.type);
    assert.deepEqual((await table.locator('code.event-type').allInnerTexts()).sort(), [...types].sort());
    const completed = table.locator('tr', { hasText: 'transaction.completed' });
    assert.deepEqual((await completed.locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')), ['Pagamento confirmado transaction.completed', 'Pagamento confirmado e saldo creditado (PAID)']);
    await checkScreen('developers-events-grouped');
    // The webhook form: a box per group, each event by its name with its type as the value.
    await run.page.getByRole('link', { name: 'Webhooks' }).click();
    const withdrawals = run.page.getByRole('group', { name: 'Saques' });
    await withdrawals.getByRole('checkbox', { name: /^Saque pago/ }).waitFor();
    assert.equal(await withdrawals.getByRole('checkbox', { name: /^Saque pago/ }).getAttribute('value'), 'withdrawal.completed');
    const sub = run.page.locator('.cards-list > li', { hasText: '/serena' });
    assert.deepEqual((await sub.locator('.facts-line li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')), ['Venda criada transaction.created', 'Pagamento confirmado transaction.completed']);
    await checkScreen('developers-webhooks-events');
  });

  test('Operação: an operator finds the merchant and sets its fees; the merchant\'s fees follow', async () => {
    const { context: opContext, page: p } = await run.newSession();
    const op = await operatorSignsIn(run, p);
    try {
      await menu(p, 'Operação');
      await p.getByRole('link', { name: 'Taxas por lojista' }).click();
      await p.getByLabel('Buscar lojista').fill(account.email);
      await p.getByRole('button', { name: 'Buscar' }).click();
      const merchant = p.locator('.cards-list > li', { hasText: account.email });
      await merchant.getByRole('button', { name: new RegExp(account.name) }).click();
      await merchant.getByLabel('PIX (% por venda)').waitFor();
      assert.equal(await merchant.getByText('Em vigor: 0,99%').count(), 1);
      await merchant.getByLabel('PIX (% por venda)').fill('150');
      await merchant.getByLabel('Saque (R$ por saque)').fill('1 real');
      await merchant.getByRole('button', { name: 'Salvar taxas' }).click();
      assert.equal(await fieldMessage(merchant, 'Saque (R$ por saque)'), 'Informe um valor em reais, como 3,49.');
      await merchant.getByLabel('Saque (R$ por saque)').fill('1,00');
      await merchant.getByRole('button', { name: 'Salvar taxas' }).click();
      // The API's bound, in Portuguese, beside the field.
      const pix = merchant.getByLabel('PIX (% por venda)');
      await merchant.locator('.field-invalid', { hasText: 'PIX' }).waitFor();
      assert.equal(await fieldMessage(merchant, 'PIX (% por venda)'), 'O máximo é 100%.');
      await pix.fill('0,5');
      await merchant.getByRole('button', { name: 'Salvar taxas' }).click();
      await merchant.getByText('Taxas salvas.').waitFor();
      await merchant.locator('.badge', { hasText: 'Taxas negociadas' }).waitFor();
      assert.equal(await merchant.getByText('Em vigor: 0,5%').count(), 1);
      await checkScreen('operations-fees', p);
    } finally {
      await opContext.close();
    }
    const fees = await call(run.ctx.app, 'GET', '/api/v1/fees', { key: apiKey });
    assert.equal(fees.body.fees.pixPercentBp, 50);
    assert.equal(fees.body.fees.withdrawalCents, 100);
    const described = await call(run.ctx.app, 'GET', `/api/admin/merchants/${userId}/fees`, { token: op.token });
    assert.deepEqual(described.body.overrides, { pixPercentBp: 50, withdrawalCents: 100 });
    // The merchant sees them under Dinheiro › Taxas.
    await run.page.goto(`${run.base}/dashboard/dinheiro?aba=taxas`);
    await run.page.getByText('0,5% por venda').waitFor();
  });
});

function brl(cents: number) {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100).replace(/\u00a0/g, ' ');
}
