// The dashboard as the server ships it, without a browser (test/e2e/dashboard.test.ts drives it in
// Chromium): the generated API types and key-route list match the app's OpenAPI document, the app
// typechecks against them, and /dashboard serves index.html for client routes (never cached, with
// its CSP) and the hashed assets as immutable, compressed files; the invite link opens its sign-up.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DASHBOARD_CSP } from '../src/web/dashboard.ts';
import { buildDashboard, DASHBOARD_DIR } from '../web/dashboard/build.ts';
import { KEY_ROUTES_FILE, keyRoutesFileFor, SCHEMA_FILE, typesFor } from '../web/dashboard/openapi-types.ts';
import { useApp } from './kit/app.ts';

// The dashboard is built before the app that serves it starts.
const ctx = useApp(async () => {
  await buildDashboard();
  return { env: { LOG_LEVEL: 'warn' } };
});

describe('the dashboard\'s API client', () => {
  test('schema.d.ts and key-routes.ts are what the app\'s /openapi.json generates (npm run dashboard:types)', async () => {
    const doc = JSON.parse((await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    assert.ok(readFileSync(SCHEMA_FILE, 'utf8') === (await typesFor(doc)), 'web/dashboard/src/api/schema.d.ts is stale: run npm run dashboard:types');
    assert.equal(readFileSync(KEY_ROUTES_FILE, 'utf8'), keyRoutesFileFor(doc), 'web/dashboard/src/api/key-routes.ts is stale: run npm run dashboard:types');
    // The split the client relies on: a key-only route refuses the dashboard token, a token route takes it.
    assert.match(readFileSync(KEY_ROUTES_FILE, 'utf8'), /'GET \/api\/v1\/transactions',/);
    assert.doesNotMatch(readFileSync(KEY_ROUTES_FILE, 'utf8'), /'GET \/api\/v1\/balance'/);
  });

  test('the app typechecks against the generated types (tsc -p web/dashboard)', () => {
    const tsc = spawnSync(process.execPath, [join(DASHBOARD_DIR, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', DASHBOARD_DIR], { encoding: 'utf8', timeout: 170_000 });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });
});

describe('/dashboard as served', () => {
  test('client routes get index.html: no-cache, an ETag (304 on revalidation), a CSP with no inline script', async () => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/vendas/6f1c0c3e-0000-4000-8000-000000000000', '/dashboard/desenvolvedores?aba=webhooks']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.headers['content-security-policy'], DASHBOARD_CSP);
      assert.match(res.body, /<script type="module" crossorigin src="\/dashboard\/assets\/index-[\w-]+\.js"><\/script>/);
      assert.doesNotMatch(res.body, /<script>|<script type="module">/, 'no inline script');
      const again = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(res.headers.etag) } });
      assert.equal(again.statusCode, 304);
    }
    assert.doesNotMatch(DASHBOARD_CSP, /unsafe-inline|unsafe-eval/);
  });

  test('hashed assets: immutable for a year, compressed, right type; unknown or odd names are 404', async () => {
    const html = (await ctx.app.inject({ method: 'GET', url: '/dashboard' })).body;
    const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), html);
    let compressed = Buffer.byteLength(html);
    for (const url of assets) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip' } });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(res.headers['content-encoding'], 'br');
      assert.match(String(res.headers['content-type']), url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      compressed += res.rawPayload.length;
    }
    assert.ok(compressed <= 150 * 1024, `first load: ${compressed} bytes compressed`);
    for (const url of ['/dashboard/assets/nope-123.js', '/dashboard/assets/..%2Findex.html', '/dashboard/assets/.source-hash']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.notEqual(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    }
  });

  test('the dashboard is not in the OpenAPI document', async () => {
    const doc = JSON.parse((await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/dashboard') || p === '/cadastro'));
  });

  test('the invite link the referral API hands out (BASE_URL/cadastro?ref=CODE) leads to the sign-up with its code', async () => {
    const reg = await ctx.app.inject({ method: 'POST', url: '/api/auth/register', payload: { name: 'Loja Convite', email: `convite.${Date.now()}@example.com`, password: 'convite-cofre-2026' } });
    assert.equal(reg.statusCode, 201, reg.body);
    const code = await ctx.app.inject({ method: 'GET', url: '/api/referral/code', headers: { authorization: `Bearer ${reg.json().token}` } });
    const link = new URL(code.json().data.link);
    assert.equal(link.pathname, '/cadastro');
    const res = await ctx.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `/dashboard/cadastro?ref=${reg.json().user.referralCode}`);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/cadastro' })).headers.location, '/dashboard/cadastro');
  });
});
