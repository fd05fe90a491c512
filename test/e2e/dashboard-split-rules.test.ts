// The split editor in Chromium (issue 38) on a payment link, a checkout and a subscription plan:
// recipients by wallet id, a percentage or a fixed amount, of the net or the gross, "Cobrar taxas"
// only with the gross, at most 10; the percentages' sum checked as typed; a wallet that did not agree
// refused by the API in Portuguese beside its field. The API then keeps exactly the rule typed, an
// edit round-trips, and a plan whose name alone is edited does not send its split again. axe-core, 390 px and
// desktop screenshots (test-output/dashboard/).
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Locator, Page } from 'playwright-core';
import { call, type Merchant, uniqueEmail } from '../helpers.ts';
import { splitKit } from '../splits-kit.ts';
import { skipBrowser } from './browser.ts';
import { fieldMessage, namedMerchant, useMerchantDashboard } from './dashboard-kit.ts';

const account = { name: 'Editora Aurora', email: uniqueEmail('editora'), password: 'editora-publica-2026' };
const dash = useMerchantDashboard(account);
const wallets = { bia: '', caio: '', stranger: '' };
let bia: Merchant;

const api = async (method: string, path: string, body?: unknown) => {
  const res = await call(dash.run.ctx.app, method, path, { key: dash.apiKey, ...(body ? { body } : {}) });
  assert.ok(res.status < 300, res.raw);
  return res.body;
};
const formOf = (p: Page, title: string) => p.locator('form', { has: p.getByRole('heading', { name: title }) });
const recipient = (form: Locator, n: number) => form.getByRole('group', { name: `Recebedor ${n}`, exact: true });

/** A merchant named `name`, registered through the API; `partner`: it accepted the dashboard merchant's invitation. */
async function wallet(name: string, partner: boolean): Promise<Merchant & { walletId: string }> {
  const kit = splitKit(dash.run.ctx);
  const m = await namedMerchant(dash.run.ctx, { name, email: uniqueEmail('recebedor'), password: 'recebedor-aceita-2026' });
  return partner ? kit.partnerOf(dash.merchant, m) : { ...m, walletId: await kit.walletOf(m) };
}

/** Adds a recipient to the form's split and fills it: a percentage ("60") or a fixed amount ("10,00"). */
async function addRecipient(form: Locator, n: number, walletId: string, share: { percent: string } | { fixed: string }, gross?: { chargeFees: boolean }) {
  await form.getByRole('button', { name: 'Adicionar recebedor' }).click();
  const row = recipient(form, n);
  await row.getByLabel('ID da carteira').fill(walletId);
  if ('percent' in share) await row.getByLabel('Percentual (%)').fill(share.percent);
  else {
    await row.getByLabel('Tipo').selectOption('fixed');
    await row.getByLabel('Valor fixo (R$)').fill(share.fixed);
  }
  if (gross) {
    assert.equal(await row.getByLabel(/Cobrar taxas/).count(), 0, '"Cobrar taxas" only with the gross');
    await row.getByLabel('Base').selectOption('GROSS');
    if (gross.chargeFees) await row.getByLabel(/Cobrar taxas/).check();
  }
}

describe('merchant dashboard in Chromium: the split of links, checkouts and plans', { skip: skipBrowser }, () => {
  let linkId: string;

  test('a payment link: the sum over 100% said as typed, a wallet that did not agree refused beside its field, the rule kept and edited', async () => {
    const partner = await wallet('Revisora Bia', true);
    [bia, wallets.bia] = [partner, partner.walletId];
    wallets.caio = (await wallet('Ilustra Caio', true)).walletId;
    wallets.stranger = (await wallet('Loja Desconhecida', false)).walletId;
    const p = dash.run.page;
    await p.goto(`${dash.run.base}/dashboard/catalogo?aba=links`);
    const form = formOf(p, 'Novo link de pagamento');
    await form.getByLabel('Título').fill('Livro de receitas');
    await form.getByLabel('Valor (R$)', { exact: true }).fill('80,00');
    await addRecipient(form, 1, wallets.bia, { percent: '60' });
    // The partners who accepted are suggested, and the one typed is named.
    await recipient(form, 1).getByText('Revisora Bia (parceiro)').waitFor();
    assert.deepEqual((await form.locator('datalist option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).label))).sort(), ['Ilustra Caio (parceiro)', 'Revisora Bia (parceiro)']);
    await addRecipient(form, 2, wallets.caio, { percent: '50' });
    assert.equal((await form.getByRole('alert').filter({ hasText: 'percentuais' }).innerText()).trim(), 'Os percentuais somam 110%: o máximo é 100%.');
    await recipient(form, 2).getByLabel('Tipo').selectOption('fixed');
    await recipient(form, 2).getByLabel('Valor fixo (R$)').fill('10,00');
    await recipient(form, 2).getByLabel('Base').selectOption('GROSS');
    await recipient(form, 2).getByLabel(/Cobrar taxas/).check();
    await form.getByText('Percentuais: 60% de 100%. O que sobra fica com você.').waitFor();
    await addRecipient(form, 3, wallets.stranger, { percent: '5' });
    await form.getByRole('button', { name: 'Criar link' }).click();
    assert.equal(await fieldMessage(recipient(form, 3), 'ID da carteira'), 'Esta carteira não é uma subconta sua nem um parceiro que aceitou seu convite.');
    await dash.run.check('catalog-link-split');
    await recipient(form, 3).getByRole('button', { name: 'Remover recebedor 3' }).click();
    await form.getByRole('button', { name: 'Criar link' }).click();
    const item = p.locator('.cards-list > li', { hasText: 'Livro de receitas' });
    await item.getByText('Divisão com 2 recebedores: 60% do líquido + R$ 10,00 fixo, paga a taxa proporcional').waitFor();
    const [saved] = (await api('GET', '/api/v1/payment-links')).paymentLinks;
    linkId = saved.id;
    assert.deepEqual(saved.split, [
      { walletId: wallets.bia, percentageBp: 6000, basis: 'NET' },
      { walletId: wallets.caio, fixedCents: 1000, basis: 'GROSS', chargeFees: true },
    ]);

    // Edited: the rows come back as saved; one percentage changed, the other recipient removed.
    await item.getByRole('button', { name: 'Editar Livro de receitas' }).click();
    const edit = formOf(p, 'Editar “Livro de receitas”');
    assert.equal(await recipient(edit, 1).getByLabel('Percentual (%)').inputValue(), '60');
    assert.equal(await recipient(edit, 2).getByLabel('Valor fixo (R$)').inputValue(), '10,00');
    assert.ok(await recipient(edit, 2).getByLabel(/Cobrar taxas/).isChecked());
    await recipient(edit, 1).getByLabel('Percentual (%)').fill('12,5');
    await recipient(edit, 2).getByRole('button', { name: 'Remover recebedor 2' }).click();
    await edit.getByRole('button', { name: 'Salvar alterações' }).click();
    await item.getByText('Divisão com 1 recebedor: 12,5% do líquido').waitFor();
    assert.deepEqual((await api('GET', `/api/v1/payment-links/${linkId}`)).paymentLink.split, [{ walletId: wallets.bia, percentageBp: 1250, basis: 'NET' }]);
  });

  test('a checkout: at most 10 recipients, its own split over the link\'s', async () => {
    const p = dash.run.page;
    await p.goto(`${dash.run.base}/dashboard/catalogo?aba=checkouts`);
    const form = formOf(p, 'Novo checkout');
    await form.getByLabel('Nome', { exact: true }).fill('Página do livro');
    await form.getByLabel('Link de pagamento').selectOption(linkId);
    const add = form.getByRole('button', { name: 'Adicionar recebedor' });
    for (let i = 0; i < 10; i++) await add.click();
    assert.ok(await add.isDisabled(), 'no eleventh recipient');
    await form.getByText('No máximo 10 recebedores.').waitFor();
    for (let n = 10; n > 1; n--) await recipient(form, n).getByRole('button', { name: `Remover recebedor ${n}` }).click();
    assert.ok(await add.isEnabled());
    await recipient(form, 1).getByLabel('ID da carteira').fill(wallets.caio);
    await recipient(form, 1).getByLabel('Percentual (%)').fill('25');
    await dash.run.check('catalog-checkout-split');
    await form.getByRole('button', { name: 'Criar checkout' }).click();
    await p.getByText('Divisão com 1 recebedor: 25% do líquido').waitFor();
    const [saved] = (await api('GET', '/api/v1/checkouts')).checkouts;
    assert.deepEqual(saved.split, [{ walletId: wallets.caio, percentageBp: 2500, basis: 'NET' }]);
  });

  test('a plan: its split kept, and an edit of its name alone does not send the split again', async () => {
    const p = dash.run.page;
    await p.goto(`${dash.run.base}/dashboard/assinaturas?aba=planos`);
    const form = formOf(p, 'Novo plano');
    await form.getByLabel('Nome do plano').fill('Clube do livro');
    await form.getByLabel('Valor de cada cobrança (R$)').fill('49,90');
    await addRecipient(form, 1, wallets.bia, { percent: '30' });
    await addRecipient(form, 2, wallets.caio, { fixed: '5,00' });
    await form.getByRole('button', { name: 'Criar plano' }).click();
    const card = p.locator('.cards-list > li', { hasText: 'Clube do livro' });
    await card.getByText('Divisão com 2 recebedores: 30% do líquido + R$ 5,00 fixo').waitFor();
    const [plan] = (await api('GET', '/api/v1/subscriptions/plans')).plans;
    assert.deepEqual(plan.split, [
      { walletId: wallets.bia, percentageBp: 3000, basis: 'NET' },
      { walletId: wallets.caio, fixedCents: 500, basis: 'NET' },
    ]);
    await card.getByRole('button', { name: 'Editar o plano Clube do livro' }).click();
    const edit = formOf(p, 'Editar “Clube do livro”');
    await edit.getByLabel('Nome do plano').fill('Clube do livro mensal');
    await dash.run.check('subscriptions-plan-split');
    // Bia ends the partnership: the rule saved with her can no longer be saved again, so an edit that
    // sent the unchanged split would be refused; the name alone goes.
    const [partnership] = (await call(dash.run.ctx.app, 'GET', '/api/v1/split-partners?role=received&status=ACCEPTED', { key: bia.devKey })).body.data;
    assert.equal((await call(dash.run.ctx.app, 'DELETE', `/api/v1/split-partners/${partnership.id}`, { key: bia.devKey })).status, 200);
    await edit.getByRole('button', { name: 'Salvar alterações' }).click();
    await p.locator('.cards-list > li', { hasText: 'Clube do livro mensal' }).waitFor();
    const after = (await api('GET', `/api/v1/subscriptions/plans/${plan.id}`)).plan;
    assert.equal(after.name, 'Clube do livro mensal');
    assert.deepEqual(after.split, plan.split);
  });
});
