// Withdrawals to an account and the operators' side of automatic payouts, in Chromium: a merchant
// withdraws to a bank account (its fields' errors in Portuguese beside them) and sees where it went;
// a sandbox withdrawal failed by simulate shows the reason in Portuguese; production withdrawals
// above the review threshold or past the daily limit say they are in review, and an operator
// approves one under the "Pagamentos automáticos" card. Every screen: axe-core, a 390 px phone,
// screenshots (test-output/dashboard/). Skips when Chromium is absent.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { call, merchant, type Merchant } from '../helpers.ts';
import type { PayoutSent } from '../../src/payments/connector.ts';
import { liveFunds, payoutConnectors, runPayouts, ScriptedProvider } from '../wallet-helpers.ts';
import { after, before, describe, skipBrowser, test } from './browser.ts';
import { operatorSignsIn, signIn, startDashboard, toProduction, type DashboardRun } from './dashboard-kit.ts';

let run: DashboardRun;
let m: Merchant;
/** The development balance before the withdrawal that the sandbox then fails. */
let availableBefore = 0;
const errors = { page: [] as string[], csp: [] as string[] };
const W = '/api/v1/withdraws';

/** The message under a field, found by its label. */
async function messageOf(page: Page, label: string) {
  const field = page.locator('.field-invalid', { has: page.getByLabel(label, { exact: true }) });
  return (await field.locator('.field-message').innerText()).trim();
}

const brl = (cents: number) => new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100).replace(/\u00a0/g, ' ');

function withdrawalsOf(key: string) {
  return call(run.ctx.app, 'GET', `${W}?limit=50`, { key }).then((r) => r.body.data as { id: string; amountCents: number; bankAccount: unknown; holdReason: string | null; approvedAt: string | null }[]);
}

/** An operator's queue: the two held ones with where they go, under the payouts' card; one approved. */
async function operatorApproves(p: Page) {
  await operatorSignsIn(run, p);
  await p.goto(`${run.base}/dashboard/operacao?aba=saques`);
  const card = p.getByRole('region', { name: 'Pagamentos automáticos' });
  await card.getByText('2 pendente(s) (2 em análise) · 0 em processamento').waitFor();
  assert.match(await card.innerText(), /Tudo certo\s+Provedor\s+sandbox\s+Conexão\s+Respondendo\s+Saldo no provedor\s+não informado pelo provedor\s+Último saque pago\s+nenhum ainda/);
  const held = p.locator('.cards-list li', { hasText: 'R$ 400,00' });
  await held.getByText('Retido para revisão: acima do limite de revisão').waitFor();
  assert.match(await held.innerText(), /Banco 00000000 \(Banco do Brasil\) · ag 1234 · conta 998877[\s\S]*Conta poupança de Loja Teste Ltda · 11\.222\.333\/0001-81/);
  await p.locator('.cards-list li', { hasText: 'R$ 200,00' }).getByText('Chave PIX (E-mail) financeiro@example.com').waitFor();
  // A provider pays them: settling one by hand is there, folded.
  assert.equal(await held.getByRole('button', { name: 'Marcar como pago' }).isVisible(), false);
  await held.getByText('Resolver à mão').waitFor();
  await run.check('operations-withdrawals-held', p);

  await held.getByRole('button', { name: 'Aprovar saque' }).click(); // the confirmation is answered yes
  await card.getByText('2 pendente(s) (1 em análise) · 0 em processamento').waitFor();
  await held.getByText('Retido para revisão').waitFor({ state: 'detached' });
  await held.getByText(/^Aprovado em \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/).waitFor(); // not sent yet: the payout job has not run
  assert.equal(await held.getByRole('button', { name: 'Aprovar saque' }).count(), 0);
  assert.equal(await p.getByRole('button', { name: 'Aprovar saque' }).count(), 1, 'the one past the daily limit still waits');
  await run.check('operations-withdrawals-approved', p);
}

/** The platform's account at the PSP lacking funds: what the payout job leaves (a real run of it, the PSP scripted). */
class FundsLacking extends ScriptedProvider {
  override async sendPayout(): Promise<PayoutSent> {
    return { status: 'HELD', reason: 'PLATFORM_FUNDS', message: 'Saldo insuficiente na conta pagadora' };
  }
}

/** The approved one sent and held for the platform's funds: the card asks for attention, the item shows the attempt. */
async function operatorSeesFundsLacking(p: Page) {
  await runPayouts(run.ctx, payoutConnectors(run.ctx, { sandbox: new FundsLacking(run.ctx), production: 'sandbox' }));
  await p.reload();
  const card = p.getByRole('region', { name: 'Pagamentos automáticos' });
  await card.getByText('Atenção').waitFor();
  await card.getByText('A conta da plataforma no provedor está sem saldo: os saques ficam na fila e são reenviados sozinhos quando houver saldo.').waitFor();
  assert.match(await card.innerText(), /2 pendente\(s\) \(1 em análise, 1 aguardando saldo da plataforma\)/);
  const sent = p.locator('.cards-list li', { hasText: 'R$ 400,00' });
  await sent.getByText(/^Aprovado em [\d/: ]+ · enviado por sandbox · 1 tentativa\(s\) de envio · próxima em \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/).waitFor();
  await sent.getByText('Último erro do provedor: “Saldo insuficiente na conta pagadora”').waitFor();
  await run.check('operations-withdrawals-funds', p);
}

describe('withdrawals to an account, failed and held, in the dashboard', { skip: skipBrowser }, () => {
  before(async () => {
    // Production withdrawals above R$ 300,00, or past R$ 500,00 in a day, wait for an operator.
    run = await startDashboard(errors, { env: { PAYMENT_PROVIDER: 'sandbox', PAYOUT_PROVIDER: 'sandbox', PAYOUT_REVIEW_ABOVE_CENTS: '30000', PAYOUT_DAILY_LIMIT_CENTS: '50000', PAYOUT_NEW_DESTINATION_HOLD_HOURS: '0' } });
    m = await merchant(run.ctx.app, { live: true });
    await liveFunds(run.ctx, { key: m.devKey }, 100_000);
    await liveFunds(run.ctx, { key: m.liveKey! }, 200_000);
    await signIn(run, m);
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });

  test('to a bank account: the fields in Portuguese, the API\'s errors beside them, then listed with bank, agência and conta', async () => {
    const page = run.page;
    availableBefore = (await call(run.ctx.app, 'GET', '/api/v1/balance', { key: m.devKey })).body.availableCents;
    await page.goto(`${run.base}/dashboard/dinheiro?aba=saques`);
    await page.getByLabel('Valor (R$)').fill('250,00');
    await page.getByRole('radio', { name: 'Conta bancária' }).check();
    assert.deepEqual(await page.getByLabel('Tipo de conta').locator('option').allTextContents(), ['Corrente', 'Poupança', 'Pagamento', 'Salário']);
    // Another bank by its ISPB, mistyped, and the agência forgotten: both said at once.
    await page.getByLabel('Banco', { exact: true }).selectOption({ label: 'Outro banco (informar o ISPB)' });
    await page.getByLabel('ISPB do banco (8 dígitos)').fill('123');
    await page.getByLabel('Conta com dígito').fill('12345-6');
    await page.getByLabel('Nome do titular').fill('Loja Teste Ltda');
    await page.getByLabel('CPF/CNPJ do titular').fill('11.222.333/0001-00');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.locator('.field-invalid', { hasText: 'Agência' }).waitFor();
    assert.equal(await messageOf(page, 'ISPB do banco (8 dígitos)'), 'Escolha o banco ou informe o ISPB dele, com 8 números.');
    assert.equal(await messageOf(page, 'Agência'), 'Use a agência com até 4 números, sem o dígito.');
    // A bank from the list; the holder's CNPJ has wrong check digits.
    await page.getByLabel('Banco', { exact: true }).selectOption({ label: 'Itaú Unibanco (341)' });
    await page.getByLabel('Agência').fill('0001');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.locator('.field-invalid', { hasText: 'CPF/CNPJ do titular' }).waitFor();
    assert.equal(await messageOf(page, 'CPF/CNPJ do titular'), 'CPF ou CNPJ inválido: confira os números.');
    assert.equal(await page.getByLabel('CPF/CNPJ do titular').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('.field-invalid').count(), 1, 'the other fields are right now');
    await run.check('money-withdrawal-bank-form');

    await page.getByLabel('CPF/CNPJ do titular').fill('11.222.333/0001-81');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    const item = page.locator('.cards-list li', { hasText: 'R$ 250,00' });
    await item.getByText('Banco 60701190 (Itaú Unibanco) · ag 0001 · conta 123456').waitFor();
    await item.getByText('Pendente').waitFor();
    const [w] = await withdrawalsOf(m.devKey);
    assert.deepEqual(w.bankAccount, { ispb: '60701190', branch: '0001', account: '123456', accountType: 'checking', holderName: 'Loja Teste Ltda', holderDocument: '11222333000181' });
    await run.check('money-withdrawals-bank');
  });

  test('failed in the sandbox (simulate): the reason in Portuguese, not its code; the money back', async () => {
    const page = run.page;
    const [w] = await withdrawalsOf(m.devKey);
    const res = await call(run.ctx.app, 'POST', `/api/withdraws/${w.id}/simulate`, { key: m.devKey, body: { outcome: 'FAILED', reason: 'ACCOUNT_CLOSED' } });
    assert.equal(res.status, 200, res.raw);
    await page.reload();
    const item = page.locator('.cards-list li', { hasText: 'R$ 250,00' });
    await item.getByText('A conta de destino está encerrada ou bloqueada para receber. O valor voltou para o seu saldo disponível.').waitFor();
    assert.equal((await call(run.ctx.app, 'GET', '/api/v1/balance', { key: m.devKey })).body.availableCents, availableBefore);
    // The balance line loads after the list ("Disponível: …" until then): waited for, then read.
    await page.getByText('Disponível:').filter({ hasText: brl(availableBefore) }).waitFor();
    assert.match(await page.getByText('Disponível:').innerText(), new RegExp(brl(availableBefore).replace(/[.$]/g, '\\$&')));
    assert.doesNotMatch(await item.innerText(), /ACCOUNT_CLOSED/);
    assert.equal(await item.getByRole('button', { name: 'Cancelar' }).count(), 0);
    assert.equal(await item.getByRole('list', { name: 'Andamento do saque' }).count(), 0);
    await run.check('money-withdrawal-failed');
  });

  test('held in production: the merchant sees why; an operator approves it under "Pagamentos automáticos", then sees the platform\'s funds lacking', async () => {
    const live = m.liveKey!;
    const account = { ispb: '00000000', branch: '1234', account: '998877', accountType: 'savings', holderName: 'Loja Teste Ltda', holderDocument: '11222333000181' };
    const big = await call(run.ctx.app, 'POST', W, { key: live, body: { amountCents: 40_000, bankAccount: account } });
    assert.equal(big.body.data?.holdReason, 'ABOVE_REVIEW_THRESHOLD', big.raw);
    const more = await call(run.ctx.app, 'POST', W, { key: live, body: { amountCents: 20_000, pixKeyType: 'email', pixKey: 'financeiro@example.com' } });
    assert.equal(more.body.data?.holdReason, 'DAILY_LIMIT', more.raw);

    const page = run.page;
    await toProduction(run, m);
    await page.goto(`${run.base}/dashboard/dinheiro?aba=saques`);
    await page.locator('.cards-list li', { hasText: 'R$ 400,00' }).getByText('Em análise pela equipe (valor acima do limite de revisão)').waitFor();
    await page.locator('.cards-list li', { hasText: 'R$ 200,00' }).getByText('Em análise pela equipe (limite diário)').waitFor();
    await run.check('money-withdrawals-held');

    const { context, page: p } = await run.newSession();
    try {
      await operatorApproves(p);
      await operatorSeesFundsLacking(p);
    } finally {
      await context.close();
    }
    const approved = (await withdrawalsOf(live)).find((w) => w.id === big.body.data.id)!;
    assert.equal(approved.holdReason, null);
    assert.ok(approved.approvedAt);
  });
});
