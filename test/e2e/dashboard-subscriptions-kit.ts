// What the dashboard's Assinaturas and Afiliados/Indicações tests share: the served app and browser,
// the owner (made by the API, logged in) and a second merchant to be the affiliate, helpers for
// plans, sessions, menus and stat cards, and the state the tests hand on.
import assert from 'node:assert/strict';
import { after, before } from './browser.ts'; // node:test's, every test skipped with the reason when the browser tests do not run
import type { Page } from 'playwright-core';
import { call, uniqueEmail } from '../helpers.ts';
import { signIn, startDashboard, type DashboardRun } from './dashboard-kit.ts';

export let run: DashboardRun;
export const errors = { page: [] as string[], csp: [] as string[] };

export const owner = { name: 'Torrefação Serra', email: uniqueEmail('serra'), password: 'cafe-da-serra-2026', token: '', key: '', referralCode: '' };
export const affiliate = { name: 'Márcia Divulga', email: uniqueEmail('marcia'), password: 'marcia-divulga-2026', token: '' };
export let page: Page; // the owner's
/** What the tests made, for the ones after them. */
export const state = { planId: '', subscriptionId: '', premium: { id: '' } };

/** A plan made by API (only what the plan-change tests need). */
export async function newPlan(name: string, amountCents: number, interval: string) {
  const r = await call(run.ctx.app, 'POST', '/api/v1/subscriptions/plans', { key: owner.key, body: { name, amountCents, interval, paymentMethods: ['CARD', 'PIX_AUTOMATICO'] } });
  assert.equal(r.status, 201, r.raw);
  return r.body.plan as { id: string };
}

export async function register(a: { name: string; email: string; password: string }) {
  const r = await call(run.ctx.app, 'POST', '/api/auth/register', { body: { name: a.name, email: a.email, password: a.password } });
  assert.equal(r.status, 201, r.raw);
  return r.body;
}

/** A second browser session (the affiliate's), logged in, that may read the clipboard. */
export async function loggedIn(a: { email: string; password: string }): Promise<Page> {
  const { context, page: p } = await run.newSession();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: run.base });
  await signIn(run, a, p);
  return p;
}

export const checkScreen = (p: Page, name: string) => run.check(name, p);
export const menu = (p: Page, name: string) => p.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name });
/** The figure of a stat card by its title. */
export const stat = (p: Page, title: string) => p.locator('.card.stat', { has: p.getByRole('heading', { name: title, exact: true }) }).locator('.stat-value');
export const clipboard = (p: Page) => p.evaluate(() => navigator.clipboard.readText());

/** The owner's dashboard for the current describe: app, accounts and login before; error checks after. */
export function useOwnerDashboard() {
  before(async () => {
    run = await startDashboard(errors);
    const reg = await register(owner);
    owner.token = reg.token;
    owner.referralCode = reg.user.referralCode;
    const key = await call(run.ctx.app, 'POST', '/api/credentials', { token: owner.token, body: { name: 'Loja', environment: 'DEVELOPMENT' } });
    assert.equal(key.status, 201, key.raw);
    owner.key = key.body.key;
    affiliate.token = (await register(affiliate)).token;
    page = run.page;
    await signIn(run, owner);
  });
  after(async () => {
    await run?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });
}
