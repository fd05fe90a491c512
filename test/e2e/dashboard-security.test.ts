// Segurança in Chromium: a merchant turns on two-factor authentication (QR code, first code, the
// recovery codes shown once), sees its sessions, then logs in with the code; "Esqueci minha senha"
// and the reset page; the second-factor prompt of a production API key. Every screen: axe-core,
// a 390 px phone, screenshots (test-output/dashboard/). Skips when Chromium is absent.
import assert from 'node:assert/strict';
import { approveKyc, call, merchant, totpCode, type Merchant } from '../helpers.ts';
import { join } from 'node:path';
import { after, before, DESKTOP, describe, PHONE, SHOTS, skipBrowser, test } from './browser.ts';
import { confirmSecondFactor, signIn, startDashboard, type DashboardRun } from './dashboard-kit.ts';

let run: DashboardRun;
let m: Merchant;
/** The authenticator secret the merchant enrols with in the first test. */
let secret = '';
const errors = { page: [] as string[], csp: [] as string[] };

describe('Segurança in Chromium', { skip: skipBrowser }, () => {
  before(async () => {
    run = await startDashboard(errors);
    m = await merchant(run.ctx.app);
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(errors, { page: [], csp: [] });
  });

  test('enrol 2FA (QR, confirm, recovery codes once), see the sessions, log out and log in with the code', async () => {
    const page = run.page;
    await signIn(run, m);
    await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Segurança' }).click();
    await page.getByRole('button', { name: 'Ativar verificação em duas etapas' }).click();
    await page.locator('img.qr').waitFor();
    assert.match((await page.locator('img.qr').getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    secret = (await page.locator('p', { hasText: 'Digite a chave' }).locator('.mono').innerText()).trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await run.check('security-enrol');
    await page.getByLabel('Código do aplicativo').fill(totpCode(secret, Date.now() - 30_000));
    await page.getByRole('button', { name: 'Confirmar e ativar' }).click();
    const codes = page.getByRole('list', { name: 'Códigos de recuperação' });
    await codes.waitFor();
    assert.equal(await codes.locator('li').count(), 10);
    await run.check('security-recovery-codes');
    await page.getByRole('button', { name: 'Já guardei' }).click();
    await page.getByText('Códigos de recuperação restantes: 10.').waitFor();
    await page.locator('.sessions li', { hasText: 'esta sessão' }).waitFor();
    await run.check('security-on');

    await page.getByRole('button', { name: 'Sair' }).first().click();
    await page.getByLabel('E-mail').waitFor();
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Verificação em duas etapas' }).waitFor();
    await page.getByLabel('Código').fill('000000');
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByText('Código incorreto ou já usado').waitFor();
    await run.check('login-second-step');
    await page.getByLabel('Código').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByRole('heading', { name: 'Início' }).waitFor();
  });

  test('a production API key asks for the code in a prompt and goes through with it', async () => {
    const page = run.page;
    await approveKyc(run.ctx.app, m.id);
    await page.goto(`${run.base}/dashboard/vendas`);
    // Production lists are read with the session's production API key: making it asks for the code.
    await page.getByRole('radio', { name: 'Produção' }).click();
    const prompt = page.getByRole('dialog', { name: 'Confirme que é você' });
    await prompt.waitFor();
    // The screen behind still waits for the key (its spinner): the prompt is photographed as it stands.
    for (const [label, size] of [['desktop', DESKTOP], ['390', PHONE]] as const) {
      await page.setViewportSize(size);
      await page.screenshot({ path: join(SHOTS, `second-factor-prompt-${label}.png`) });
    }
    await confirmSecondFactor(run, { id: m.id, totpSecret: secret });
    const keys = await call(run.ctx.app, 'GET', '/api/credentials', { token: m.token });
    assert.ok(keys.body.credentials.some((c: { environment: string }) => c.environment === 'PRODUCTION'));
  });

  test('Esqueci minha senha and the reset page', async () => {
    const { page } = await run.newSession();
    await page.goto(`${run.base}/dashboard/entrar`);
    await page.getByRole('link', { name: 'Esqueci minha senha' }).click();
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByRole('button', { name: 'Enviar link' }).click();
    await page.getByText('Se houver uma conta com este e-mail').waitFor();
    await run.check('password-forgot', page);
    const mail = await run.ctx.app.deps.db.selectFrom('emails').select('text_body').where('user_id', '=', m.id).where('template', '=', 'password_reset').executeTakeFirstOrThrow();
    const link = /http\S+redefinir-senha\S+/.exec(mail.text_body)![0].replace('http://localhost:3000', run.base);
    await page.goto(link);
    await page.getByLabel('Nova senha').fill('uma senha nova e boa');
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('Senha trocada.').waitFor();
    await run.check('password-reset', page);
    assert.equal((await call(run.ctx.app, 'GET', '/api/auth/me', { token: m.token })).status, 401);
  });
});
