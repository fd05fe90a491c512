// The merchant dashboard in Chromium: every setting of a payment link and of a product edited from
// the forms, as a merchant would without curl. A product with SKU, image URL and stock, a digital
// one; a link priced by its products with methods, instalments ("3x sem juros"), what the checkout
// asks, stock, expiry, redirect and Meta pixel set from the form: the API then returns exactly those
// values, and an edit of every one of them round-trips; the API's refusals show in Portuguese beside
// the fields. Every screen: axe-core, a 390 px phone, screenshots (test-output/dashboard/). Skips
// when Chromium is absent.
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Locator, Page } from 'playwright-core';
import { call, uniqueEmail } from '../helpers.ts';
import { skipBrowser } from './browser.ts';
import { fieldMessage, useMerchantDashboard } from './dashboard-kit.ts';

const account = { name: 'Empório Jacarandá', email: uniqueEmail('emporio'), password: 'emporio-vende-bem-2026' };
const dash = useMerchantDashboard(account);
const ids = { caneca: '', ebook: '' };

const api = (method: string, path: string, body?: unknown) => call(dash.run.ctx.app, method, path, { key: dash.apiKey, ...(body ? { body } : {}) });
const createForm = (p: Page, title: string) => p.locator('form', { has: p.getByRole('heading', { name: title }) });

/** A São Paulo calendar day `days` from now: as typed (dd/mm/aaaa) and as YYYY-MM-DD. */
function daySP(days: number): { typed: string; iso: string } {
  const iso = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date(Date.now() + days * 86_400_000));
  return { typed: iso.split('-').reverse().join('/'), iso };
}

async function productByName(name: string) {
  const list = await api('GET', '/api/v1/products?limit=100');
  return list.body.products.find((p: { name: string }) => p.name === name);
}

/** Fills the link form's settings (every one but title and price) the first way. */
async function fillLinkSettings(form: Locator, expires: string) {
  await form.getByRole('button', { name: 'Adicionar produto' }).click();
  await form.getByLabel('Produto 1', { exact: true }).selectOption(ids.caneca);
  await form.getByLabel('Quantidade do produto 1').fill('2');
  await form.getByRole('button', { name: 'Adicionar produto' }).click();
  await form.getByLabel('Produto 2', { exact: true }).selectOption(ids.ebook);
  await form.getByRole('checkbox', { name: 'Boleto' }).uncheck();
  await form.getByLabel('Parcelas no cartão (máximo)').selectOption('6');
  await form.getByLabel('Parcelas sem juros').selectOption('3');
  await form.getByLabel('Juros ao mês nas outras parcelas (%)').fill('45');
  await form.getByRole('checkbox', { name: 'Celular' }).check();
  await form.getByRole('checkbox', { name: 'Endereço de entrega' }).check();
  await form.getByLabel('Controlar o estoque deste link').check();
  await form.getByLabel('Quantidade em estoque').fill('10');
  await form.getByLabel('Expira em (opcional)').fill(expires);
  await form.getByLabel('Hora em que expira').fill('18:30');
  await form.getByLabel('Descrição do produto na página (opcional)').fill('Duas canecas esmaltadas e o e-book de receitas.');
  await form.getByLabel('Redirecionar depois do pagamento (opcional)').fill('https://emporio.example.com/obrigado');
  await form.getByLabel('ID do Meta Pixel (opcional)').fill('12ab');
}

describe('merchant dashboard in Chromium: every setting of products and payment links', { skip: skipBrowser }, () => {

  test('Produtos: SKU, image URL and stock from the form, a digital product; the API keeps them and an edit round-trips', async () => {
    const p = dash.run.page;
    await p.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Catálogo' }).click();
    const form = createForm(p, 'Novo produto');
    await form.getByLabel('Nome', { exact: true }).fill('Caneca esmaltada');
    await form.getByLabel('Preço (R$)').fill('49,90');
    await form.getByLabel('SKU (opcional)').fill('CAN-001');
    await form.getByLabel('URL da imagem (opcional)').fill('https://cdn.example.com/caneca.jpg');
    await form.getByLabel('Controlar estoque').check();
    // Stock on without a quantity: the API's refusal, in Portuguese, under the field.
    await form.getByRole('button', { name: 'Criar produto' }).click();
    assert.equal(await fieldMessage(form, 'Quantidade em estoque'), 'Informe a quantidade em estoque.');
    await form.getByLabel('Quantidade em estoque').fill('25');
    await checkShot('catalog-product-stock-form');
    await form.getByRole('button', { name: 'Criar produto' }).click();
    const caneca = p.locator('.cards-list > li', { hasText: 'Caneca esmaltada' });
    await caneca.getByText('SKU CAN-001 · Estoque: 25').waitFor();
    const saved = await productByName('Caneca esmaltada');
    ids.caneca = saved.id;
    assert.deepEqual([saved.price, saved.sku, saved.imageUrl, saved.stockEnabled, saved.stockQuantity, saved.isDigital], [4990, 'CAN-001', 'https://cdn.example.com/caneca.jpg', true, 25, false]);

    // A digital product: no stock to control; the same SKU is refused beside its field.
    await form.getByLabel('Nome', { exact: true }).fill('E-book de receitas');
    await form.getByLabel('Preço (R$)').fill('29,00');
    await form.getByLabel('SKU (opcional)').fill('can-001');
    await form.getByLabel('Produto digital', { exact: false }).check();
    assert.equal(await form.getByLabel('Controlar estoque').count(), 0, 'a digital product has no stock to control');
    await form.getByRole('button', { name: 'Criar produto' }).click();
    assert.equal(await fieldMessage(form, 'SKU (opcional)'), 'Já existe um produto com este SKU.');
    await form.getByLabel('SKU (opcional)').fill('EBOOK-1');
    await form.getByRole('button', { name: 'Criar produto' }).click();
    await p.locator('.cards-list > li', { hasText: 'E-book de receitas' }).getByText('SKU EBOOK-1 · Digital').waitFor();
    const ebook = await productByName('E-book de receitas');
    ids.ebook = ebook.id;
    assert.deepEqual([ebook.isDigital, ebook.stockEnabled, ebook.stockQuantity, ebook.sku, ebook.imageUrl], [true, false, null, 'EBOOK-1', null]);

    // Edited: the form shows what was saved; a new SKU and stock, the image removed.
    await caneca.getByRole('button', { name: 'Editar Caneca esmaltada' }).click();
    assert.deepEqual(
      [await caneca.getByLabel('SKU (opcional)').inputValue(), await caneca.getByLabel('URL da imagem (opcional)').inputValue(), await caneca.getByLabel('Controlar estoque').isChecked(), await caneca.getByLabel('Quantidade em estoque').inputValue()],
      ['CAN-001', 'https://cdn.example.com/caneca.jpg', true, '25'],
    );
    await caneca.getByLabel('SKU (opcional)').fill('CAN-002');
    await caneca.getByLabel('URL da imagem (opcional)').fill('');
    await caneca.getByLabel('Quantidade em estoque').fill('30');
    await checkShot('catalog-product-edit-stock');
    await caneca.getByRole('button', { name: 'Salvar alterações' }).click();
    await caneca.getByText('SKU CAN-002 · Estoque: 30').waitFor();
    const edited = await productByName('Caneca esmaltada');
    assert.deepEqual([edited.sku, edited.imageUrl, edited.stockEnabled, edited.stockQuantity, edited.isDigital], ['CAN-002', null, true, 30, false]);
    await checkShot('catalog-products-stock');
  });

  test('Links de pagamento: a link with every setting from the form; the API returns exactly those values', async () => {
    const p = dash.run.page;
    const expires = daySP(30);
    await p.getByRole('link', { name: 'Links de pagamento' }).click();
    const form = createForm(p, 'Novo link de pagamento');
    await form.getByLabel('Título').fill('Kit cozinha');
    await fillLinkSettings(form, expires.typed);
    assert.match(await form.getByText(/Soma dos produtos/).innerText(), /Soma dos produtos: R\$ 128,80\. Sem valor informado acima, o cliente paga esta soma\./);
    // The API's refusals, in Portuguese, beside their fields (both at once).
    await form.getByRole('button', { name: 'Criar link' }).click();
    assert.equal(await fieldMessage(form, 'ID do Meta Pixel (opcional)'), 'Use só os números do ID do pixel (de 5 a 20 dígitos).');
    assert.equal(await fieldMessage(form, 'Juros ao mês nas outras parcelas (%)'), 'O máximo é 30%.');
    assert.equal(await form.locator('.form-error').innerText(), 'Dados inválidos: corrija os campos destacados.');
    await checkShot('catalog-link-form');
    await form.getByLabel('ID do Meta Pixel (opcional)').fill('123456789012345');
    await form.getByLabel('Juros ao mês nas outras parcelas (%)').fill('1,99');
    await form.getByRole('button', { name: 'Criar link' }).click();
    const item = p.locator('.cards-list > li', { hasText: 'Kit cozinha' });
    await item.getByText('PIX e cartão em até 6x (3x sem juros)').waitFor();
    assert.deepEqual(await item.locator('.facts-line li').allInnerTexts(), [
      'PIX e cartão em até 6x (3x sem juros)',
      'Produtos: 2 × Caneca esmaltada, 1 × E-book de receitas',
      'Estoque: 10',
      `Expira em ${expires.typed} 18:30`,
      'Pede celular e endereço de entrega',
      'Depois do pagamento: https://emporio.example.com/obrigado',
      'Meta Pixel 123456789012345',
    ]);
    // The form is empty again for the next link.
    assert.deepEqual([await form.getByLabel('Título').inputValue(), await form.getByLabel('Expira em (opcional)').inputValue()], ['', '']);
    await checkShot('catalog-link-settings');

    const links = (await api('GET', '/api/v1/payment-links?limit=50')).body.paymentLinks;
    const link = links.find((l: { title: string }) => l.title === 'Kit cozinha');
    assert.deepEqual(
      { amount: link.amount, totalCents: link.totalCents, products: link.products.map((x: { productId: string; quantity: number }) => [x.productId, x.quantity]) },
      { amount: null, totalCents: 2 * 4990 + 2900, products: [[ids.caneca, 2], [ids.ebook, 1]] },
    );
    assert.deepEqual(link.settings, { pixEnabled: true, boletoEnabled: false, creditCardEnabled: true, maxInstallments: 6, interestFreeInstallments: 3, interestRate: 1.99, requirePhone: true, requireAddress: true });
    assert.deepEqual(
      [link.stockEnabled, link.stockQuantity, link.expiresAt, link.redirectUrl, link.metaPixelCode, link.productDescription],
      [true, 10, new Date(`${expires.iso}T18:30:00-03:00`).toISOString(), 'https://emporio.example.com/obrigado', '123456789012345', 'Duas canecas esmaltadas e o e-book de receitas.'],
    );
  });

  test('Links de pagamento: editing every setting round-trips, and the /pay page follows', async () => {
    const p = dash.run.page;
    const item = p.locator('.cards-list > li', { hasText: 'Kit cozinha' });
    await item.getByRole('button', { name: 'Editar Kit cozinha' }).click();
    // The form shows what the API keeps.
    const shown = async (label: string) => item.getByLabel(label, { exact: true }).inputValue();
    assert.deepEqual(
      await Promise.all(['Valor (R$)', 'Produto 1', 'Quantidade do produto 1', 'Produto 2', 'Parcelas no cartão (máximo)', 'Parcelas sem juros', 'Juros ao mês nas outras parcelas (%)', 'Quantidade em estoque', 'Hora em que expira', 'ID do Meta Pixel (opcional)'].map(shown)),
      ['', ids.caneca, '2', ids.ebook, '6', '3', '1,99', '10', '18:30', '123456789012345'],
    );
    assert.deepEqual(await Promise.all(['Boleto', 'Celular', 'Endereço de entrega'].map((name) => item.getByRole('checkbox', { name }).isChecked())), [false, true, true]);

    await item.getByLabel('Valor (R$)').fill('99,90');
    await item.getByRole('button', { name: 'Remover o produto 2' }).click();
    await item.getByLabel('Quantidade do produto 1').fill('3');
    await item.getByRole('checkbox', { name: 'Boleto' }).check();
    await item.getByLabel('Parcelas no cartão (máximo)').selectOption('12');
    await item.getByLabel('Parcelas sem juros').selectOption('12');
    await item.getByLabel('Juros ao mês nas outras parcelas (%)').fill('2,5');
    await item.getByRole('checkbox', { name: 'Celular' }).uncheck();
    await item.getByLabel('Controlar o estoque deste link').uncheck();
    await item.getByLabel('Expira em (opcional)').fill('');
    await item.getByLabel('Hora em que expira').fill('');
    await item.getByLabel('Descrição do produto na página (opcional)').fill('');
    await item.getByLabel('Redirecionar depois do pagamento (opcional)').fill('');
    await item.getByLabel('ID do Meta Pixel (opcional)').fill('');
    await checkShot('catalog-link-edit');
    await item.getByRole('button', { name: 'Salvar alterações' }).click();
    await item.getByText('PIX, boleto e cartão em até 12x (12x sem juros)').waitFor();

    const link = (await api('GET', '/api/v1/payment-links?limit=50')).body.paymentLinks.find((l: { title: string }) => l.title === 'Kit cozinha');
    assert.deepEqual([link.amount, link.totalCents, link.products.map((x: { productId: string; quantity: number }) => [x.productId, x.quantity])], [9990, 9990, [[ids.caneca, 3]]]);
    assert.deepEqual(link.settings, { pixEnabled: true, boletoEnabled: true, creditCardEnabled: true, maxInstallments: 12, interestFreeInstallments: 12, interestRate: 2.5, requirePhone: false, requireAddress: true });
    assert.deepEqual([link.stockEnabled, link.stockQuantity, link.expiresAt, link.redirectUrl, link.metaPixelCode, link.productDescription], [false, null, null, null, null, null]);

    // Opened again: the second values are the form's.
    await item.getByRole('button', { name: 'Editar Kit cozinha' }).click();
    assert.deepEqual(await Promise.all(['Valor (R$)', 'Quantidade do produto 1', 'Parcelas sem juros', 'Juros ao mês nas outras parcelas (%)', 'Expira em (opcional)'].map(shown)), ['99,90', '3', '12', '2,5', '']);
    assert.equal(await item.getByLabel('Controlar o estoque deste link').isChecked(), false);
    await item.getByRole('button', { name: 'Cancelar' }).click();

    // The shopper's page: boleto offered again, the price typed, the products listed (no pixel any more).
    const pay = await dash.run.context.newPage();
    await pay.route((url) => url.hostname !== '127.0.0.1', (r) => r.abort()); // nothing leaves the machine
    await pay.goto(link.url);
    await pay.getByRole('heading', { name: 'Kit cozinha' }).waitFor();
    assert.equal(await pay.locator('input[name=paymentMethod][value=BOLETO]').count(), 1);
    assert.match(await pay.locator('#total').innerText(), /R\$\s99,90/);
    assert.match(await pay.locator('.items').innerText(), /3 × Caneca esmaltada/);
    await pay.close();
  });
});

const checkShot = (name: string) => dash.run.check(name);
