// The merchant dashboard in Chromium, the rest of a new merchant's first day, signed in from the
// start (account and key made by the API): Catálogo (product, payment link with its /pay page,
// coupon, client), Dinheiro (statement, withdrawal, advances, fees), Conta (KYC upload, password
// change), the environment switch (production needs approved KYC), keyboard use, log out and in.
// Every screen checked with axe-core at 390 px and desktop; screenshots in test-output/dashboard/.
import assert from 'node:assert/strict';
import { describe, test } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import { call } from '../helpers.ts';
import { confirmSecondFactor, operatorSignsIn } from './dashboard-kit.ts';
import { skipBrowser } from './browser.ts';
import { account, base, checkScreen, context, ctx, go, page, run, story, useDashboardStory } from './dashboard-story.ts';

describe('merchant dashboard in Chromium', { skip: skipBrowser }, () => {
  useDashboardStory({ signedIn: true });

  test('Catálogo: product, payment link (copy, QR code, its /pay page), coupon and client, with field errors', async () => {
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Catálogo' }).click();
    await page.getByRole('heading', { name: 'Novo produto' }).waitFor();
    await page.getByText('Nenhum produto ainda.').waitFor();
    await checkScreen('catalog-products-empty');
    // Sent empty: every required field says so at once, not one per submit.
    await page.getByRole('button', { name: 'Criar produto' }).click();
    for (const label of ['Nome', 'Preço (R$)']) await page.locator('.field-invalid', { hasText: label }).waitFor();
    assert.equal(await page.getByLabel('Nome', { exact: true }).getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Nome', { exact: true }).fill('Vaso grande');
    await page.getByLabel('Preço (R$)').fill('79,9x');
    await page.getByRole('button', { name: 'Criar produto' }).click();
    assert.equal(await page.getByLabel('Preço (R$)').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Preço (R$)').fill('1.079,90');
    await page.getByRole('button', { name: 'Criar produto' }).click();
    await page.locator('.cards-list li', { hasText: 'Vaso grande' }).getByText('R$ 1.079,90').waitFor();
    await checkScreen('catalog-products');

    await page.getByRole('link', { name: 'Links de pagamento' }).click();
    await page.getByLabel('Título').fill('Oficina de cerâmica');
    await page.getByLabel('Valor (R$)').fill('150,00');
    await page.getByRole('button', { name: 'Criar link' }).click();
    const item = page.locator('.cards-list li', { hasText: 'Oficina de cerâmica' });
    await item.waitFor();
    const url = (await item.locator('.mono a').innerText()).trim();
    assert.match(url, new RegExp(`^${base}/pay/`));
    await item.getByRole('button', { name: 'Copiar link' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
    await item.getByRole('button', { name: 'QR code' }).click();
    await item.locator('img.qr').waitFor();
    assert.match((await item.locator('img.qr').getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    await checkScreen('catalog-links');
    const pay = await context.newPage();
    await pay.goto(url);
    await pay.getByRole('heading', { name: 'Oficina de cerâmica' }).waitFor();
    assert.match(await pay.locator('body').innerText(), /R\$\s150,00/);
    // A customer pays the link by PIX (the sales' CPF: one client); the sale shows in Vendas below.
    await pay.fill('#name', 'Helena Prado');
    await pay.fill('#email', 'helena@example.com');
    await pay.fill('#document', '52998224725');
    await Promise.all([pay.waitForURL(/\/checkout\/[0-9a-f-]{36}$/), pay.click('#submit')]);
    await pay.waitForSelector('img.qr');
    const linkSale = pay.url().split('/').pop()!;
    assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${linkSale}/simulate`, { key: story.apiKey, body: { outcome: 'PAID' } })).status, 200);
    await pay.waitForSelector('#status:text("Pagamento confirmado")', { timeout: 15_000 });
    await pay.close();

    await page.getByRole('link', { name: 'Cupons' }).click();
    await page.getByLabel('Código').fill('bemvindo10');
    await page.getByLabel('Desconto (%)').fill('10');
    await page.getByRole('button', { name: 'Criar cupom' }).click();
    await page.locator('.cards-list li', { hasText: 'BEMVINDO10' }).getByText(/10% de desconto/).waitFor();
    await checkScreen('catalog-coupons');

    await page.getByRole('link', { name: 'Clientes' }).click();
    await page.getByRole('heading', { name: 'Novo cliente' }).waitFor();
    await page.getByLabel('Nome', { exact: true }).fill('Eva Souza');
    await page.getByLabel('E-mail').fill('eva@example.com');
    await page.getByLabel('CPF ou CNPJ').fill('111.111.111-11');
    await page.getByRole('button', { name: 'Cadastrar cliente' }).click();
    await page.locator('.field-invalid', { hasText: 'CPF ou CNPJ' }).waitFor();
    assert.equal(await page.getByLabel('CPF ou CNPJ').getAttribute('aria-invalid'), 'true');
    await checkScreen('catalog-clients-error');
    await page.getByLabel('CPF ou CNPJ').fill('390.533.447-05');
    await page.getByRole('button', { name: 'Cadastrar cliente' }).click();
    await page.locator('.cards-list li', { hasText: 'Eva Souza' }).waitFor();
    // The sales' client (one CPF for all of them) is listed too; "Ver vendas" opens Vendas filtered by it.
    await page.locator('.cards-list li', { hasNotText: 'Eva Souza' }).getByRole('link', { name: 'Ver vendas' }).click();
    await page.waitForURL(/\/dashboard\/vendas\?cliente=/);
    await page.locator('tbody tr', { hasText: 'Beatriz Nogueira' }).waitFor();
    await page.locator('tbody tr', { hasText: 'Helena Prado' }).getByText('Paga').waitFor(); // the link's sale, paid on /pay
  });

  test('Dinheiro: statement, a withdrawal requested then cancelled, advances, fees', async () => {
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Dinheiro' }).click();
    await page.getByRole('region', { name: 'Extrato' }).waitFor();
    const statement = await page.getByRole('region', { name: 'Extrato' }).innerText();
    assert.match(statement, /Venda\s+Pagamento \w+ \(PIX\)\s+Disponível\s+R\$ 1\.222,34/, statement); // R$ 1.234,56 less the PIX fee
    assert.match(statement, /Estorno\s+Estorno de \w+/);
    await checkScreen('money-statement');
    await page.getByRole('link', { name: 'Saques' }).click();
    await page.getByLabel('Valor (R$)').fill('5.000,00');
    await page.getByRole('textbox', { name: 'Chave PIX' }).fill('52998224725'); // the radio "Chave PIX" (to a key, not an account) is chosen
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.locator('.form-error', { hasText: 'Saldo insuficiente' }).waitFor();
    assert.equal(await page.getByLabel('Valor (R$)').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Valor (R$)').fill('10,00');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    const w = page.locator('.cards-list li', { hasText: 'R$ 10,00' });
    await w.getByText('Pendente').waitFor();
    await w.getByRole('list', { name: 'Andamento do saque' }).waitFor();
    await checkScreen('money-withdrawals');
    await w.getByRole('button', { name: 'Cancelar' }).click();
    await w.getByText('Cancelada').waitFor();
    await page.getByRole('link', { name: 'Antecipações' }).click();
    await page.getByText('Nenhum recebível de cartão para antecipar agora').waitFor();
    await checkScreen('money-advances');
    await page.getByRole('link', { name: 'Taxas' }).click();
    await page.getByText('0,99% por venda').waitFor();
    await checkScreen('money-fees');
  });

  test('Conta: KYC with a document uploaded (status shown), then a password change', async () => {
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Conta', exact: true }).click();
    await page.getByRole('heading', { name: /Verificação da conta/ }).waitFor();
    await checkScreen('account');
    await page.getByLabel('Nome completo').fill('Aurora Campos');
    await page.getByLabel('CPF', { exact: true }).fill('529.982.247-25');
    await page.getByLabel('Data de nascimento').fill('31021990');
    assert.equal(await page.getByLabel('Data de nascimento').inputValue(), '31/02/1990');
    await page.locator('.field-message', { hasText: 'Data inválida' }).waitFor();
    await page.getByLabel('Data de nascimento').fill('15031990');
    await page.getByLabel('CEP').fill('01001-000');
    await page.getByLabel('Rua').fill('Praça da Sé');
    await page.getByLabel('Número').fill('1');
    await page.getByLabel('Bairro').fill('Sé');
    await page.getByLabel('Cidade').fill('São Paulo');
    await page.getByLabel('UF').fill('sp');
    // A real PNG (the smallest valid one): its bytes must match its declared type.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await page.getByLabel('Documento de identidade (frente)').setInputFiles({ name: 'rg-frente.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: 'Enviar para análise' }).click();
    await page.locator('.badge', { hasText: 'Em análise' }).waitFor();
    const kyc = await call(ctx.app, 'GET', '/api/kyc', { token: (await page.evaluate(() => localStorage.getItem('cofre.token')))! });
    assert.equal(kyc.body.status, 'SUBMITTED');
    assert.equal(kyc.body.kyc.birthDate, '1990-03-15');
    assert.equal(kyc.body.kyc.documents.length, 1);

    await page.getByLabel('Senha atual').fill('errada-errada');
    await page.getByLabel('Nova senha').fill('aurora-nova-senha-2026');
    await page.getByRole('button', { name: 'Trocar senha' }).click();
    await page.locator('.field-invalid', { hasText: 'Senha atual' }).waitFor();
    await page.getByLabel('Senha atual').fill(account.password);
    await page.getByRole('button', { name: 'Trocar senha' }).click();
    await page.getByText('Senha trocada.').waitFor();
    account.password = 'aurora-nova-senha-2026';
    await checkScreen('account-submitted');
    // Still logged in with the new token.
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Vendas' }).click();
    await page.locator('tbody tr').first().waitFor();
  });

  test('the environment switch: production needs approved KYC, then shows production data only, and no sandbox mark', async () => {
    await go('/vendas');
    await page.locator('tbody tr').first().waitFor();
    await page.getByRole('radio', { name: 'Produção' }).click();
    // Production needs approved KYC: the KYC sent from Conta is under review, and the screens that
    // production keys serve say so instead of showing what would be refused (403).
    const closed = page.getByRole('status').filter({ hasText: 'Produção ainda não liberada' });
    await closed.getByText(/está em análise/).waitFor();
    assert.equal(await closed.getByRole('link', { name: 'Ver meu cadastro' }).getAttribute('href'), '/dashboard/conta');
    await checkScreen('production-closed');
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Desenvolvedores' }).click();
    await page.getByText(/Chaves de produção são liberadas quando seu cadastro/).waitFor();
    assert.deepEqual(await page.getByLabel('Ambiente').locator('option').allTextContents(), ['Desenvolvimento (sandbox)']);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await closed.waitFor();
    // An operator approves the KYC sent from Conta, in Operação (another browser session).
    const { context: opContext, page: op } = await run.newSession();
    try {
      await operatorSignsIn(run, op);
      await op.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Operação' }).click();
      const submission = op.locator('.cards-list li', { hasText: 'Aurora Campos' });
      await submission.getByRole('button', { name: /Aurora Campos/ }).click();
      await submission.getByText('rg-frente.png').waitFor();
      const [file] = await Promise.all([op.waitForEvent('download'), submission.getByRole('button', { name: 'Baixar' }).click()]);
      assert.equal(file.suggestedFilename(), 'rg-frente.png');
      await submission.getByRole('button', { name: 'Rejeitar' }).click();
      await submission.locator('.field-invalid', { hasText: 'Motivo' }).waitFor(); // a rejection needs a reason
        await checkScreen('operations-kyc', op);
      await submission.getByRole('button', { name: 'Aprovar' }).click();
      await op.getByText('Nenhum cadastro aguardando análise.').waitFor();
    } finally {
      await opContext.close();
    }
    await go('/vendas');
    // The session's production key is made now: a money-moving action, so the second factor is asked.
    await confirmSecondFactor(run, { id: story.userId });
    await page.getByText('Você ainda não tem vendas neste ambiente.').waitFor();
    assert.equal(await page.locator('.sandbox-bar').count(), 0);
    await checkScreen('sales-production');
    await page.reload();
    assert.equal(await page.getByRole('radio', { name: 'Produção' }).getAttribute('aria-checked'), 'true', 'the choice survives a reload');
    await page.getByRole('radio', { name: 'Desenvolvimento' }).click();
    await page.locator('tbody tr').first().waitFor();
  });

  test('keyboard: the skip link, the menu and a form work without a mouse', async () => {
    await go('/vendas');
    await page.locator('tbody tr').first().waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Pular para o conteúdo');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'conteudo');
    // Tab to the menu's "Desenvolvedores" and open it with Enter.
    const menuLink = page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Desenvolvedores' });
    await menuLink.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Nova chave de API' }).waitFor();
  });

  test('log out revokes the token; a wrong password is refused; logging in again works', async () => {
    const token = await page.evaluate(() => localStorage.getItem('cofre.token'));
    assert.ok(token);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/dashboard\/entrar$/);
    assert.equal((await call(ctx.app, 'GET', '/api/auth/me', { token: token! })).status, 401, 'the token is revoked');
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Senha').fill('senha-errada-123');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.locator('.form-error').waitFor();
    await checkScreen('login-error');
    await page.getByLabel('Senha').fill(account.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Início' }).waitFor();
  });
});
