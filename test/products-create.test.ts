// Products: creation (fields, defaults, bounds) and the cleaning of script injection.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400, UUID } from './kit/assert.ts';
import { P, productApi } from './products-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx);
const { create, get, patch, total } = productApi(ctx);

describe('create', () => {
  test('name and price alone: 201 { message, product } with the documented defaults', async () => {
    const res = await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'Camiseta', price: 4990 } });
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'product']);
    assert.equal(typeof res.body.message, 'string');
    const p = res.body.product;
    assert.match(p.id, UUID);
    assert.deepEqual(
      { ...p, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        name: 'Camiseta',
        description: null,
        price: 4990,
        currency: 'BRL',
        stockQuantity: null,
        stockEnabled: false,
        isDigital: false,
        imageUrl: null,
        sku: null,
        status: 'ACTIVE',
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.ok(Math.abs(Date.parse(p.createdAt) - Date.now()) < 60_000);
    assert.equal(p.updatedAt, p.createdAt);
    const again = await get(m.devKey, p.id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.product, p);
  });

  test('every field is stored as sent and read back', async () => {
    const body = {
      name: 'Caneca térmica',
      price: 1,
      description: 'Aço inox, 500 ml',
      currency: 'BRL',
      stockQuantity: 0,
      stockEnabled: true,
      isDigital: false,
      imageUrl: 'https://cdn.example.com/caneca.png?v=2',
      sku: 'CAN-500',
      status: 'INACTIVE',
    };
    const p = await create(m.devKey, body);
    const { id, createdAt, updatedAt, ...rest } = p;
    assert.deepEqual(rest, body);
    assert.deepEqual((await get(m.devKey, id)).body.product, p);
    const digital = await create(m.devKey, { name: 'E-book', price: 2990, isDigital: true, imageUrl: 'http://img.example.com/e.jpg' });
    assert.equal(digital.isDigital, true);
    assert.equal(digital.stockEnabled, false);
    assert.equal(digital.imageUrl, 'http://img.example.com/e.jpg');
  });

  test('name and price are mandatory', async () => {
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { price: 100 } }), 'VALIDATION_ERROR', ['name'], { path: P });
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'Sem preço' } }), 'VALIDATION_ERROR', ['price'], { path: P });
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: {} }), 'VALIDATION_ERROR', ['name', 'price'], { path: P });
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: null, price: null } }), 'VALIDATION_ERROR', ['name', 'price'], { path: P });
  });

  test('name length 1 to 255', async () => {
    const before = await total(m.devKey);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: '', price: 100 } }), 'VALIDATION_ERROR', ['name']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'x'.repeat(256), price: 100 } }), 'VALIDATION_ERROR', ['name']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 42, price: 100 } }), 'VALIDATION_ERROR', ['name']);
    assert.equal(await total(m.devKey), before, 'a refused product is not stored');
    assert.equal((await create(m.devKey, { name: 'x', price: 100 })).name, 'x');
    assert.equal((await create(m.devKey, { name: 'y'.repeat(255), price: 100 })).name, 'y'.repeat(255));
  });

  test('description at most 1000 characters; null is allowed', async () => {
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'D', price: 100, description: 'd'.repeat(1001) } }), 'VALIDATION_ERROR', ['description']);
    assert.equal((await create(m.devKey, { name: 'D', price: 100, description: 'd'.repeat(1000) })).description, 'd'.repeat(1000));
    assert.equal((await create(m.devKey, { name: 'D', price: 100, description: null })).description, null);
  });

  test('price is an integer number of cents >= 1: no zero, negative, fraction or string', async () => {
    const before = await total(m.devKey);
    for (const price of [0, -1, -100, 1.5, 99.99, '100', '1', null, true]) {
      assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'Preço', price } }), 'VALIDATION_ERROR', ['price']);
    }
    assert.equal(await total(m.devKey), before);
    assert.equal((await create(m.devKey, { name: 'Um centavo', price: 1 })).price, 1);
    assert.equal((await create(m.devKey, { name: 'Caro', price: 100_000_000 })).price, 100_000_000);
  });

  test('currency is BRL only', async () => {
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'C', price: 100, currency: 'USD' } }), 'VALIDATION_ERROR', ['currency']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'C', price: 100, currency: 'brl' } }), 'VALIDATION_ERROR', ['currency']);
  });

  test('stockQuantity >= 0 integer, and required when stockEnabled is true', async () => {
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'S', price: 100, stockQuantity: -1 } }), 'VALIDATION_ERROR', ['stockQuantity']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'S', price: 100, stockQuantity: 2.5 } }), 'VALIDATION_ERROR', ['stockQuantity']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'S', price: 100, stockQuantity: '3' } }), 'VALIDATION_ERROR', ['stockQuantity']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'S', price: 100, stockEnabled: true } }), 'VALIDATION_ERROR', ['stockQuantity']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'S', price: 100, stockEnabled: true, stockQuantity: null } }), 'VALIDATION_ERROR', ['stockQuantity']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'S', price: 100, stockEnabled: 'true', stockQuantity: 1 } }), 'VALIDATION_ERROR', ['stockEnabled']);
    const p = await create(m.devKey, { name: 'S', price: 100, stockEnabled: true, stockQuantity: 12 });
    assert.equal(p.stockEnabled, true);
    assert.equal(p.stockQuantity, 12);
  });

  test('digital products cannot enable stock', async () => {
    const res = await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'Curso', price: 100, isDigital: true, stockEnabled: true, stockQuantity: 10 } });
    assert400(res, 'VALIDATION_ERROR', ['stockEnabled']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'Curso', price: 100, isDigital: 'yes' } }), 'VALIDATION_ERROR', ['isDigital']);
  });

  test('imageUrl must be an http(s) URL', async () => {
    for (const imageUrl of ['ftp://cdn.example.com/a.png', 'javascript:alert(1)', 'data:image/png;base64,AAAA', 'not a url', '//cdn.example.com/a.png', 'https://', 'cdn.example.com/a.png']) {
      assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'Img', price: 100, imageUrl } }), 'VALIDATION_ERROR', ['imageUrl']);
    }
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'Img', price: 100, imageUrl: `https://cdn.example.com/${'a'.repeat(2048)}` } }), 'VALIDATION_ERROR', ['imageUrl']);
    assert.equal((await create(m.devKey, { name: 'Img', price: 100, imageUrl: 'https://cdn.example.com/a.png' })).imageUrl, 'https://cdn.example.com/a.png');
    assert.equal((await create(m.devKey, { name: 'Img', price: 100, imageUrl: null })).imageUrl, null);
  });

  test('status is ACTIVE or INACTIVE', async () => {
    for (const status of ['DELETED', 'active', '', null]) {
      assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'St', price: 100, status } }), 'VALIDATION_ERROR', ['status']);
    }
    assert.equal((await create(m.devKey, { name: 'St', price: 100, status: 'ACTIVE' })).status, 'ACTIVE');
    assert.equal((await create(m.devKey, { name: 'St', price: 100, status: 'INACTIVE' })).status, 'INACTIVE');
  });

  test('an unknown field is refused and named; server-owned fields cannot be set', async () => {
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'U', price: 100, barcode: '7891234567895' } }), 'VALIDATION_ERROR', ['barcode']);
    assert400(
      await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'U', price: 100, id: '00000000-0000-7000-8000-000000000000' } }),
      'VALIDATION_ERROR',
      ['id'],
    );
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: 'U', price: 100, userId: m.id } }), 'VALIDATION_ERROR', ['userId']);
  });

  test('a malformed JSON body is 400 INVALID_JSON', async () => {
    const res = await call(ctx.app, 'POST', P, { key: m.devKey, raw: '{"name": "x", "price": ', headers: { 'content-type': 'application/json' } });
    assert400(res, 'INVALID_JSON', ['body'], { path: P });
  });
});

describe('script injection is stripped from name and description', () => {
  test('create: <script> blocks, event-handler tags and javascript: URLs are removed', async () => {
    const p = await create(m.devKey, {
      name: '<script>alert(1)</script>Camiseta',
      description: 'Foto <img src=x onerror=alert(1)> linda. Clique javascript:alert(1) aqui. <a href="javascript:alert(2)">Link</a>',
      price: 100,
    });
    assert.equal(p.name, 'Camiseta');
    assert.equal(p.description, 'Foto  linda. Clique alert(1) aqui. Link');
    for (const bad of ['<', '>', 'onerror', 'javascript:', 'script']) assert.ok(!p.description.includes(bad), `${bad} in ${p.description}`);
    const stored = (await get(m.devKey, p.id)).body.product;
    assert.equal(stored.name, 'Camiseta');
    assert.equal(stored.description, p.description);
    assert.equal((await create(m.devKey, { name: '<img src=x onerror=alert(1)>Boné', price: 100 })).name, 'Boné');
  });

  test('text that only has a "<" in it is kept as typed; anything a browser would read as markup is not', async () => {
    const kept = ['Kit tamanhos P<M<G (3 peças)', 'Promo: pague <R$ 50 no PIX', '3 < 5 > 2', 'Cupom -10% <= R$ 100', 'Curso de JavaScript: do zero'];
    for (const name of kept) assert.equal((await create(m.devKey, { name, price: 100 })).name, name);
    // What survived the looser rules of an earlier version (a "<" inside a tag, unknown elements with
    // "/" between attributes, nesting, script URLs spelt with entities or whitespace) is removed.
    const cleaned: [string, string][] = [
      ['Tag <x onclick=alert(1)>sem nome</x>', 'Tag sem nome'],
      ['Aberta <img src=x onerror=alert(1)', 'Aberta'],
      ['<svg/onload=alert(1)>SVG', 'SVG'],
      ['Comentário<!-- x --> fim', 'Comentário fim'],
      ['x" onmouseover="alert(1)', 'x" "alert(1)'],
      ['A <img src="<" onerror=(alert)(1)>B', 'A B'],
      ['C <x/contenteditable/autofocus/onfocus=top.__xss=1>D', 'C D'],
      ['E <i<i<i<i<i<i<img>mg>mg>mg>mg>mg>mg src=x onerror=(alert)(1)>F', 'E mg>mg>mg>mg>mg>mg src=x (alert)(1)>F'],
      ['Link &#106;avascript&colon;alert(1)', 'Link alert(1)'],
      ['Link java\tscript:alert(1)', 'Link alert(1)'],
      ['Link javascript:\talert(1)', 'Link \talert(1)'],
      ['Fila <Nina> da loja', 'Fila  da loja'],
    ];
    for (const [name, clean] of cleaned) assert.equal((await create(m.devKey, { name, price: 100 })).name, clean, name);
  });

  test('a name that is only markup is refused like an empty name', async () => {
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: '<script>alert(1)</script>', price: 100 } }), 'VALIDATION_ERROR', ['name']);
    assert400(await call(ctx.app, 'POST', P, { key: m.devKey, body: { name: '<b></b>', price: 100 } }), 'VALIDATION_ERROR', ['name']);
  });

  test('update: the same cleaning applies', async () => {
    const p = await create(m.devKey, { name: 'Limpo', price: 100 });
    const res = await patch(m.devKey, p.id, { name: 'Novo <script>steal()</script>nome', description: '<img src=x onerror=alert(1)>Texto javascript:void(0)' });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.product.name, 'Novo nome');
    assert.equal(res.body.product.description, 'Texto void(0)');
    assert400(await patch(m.devKey, p.id, { name: '<script>x</script>' }), 'VALIDATION_ERROR', ['name']);
    assert.equal((await get(m.devKey, p.id)).body.product.name, 'Novo nome');
  });
});
