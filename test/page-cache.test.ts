// The payment-link pages' cache (http/page-cache.ts): the requests that miss a slug together share
// one making of its page (one query, one render, one compression), and a change made through this
// process (forget) is seen by the next request even while a page is being made from older data.
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { PageCache, type PageInput } from '../src/http/page-cache.ts';

const page = (html: string): PageInput => ({ status: 200, csp: "default-src 'none'", html, cookie: true });

describe('page cache', () => {
  test('requests that miss together share one making; the page is kept, compressed both ways', async () => {
    const cache = new PageCache();
    let made = 0;
    const make = async () => {
      made++;
      await new Promise((r) => setTimeout(r, 10));
      return page('<p>Curso de Pão Caseiro</p>');
    };
    const pages = await Promise.all(Array.from({ length: 20 }, () => cache.load('curso', make)));
    assert.equal(made, 1);
    assert.ok(pages.every((p) => p === pages[0]));
    assert.equal(brotliDecompressSync(pages[0]!.br).toString(), '<p>Curso de Pão Caseiro</p>');
    assert.equal(gunzipSync(pages[0]!.gzip).toString(), '<p>Curso de Pão Caseiro</p>');
    assert.equal(await cache.load('curso', make), pages[0]);
    assert.equal(made, 1);
    // No page (an unknown slug): not kept, asked again next time.
    assert.equal(await cache.load('nada', async () => null), null);
    assert.equal((await cache.load('nada', async () => page('<p>agora existe</p>')))?.identity.toString(), '<p>agora existe</p>');
  });

  test('a page being made when the link changed is neither joined nor kept after the change', async () => {
    const cache = new PageCache();
    let release!: () => void;
    const old = cache.load('curso', () => new Promise<PageInput>((r) => (release = () => r(page('<p>antes</p>')))));
    cache.forget('curso');
    const fresh = await cache.load('curso', async () => page('<p>depois</p>'));
    release();
    assert.equal((await old)?.identity.toString(), '<p>antes</p>');
    assert.equal(fresh?.identity.toString(), '<p>depois</p>');
    assert.equal((await cache.load('curso', async () => page('<p>outra</p>')))?.identity.toString(), '<p>depois</p>');
  });
});
