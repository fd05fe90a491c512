// Merchant images (modules/media, docs/media.md): importImage against a real loopback image host
// (https with a test CA, and plain http), every refusal a 400 on the caller's field naming why, the
// SSRF guard with WEBHOOK_ALLOW_PRIVATE_TARGETS off, "fetched once" per merchant and address, and
// GET /media/{id} serving the bytes back with their headers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { AppError } from '../src/http/errors.ts';
import type { Lookup } from '../src/http/ssrf.ts';
import { importImage, type MediaDeps } from '../src/modules/media/service.ts';
import { call } from './helpers.ts';
import { ready, useApp, useBefore, useMerchant } from './kit/app.ts';
import { IMAGES, startImageHost } from './media-kit.ts';

const host = useBefore('the image host', startImageHost, (h) => h.close());
// Local development's settings: loopback hosts and plain http allowed, the host's CA trusted.
const ctx = useApp(async () => ({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: (await ready(host)).certFile, LOG_LEVEL: 'warn' } }));
const shop = useMerchant(ctx);
const other = useMerchant(ctx);

/** The app's dependencies with the guard as in production (WEBHOOK_ALLOW_PRIVATE_TARGETS=false). */
function guarded(lookup?: Lookup): MediaDeps {
  const { db, config } = ctx.app.deps;
  return { db, config: { ...config, webhooks: { ...config.webhooks, allowPrivateTargets: false } }, lookup };
}

/** Asserts the promise fails with the spec's 400 VALIDATION_ERROR on `field`, its message matching `why`. */
async function refused(p: Promise<unknown>, field: string, why: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 400);
    assert.equal(err.code, 'VALIDATION_ERROR');
    assert.equal(err.errors.length, 1);
    assert.equal(err.errors[0].field, field);
    assert.match(err.errors[0].message, why);
    return true;
  });
}

/** GET as a browser asks (compression accepted): an image is sent as it is stored, never re-encoded. */
const image = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip', ...headers } });

describe('accepted images', () => {
  const cases = [
    ['/logo.png', 'image/png', IMAGES.png],
    ['/logo.jpg', 'image/jpeg', IMAGES.jpeg],
    ['/logo.webp', 'image/webp', IMAGES.webp],
    ['/logo.gif', 'image/gif', IMAGES.gif],
  ] as const;
  for (const [path, type, bytes] of cases) {
    test(`${type} is stored and served back byte for byte from /media/{id}, with its headers`, async () => {
      const got = await importImage(ctx.app.deps, shop.id, host.url(path), 'logoUrl');
      assert.equal(got.url, `/media/${got.id}`);
      const res = await image(got.url);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.rawPayload, bytes);
      assert.equal(res.headers['content-type'], type);
      assert.equal(res.headers['content-encoding'], undefined);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(String(res.headers['content-security-policy']), /^default-src 'none'(;|$)/);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      const sha = createHash('sha256').update(bytes).digest('hex');
      assert.equal(res.headers.etag, `"${sha}"`);
      const again = await image(got.url, { 'if-none-match': `"${sha}"` });
      assert.equal(again.statusCode, 304);
      assert.equal(again.rawPayload.length, 0);
      const row = await ctx.app.deps.db.selectFrom('media_images').selectAll().where('id', '=', got.id).executeTakeFirstOrThrow();
      assert.deepEqual([row.user_id, row.source_url, row.content_type, row.size_bytes, row.sha256], [shop.id, host.url(path), type, bytes.length, sha]);
    });
  }

  test("the type is read from the bytes, not from the server's Content-Type", async () => {
    const got = await importImage(ctx.app.deps, shop.id, host.url('/called-text.png'), 'logoUrl');
    assert.equal((await image(got.url)).headers['content-type'], 'image/png');
    await refused(importImage(ctx.app.deps, shop.id, host.url('/called-png.svg'), 'logoUrl'), 'logoUrl', /SVG/);
  });

  test('plain http is taken while WEBHOOK_ALLOW_PRIVATE_TARGETS is true (local development)', async () => {
    const got = await importImage(ctx.app.deps, shop.id, host.plainUrl('/plain.png'), 'bannerUrl');
    assert.deepEqual((await image(got.url)).rawPayload, IMAGES.png);
  });
});

describe('refused answers: a 400 on the field saying why, nothing stored', () => {
  const cases: [string, string, RegExp][] = [
    ['an SVG (it can carry script)', '/icon.svg', /^is not a PNG, JPEG, WebP or GIF image: .*an SVG image \(refused: an SVG can carry scripts/],
    ['an HTML page', '/page.html', /^is not a PNG, JPEG, WebP or GIF image: the address answered with an HTML page$/],
    ['3 MiB with its Content-Length', '/big.png', /^is larger than 2 MiB/],
    ['3 MiB streamed without a length', '/big-streamed.png', /^is larger than 2 MiB/],
    ['a redirect (not followed)', '/redirect.png', /redirect \(HTTP 302\), and redirects are not followed/],
    ['a 404', '/missing.png', /^could not be fetched: the server answered HTTP 404$/],
  ];
  for (const [what, path, why] of cases) {
    test(what, async () => {
      await refused(importImage(ctx.app.deps, shop.id, host.url(path), 'theme.bannerUrl'), 'theme.bannerUrl', why);
      const stored = await ctx.app.deps.db.selectFrom('media_images').select('id').where('source_url', '=', host.url(path)).execute();
      assert.deepEqual(stored, []);
    });
  }

  test('the redirect target was never asked for', () => assert.equal(host.count('/redirect-target.png'), 0));

  test('an answer that trickles is cut at 5 seconds in all', async () => {
    const started = Date.now();
    await refused(importImage(ctx.app.deps, shop.id, host.url('/slow.png'), 'logoUrl'), 'logoUrl', /^could not be fetched within 5 seconds$/);
    const took = Date.now() - started;
    assert.ok(took >= 4900 && took < 7000, `took ${took} ms`);
  });

  test("a certificate the gateway does not trust names WEBHOOK_CA_FILE", async () => {
    const { db, config } = ctx.app.deps;
    const noCa: MediaDeps = { db, config: { ...config, webhooks: { ...config.webhooks, ca: null } } };
    await refused(importImage(noCa, shop.id, host.url('/untrusted.png'), 'logoUrl'), 'logoUrl', /^could not be fetched: TLS: .*WEBHOOK_CA_FILE/);
  });

  test('addresses that are not https URLs', async () => {
    await refused(importImage(ctx.app.deps, shop.id, 'logo.png', 'logoUrl'), 'logoUrl', /^must be an absolute URL$/);
    await refused(importImage(ctx.app.deps, shop.id, 'ftp://example.com/logo.png', 'logoUrl'), 'logoUrl', /^must use https$/);
    await refused(importImage(ctx.app.deps, shop.id, `https://user:pw@localhost:${host.httpsPort}/logo.png`, 'logoUrl'), 'logoUrl', /credentials/);
    await refused(importImage(ctx.app.deps, shop.id, `https://example.com/${'a'.repeat(2100)}.png`, 'logoUrl'), 'logoUrl', /at most 2048 characters/);
  });
});

describe('the SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  test('loopback, private, link-local (metadata) and internal names are refused before any request', async () => {
    const before = host.total();
    const port = host.httpsPort;
    const cases: [string, RegExp][] = [
      [`https://127.0.0.1:${port}/guarded.png`, /points to a loopback address; allowed only when .*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/],
      [`https://[::1]:${port}/guarded.png`, /points to a loopback address/],
      [`https://localhost:${port}/guarded.png`, /single-label host name/],
      [`https://images.localhost:${port}/guarded.png`, /internal-only host name/],
      ['https://169.254.169.254/latest/meta-data/iam', /link-local address \(cloud metadata lives here\)/],
      ['https://metadata.google.internal/computeMetadata/v1/', /cloud metadata or internal host name/],
      ['https://10.1.2.3/logo.png', /points to a private address/],
      ['https://[::ffff:192.168.0.1]/logo.png', /private address/],
      [host.plainUrl('/guarded.png'), /^must use https \(plain http is allowed only when .*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/],
    ];
    for (const [url, why] of cases) await refused(importImage(guarded(), shop.id, url, 'logoUrl'), 'logoUrl', why);
    assert.equal(host.total(), before, 'no request reached the image host');
  });

  test('a public name that resolves to a private or loopback address is refused', async () => {
    for (const address of ['192.168.10.5', '127.0.0.1', '169.254.169.254']) {
      const lookup: Lookup = async () => [{ address: '8.8.8.8', family: 4 }, { address, family: 4 }];
      await refused(importImage(guarded(lookup), shop.id, 'https://cdn.loja-exemplo.com.br/logo.png', 'logoUrl'), 'logoUrl', new RegExp(`host resolves to .*\\(${address.replace(/\./g, '\\.')}\\)`));
    }
  });

  test('a stored image of an address the guard now refuses is not handed out', async () => {
    const first = await importImage(ctx.app.deps, shop.id, host.plainUrl('/twice.png'), 'logoUrl');
    assert.ok(first.id);
    await refused(importImage(guarded(), shop.id, host.plainUrl('/twice.png'), 'logoUrl'), 'logoUrl', /^must use https/);
  });
});

describe('fetched once', () => {
  test('the same merchant and address again: the stored image, no request; another merchant gets its own row', async () => {
    const url = host.url('/once.png');
    const first = await importImage(ctx.app.deps, shop.id, url, 'logoUrl');
    assert.equal(host.count('/once.png'), 1);
    assert.deepEqual(await importImage(ctx.app.deps, shop.id, url, 'bannerUrl'), first);
    // The same address written differently (host case, spaces around it) is the same address.
    assert.deepEqual(await importImage(ctx.app.deps, shop.id, `  ${url.replace('localhost', 'LOCALHOST')} `, 'logoUrl'), first);
    assert.equal(host.count('/once.png'), 1, 'no second request');

    const theirs = await importImage(ctx.app.deps, other.id, url, 'logoUrl');
    assert.notEqual(theirs.id, first.id);
    assert.equal(host.count('/once.png'), 2);
    const rows = await ctx.app.deps.db.selectFrom('media_images').select(['id', 'user_id']).where('source_url', '=', url).orderBy('created_at').execute();
    assert.deepEqual(rows.map((r) => r.user_id).sort(), [shop.id, other.id].sort());
  });

  test('concurrent imports of one address store one row', async () => {
    const url = host.url('/concurrent.png');
    const got = await Promise.all([1, 2, 3].map(() => importImage(ctx.app.deps, other.id, url, 'logoUrl')));
    assert.equal(new Set(got.map((g) => g.id)).size, 1);
    const rows = await ctx.app.deps.db.selectFrom('media_images').select('id').where('user_id', '=', other.id).where('source_url', '=', url).execute();
    assert.equal(rows.length, 1);
  });

  test("an image's own address (/media/{id}, alone or under BASE_URL) is the image itself; another merchant's is refused", async () => {
    const mine = await importImage(ctx.app.deps, shop.id, host.url('/logo.png'), 'logoUrl');
    const before = host.total();
    assert.deepEqual(await importImage(ctx.app.deps, shop.id, mine.url, 'logoUrl'), mine);
    assert.deepEqual(await importImage(ctx.app.deps, shop.id, `${ctx.config.baseUrl}${mine.url}`, 'logoUrl'), mine);
    assert.equal(host.total(), before);
    await refused(importImage(ctx.app.deps, other.id, mine.url, 'logoUrl'), 'logoUrl', /^names an image on Cofre that this account did not import$/);
  });
});

describe('GET /media/{id}', () => {
  test('an unknown id, or not a UUID, is 404; no credentials are needed for a known one', async () => {
    assert.equal((await call(ctx.app, 'GET', '/media/0190a0b2-0000-7000-8000-000000000000')).status, 404);
    const bad = await call(ctx.app, 'GET', '/media/not-an-id');
    assert.equal(bad.status, 404);
    assert.equal(bad.body.message, 'Image not found');
    const got = await importImage(ctx.app.deps, shop.id, host.url('/logo.gif'), 'logoUrl');
    const res = await image(got.url.toUpperCase().replace('/MEDIA/', '/media/'));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.rawPayload, IMAGES.gif);
  });
});
