// A client's data rights and keys that can withdraw, in Chromium: the client list and a sale show the
// client's CPF masked; the client's page exports its data as a JSON file and erases it after a
// confirmation; a key created with the withdrawal permission is flagged "Pode sacar" and one without
// it is not. Every screen: axe-core, a 390 px phone, screenshots (test-output/dashboard/).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDocument, maskDocument } from '../../src/payments/documents.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { after, before, describe, skipBrowser, test } from './browser.ts';
import { signIn, startDashboard, type DashboardRun } from './dashboard-kit.ts';

let run: DashboardRun;
let m: Merchant;
const errors = { page: [] as string[], csp: [] as string[] };
const person = { name: 'Filomena Aparecida Brandão', email: 'filomena.brandao@exemplo.com.br', document: cpf(), phone: '+5531987650123' };
let clientId = '';
let saleId = '';

describe('client data rights and withdrawing keys in the dashboard', { skip: skipBrowser }, () => {
  before(async () => {
    run = await startDashboard(errors);
    m = await merchant(run.ctx.app);
    const client = await call(run.ctx.app, 'POST', '/api/v1/clients', { key: m.devKey, body: person });
    assert.equal(client.status, 201, client.raw);
    clientId = client.body.client.id;
    const sale = await call(run.ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { product: 'Tapete de tear', amountCents: 25_900, paymentMethod: 'PIX', clientId } });
    assert.equal(sale.status, 201, sale.raw);
    saleId = sale.body.transaction.id;
    await signIn(run, m);
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });

  test('the CPF is masked in the client list and on a sale', async () => {
    const page = run.page;
    await page.goto(`${run.base}/dashboard/catalogo?aba=clientes`);
    const item = page.locator('.cards-list li', { hasText: person.name });
    await item.getByText(maskDocument(person.document), { exact: false }).waitFor();
    assert.equal((await page.content()).includes(formatDocument(person.document)), false, 'the full CPF is not on the list');
    await run.check('catalog-clients-masked');
    await page.goto(`${run.base}/dashboard/vendas/${saleId}`);
    await page.getByText(maskDocument(person.document)).waitFor();
    assert.equal((await page.content()).includes(formatDocument(person.document)), false, 'nor on the sale');
  });

  test("the client's page: export as a JSON file, then erase after a confirmation", async () => {
    const page = run.page;
    await page.goto(`${run.base}/dashboard/catalogo?aba=clientes`);
    await page.getByRole('link', { name: person.name }).click();
    await page.getByRole('heading', { name: person.name }).waitFor();
    await page.getByText(maskDocument(person.document)).waitFor();
    await run.check('client-page');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exportar dados' }).click()]);
    assert.equal(download.suggestedFilename(), `cliente-${clientId}.json`);
    const file = join(mkdtempSync(join(tmpdir(), 'cofre-export-')), 'export.json');
    await download.saveAs(file);
    const data = JSON.parse(await readFile(file, 'utf8'));
    assert.equal(data.client.document, person.document);
    assert.deepEqual(data.transactions.map((t: { id: string }) => t.id), [saleId]);
    await page.getByText('Arquivo baixado').waitFor();

    const dialog = page.waitForEvent('dialog');
    await page.getByRole('button', { name: 'Apagar dados do cliente' }).click(); // the kit answers yes
    assert.match((await dialog).message(), /não pode ser desfeito/);
    await page.getByRole('heading', { name: 'Cliente removido' }).waitFor();
    await page.getByText('Dados apagados').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Apagar dados do cliente' }).count(), 0);
    const erased = await call(run.ctx.app, 'GET', `/api/v1/clients/${clientId}`, { key: m.devKey });
    assert.ok(erased.body.client.erasedAt, erased.raw);
    await run.check('client-page-erased');
  });

  test('keys: created without the withdrawal permission unless ticked; a key that can withdraw is flagged', async () => {
    const page = run.page;
    await page.goto(`${run.base}/dashboard/desenvolvedores`);
    await page.getByRole('heading', { name: 'Nova chave de API' }).waitFor();
    const canWithdraw = page.locator('input[name=permissions][value="withdrawals:write"]');
    assert.equal(await canWithdraw.isChecked(), false, 'off by default');
    await page.getByText('Esta chave não poderá sacar').waitFor();
    await page.getByLabel('Nome').fill('Loja sem saque');
    await page.getByRole('button', { name: 'Criar chave' }).click();
    await page.getByRole('button', { name: 'Pronto, copiei' }).click();
    await page.getByLabel('Nome').fill('ERP financeiro');
    await canWithdraw.check();
    await page.getByText('esta chave pode sacar o seu saldo').waitFor();
    await page.getByRole('button', { name: 'Criar chave' }).click();
    await page.getByRole('button', { name: 'Pronto, copiei' }).click();
    const withdrawing = page.locator('.cards-list li', { hasText: 'ERP financeiro' });
    await withdrawing.getByText('Pode sacar').waitFor();
    assert.equal(await page.locator('.cards-list li', { hasText: 'Loja sem saque' }).getByText('Pode sacar').count(), 0);
    const keys = (await call(run.ctx.app, 'GET', '/api/credentials', { token: m.token })).body.credentials as { name: string; permissions: string[] }[];
    assert.equal(keys.find((k) => k.name === 'Loja sem saque')!.permissions.includes('withdrawals:write'), false);
    assert.equal(keys.find((k) => k.name === 'ERP financeiro')!.permissions.includes('withdrawals:write'), true);
    await run.check('developers-keys-can-withdraw');
  });
});
