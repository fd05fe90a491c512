// What the dashboard's browser tests start from: the dashboard built, a local HTTPS webhook receiver,
// the app on a loopback port (webhooks to the receiver allowed, the dispatcher running), Chromium in
// pt-BR and São Paulo time at the desktop size, one page whose script errors and CSP violations are
// collected and whose confirmations are answered yes; and how a field's error is read.
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { buildDashboard } from '../../web/dashboard/build.ts';
import { STEP_SECONDS, stepAt } from '../../src/modules/auth/totp.ts';
import { call, lastEmailedCode, type Merchant, operator, totpCode, type TestContext } from '../helpers.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';
import { after, before, checkScreen, DESKTOP, launchBrowser, servedApp } from './browser.ts';

const STEP_MS = STEP_SECONDS * 1000;

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
 * The authenticator app's code for `userId` a step the server has not taken yet: each 30-second
 * step's code works once (replay), so a sign-in and a prompt within one step need the next one,
 * accepted a step early (clock drift); waits when even that is ahead.
 */
async function unusedTotpCode(ctx: TestContext, userId: string, secret: string): Promise<string> {
  const factor = await ctx.app.deps.db.selectFrom('totp_factors').select('last_step').where('user_id', '=', userId).executeTakeFirstOrThrow();
  const step = Math.max(stepAt(Date.now()), factor.last_step === null ? 0 : Number(factor.last_step) + 1);
  const early = (step - 1) * STEP_MS - Date.now();
  if (early > 0) await new Promise((r) => setTimeout(r, early + 50));
  return totpCode(secret, step * STEP_MS);
}

/**
 * Signs `who` in on the run's page (or `page`) and waits for Início; with `totpSecret` (two-factor
 * authentication on), through the login's second step with the authenticator app's code.
 */
export async function signIn(run: Pick<DashboardRun, 'base' | 'page' | 'ctx'>, who: { email: string; password: string; totpSecret?: string }, page: Page = run.page): Promise<void> {
  await page.goto(`${run.base}/dashboard/entrar`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Senha').fill(who.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  if (who.totpSecret) {
    await page.getByRole('heading', { name: 'Verificação em duas etapas' }).waitFor();
    const user = await run.ctx.app.deps.db.selectFrom('users').select('id').where('email', '=', who.email).executeTakeFirstOrThrow();
    await page.getByLabel('Código').fill(await unusedTotpCode(run.ctx, user.id, who.totpSecret));
    await page.getByRole('button', { name: 'Verificar' }).click();
  }
  await page.getByRole('heading', { name: 'Início' }).waitFor();
}

/**
 * An operator (ADMIN) signed in on `page`: made as `cli admin create` does, with two-factor
 * authentication turned on through the API (operators cannot act without it, helpers.ts operator()),
 * then through both steps of the login form.
 */
/** A merchant registered through the API with a development key, then signed in on the dashboard: its id, key and the whole merchant. */
export async function registerAndSignIn(run: Pick<DashboardRun, 'base' | 'page' | 'ctx'>, account: { email: string; password: string; name: string }): Promise<{ userId: string; apiKey: string; merchant: Merchant }> {
  const merchant = await namedMerchant(run.ctx, account);
  await signIn(run, account);
  return { userId: merchant.id, apiKey: merchant.devKey, merchant };
}

/** A merchant registered through the API with a development key (every permission), not signed in. */
export async function namedMerchant(ctx: TestContext, account: { email: string; password: string; name: string }): Promise<Merchant> {
  const reg = await call(ctx.app, 'POST', '/api/auth/register', { body: account });
  assert.equal(reg.status, 201, reg.raw);
  const key = await call(ctx.app, 'POST', '/api/credentials', { token: reg.body.token, body: { name: 'Loja', environment: 'DEVELOPMENT' } });
  assert.equal(key.status, 201, key.raw);
  return { id: reg.body.user.id, email: account.email, password: account.password, token: reg.body.token, devKey: key.body.key };
}

/**
 * A suite's dashboard with `account` registered and signed in (a development key too), closed after
 * the suite, which must have had no script error and no Content-Security-Policy violation.
 */
export function useMerchantDashboard(account: { email: string; password: string; name: string }): { run: DashboardRun; apiKey: string; userId: string; merchant: Merchant } {
  const errors = { page: [] as string[], csp: [] as string[] };
  const state = {} as { run: DashboardRun; apiKey: string; userId: string; merchant: Merchant };
  before(async () => {
    state.run = await startDashboard(errors);
    Object.assign(state, await registerAndSignIn(state.run, account));
  });
  after(async () => {
    await state.run?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });
  return state;
}

export async function operatorSignsIn(run: Pick<DashboardRun, 'base' | 'page' | 'ctx'>, page: Page): Promise<Awaited<ReturnType<typeof operator>>> {
  const op = await operator(run.ctx.app, 'Olga Operadora');
  await signIn(run, { ...op, totpSecret: op.secret }, page);
  return op;
}

/**
 * Answers the "Confirme que é você" prompt of a money-moving action as user `who.id` would: with
 * `totpSecret` (two-factor authentication on), the authenticator app's code; otherwise it asks for
 * the e-mailed code and types it as read from the outbox.
 */
export async function confirmSecondFactor(run: Pick<DashboardRun, 'page' | 'ctx'>, who: { id: string; totpSecret?: string }, page: Page = run.page): Promise<void> {
  const prompt = page.getByRole('dialog', { name: 'Confirme que é você' });
  if (who.totpSecret) {
    await prompt.getByText('aplicativo autenticador').waitFor();
    await prompt.getByLabel('Código').fill(await unusedTotpCode(run.ctx, who.id, who.totpSecret));
  } else {
    await prompt.getByRole('button', { name: 'Enviar código por e-mail' }).click();
    await prompt.getByText('Código enviado.').waitFor();
    await prompt.getByLabel('Código').fill(await lastEmailedCode(run.ctx.app, who.id));
  }
  // The prompt closes before the request it confirms is sent again with the code: its answer is awaited.
  const answered = page.waitForResponse((r) => r.request().headers()['x-second-factor'] !== undefined);
  await prompt.getByRole('button', { name: 'Confirmar' }).click();
  await prompt.waitFor({ state: 'detached' });
  await (await answered).finished();
}

/** Switches the dashboard to Produção, which makes the session's production key: the second factor is asked. */
export async function toProduction(run: Pick<DashboardRun, 'page' | 'ctx'>, who: { id: string; totpSecret?: string }, page: Page = run.page): Promise<void> {
  await page.getByRole('radio', { name: 'Produção' }).click();
  await confirmSecondFactor(run, who, page);
  // Kept once its answer is read (lib/session.ts): a page left before then would ask again.
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('cofre.keys') ?? '{}').production);
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


/** The message shown under a field (by its label, in `scope`), after checking the field is marked invalid and tied to it. */
export async function fieldMessage(scope: Page | Locator, label: string): Promise<string> {
  const input = scope.getByLabel(label, { exact: true });
  await scope.locator('.field-invalid').first().waitFor();
  assert.equal(await input.getAttribute('aria-invalid'), 'true', `${label} is marked invalid`);
  const id = (await input.getAttribute('aria-describedby'))!.split(' ').find((x) => x.endsWith('-err'))!;
  const root = 'page' in scope && typeof scope.page === 'function' ? scope.page() : (scope as Page);
  return (await root.locator(`[id="${id}"]`).innerText()).trim();
}
