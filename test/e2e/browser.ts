// What the browser tests share: Debian Chromium through playwright-core (the run's one Chromium,
// test/global-setup.ts, or a file's own when run alone), node:test's describe/test/hooks that report
// every test skipped with the reason when the browser tests do not run (Chromium not installed, or
// the PostgreSQL pass), the real app listening on a loopback port with the URLs it hands out pointed
// at it, the screenshots folder, and the axe-core accessibility check.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nodeTest from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type StartOptions, type TestContext } from '../helpers.ts';
import { CHROMIUM, CHROMIUM_ARGS, CHROMIUM_ENDPOINT, skipBrowser } from '../global-setup.ts';

export { CHROMIUM, skipBrowser };
/** Screenshots and other artefacts of the browser tests (gitignored). */
export const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output');

/**
 * A browser of this file's own: connected to the run's one Chromium (test/global-setup.ts), or, for a
 * file run alone (or if that one is gone), a Chromium launched for it. close() closes what this file
 * opened in it (contexts, pages) and disconnects; only a Chromium launched here is closed with it.
 */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  mkdirSync(OUT, { recursive: true });
  const shared = process.env[CHROMIUM_ENDPOINT];
  if (shared) {
    try {
      return await chromium.connect(shared, { timeout: 30_000 });
    } catch (err) {
      process.stderr.write(`the run's Chromium (${shared}) cannot be reached, this file launches its own: ${(err as Error).message}\n`);
    }
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

type Describe = typeof nodeTest.describe;
type Test = typeof nodeTest.test;
type Hook = typeof nodeTest.before;

/**
 * node:test's describe, test and hooks for tests that all are skipped for `reason` (when it is a
 * string; false: node:test's own). Each test is reported skipped with the reason, so the run's summary
 * still counts it (node:test reports a skipped describe as one line, its tests uncounted); describe
 * runs its body only to declare them, and no hook runs. A describe's own skip that is `reason` itself
 * (`{ skip: skipBrowser }`) is left to its tests.
 */
export function skippedWith(reason: string | false): { describe: Describe; test: Test; before: Hook; after: Hook; beforeEach: Hook; afterEach: Hook } {
  if (!reason) return nodeTest;
  const args = (a: unknown[]): [string | undefined, nodeTest.TestOptions, ((...x: any[]) => unknown) | undefined] => {
    const name = typeof a[0] === 'string' ? (a.shift() as string) : undefined;
    const options = a[0] !== null && typeof a[0] === 'object' ? (a.shift() as nodeTest.TestOptions) : {};
    return [name, options, a[0] as ((...x: any[]) => unknown) | undefined];
  };
  const describe = (...a: unknown[]) => {
    const [name, options, fn] = args(a);
    return nodeTest.describe(name, { ...options, skip: options.skip === reason ? false : options.skip }, fn as () => void);
  };
  const test = (...a: unknown[]) => {
    const [name, options] = args(a);
    return nodeTest.test(name, { ...options, skip: reason });
  };
  const hook = () => {};
  return {
    describe: Object.assign(describe, { skip: describe, todo: describe, only: describe }) as unknown as Describe,
    test: Object.assign(test, { skip: test, todo: test, only: test }) as unknown as Test,
    before: hook,
    after: hook,
    beforeEach: hook,
    afterEach: hook,
  };
}

/** node:test for the browser test files: every test skipped with skipBrowser's reason when it is set. */
export const { describe, test, before, after, beforeEach, afterEach } = skippedWith(skipBrowser);

/** The real app on 127.0.0.1 (a free port); the URLs it hands out (links, checkout) point at it. */
export async function servedApp(opts: StartOptions = {}): Promise<{ ctx: TestContext; base: string }> {
  const ctx = await startApp({ ...opts, env: { LOG_LEVEL: 'warn', ...opts.env } });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  // The address is known only now.
  ctx.config.baseUrl = base;
  ctx.config.checkoutUrl = base;
  ctx.config.referrals.signupUrl = `${base}/cadastro`;
  return { ctx, base };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now.
 * axe is evaluated through the DevTools protocol, so the page's CSP (no inline script) stays on.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })) }));
  })) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The dashboard's screenshots (docs/dashboard.md keeps copies of them). */
export const SHOTS = join(OUT, 'dashboard');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * A dashboard screen as it is now, at desktop and phone sizes: no serious/critical axe violation,
 * nothing wider than a 390 px phone, and screenshots `<name>-desktop.png` and `<name>-390.png`.
 */
export async function checkScreen(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.waitForLoadState('networkidle');
  await page.waitForSelector('.spinner', { state: 'detached' });
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['390', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50);
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], `${name} (${label}): accessibility violations\n${JSON.stringify(violations, null, 2)}`);
    if (label === '390') {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than a 390 px phone`);
    }
    await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
