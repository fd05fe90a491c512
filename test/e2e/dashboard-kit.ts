// What the dashboard's browser tests start from: the dashboard built, a local HTTPS webhook receiver,
// the app on a loopback port (webhooks to the receiver allowed, the dispatcher running), Chromium in
// pt-BR and São Paulo time at the desktop size, one page whose script errors and CSP violations are
// collected and whose confirmations are answered yes.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildDashboard } from '../../web/dashboard/build.ts';
import type { TestContext } from '../helpers.ts';
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

/** Signs `who` in on the run's page (or `page`) and waits for Início. */
export async function signIn(run: Pick<DashboardRun, 'base' | 'page'>, who: { email: string; password: string }, page: Page = run.page): Promise<void> {
  await page.goto(`${run.base}/dashboard/entrar`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Senha').fill(who.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('heading', { name: 'Início' }).waitFor();
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

