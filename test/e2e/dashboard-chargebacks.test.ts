// A card sale's chargeback in the dashboard, in Chromium: the sandbox's acquirer opens one (the badge
// in Portuguese, the case in the summary), the merchant's defence refused when too short (beside its
// field) then sent, the sandbox decides it for the merchant (Paga again); and a chargeback larger
// than the available balance shown on Início as a negative amount in BRL, with the day's chargebacks
// (opened, and won back) in their figure. Every screen: axe-core,
// a 390 px phone, screenshots (test-output/dashboard/). Skips when Chromium is absent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from './browser.ts';
import { call, cpf, uniqueEmail } from '../helpers.ts';
import { skipBrowser } from './browser.ts';
import { signIn, startDashboard, type DashboardRun } from './dashboard-kit.ts';
import { settleAll } from '../wallet-helpers.ts';

let run: DashboardRun;
const errors = { page: [] as string[], csp: [] as string[] };
const account = { name: 'Ateliê Aurora', email: uniqueEmail('aurora'), password: 'aurora-vende-bem-2026' };
let apiKey = '';

async function cardSale(amountCents: number): Promise<string> {
  const card = { number: '4242424242424242', holderName: 'LIA SOUZA', expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvv: '123' };
  const res = await call(run.ctx.app, 'POST', '/api/v1/transactions', {
    key: apiKey,
    body: { product: 'Vaso de cerâmica', amountCents, clientName: 'Lia Souza', clientEmail: 'lia@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction.id;
}

describe('a chargeback in the dashboard', { skip: skipBrowser }, () => {
  before(async () => {
    run = await startDashboard(errors);
    const reg = await call(run.ctx.app, 'POST', '/api/auth/register', { body: account });
    assert.equal(reg.status, 201, reg.raw);
    const key = await call(run.ctx.app, 'POST', '/api/credentials', { token: reg.body.token, body: { name: 'Loja', environment: 'DEVELOPMENT' } });
    apiKey = key.body.key;
    await signIn(run, account);
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });

  test('opened by the sandbox, contested (a short defence refused beside its field), won', async () => {
    const id = await cardSale(15_000);
    const page = run.page;
    await page.goto(`${run.base}/dashboard/vendas/${id}`);
    await page.getByRole('button', { name: 'Simular chargeback' }).click();
    await page.locator('.page-header .badge', { hasText: 'Contestada (chargeback)' }).waitFor();
    await page.getByRole('heading', { name: 'Responder ao chargeback' }).waitFor();
    assert.match(await page.locator('.facts').first().innerText(), /Chargeback\s+R\$\s150,00 · em aberto/);
    await run.check('sale-chargeback-open');

    await page.getByLabel('Sua defesa').fill('Entregue.');
    await page.getByRole('button', { name: 'Contestar' }).click();
    await page.locator('.field-invalid').waitFor();
    assert.equal(await page.getByLabel('Sua defesa').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Sua defesa').fill('Vaso entregue em 12/11 pelos Correios, com a assinatura da cliente no recibo.');
    await page.getByRole('button', { name: 'Contestar' }).click();
    await page.getByRole('button', { name: 'Simular decisão a seu favor' }).waitFor();
    assert.match(await page.locator('.facts').first().innerText(), /contestado: aguardando a decisão da operadora/);
    await page.getByRole('button', { name: 'Simular decisão a seu favor' }).click();
    await page.locator('.page-header .badge', { hasText: /^Paga$/ }).waitFor();
    assert.match(await page.locator('.facts').first().innerText(), /revertido a seu favor/);
    const tx = await call(run.ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: apiKey });
    assert.deepEqual([tx.body.transaction.status, tx.body.transaction.chargeback.status], ['PAID', 'WON']);
  });

  test('a negative available balance on Início, in BRL', async () => {
    const id = await cardSale(100_000);
    await settleAll(run.ctx, 31);
    const balance = await call(run.ctx.app, 'GET', '/api/v1/balance', { key: apiKey });
    const w = await call(run.ctx.app, 'POST', '/api/withdraws', { key: apiKey, body: { amountCents: balance.body.availableCents, pixKeyType: 'email', pixKey: 'aurora@example.com' } });
    assert.equal(w.status, 201, w.raw);
    assert.equal((await call(run.ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: apiKey, body: { outcome: 'CHARGEBACK' } })).status, 200);
    const after = await call(run.ctx.app, 'GET', '/api/v1/balance', { key: apiKey });
    assert.ok(after.body.availableCents < 0, after.raw);
    await run.page.goto(`${run.base}/dashboard`);
    const available = run.page.locator('.stat-value.neg');
    await available.waitFor();
    const shown = (await available.innerText()).replace(/\s/g, ' ');
    const reais = (-after.body.availableCents / 100).toLocaleString('pt-BR', { minimumFractionDigits: 2 });
    assert.equal(shown, `-R$ ${reais}`);
    // Today's chargebacks: this one and the first test's (won today, so also back in its line).
    const figures = (await run.page.locator('.card.stat', { has: run.page.getByRole('heading', { name: 'Chargebacks' }) }).innerText()).replace(/\s+/g, ' ');
    assert.match(figures, /R\$ 1\.150,00 2 contestação\(ões\) aberta\(s\) .* Revertidos: R\$ 150,00 \(1\)/);
    await run.check('home-negative-balance');
  });
});
