// Subcontas and Divisões › Parceiros in Chromium (issue 38). A platform makes an account for a seller
// from the form (a CPF refused in Portuguese first), its API key shown once and selling; the account's
// page shows that sale and the balance, sends the invitation again and edits its data; the split
// editor names it by its wallet. A partner reads
// its wallet id on its own Divisões screen, is invited by it, accepts in its own session; a second
// invitation is declined; the platform ends the partnership. axe-core, 390 px and desktop screenshots.
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Locator, Page } from 'playwright-core';
import { brl } from '../../web/dashboard/src/lib/format.ts';
import { call, cpf, uniqueEmail } from '../helpers.ts';
import { skipBrowser } from './browser.ts';
import { fieldMessage, registerAndSignIn, useMerchantDashboard } from './dashboard-kit.ts';

const account = { name: 'Marketplace Artesanal', email: uniqueEmail('marketplace'), password: 'marketplace-vende-2026' };
const dash = useMerchantDashboard(account);
const formOf = (p: Page, title: string) => p.locator('form', { has: p.getByRole('heading', { name: title }) });
/** The invitations to set a password e-mailed to a sub-account. */
const invitations = async (userId: string) => (await dash.run.ctx.database.db.selectFrom('emails').select('id').where('user_id', '=', userId).where('template', '=', 'account_invitation').execute()).length;

async function fillAccount(form: Locator, document: string) {
  await form.getByLabel('Nome', { exact: true }).fill('Cerâmica da Lia');
  await form.getByLabel('E-mail').fill(uniqueEmail('lia'));
  await form.getByLabel('CPF ou CNPJ').fill(document);
  await form.getByLabel('Celular').fill('+5511988887777');
  await form.getByLabel('Chave PIX para saques (opcional)').fill('lia@ceramica.example.com');
  for (const [label, value] of [['CEP', '01310-100'], ['Rua', 'Avenida Paulista'], ['Número', '1000'], ['Bairro', 'Bela Vista'], ['Cidade', 'São Paulo'], ['UF', 'sp']]) await form.getByLabel(label, { exact: true }).fill(value);
}

describe('merchant dashboard in Chromium: sub-accounts and split partners', { skip: skipBrowser }, () => {
  test('Subcontas: an account made from the form with its API key shown once; its page shows its sale and balance, resends the invitation, edits its data', async () => {
    const p = dash.run.page;
    await p.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Subcontas' }).click();
    await p.getByText('Nenhuma subconta ainda.').waitFor();
    const form = formOf(p, 'Nova subconta');
    await fillAccount(form, '123.456.789-00');
    await form.getByLabel(/Criar chave de API/).check();
    await form.getByRole('button', { name: 'Criar subconta' }).click();
    assert.equal(await fieldMessage(form, 'CPF ou CNPJ'), 'CPF ou CNPJ inválido: confira os números.');
    await form.getByLabel('CPF ou CNPJ').fill(cpf());
    await dash.run.check('accounts-form');
    await form.getByRole('button', { name: 'Criar subconta' }).click();
    const key = (await p.getByTestId('secret-value').innerText()).trim();
    assert.match(key, /^cofre_test_/);
    await p.getByRole('heading', { name: 'Chave de API de Cerâmica da Lia' }).waitFor();

    const [made] = (await call(dash.run.ctx.app, 'GET', '/api/v1/accounts', { key: dash.apiKey })).body.accounts;
    assert.equal(made.address.state, 'SP', 'the UF typed in lower case goes in capitals');
    assert.equal(made.pixKey, 'lia@ceramica.example.com');
    assert.equal(await invitations(made.id), 1, 'the seller was e-mailed its invitation');
    // The key sells as the sub-account.
    const sale = await call(dash.run.ctx.app, 'POST', '/api/v1/transactions', { key, body: { product: 'Vaso esmaltado', amountCents: 15_000, clientName: 'Rita Souza', clientEmail: 'rita@example.com', clientDocument: cpf(), paymentMethod: 'PIX' } });
    assert.equal(sale.status, 201, sale.raw);
    assert.equal((await call(dash.run.ctx.app, 'POST', `/api/v1/transactions/${sale.body.transaction.id}/simulate`, { key, body: { outcome: 'PAID' } })).status, 200);

    await p.getByRole('button', { name: 'Pronto, copiei' }).click();
    await p.getByText(/Subconta “Cerâmica da Lia” criada\. Enviamos a .+ o convite/).waitFor();
    const item = p.locator('.cards-list > li', { hasText: 'Cerâmica da Lia' });
    await item.getByText('Convite enviado: senha ainda não criada', { exact: false }).waitFor();
    await dash.run.check('accounts-list');

    await item.getByRole('link', { name: 'Cerâmica da Lia' }).click();
    await p.getByRole('heading', { name: 'Cerâmica da Lia' }).waitFor();
    const paid = (await call(dash.run.ctx.app, 'GET', `/api/v1/transactions/${sale.body.transaction.id}`, { key })).body.transaction;
    const available = p.locator('section[aria-label="Saldo da subconta"] .card', { hasText: 'Disponível' }).locator('.stat-value');
    assert.equal(await available.innerText(), brl(paid.netAmountCents));
    const row = p.getByRole('region', { name: 'Vendas da subconta' }).locator('tbody tr');
    await row.first().waitFor();
    assert.match((await row.first().innerText()).replace(/\s+/g, ' '), new RegExp(`Vaso esmaltado ${paid.displayId} PIX R\\$ 150,00 Paga`));
    await p.getByRole('button', { name: 'Reenviar convite' }).click();
    await p.getByText(`Convite reenviado para ${made.email}.`).waitFor();
    assert.equal(await invitations(made.id), 2);
    await dash.run.check('account-detail');

    await p.getByRole('button', { name: 'Editar dados' }).click();
    const edit = formOf(p, 'Editar “Cerâmica da Lia”');
    await edit.getByLabel('Celular').fill('+5521977776666');
    await edit.getByLabel('Chave PIX para saques (opcional)').fill('');
    await edit.getByRole('button', { name: 'Salvar alterações' }).click();
    await p.getByText('(21) 97777-6666').waitFor();
    const after = (await call(dash.run.ctx.app, 'GET', `/api/v1/accounts/${made.id}`, { key: dash.apiKey })).body.account;
    assert.deepEqual([after.phone, after.pixKey, after.name], ['+5521977776666', null, 'Cerâmica da Lia']);

    // The split editor names the sub-account by its wallet.
    await p.goto(`${dash.run.base}/dashboard/catalogo?aba=links`);
    const link = formOf(p, 'Novo link de pagamento');
    await link.getByRole('button', { name: 'Adicionar recebedor' }).click();
    await link.getByLabel('ID da carteira').fill(made.walletId);
    await link.getByText('Cerâmica da Lia (subconta)').waitFor();

    // Desenvolvedores offers the accounts permissions on a new key, checked to start with.
    await p.goto(`${dash.run.base}/dashboard/desenvolvedores`);
    for (const permission of ['accounts:read', 'accounts:write']) assert.ok(await p.locator(`input[name=permissions][value="${permission}"]`).isChecked(), permission);
  });

  test('Parceiros: invited by the wallet id the partner reads on its screen, accepted in its session, another invitation declined, the partnership ended', async () => {
    const run = dash.run;
    const partner = await run.newSession();
    const who = { name: 'Estúdio Bordado', email: uniqueEmail('estudio'), password: 'estudio-borda-2026' };
    await registerAndSignIn({ ...run, page: partner.page }, who);
    await partner.page.goto(`${run.base}/dashboard/divisoes?aba=parceiros`);
    const walletId = (await partner.page.locator('.wallet code').innerText()).trim();
    assert.match(walletId, /^[0-9a-f-]{36}$/);

    const p = run.page;
    await p.goto(`${run.base}/dashboard/divisoes?aba=parceiros`);
    const invite = formOf(p, 'Convidar parceiro');
    await invite.getByLabel('ID da carteira do parceiro').fill(crypto.randomUUID());
    await invite.getByRole('button', { name: 'Enviar convite' }).click();
    assert.equal(await fieldMessage(invite, 'ID da carteira do parceiro'), 'Nenhuma conta do Cofre tem esta carteira: confira o ID.');
    await invite.getByLabel('ID da carteira do parceiro').fill(walletId);
    await invite.getByLabel('Mensagem (opcional)').fill('Vamos dividir as vendas dos kits?');
    await invite.getByRole('button', { name: 'Enviar convite' }).click();
    const mine = p.locator('.cards-list > li', { hasText: 'Estúdio Bordado' });
    await mine.getByText('Aguardando resposta').waitFor();

    await partner.page.reload();
    const received = partner.page.locator('.cards-list > li', { hasText: 'Marketplace Artesanal' });
    await received.getByText('“Vamos dividir as vendas dos kits?”').waitFor();
    await run.check('splits-partners-invited', partner.page);
    await received.getByRole('button', { name: 'Aceitar o convite de Marketplace Artesanal' }).click();
    await received.getByText('Ativa').waitFor();

    // Another merchant's invitation, declined.
    const other = await call(run.ctx.app, 'POST', '/api/auth/register', { body: { name: 'Loja Vizinha', email: uniqueEmail('vizinha'), password: 'vizinha-convida-2026' } });
    assert.equal((await call(run.ctx.app, 'POST', '/api/v1/split-partners', { token: other.body.token, body: { walletId } })).status, 201);
    await partner.page.reload();
    const vizinha = partner.page.locator('.cards-list > li', { hasText: 'Loja Vizinha' });
    await vizinha.getByRole('button', { name: 'Recusar o convite de Loja Vizinha' }).click();
    await vizinha.getByText('Recusada').waitFor();

    await p.reload();
    await mine.getByText('Ativa').waitFor();
    await run.check('splits-partners');
    await mine.getByRole('button', { name: 'Encerrar parceria com Estúdio Bordado' }).click();
    await mine.getByText('Encerrada').waitFor();
    const [ended] = (await call(run.ctx.app, 'GET', '/api/v1/split-partners?role=sent', { key: dash.apiKey })).body.data;
    assert.equal(ended.status, 'REVOKED');
    await partner.context.close();
  });
});
