// What a whole `npm test` run shares (node --test --test-global-setup): Node's compile cache, and
// one Chromium for every browser test file. It is started here, in the test runner's own process,
// as a Playwright browser server on loopback, and its address is handed to the test files (child
// processes) in CHROMIUM_ENDPOINT; test/e2e/browser.ts connects to it, each file in its own browser
// contexts, and launches a Chromium of its own when run alone (no endpoint). The teardown closes
// it; a test file that crashes only drops its connection (its contexts are closed by the server); a
// runner stopped by a signal closes it on the way out, and one killed outright takes it along
// (Chromium exits when the pipe to its parent closes).
// Not started when no browser test will run: Chromium absent, or the PostgreSQL pass (browser.ts).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserServer } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** One set for every file: the host-resolver rule is test/e2e/docs.test.ts's (cofre.test is the app on loopback). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--host-resolver-rules=MAP cofre.test 127.0.0.1'];
/** The environment variable that carries the shared Chromium's address to the test files. */
export const CHROMIUM_ENDPOINT = 'COFRE_TEST_CHROMIUM_ENDPOINT';

const onPostgres = !!(process.env.TEST_DATABASE_URL || process.env.DATABASE_URL); // as test/helpers.ts

/**
 * Why the browser tests are skipped in this run, or false. The pages do not depend on the database:
 * they run on the embedded database's pass only, not again on PostgreSQL's.
 */
export const skipBrowser: string | false = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is not installed (apt-get install chromium): browser tests skipped`
  : onPostgres
    ? 'browser test: run on the PGlite pass only (the pages do not depend on the database; TEST_DATABASE_URL is set)'
    : false;

let server: BrowserServer | undefined;

export async function globalSetup() {
  // Every test file is a process that loads the same few hundred modules: Node's compile cache keeps
  // their compiled code on disk for the next one (about 0.7 s of CPU less per process here).
  process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('../node_modules/.cache/node-compile', import.meta.url));
  if (skipBrowser) return;
  const { chromium } = await import('playwright-core');
  try {
    server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, host: '127.0.0.1' });
  } catch (err) {
    // Each browser test file launches its own then, and fails there with the reason if it cannot.
    process.stderr.write(`test/global-setup.ts: the shared Chromium did not start, each browser test file launches its own: ${(err as Error).message}\n`);
    return;
  }
  process.env[CHROMIUM_ENDPOINT] = server.wsEndpoint();
}

export async function globalTeardown() {
  await server?.close();
  server = undefined;
}
