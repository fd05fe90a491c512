// Divisões de pagamento in Chromium (issue 38): a marketplace's sales split with two partners (PIX and
// card in 3x, one partly refunded) and a sale of another merchant that pays it a share. Recebidas and
// Enviadas show each share as the API has it (in R$, pt-BR), the period's summary and the table per
// recipient (which filters the list), a filter by situação, and a sale's page shows its Divisão.
// axe-core, 390 px and desktop screenshots (test-output/dashboard/).
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Locator } from 'playwright-core';
import { brl } from '../../web/dashboard/src/lib/format.ts';
import { call, uniqueEmail } from '../helpers.ts';
import { skipBrowser } from './browser.ts';
import { namedMerchant, useMerchantDashboard } from './dashboard-kit.ts';
import { splitKit } from '../splits-kit.ts';

const account = { name: 'Ateliê Marketplace', email: uniqueEmail('atelie'), password: 'atelie-vende-muito-2026' };
const dash = useMerchantDashboard(account);

/** A merchant named `name`, registered through the API with a development key. */
const named = (name: string) => namedMerchant(dash.run.ctx, { name, email: uniqueEmail('loja'), password: 'loja-divide-2026' });

const get = async (path: string) => {
  const res = await call(dash.run.ctx.app, 'GET', path, { key: dash.apiKey });
  assert.equal(res.status, 200, res.raw);
  return res.body;
};
const cells = async (row: Locator) => (await row.locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());

describe('merchant dashboard in Chromium: split payments', { skip: skipBrowser }, () => {
  let pixSale: string;
  let cardSale: string;

  test('Recebidas: a share of another merchant\'s sale, its seller, product, amount and situação', async () => {
    const kit = splitKit(dash.run.ctx);
    const [escola, me] = [await named('Escola de Pães'), dash.merchant];
    // Partners through their invitations, accepted: two of mine, and me of the school's.
    const ana = await kit.partnerOf(me, await named('Costura da Ana'));
    const bordados = await kit.partnerOf(me, await named('Bordados Lima'));
    const myWallet = (await kit.partnerOf(escola, me)).walletId;
    pixSale = await kit.paid(me.devKey, { product: 'Vestido bordado', amountCents: 20_000, split: [{ walletId: ana.walletId, percentageBp: 2000 }, { walletId: bordados.walletId, fixedCents: 1500 }] });
    cardSale = await kit.paid(dash.apiKey, { product: 'Kit de linhas', amountCents: 30_000, ...kit.cardSale(3), split: [{ walletId: ana.walletId, percentageBp: 1000, basis: 'GROSS', chargeFees: true }] });
    await kit.refund(dash.apiKey, pixSale, 5_000);
    await kit.paid(escola.devKey, { product: 'Curso de fermentação', amountCents: 10_000, split: [{ walletId: myWallet, percentageBp: 3000 }] });

    const p = dash.run.page;
    await p.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Divisões' }).click();
    await p.getByRole('heading', { name: 'Divisões de pagamento' }).waitFor();
    const [received] = (await get('/api/v1/splits?role=received')).data;
    const rows = p.getByRole('region', { name: 'Divisões recebidas' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    const [, seller, product, amount, reversed, situation] = await cells(rows.first());
    assert.equal(seller, 'Escola de Pães');
    assert.equal(product, `Curso de fermentação ${received.displayId} · PIX`);
    assert.equal(amount, `${brl(received.amountCents)} venda de R$ 100,00`);
    assert.match(amount, /^R\$ 29,\d\d /, '30% of the net of R$ 100,00');
    assert.equal(reversed, '—');
    assert.equal(situation, 'Creditada no saldo disponível');
    // My wallet id, to hand to a seller, with its copy button.
    assert.equal((await p.locator('.wallet code').innerText()).trim(), myWallet);
    await p.getByRole('button', { name: 'Copiar ID da carteira' }).click();
    await p.getByRole('button', { name: 'Copiado!' }).waitFor();
    assert.equal(await p.evaluate(() => navigator.clipboard.readText()), myWallet);
    await dash.run.check('splits-received');
  });

  test('Enviadas: the period\'s summary, the table per recipient filtering the list, a filter by situação', async () => {
    const p = dash.run.page;
    await p.getByRole('link', { name: 'Enviadas' }).click();
    const summary = await get('/api/v1/splits/summary');
    const card3x = (await get(`/api/v1/transactions/${cardSale}`)).transaction;
    assert.equal(summary.grossCents, 20_000 + card3x.chargedCents, 'the PIX sale and the card sale with its instalments\' interest');
    assert.equal(summary.refundedCents, 5_000);
    const card = p.locator('section', { has: p.getByRole('heading', { name: 'Suas vendas e os repasses' }) });
    for (const [title, cents] of [['Bruto', summary.grossCents], ['Taxas', summary.feeCents], ['Para recebedores', summary.splitCents], ['Seu líquido', summary.netCents]] as const) {
      assert.equal((await card.locator('.stat', { has: p.getByRole('heading', { name: title, exact: true }) }).locator('.stat-value').innerText()).trim(), brl(cents), title);
    }
    await card.getByText('2 venda(s) · estornos −R$ 50,00').waitFor();
    const byRecipient = card.getByRole('region', { name: 'Por recebedor' }).locator('tbody tr');
    assert.deepEqual(
      await Promise.all((await byRecipient.all()).map(cells)),
      summary.recipients.map((r: { name: string; sales: number; amountCents: number; reversedCents: number }) => [r.name, String(r.sales), brl(r.amountCents), r.reversedCents ? `−${brl(r.reversedCents)}` : '—', brl(r.amountCents - r.reversedCents)]),
    );
    const list = p.getByRole('region', { name: 'Divisões enviadas' }).locator('tbody tr');
    await list.nth(2).waitFor();
    assert.equal(await list.count(), 3);
    await dash.run.check('splits-sent');

    await card.getByRole('button', { name: 'Bordados Lima' }).click();
    await p.getByText('Só as divisões para Bordados Lima.').waitFor();
    await list.nth(1).waitFor({ state: 'detached' });
    const [, sale, recipient, amount, reversed, situation] = await cells(list.first());
    assert.match(sale, /^\S+ Vestido bordado · R\$ 200,00$/);
    assert.equal(recipient, 'Bordados Lima R$ 15,00 fixo');
    assert.equal(amount, 'R$ 15,00');
    assert.equal(reversed, '−R$ 3,75', 'a quarter of the sale refunded takes a quarter of the share back');
    assert.equal(situation, 'Estornada em parte no saldo disponível');

    await p.getByRole('button', { name: 'Ver todas' }).click();
    await list.nth(2).waitFor();
    await p.getByLabel('Situação').selectOption('PAID');
    await list.nth(1).waitFor({ state: 'detached' });
    assert.match((await cells(list.first()))[2], /^Costura da Ana 10% do bruto, paga a taxa proporcional$/);
    assert.equal((await cells(list.first()))[5], 'Creditada a receber com as parcelas');

    // A period typed by hand, before these sales: nothing sold, nothing passed on.
    await card.getByRole('button', { name: 'Período' }).click();
    await card.getByLabel('De').fill('01/01/2026');
    await card.getByLabel('Até').fill('31/01/2026');
    await card.getByRole('button', { name: 'Ver' }).click();
    await card.getByText('01/01/2026 a 31/01/2026').waitFor();
    await card.getByText('Nenhuma venda do período foi dividida: tudo ficou com você.').waitFor();
    assert.equal((await card.locator('.stat-value').allInnerTexts()).join(' | '), 'R$ 0,00 | R$ 0,00 | R$ 0,00 | R$ 0,00');
  });

  test('a sale\'s page lists its Divisão: each recipient, its rule, what the refund took back', async () => {
    const p = dash.run.page;
    await p.goto(`${dash.run.base}/dashboard/vendas/${pixSale}`);
    const section = p.locator('section', { has: p.getByRole('heading', { name: 'Divisão' }) });
    await section.waitFor();
    const shares = (await get(`/api/v1/transactions/${pixSale}/splits`)).data;
    const items = (await section.locator('li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const ana = shares.find((s: { recipient: { name: string } }) => s.recipient.name === 'Costura da Ana');
    // Shares of one journal come in no particular order.
    assert.deepEqual(items.sort(), [
      'Bordados Lima Estornada em parte R$ 15,00 fixo · no saldo disponível R$ 15,00 estornado −R$ 3,75',
      `Costura da Ana Estornada em parte 20% do líquido · no saldo disponível ${brl(ana.amountCents)} estornado −${brl(ana.reversedCents)}`,
    ]);
    const total = shares.reduce((n: number, s: { amountCents: number; reversedCents: number }) => n + s.amountCents - s.reversedCents, 0);
    await section.getByText(`Repassado: ${brl(total)}`).waitFor();
    await dash.run.check('sale-splits');
    // A sale without a split has no such section.
    const plain = await splitKit(dash.run.ctx).paid(dash.apiKey, { product: 'Sem divisão' });
    await p.goto(`${dash.run.base}/dashboard/vendas/${plain}`);
    await p.getByRole('heading', { name: 'Resumo' }).waitFor();
    await p.waitForLoadState('networkidle');
    assert.equal(await p.getByRole('heading', { name: 'Divisão' }).count(), 0);
  });
});
