// The audit log in Chromium: a merchant's "Registro de atividades" (Desenvolvedores) lists what it
// did (an API key created, a withdrawal asked for) with who and from where, opens one to its before
// and after, filters by action and downloads the CSV; an operator's "Auditoria" (Operação) lists
// every account's. axe-core, a 390 px phone, screenshots (test-output/dashboard/). Skips without Chromium.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, merchant, type Merchant } from '../helpers.ts';
import { paidPix } from '../wallet-helpers.ts';
import { after, before, describe, skipBrowser, test } from './browser.ts';
import { operatorSignsIn, signIn, startDashboard, type DashboardRun } from './dashboard-kit.ts';

let run: DashboardRun;
let m: Merchant;
const errors = { page: [] as string[], csp: [] as string[] };


describe('the audit log in the dashboard', { skip: skipBrowser }, () => {
  before(async () => {
    run = await startDashboard(errors);
    m = await merchant(run.ctx.app);
    await paidPix(run.ctx.app, { key: m.devKey }, 50_000);
    const w = await call(run.ctx.app, 'POST', '/api/withdraws', { key: m.devKey, body: { amountCents: 10_000, pixKeyType: 'cpf', pixKey: '529.982.247-25' } });
    assert.equal(w.status, 201, w.raw);
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });

  test("a merchant's Registro de atividades: the entries, one opened, a filter and the CSV", async () => {
    const page = run.page;
    await signIn(run, m);
    await page.goto(`${run.base}/dashboard/desenvolvedores?aba=atividades`);
    const withdrawal = page.locator('.cards-list li', { hasText: 'Saque pedido' });
    await withdrawal.waitFor();
    await page.locator('.cards-list li', { hasText: 'Chave de API criada' }).first().waitFor();
    assert.match(await withdrawal.innerText(), /Chave de API · IP 127\.0\.0\.1/);
    await withdrawal.getByRole('button').click();
    const detail = await withdrawal.locator('.delivery-detail').innerText();
    assert.match(detail, /Depois/);
    assert.match(detail, /\*\*\*\.982\.247-\*\*/);
    assert.ok(!detail.includes('529.982.247-25'), 'the CPF key is masked');
    await run.check('audit-merchant');
    await page.getByLabel('Ação').selectOption('api_key.created');
    await page.locator('.cards-list li', { hasText: 'Saque pedido' }).waitFor({ state: 'detached' });
    await page.locator('.cards-list li', { hasText: 'Chave de API criada' }).first().waitFor();
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Baixar CSV' }).click()]);
    const saved = join(tmpdir(), `cofre-audit-${process.pid}.csv`);
    await file.saveAs(saved);
    const csv = readFileSync(saved, 'utf8');
    assert.match(file.suggestedFilename(), /^cofre-auditoria-\d{4}-\d\d-\d\d\.csv$/);
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines.length, 1 + (await page.locator('.cards-list li').count()), csv);
    for (const line of lines.slice(1)) assert.match(line, /;api_key\.created;api_key;/);
  });

  test("an operator's Auditoria lists every account's entries", async () => {
    const { page } = await run.newSession();
    await operatorSignsIn(run, page);
    await page.goto(`${run.base}/dashboard/operacao?aba=auditoria`);
    await page.getByLabel('Conta (id)').fill(m.id);
    const withdrawal = page.locator('.cards-list li', { hasText: 'Saque pedido' });
    await withdrawal.waitFor();
    await withdrawal.getByRole('button').click();
    assert.match(await withdrawal.innerText(), new RegExp(`conta ${m.id}`));
    await run.check('audit-operator', page);
  });
});
