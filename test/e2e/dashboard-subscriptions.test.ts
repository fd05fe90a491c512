// The dashboard's Assinaturas and Afiliados/Indicações screens in Debian Chromium: a plan created
// from the dashboard (money typed in reais, the API's field error beside the field), edited, its
// public link copied; a subscriber made by API with the sandbox card seen in the list and on its
// page, the clock advanced, paused, resumed and cancelled; the month's metrics and the MRR chart; a
// subscriber's plan changed from its page (the API's preview in reais, the upgrade's prorated charge,
// a downgrade at the period's end); in development, a Pix Automático subscription's sandbox outcomes
// (a rejection, a refused upgrade on the plan field, a debit failed for lack of funds); an
// (a rejection, a refused upgrade on the plan field, a debit failed for lack of funds); a coupon's
// charge. Afiliados and Indicações are in dashboard-affiliates.test.ts. axe-core, the 390 px check and
// the screenshots on every screen; the set-up is dashboard-subscriptions-kit.ts.
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import { call, cpf, uniqueEmail } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { skipBrowser } from './browser.ts';
import { run, owner, page, newPlan, checkScreen, menu, stat, clipboard, state, useOwnerDashboard } from './dashboard-subscriptions-kit.ts';

describe('dashboard: Assinaturas and Afiliados/Indicações in Chromium', { skip: skipBrowser }, () => {
  useOwnerDashboard();

  test('plans: empty state, the API\'s field error beside the amount, create, copy the public link, edit', async () => {
    // Reached with the keyboard from the menu.
    await menu(page, 'Assinaturas').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/assinaturas$/);
    await page.getByText('Nenhum plano ainda.').waitFor();
    await checkScreen(page, 'subscriptions-plans-empty');

    await page.getByLabel('Nome do plano').fill('Clube do café');
    const amount = page.getByLabel('Valor de cada cobrança (R$)');
    await amount.fill('4,00'); // below R$ 5,00: said in pt-BR before any request
    await page.getByLabel('Limite de assinantes (opcional)').fill('10');
    await page.getByRole('checkbox', { name: 'Boleto' }).uncheck();
    await page.getByRole('button', { name: 'Criar plano' }).click();
    await page.locator('.field-invalid', { has: amount }).getByText('O valor mínimo de um plano é R$ 5,00.').waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    // The API's own field error shows beside its field: a trial longer than the API allows.
    await amount.fill('49,90');
    const trial = page.getByLabel('Dias de teste grátis');
    await trial.fill('1000');
    await page.getByRole('button', { name: 'Criar plano' }).click();
    await page.locator('.field-invalid', { has: trial }).locator('.field-message').waitFor();
    assert.equal(await trial.getAttribute('aria-invalid'), 'true');
    assert.equal(await amount.getAttribute('aria-invalid'), null);
    let plans = await call(run.ctx.app, 'GET', '/api/v1/subscriptions/plans', { token: owner.token });
    assert.equal(plans.body.plans.length, 0, 'nothing created on a refused form');
    await checkScreen(page, 'subscriptions-plan-error');
    await trial.fill('0');

    await page.getByRole('button', { name: 'Criar plano' }).click();
    const card = page.locator('.cards-list li', { hasText: 'Clube do café' });
    await card.getByText('R$ 49,90 por mês').waitFor();
    assert.match(await card.innerText(), /0 de 10 assinante\(s\)/);
    plans = await call(run.ctx.app, 'GET', '/api/v1/subscriptions/plans', { token: owner.token });
    const plan = plans.body.plans[0];
    state.planId = plan.id;
    assert.equal(plan.amountCents, 4990);
    assert.deepEqual(plan.paymentMethods, ['CARD', 'PIX']);
    assert.equal(plan.maxSubscribers, 10);
    assert.equal(plan.interval, 'MONTHLY');
    assert.equal(await page.getByRole('form', { name: 'Novo plano' }).count(), 0, 'the form closes once there is a plan');

    await card.getByRole('button', { name: 'Copiar link de assinatura' }).click();
    await card.getByRole('button', { name: 'Copiado!' }).waitFor();
    assert.equal(await clipboard(page), plan.publicUrl);
    assert.match(plan.publicUrl, new RegExp(`/subscribe/${state.planId}$`));

    await card.getByRole('button', { name: 'Editar o plano Clube do café' }).click();
    const editor = page.getByRole('form', { name: 'Editar “Clube do café”' });
    assert.equal(await editor.getByLabel('Valor de cada cobrança (R$)').inputValue(), '49,90');
    await editor.getByLabel('Valor de cada cobrança (R$)').fill('59,90');
    await editor.getByLabel('Dias de teste grátis').fill('abc');
    await editor.getByRole('button', { name: 'Salvar alterações' }).click();
    assert.equal(await editor.getByLabel('Dias de teste grátis').getAttribute('aria-invalid'), 'true');
    await editor.getByLabel('Dias de teste grátis').fill('0');
    // Offering Pix Automático asks how early its charges go to the PSP (2 to 10 days: the API says so on the field).
    await editor.getByRole('checkbox', { name: 'Pix Automático' }).check();
    const pixDays = editor.getByLabel('Pix Automático enviado quantos dias antes do vencimento');
    await pixDays.fill('1');
    await editor.getByRole('button', { name: 'Salvar alterações' }).click();
    await editor.locator('.field-invalid', { has: page.getByLabel('Pix Automático enviado quantos dias antes do vencimento') }).locator('.field-message').waitFor();
    assert.equal(await pixDays.getAttribute('aria-invalid'), 'true');
    await pixDays.fill('4');
    await editor.getByRole('button', { name: 'Salvar alterações' }).click();
    await card.getByText('R$ 59,90 por mês').waitFor();
    const edited = (await call(run.ctx.app, 'GET', `/api/v1/subscriptions/plans/${state.planId}`, { token: owner.token })).body.plan;
    assert.equal(edited.amountCents, 5990);
    assert.deepEqual(edited.paymentMethods, ['CARD', 'PIX', 'PIX_AUTOMATICO']);
    assert.equal(edited.dunning.pixAutomaticoDaysBefore, 4);
    assert.deepEqual(edited.dunning.retryDays, [1, 3, 5, 7]);
    await page.getByRole('button', { name: 'Novo plano' }).click();
    await page.getByRole('form', { name: 'Novo plano' }).getByLabel('Nome do plano').waitFor();
    await page.getByRole('button', { name: 'Cancelar', exact: true }).click();
    await checkScreen(page, 'subscriptions-plans');
  });

  test('a subscriber made by API with the sandbox card: list with filters, its page, the clock, pause, resume, cancel', async () => {
    await page.getByRole('link', { name: 'Assinantes', exact: true }).click();
    await page.getByText('Nenhum assinante ainda.').waitFor();
    const sub = await call(run.ctx.app, 'POST', '/api/v1/subscriptions', {
      key: owner.key,
      body: {
        planId: state.planId,
        paymentMethod: 'CARD',
        client: { name: 'Maria Souza', email: 'maria@example.com', document: '52998224725' },
        card: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123' } } });
    assert.equal(sub.status, 201, sub.raw);
    assert.equal(sub.body.subscription.status, 'ACTIVE');
    state.subscriptionId = sub.body.subscription.id;

    await page.reload();
    const row = page.locator('.cards-list li', { hasText: 'Maria Souza' });
    await row.waitFor();
    assert.match(await row.innerText(), /Ativa/);
    assert.match(await row.innerText(), /Clube do café/);
    assert.match(await row.innerText(), /Próxima cobrança: \d{2}\/\d{2}\/\d{4}/);
    await checkScreen(page, 'subscriptions-subscribers');
    // Filters go to the API and into the address.
    await page.getByLabel('Situação').selectOption('CANCELLED');
    await page.waitForURL(/situacao=CANCELLED/);
    await page.getByText('Nenhuma assinatura com esses filtros.').waitFor();
    await page.getByLabel('Situação').selectOption('ACTIVE');
    await page.getByLabel('Plano').selectOption(state.planId);
    await row.waitFor();

    await row.getByRole('link', { name: 'Maria Souza' }).click();
    await page.waitForURL(new RegExp(`/dashboard/assinaturas/${state.subscriptionId}$`));
    const cycles = page.getByRole('region', { name: 'Cobranças da assinatura' }).locator('tbody tr');
    await cycles.first().waitFor();
    assert.equal(await cycles.count(), 1);
    assert.match(await cycles.first().innerText(), /R\$ 59,90/);
    assert.match(await cycles.first().innerText(), /Paga/);
    assert.match(await page.locator('.facts').innerText(), /visa final 4242|final 4242/i);
    await checkScreen(page, 'subscription');

    // The sandbox clock: a month later the card is charged again.
    await page.getByLabel('Avançar o relógio desta assinatura (dias)').fill('31');
    await page.getByRole('button', { name: 'Simular' }).click();
    await cycles.nth(1).waitFor();
    assert.equal(await cycles.count(), 2);
    assert.match(await cycles.first().innerText(), /Paga/);

    await page.getByRole('button', { name: 'Pausar' }).click();
    await page.locator('.page-header .badge', { hasText: 'Pausada' }).waitFor();
    await page.getByRole('button', { name: 'Retomar' }).click();
    await page.locator('.page-header .badge', { hasText: 'Ativa' }).waitFor();
    await page.getByRole('button', { name: 'Cancelar no fim do período' }).click();
    await page.locator('.facts', { hasText: 'no fim do período' }).waitFor();
    let api = await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${state.subscriptionId}`, { key: owner.key });
    assert.equal(api.body.subscription.cancelAtPeriodEnd, true);
    assert.equal(api.body.subscription.status, 'ACTIVE');
    await page.getByRole('button', { name: 'Cancelar agora' }).click();
    await page.locator('.page-header .badge', { hasText: 'Cancelada' }).waitFor();
    api = await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${state.subscriptionId}`, { key: owner.key });
    assert.equal(api.body.subscription.status, 'CANCELLED');
    await page.getByText('Esta assinatura terminou').waitFor();
    await checkScreen(page, 'subscription-cancelled');
  });

  test('metrics of the month: MRR, subscribers, churn, movements, and the MRR chart', async () => {
    // A second subscriber, active.
    const sub = await call(run.ctx.app, 'POST', '/api/v1/subscriptions', {
      key: owner.key,
      body: { planId: state.planId, paymentMethod: 'CARD', client: { name: 'João Lima', email: 'joao@example.com', document: '11144477735' }, card: { number: '4242424242424242', holderName: 'JOAO LIMA', expMonth: 12, expYear: 2030, cvv: '123' } } });
    assert.equal(sub.status, 201, sub.raw);
    const metrics = (await call(run.ctx.app, 'GET', '/api/v1/subscriptions/metrics', { key: owner.key })).body.metrics;
    await page.goto(`${run.base}/dashboard/assinaturas?aba=metricas`);
    const mrr = stat(page, 'MRR');
    await mrr.waitFor();
    // Metrics follow the wall clock: the cancelled subscription's clock was moved a month ahead by the
    // simulation, so its cancellation counts only when that day comes (docs/subscriptions.md).
    assert.ok(metrics.mrrCents >= 5990, `MRR ${metrics.mrrCents}`);
    assert.equal(await mrr.innerText(), brl(metrics.mrrCents));
    assert.equal(await stat(page, 'Assinantes ativos').innerText(), String(metrics.activeSubscribers));
    const net = page.getByRole('region', { name: 'Movimentação do MRR' }).getByRole('row', { name: /Variação líquida/ });
    assert.match(await net.innerText(), new RegExp(brl(metrics.movements.netCents).replace(/[$.]/g, '\\$&')));
    await page.locator('.chart-box canvas').waitFor();
    await page.getByText('Ver os números em tabela').click();
    const months = page.getByRole('region', { name: 'MRR por mês' }).locator('tbody tr');
    assert.equal(await months.count(), 6);
    assert.ok((await months.last().innerText()).includes(brl(metrics.mrrCents)));
    await checkScreen(page, 'subscriptions-metrics');
  });

  test('plan change from the subscriber\'s page: the preview in reais, an upgrade charged pro rata now, a downgrade at the period\'s end', async () => {
    state.premium = await newPlan('Clube do café premium', 8990, 'MONTHLY');
    const light = await newPlan('Clube do café leve', 2990, 'MONTHLY');
    await newPlan('Café da semana', 1990, 'WEEKLY');
    const sub = await call(run.ctx.app, 'POST', '/api/v1/subscriptions', {
      key: owner.key,
      body: { planId: state.planId, paymentMethod: 'CARD', client: { name: 'Rita Alves', email: 'rita@example.com', document: cpf() }, card: { number: '4242424242424242', holderName: 'RITA ALVES', expMonth: 12, expYear: 2030, cvv: '123' } } });
    assert.equal(sub.status, 201, sub.raw);
    const id = sub.body.subscription.id;
    await page.goto(`${run.base}/dashboard/assinaturas/${id}`);
    const change = page.getByRole('form', { name: 'Trocar de plano' });
    const select = change.getByLabel('Novo plano');
    await select.waitFor();
    // Only the other plans billed on the same cadence (the API's rule) are offered, cheapest first.
    const offered = await select.locator('option').allInnerTexts();
    assert.deepEqual(offered, ['Escolha…', 'Clube do café leve · R$ 29,90 por mês', 'Clube do café premium · R$ 89,90 por mês']);

    // Upgrade: the preview first (nothing changes), then the change with its prorated charge.
    await select.selectOption(state.premium.id);
    await change.getByRole('button', { name: 'Ver valores da troca' }).click();
    const preview = change.getByRole('status', { name: 'Valores da troca' });
    await preview.waitFor();
    const expected = (await call(run.ctx.app, 'POST', `/api/v1/subscriptions/${id}/change-plan`, { key: owner.key, body: { planId: state.premium.id, preview: true } })).body.change;
    assert.equal(expected.kind, 'UPGRADE');
    assert.ok(expected.prorationCents > 0 && expected.prorationCents <= 3000, `proration ${expected.prorationCents}`);
    const shown = await preview.innerText();
    assert.match(shown, /a troca vale agora/);
    assert.ok(shown.includes(`Cobrado agora: ${brl(expected.prorationCents)} (a diferença proporcional aos ${expected.remainingDays} de ${expected.periodDays} dias`), shown);
    assert.match(shown, /Depois: R\$ 89,90 por mês\./);
    assert.equal((await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${id}`, { key: owner.key })).body.subscription.planId, state.planId, 'the preview changes nothing');
    await checkScreen(page, 'subscription-plan-preview');
    await change.getByRole('button', { name: 'Confirmar a troca' }).click();
    await page.getByText(`Plano trocado para “Clube do café premium”. Cobrança proporcional de ${brl(expected.prorationCents)} (paga).`).waitFor();
    assert.match(await page.locator('.facts').innerText(), /Clube do café premium · R\$ 89,90 por mês/);
    const cycles = page.getByRole('region', { name: 'Cobranças da assinatura' }).locator('tbody tr');
    assert.equal(await cycles.count(), 2);
    assert.match(await cycles.first().innerText(), /ajuste de plano/);
    assert.ok((await cycles.first().innerText()).includes(brl(expected.prorationCents)));
    assert.match(await cycles.first().innerText(), /Paga/);
    const after = (await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${id}`, { key: owner.key })).body.subscription;
    assert.equal(after.planId, state.premium.id);
    const proration = after.cycles.find((c: { kind: string }) => c.kind === 'PRORATION');
    assert.equal(proration.amountCents, expected.prorationCents);
    const tx = (await call(run.ctx.app, 'GET', `/api/v1/transactions/${proration.transactionId}`, { key: owner.key })).body.transaction;
    assert.equal(tx.status, 'PAID');
    assert.equal(tx.amountCents, expected.prorationCents);
    await assertLedgerBalanced(run.ctx.app.deps.db);
    await checkScreen(page, 'subscription-plan-changed');

    // Downgrade: said to take effect at the period's end, nothing charged.
    await select.selectOption(light.id);
    await change.getByRole('button', { name: 'Ver valores da troca' }).click();
    const down = await preview.innerText();
    assert.match(down, /Plano mais barato: a troca vale no fim do período, em \d{2}\/\d{2}\/\d{4}\./);
    assert.match(down, /Nada é cobrado agora/);
    assert.match(down, /Depois: R\$ 29,90 por mês\./);
    await change.getByRole('button', { name: 'Confirmar a troca' }).click();
    await page.getByText(/^Troca agendada: a partir de \d{2}\/\d{2}\/\d{4} o plano passa a ser “Clube do café leve”\.$/).waitFor();
    assert.match(await page.locator('.facts').innerText(), /Troca de plano\s+para “Clube do café leve” \(R\$ 29,90\) em \d{2}\/\d{2}\/\d{4}/);
    const scheduled = (await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${id}`, { key: owner.key })).body.subscription;
    assert.equal(scheduled.planId, state.premium.id);
    assert.equal(scheduled.pendingPlanId, light.id);
    assert.equal(scheduled.cycles.length, 2, 'nothing charged for a downgrade');
  });

  test('(development) Pix Automático: the payer\'s answers from the sandbox buttons; a rejection, a refused upgrade on the plan field, a debit refused for lack of funds', async () => {
    const subscribe = async (name: string) => {
      const r = await call(run.ctx.app, 'POST', '/api/v1/subscriptions', { key: owner.key, body: { planId: state.planId, paymentMethod: 'PIX_AUTOMATICO', client: { name, email: uniqueEmail('pagador'), document: cpf() } } });
      assert.equal(r.status, 201, r.raw);
      assert.equal(r.body.subscription.status, 'INCOMPLETE');
      assert.equal(r.body.subscription.pixAutomatico.status, 'CRIADA');
      return r.body.subscription;
    };
    const rejecting = await subscribe('Paulo Reis');
    await page.goto(`${run.base}/dashboard/assinaturas/${rejecting.id}`);
    await page.locator('.facts', { hasText: 'Aguardando autorização' }).waitFor();
    const sandbox = page.getByRole('group', { name: 'Pix Automático: o que o pagador e o banco fazem' });
    for (const name of ['Pagador aprova', 'Pagador recusa', 'Pagador cancela']) await sandbox.getByRole('button', { name }).waitFor();
    assert.equal(await sandbox.getByRole('button', { name: 'Débito sem saldo' }).count(), 0, 'no debit is pending yet');
    await checkScreen(page, 'subscription-pix-automatico');
    await sandbox.getByRole('button', { name: 'Pagador recusa' }).click();
    await page.locator('.page-header .badge', { hasText: 'Expirada' }).waitFor();
    const facts = await page.locator('.facts').innerText();
    assert.match(facts, /Pix Automático\s+Recusada/);
    assert.match(facts, /Por que terminou\s+o pagador recusou a autorização do Pix Automático/);
    assert.equal(await sandbox.count(), 0, 'an ended subscription has nothing left to simulate');
    const rejected = (await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${rejecting.id}`, { key: owner.key })).body.subscription;
    assert.equal(rejected.status, 'EXPIRED');
    assert.equal(rejected.cancelReason, 'PIX_AUTOMATICO_REJECTED');
    assert.equal(rejected.pixAutomatico.status, 'REJEITADA');
    await checkScreen(page, 'subscription-pix-automatico-rejected');

    // Another subscriber pays the first charge and approves: an upgrade is refused, in Portuguese, on the plan field.
    const approving = await subscribe('Lia Campos');
    const paid = await call(run.ctx.app, 'POST', `/api/v1/transactions/${approving.cycles[0].transactionId}/simulate`, { key: owner.key, body: { outcome: 'PAID' } });
    assert.equal(paid.status, 200, paid.raw);
    await page.goto(`${run.base}/dashboard/assinaturas/${approving.id}`);
    await sandbox.getByRole('button', { name: 'Pagador aprova' }).click();
    await page.locator('.facts', { hasText: 'Autorizada' }).waitFor();
    await page.locator('.page-header .badge', { hasText: 'Ativa' }).waitFor();
    const change = page.getByRole('form', { name: 'Trocar de plano' });
    await change.getByLabel('Novo plano').selectOption(state.premium.id);
    await change.getByRole('button', { name: 'Ver valores da troca' }).click();
    await change.locator('.field-invalid .field-message').waitFor();
    assert.equal(await change.locator('.field-invalid .field-message').innerText(), 'No Pix Automático não dá para cobrar a diferença agora: troque para um plano mais barato, ou cancele no fim do período e assine o novo plano.');
    assert.equal(await change.getByLabel('Novo plano').getAttribute('aria-invalid'), 'true');
    assert.equal((await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${approving.id}`, { key: owner.key })).body.subscription.planId, state.planId);
    await checkScreen(page, 'subscription-pix-automatico-upgrade-refused');

    // A month on, the next debit is scheduled (4 days ahead, the plan's setting); the payer's bank refuses it for lack of funds.
    assert.equal(await sandbox.getByRole('button', { name: 'Débito sem saldo' }).count(), 0, 'no debit pending yet');
    await page.getByLabel('Avançar o relógio desta assinatura (dias)').fill('27');
    await page.getByRole('button', { name: 'Simular', exact: true }).click();
    await sandbox.getByRole('button', { name: 'Débito sem saldo' }).click();
    await page.locator('.page-header .badge', { hasText: 'Em atraso' }).waitFor();
    const cycles = page.getByRole('region', { name: 'Cobranças da assinatura' }).locator('tbody tr');
    assert.match(await cycles.first().innerText(), /saldo insuficiente/);
    const failed = (await call(run.ctx.app, 'GET', `/api/v1/subscriptions/${approving.id}`, { key: owner.key })).body.subscription;
    assert.equal(failed.status, 'PAST_DUE');
    assert.equal(failed.cycles[0].failureReason, 'INSUFFICIENT_FUNDS');
    await checkScreen(page, 'subscription-pix-automatico-debit-failed');
  });

  test('a subscription with a coupon: its charge shows what was charged, and the discount beside it', async () => {
    const coupon = await call(run.ctx.app, 'POST', '/api/v1/coupons', { key: owner.key, body: { code: 'ASSINA10', discountType: 'PERCENTAGE', discountValue: 10 } });
    assert.equal(coupon.status, 201, coupon.raw);
    const sub = await call(run.ctx.app, 'POST', '/api/v1/subscriptions', {
      key: owner.key,
      body: {
        planId: state.planId,
        paymentMethod: 'CARD',
        couponCode: 'ASSINA10',
        client: { name: 'Clara Nunes', email: 'clara@example.com', document: '39053344705' },
        card: { number: '4242424242424242', holderName: 'CLARA NUNES', expMonth: 12, expYear: 2030, cvv: '123' } } });
    assert.equal(sub.status, 201, sub.raw);
    const cycle = sub.body.subscription.cycles[0];
    assert.ok(cycle.discountCents > 0, sub.raw);
    await page.goto(`${run.base}/dashboard/assinaturas/${sub.body.subscription.id}`);
    const row = page.getByRole('region', { name: 'Cobranças da assinatura' }).locator('tbody tr').first();
    await row.waitFor();
    const text = await row.innerText();
    assert.match(text, new RegExp(brl(cycle.amountCents).replace(/[$.]/g, '\\$&')), text); // the amount charged, as the API and the sale say
    assert.match(text, new RegExp(`desconto ${brl(cycle.discountCents).replace(/[$.]/g, '\\$&')}`), text);
  });
});

function brl(cents: number) {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100).replace(/\u00a0/g, ' ');
}
