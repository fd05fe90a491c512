// Catálogo › Checkouts in Chromium (issue 37): a checkout made for a link from the screen, its brand
// edited with the phone preview following the colour, a colour white text cannot be read on refused
// in Portuguese beside the field, two order bumps, an upsell and a downsell added; the API then holds
// exactly those values. axe-core, 390 px and desktop screenshots (test-output/dashboard/).
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Page } from 'playwright-core';
import { call, uniqueEmail } from '../helpers.ts';
import { skipBrowser } from './browser.ts';
import { fieldMessage, useMerchantDashboard } from './dashboard-kit.ts';

const account = { name: 'Padaria Fermento', email: uniqueEmail('padaria'), password: 'padaria-vende-bem-2026' };
const dash = useMerchantDashboard(account);

const api = async (method: string, path: string, body?: unknown) => {
  const res = await call(dash.run.ctx.app, method, path, { key: dash.apiKey, ...(body ? { body } : {}) });
  assert.ok(res.status < 300, res.raw);
  return res.body;
};
const formOf = (p: Page, title: string) => p.locator('form', { has: p.getByRole('heading', { name: title }) });

describe('merchant dashboard in Chromium: checkouts, their brand and offers', { skip: skipBrowser }, () => {

  test('a checkout for a link: brand with its preview, a low-contrast colour refused, bumps, upsell and downsell; the API keeps them', async () => {
    const link = (await api('POST', '/api/v1/payment-links', { title: 'Curso de Pão Caseiro', amountCents: 19700 })).paymentLink;
    const ebook = (await api('POST', '/api/v1/products', { name: 'E-book de receitas', price: 2990 })).product;
    const aula = (await api('POST', '/api/v1/products', { name: 'Aula ao vivo', price: 5000 })).product;
    const mentoria = (await api('POST', '/api/v1/products', { name: 'Mentoria', price: 49700 })).product;
    const p = dash.run.page;
    await p.goto(`${dash.run.base}/dashboard/catalogo?aba=checkouts`);
    const form = formOf(p, 'Novo checkout');
    await form.getByLabel('Nome', { exact: true }).fill('Página do curso');
    await form.getByLabel('Link de pagamento').selectOption(link.id);
    await form.getByRole('checkbox', { name: 'Boleto' }).uncheck();
    await form.getByLabel('Parcelas no cartão (máximo)').selectOption('6');
    await form.getByLabel('Cor principal (#rrggbb)').fill('#ffd400');
    await form.getByLabel('Texto do botão').fill('Quero meu acesso');
    await form.getByLabel('Fonte', { exact: true }).selectOption('serif');
    await form.getByLabel('Cantos', { exact: true }).selectOption('rounded');
    await form.getByLabel('Termos de compra (opcional)').fill('https://padaria.example/termos');
    await form.getByRole('button', { name: 'Criar checkout' }).click();
    assert.match(await fieldMessage(form, 'Cor principal (#rrggbb)'), /^O texto branco do botão sobre #ffd400 tem contraste 1,\d\d:1; são necessários 4,5:1/);

    const button = p.locator('.preview-button');
    assert.equal(await button.evaluate((b) => getComputedStyle(b).backgroundColor), 'rgb(255, 212, 0)');
    await form.getByLabel('Cor principal (#rrggbb)').fill('#5b21b6');
    assert.equal(await button.evaluate((b) => getComputedStyle(b).backgroundColor), 'rgb(91, 33, 182)', 'the preview follows the colour');
    assert.equal((await button.innerText()).trim(), 'Quero meu acesso');
    await dash.run.check('catalog-checkout-form');
    await form.getByRole('button', { name: 'Criar checkout' }).click();
    await p.getByText('Página do curso').first().waitFor();
    await p.getByText('0 order bump(s)').waitFor();

    const [saved] = (await api('GET', '/api/v1/checkouts')).checkouts;
    assert.equal(saved.paymentLinkId, link.id);
    assert.deepEqual(saved.settings, { pixEnabled: true, boletoEnabled: false, creditCardEnabled: true, maxInstallments: 6, requirePhone: false, requireAddress: false, showOrderBumps: true });
    assert.deepEqual(saved.checkoutConfig.theme, { primaryColor: '#5b21b6', logoUrl: null, buttonText: 'Quero meu acesso', bannerUrl: null, bannerLayout: 'contained', fontFamily: 'serif', borderRadius: 'rounded', colorScheme: 'light' });
    assert.equal(saved.checkoutConfig.termsUrl, 'https://padaria.example/termos');
    assert.equal(saved.checkoutConfig.showTermsFooter, true);

    await p.getByRole('button', { name: 'Ofertas' }).click();
    const bumpForm = formOf(p, 'Novo order bump');
    await bumpForm.getByLabel('Produto', { exact: true }).selectOption(ebook.id);
    await bumpForm.getByLabel('Desconto', { exact: true }).selectOption('cents');
    await bumpForm.getByLabel('Desconto (R$)').fill('5,00');
    await bumpForm.getByRole('button', { name: 'Adicionar order bump' }).click();
    await p.getByText('1 order bump(s)').waitFor();
    await formOf(p, 'Novo order bump').getByLabel('Produto', { exact: true }).selectOption(aula.id);
    await formOf(p, 'Novo order bump').getByLabel('Desconto', { exact: true }).selectOption('percent');
    await formOf(p, 'Novo order bump').getByLabel('Desconto (%)').fill('10');
    await formOf(p, 'Novo order bump').getByRole('button', { name: 'Adicionar order bump' }).click();
    await p.getByText('2 order bump(s)').waitFor();
    await formOf(p, 'Upsell').getByLabel('Produto', { exact: true }).selectOption(mentoria.id);
    await formOf(p, 'Upsell').getByLabel('Título na página (opcional)').fill('Mentoria individual');
    await formOf(p, 'Upsell').getByRole('button', { name: 'Definir upsell' }).click();
    await p.getByText('upsell: Mentoria individual').waitFor();
    await formOf(p, 'Downsell (se recusarem o upsell)').getByLabel('Produto', { exact: true }).selectOption(aula.id);
    await formOf(p, 'Downsell (se recusarem o upsell)').getByRole('button', { name: 'Definir downsell' }).click();
    await p.getByText('downsell: Aula ao vivo').waitFor();
    await p.locator('.offer-list li').nth(3).waitFor();
    await dash.run.check('catalog-checkout-offers');

    const after = (await api('GET', `/api/v1/checkouts/${saved.id}`)).checkout;
    assert.deepEqual(after.orderBumps.map((b: { product: { id: string }; priceCents: number }) => [b.product.id, b.priceCents]), [[ebook.id, 2490], [aula.id, 4500]]);
    assert.equal(after.upsell.title, 'Mentoria individual');
    assert.equal(after.upsell.priceCents, 49700);
    assert.equal(after.upsell.downsell.product.id, aula.id);
    // The link's page shows the brand and the bumps the screen set.
    const page = await dash.run.ctx.app.inject({ method: 'GET', url: `/pay/${link.slug}` });
    assert.match(page.body, /Quero meu acesso/);
    assert.match(page.body, /Aproveite também/);
  });
});
