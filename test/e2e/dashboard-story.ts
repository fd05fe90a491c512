// The merchant dashboard story in Chromium, what its two files share: one served app with a real
// HTTPS webhook receiver, a browser page, the merchant's account and what the story made (its key,
// its sale). A file's tests run in order on that page; errors and CSP violations fail the file.
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { call, uniqueEmail, type TestContext } from '../helpers.ts';
import type { Receiver } from '../webhook-receiver.ts';
import { after, before } from './browser.ts';
import { signIn, startDashboard, type DashboardRun } from './dashboard-kit.ts';

export let ctx: TestContext;
export let base: string;
export let run: DashboardRun;
export let context: BrowserContext;
export let page: Page;
export let receiver: Receiver;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

export const account = { name: 'Ateliê Aurora', email: uniqueEmail('aurora'), password: 'aurora-vende-bem-2026' };
/** What the story made: the account's id, its API key, its sale. */
export const story = { userId: '', apiKey: '', saleId: '' };

/** Every screen: no serious/critical axe violation, nothing wider than a phone, screenshots at both sizes. */
export const checkScreen = (name: string, on?: Page) => run.check(name, on);

export async function go(path: string) {
  await page.goto(`${base}/dashboard${path}`);
}

export function brl(cents: number) {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100).replace(/\u00a0/g, ' ');
}

/**
 * Registers the story's hooks in the current describe: the served app and browser before, the
 * checks for script errors and CSP violations after. `signedIn`: the account, its key and the first
 * part's sale are made by the API and the account logged in through the login page (a file that starts mid-story).
 */
export function useDashboardStory(opts: { signedIn?: boolean } = {}) {
  before(async () => {
    run = await startDashboard({ page: pageErrors, csp: cspViolations });
    ({ ctx, base, context, page, receiver } = run);
    if (opts.signedIn) await registeredAndSignedIn();
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(pageErrors, [], 'no script errors');
    assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violations');
  });
}

/** The first part's sale, made by the API: a PIX of R$ 1.234,56 paid, refunded in full in two refunds. */
async function madeSale() {
  const body = { product: 'Vaso de cerâmica', amountCents: 123456, clientName: 'Beatriz Nogueira', clientEmail: 'bia@example.com', clientDocument: '52998224725', paymentMethod: 'PIX' };
  const created = await call(ctx.app, 'POST', '/api/v1/transactions', { key: story.apiKey, body });
  assert.equal(created.status, 201, created.raw);
  story.saleId = created.body.transaction.id;
  assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${story.saleId}/simulate`, { key: story.apiKey, body: { outcome: 'PAID' } })).status, 200);
  for (const amountCents of [23456, 100000]) assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${story.saleId}/refund`, { key: story.apiKey, body: { amountCents } })).status, 200);
}

async function registeredAndSignedIn() {
  const reg = await call(ctx.app, 'POST', '/api/auth/register', { body: account });
  assert.equal(reg.status, 201, reg.raw);
  story.userId = reg.body.user.id;
  const key = await call(ctx.app, 'POST', '/api/credentials', { token: reg.body.token, body: { name: 'loja', environment: 'DEVELOPMENT' } });
  assert.equal(key.status, 201, key.raw);
  story.apiKey = key.body.key;
  await madeSale();
  await signIn(run, account);
}
