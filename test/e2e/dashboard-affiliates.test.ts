// The dashboard's Afiliados and Indicações in Debian Chromium: an affiliate program opened, joined
// from a second account through the marketplace, approved by its owner, the affiliate's link copied
// and a sale through it; the invite code and link, which opens the sign-up with the code. axe-core,
// the 390 px check and the screenshots on every screen; the set-up is dashboard-subscriptions-kit.ts.
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import { call } from '../helpers.ts';
import { DESKTOP, skipBrowser } from './browser.ts';
import { run, errors, owner, affiliate, page, loggedIn, checkScreen, menu, stat, clipboard, useOwnerDashboard } from './dashboard-subscriptions-kit.ts';

describe('dashboard: Afiliados and Indicações in Chromium', { skip: skipBrowser }, () => {
  useOwnerDashboard();

  test('affiliates: a program on a product, joined from a second account through the marketplace, approved, the link copied', async () => {
    const product = await call(run.ctx.app, 'POST', '/api/v1/products', { key: owner.key, body: { name: 'Curso de torra', price: 19700 } });
    assert.equal(product.status, 201, product.raw);
    const link = await call(run.ctx.app, 'POST', '/api/v1/payment-links', { key: owner.key, body: { title: 'Curso de torra', products: [{ productId: product.body.product.id, quantity: 1 }] } });
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
    const programs = await call(run.ctx.app, 'GET', '/api/affiliate/programs', { token: owner.token });
    assert.equal(programs.body.data[0].commissionValue, 4000);
    assert.equal(programs.body.data[0].approval, 'MANUAL');
    await checkScreen(page, 'affiliates-programs');

    // The affiliate, in their own browser session, joins through the marketplace.
    const other = await joinFromMarketplace();
    const mine = other.locator('.cards-list li', { hasText: 'Curso de torra' });

    // The owner approves.
    await program.getByRole('button', { name: 'Ver afiliados de Curso de torra' }).click();
    const row = program.locator('li', { hasText: affiliate.name });
    await row.getByRole('button', { name: `Aprovar ${affiliate.name}` }).click();
    await row.getByText('Ativo').waitFor();
    await checkScreen(page, 'affiliates-program-affiliates');

    await other.reload();
    await mine.getByText('Ativo', { exact: true }).waitFor();
    const links = await call(run.ctx.app, 'GET', '/api/affiliate/links', { token: affiliate.token });
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
    const sale = await call(run.ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: 'joana@example.com', clientDocument: '39053344705', paymentMethod: 'PIX', affiliateCode: code } });
    assert.equal(sale.status, 201, sale.raw);
    const paid = await call(run.ctx.app, 'POST', `/api/v1/transactions/${sale.body.transaction.id}/simulate`, { key: owner.key, body: { outcome: 'PAID' } });
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
    assert.equal(link, `${run.base}/cadastro?ref=${owner.referralCode}`);
    await page.getByText('Nenhuma recompensa ainda.').waitFor();
    assert.equal(await stat(page, 'Contas indicadas').innerText(), '0');
    await checkScreen(page, 'referrals');

    const visitor = await run.browser.newContext({ viewport: DESKTOP, locale: 'pt-BR' });
    const v = await visitor.newPage();
    v.on('pageerror', (err) => errors.page.push(err.message));
    await v.goto(link);
    await v.waitForURL(/\/dashboard\/cadastro\?ref=/);
    assert.equal(await v.getByLabel('Código de convite (opcional)').inputValue(), owner.referralCode);
  });
});

/** The affiliate's session: the marketplace searched (nothing, then the program), the program joined, awaiting approval. */
async function joinFromMarketplace() {
  const other = await loggedIn(affiliate);
  await other.goto(`${run.base}/dashboard/afiliados?aba=vitrine`);
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
  await other.locator('.cards-list li', { hasText: 'Curso de torra' }).getByText('Aguardando aprovação').waitFor();
  return other;
}
