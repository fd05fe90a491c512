// Swagger UI at /docs in Chromium: Cofre's name, a way back to the dashboard, and no console errors
// or failed requests, opened at localhost (where Try it out runs) and at another host name over
// plain HTTP (where the stock policy's upgrade-insecure-requests used to break every asset).
// `/` redirects to the dashboard.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as plain from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { docsCsp } from '../../src/web/docs-ui.ts';
import { freePort, startApp, type TestContext } from '../helpers.ts';
// node:test's for the browser suite, every test skipped with the reason when the browser tests do not
// run; the run's Chromium (its host-resolver rule maps cofre.test to 127.0.0.1: test/global-setup.ts).
import { after, before, describe, launchBrowser, OUT, test } from './browser.ts';

let ctx: TestContext;
let browser: Browser;
let port: number;

/** A free port, so that BASE_URL (the OpenAPI server Try it out calls) is where the app listens. */

/** Opens a page recording every console error, page error and failed request. */
async function open(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  const res = await page.goto(url, { waitUntil: 'load' });
  assert.equal(res?.status(), 200);
  await page.locator('.opblock-tag').first().waitFor({ timeout: 60_000 });
  return { page, problems };
}

describe('Swagger UI at /docs in Chromium', () => {
  before(async () => {
    port = await freePort();
    ctx = await startApp({ env: { BASE_URL: `http://localhost:${port}` } });
    await ctx.app.listen({ host: '127.0.0.1', port });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test("carries Cofre's name and leads back to the dashboard; no console errors", async () => {
    const { page, problems } = await open(`http://localhost:${port}/docs`);
    assert.match(await page.title(), /Cofre/);
    assert.match(await page.locator('.info .title').innerText(), /Cofre/);
    await page.locator('.cofre-back').waitFor();
    assert.equal(await page.locator('.cofre-back').getAttribute('href'), '/dashboard');
    assert.match(await page.locator('.cofre-back').innerText(), /Voltar ao painel/);
    const logo = page.locator('.topbar-wrapper a').first();
    assert.equal(await logo.getAttribute('href'), '/dashboard');
    assert.match(String(await logo.locator('img').getAttribute('src')), /^data:image\/svg\+xml;base64,/);
    // The stock Swagger logo text is gone (the top bar shows Cofre's logo only).
    assert.doesNotMatch(await page.locator('.topbar').innerText(), /swagger/i);
    await page.screenshot({ path: join(OUT, 'docs-desktop.png') });

    // Try it out runs against the API (BASE_URL) under the page's policy.
    await page.locator('#operations-tag-Health').click();
    await page.locator('#operations-Health-getHealth .opblock-summary').click();
    await page.locator('#operations-Health-getHealth .try-out__btn').click();
    await page.locator('#operations-Health-getHealth .execute').click();
    const status = page.locator('#operations-Health-getHealth .live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    assert.match(await status.innerText(), /^\s*200/, await page.locator('#operations-Health-getHealth .responses-wrapper').innerText());
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('works over plain HTTP at a host name other than localhost (no upgrade to HTTPS)', async () => {
    const { page, problems } = await open(`http://cofre.test:${port}/docs`);
    assert.match(await page.title(), /Cofre/);
    await page.locator('#operations-tag-Transactions').click();
    await page.locator('#operations-Transactions-listTransactions .opblock-summary').click();
    await page.locator('#operations-Transactions-listTransactions .parameters').waitFor();
    await page.screenshot({ path: join(OUT, 'docs-operation.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });
});

// Not browser tests: on both databases.
plain.describe('/docs policy and the front door', () => {
  const stock =
    "default-src 'self'; base-uri 'self'; font-src 'self' https: data:; frame-ancestors 'self'; img-src 'self' data: validator.swagger.io; object-src 'none'; script-src 'self' 'sha256-x'; script-src-attr 'none'; style-src 'self' https: 'sha256-y'; upgrade-insecure-requests;";

  plain.test('no third-party host, the API origin reachable, HTTPS upgrade only behind HTTPS', () => {
    const http = docsCsp(stock, 'http://localhost:3000');
    assert.doesNotMatch(http, /validator\.swagger\.io|https:|upgrade-insecure-requests/);
    assert.match(http, /connect-src 'self' http:\/\/localhost:3000;/);
    assert.match(http, /script-src 'self' 'sha256-x';/);
    assert.match(http, /frame-ancestors 'none'/);
    assert.match(http, /style-src 'self' 'unsafe-inline' 'sha256-y';/);
    assert.doesNotMatch(http, /script-src[^;]*unsafe/);
    const https = docsCsp(stock, 'https://pay.example.com/');
    assert.match(https, /connect-src 'self' https:\/\/pay\.example\.com;/);
    assert.match(https, /upgrade-insecure-requests;$/);
  });

  plain.test('GET / redirects to /dashboard (302)', async () => {
    const front = await startApp();
    try {
      const res = await front.app.inject({ method: 'GET', url: '/' });
      assert.equal(res.statusCode, 302);
      assert.equal(res.headers.location, '/dashboard');
    } finally {
      await front.close();
    }
  });
});
