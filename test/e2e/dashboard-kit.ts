// What the dashboard's browser tests start from: the dashboard built, a local HTTPS webhook receiver,
// the app on a loopback port (webhooks to the receiver allowed, the dispatcher running), Chromium in
// pt-BR and São Paulo time at the desktop size, one page whose script errors and CSP violations are
// collected and whose confirmations are answered yes.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildDashboard } from '../../web/dashboard/build.ts';
import { createUser } from '../../src/modules/auth/service.ts';
import { call, enrolMfa, lastEmailedCode, totpCode, uniqueEmail, type TestContext } from '../helpers.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';
import { checkScreen, DESKTOP, launchBrowser, servedApp } from './browser.ts';

export interface DashboardRun {
  ctx: TestContext;
  base: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  receiver: Receiver;
  /** A second browser session (another user), in pt-BR, its script errors collected too. */
  newSession(): Promise<{ context: BrowserContext; page: Page }>;
  /** checkScreen (browser.ts) of this run's page, or of `on`. */
  check(name: string, on?: Page): Promise<void>;
  close(): Promise<void>;
}

/**
 * Signs `who` in on the run's page (or `page`) and waits for Início; with `totpSecret`, through the
 * login's second step (the authenticator app's current code).
 */
export async function signIn(run: Pick<DashboardRun, 'base' | 'page'>, who: { email: string; password: string; totpSecret?: string }, page: Page = run.page): Promise<void> {
  await page.goto(`${run.base}/dashboard/entrar`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Senha').fill(who.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  if (who.totpSecret) {
    await page.getByRole('heading', { name: 'Verificação em duas etapas' }).waitFor();
    await page.getByLabel('Código').fill(totpCode(who.totpSecret));
    await page.getByRole('button', { name: 'Verificar' }).click();
  }
  await page.getByRole('heading', { name: 'Início' }).waitFor();
}

/**
 * An operator (ADMIN) signed in on `page`: made in the database as `cli admin create` does, with
 * two-factor authentication turned on through the API (operators cannot act without it), then
 * through both steps of the login form.
 */
export async function operatorSignsIn(run: Pick<DashboardRun, 'base' | 'page' | 'ctx'>, page: Page): Promise<{ id: string; email: string; token: string }> {
  const who = { email: uniqueEmail('operadora'), password: 'operadora-cofre-2026' };
  const user = await createUser(run.ctx.database.db, { name: 'Olga Operadora', email: who.email, password: who.password, role: 'ADMIN' });
  const login = await call(run.ctx.app, 'POST', '/api/auth/login', { body: who });
  const { secret } = await enrolMfa(run.ctx.app, login.body.token);
  await signIn(run, { ...who, totpSecret: secret }, page);
  return { id: user.id, email: who.email, token: login.body.token };
}

/**
 * Answers the "Confirme que é você" prompt of a money-moving action for `userId` (two-factor
 * authentication off): asks for the e-mailed code and types it, as read from the outbox.
 */
export async function confirmSecondFactor(run: Pick<DashboardRun, 'page' | 'ctx'>, userId: string, page: Page = run.page): Promise<void> {
  const prompt = page.getByRole('dialog', { name: 'Confirme que é você' });
  await prompt.getByRole('button', { name: 'Enviar código por e-mail' }).click();
  await prompt.getByText('Código enviado.').waitFor();
  await prompt.getByLabel('Código').fill(await lastEmailedCode(run.ctx.app, userId));
  await prompt.getByRole('button', { name: 'Confirmar' }).click();
  await prompt.waitFor({ state: 'detached' });
}

/** Switches the dashboard to Produção, which makes the session's production key: the second factor is asked. */
export async function toProduction(run: Pick<DashboardRun, 'page' | 'ctx'>, userId: string, page: Page = run.page): Promise<void> {
  await page.getByRole('radio', { name: 'Produção' }).click();
  await confirmSecondFactor(run, userId, page);
}

/** `env`: the app's own settings on top of the kit's (a payout provider, review limits...). */
export async function startDashboard(errors: { page: string[]; csp: string[] }, opts: { env?: Record<string, string> } = {}): Promise<DashboardRun> {
  await buildDashboard();
  const receiver = await startReceiver();
  // Automatic retries an hour away: a delivery refused in a test is retried by the test's own
  // "Reenviar agora", never by the 5 s default racing it on a slow machine.
  const { ctx, base } = await servedApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: receiver.certFile, WEBHOOK_RETRY_SCHEDULE_MS: '3600000', ...opts.env } });
  await ctx.app.deps.webhooks.dispatcher.start();
  const browser = await launchBrowser();
  const newSession = async () => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    page.on('pageerror', (err) => errors.page.push(err.message));
    page.on('dialog', (d) => void d.accept()); // confirmations (revoke, cancel) are answered yes
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content.Security.Policy/i.test(msg.text())) errors.csp.push(msg.text());
    });
    return { context, page };
  };
  const { context, page } = await newSession();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  return {
    ctx,
    base,
    browser,
    context,
    page,
    receiver,
    newSession,
    check: (name, on) => checkScreen(on ?? page, name),
    async close() {
      await browser.close();
      await ctx.close();
      await receiver.close();
    },
  };
}

