import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext as NodeTestContext } from 'node:test';
import { formatDocument } from '../src/payments/documents.ts';
import { call, cpf, merchant, startApp, type Merchant, type Res, type TestContext } from './helpers.ts';

const C = '/api/clients';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ALNUM_CNPJ = '12ABC34501DE35';
const NUMERIC_CNPJ = '11222333000181';

let ctx: TestContext;
let m: Merchant;
before(async () => {
  ctx = await startApp();
  m = await merchant(ctx.app);
});
after(() => ctx.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let n = 0;
/** A valid, not yet used client body. */
function body(over: Record<string, unknown> = {}) {
  n++;
  return { name: `Cliente ${n}`, email: `cliente${n}@example.com`, document: cpf(), ...over };
}

const post = (key: string, b: unknown) => call(ctx.app, 'POST', C, { key, body: b });
async function create(key: string, b: Record<string, unknown> = body()) {
  const res = await post(key, b);
  assert.equal(res.status, 201, res.raw);
  return res.body.client;
}
const get = (key: string, id: string) => call(ctx.app, 'GET', `${C}/${id}`, { key });
const patch = (key: string, id: string, b: unknown) => call(ctx.app, 'PATCH', `${C}/${id}`, { key, body: b });
const del = (key: string, id: string) => call(ctx.app, 'DELETE', `${C}/${id}`, { key });
const list = (key: string, query = '') => call(ctx.app, 'GET', `${C}${query}`, { key });
const ids = (res: Res) => res.body.clients.map((c: { id: string }) => c.id);

/** A 400 in the spec's body shape, with this code and exactly these fields named in errors[]. */
function assert400(res: Res, code: string, fields: string[]) {
  assert.equal(res.status, 400, res.raw);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'errors', 'message', 'path', 'timestamp']);
  assert.equal(res.body.code, code, res.raw);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(!Number.isNaN(Date.parse(res.body.timestamp)));
  assert.ok(res.body.path.startsWith(C));
  assert.ok(res.body.errors.length > 0);
  assert.deepEqual([...new Set(res.body.errors.map((e: { field: string }) => e.field))].sort(), [...fields].sort(), res.raw);
}

function assert404(res: Res) {
  assert.equal(res.status, 404, res.raw);
  assert.deepEqual(Object.keys(res.body), ['message']);
}

async function total(key: string) {
  const res = await list(key, '?limit=100');
  assert.equal(res.status, 200, res.raw);
  return res.body.pagination.total as number;
}

describe('create', () => {
  test('with a CPF: 201 { message, client }', async () => {
    const doc = cpf();
    const res = await post(m.devKey, { name: 'Ana Souza', email: 'ana.souza@example.com', document: doc, phone: '+55 (11) 91234-5678' });
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['client', 'message']);
    const c = res.body.client;
    assert.match(c.id, UUID);
    assert.deepEqual(
      { ...c, id: undefined, createdAt: undefined, updatedAt: undefined },
      { id: undefined, name: 'Ana Souza', email: 'ana.souza@example.com', document: doc, phone: '+55 (11) 91234-5678', createdAt: undefined, updatedAt: undefined },
    );
    assert.ok(Math.abs(Date.parse(c.createdAt) - Date.now()) < 60_000);
    assert.equal(c.updatedAt, c.createdAt);
    assert.deepEqual((await get(m.devKey, c.id)).body.client, c);
  });

  test('phone is optional (null when omitted); the e-mail is stored in lower case', async () => {
    const c = await create(m.devKey, body({ email: 'Bruno.Lima@Example.COM' }));
    assert.equal(c.phone, null);
    assert.equal(c.email, 'bruno.lima@example.com');
    assert.equal((await create(m.devKey, body({ phone: null }))).phone, null);
  });

  test('a punctuated CPF is stored without punctuation', async () => {
    const doc = cpf();
    const c = await create(m.devKey, body({ document: formatDocument(doc) }));
    assert.equal(formatDocument(doc).length, 14);
    assert.equal(c.document, doc);
    assert.equal((await create(m.devKey, body({ document: ' 529.982.247-25 ' }))).document, '52998224725');
  });

  test('numeric CNPJ, plain or punctuated', async () => {
    const a = await merchant(ctx.app);
    assert.equal((await create(a.devKey, body({ document: NUMERIC_CNPJ }))).document, NUMERIC_CNPJ);
    assert.equal((await create(m.devKey, body({ document: '11.444.777/0001-61' }))).document, '11444777000161');
  });

  test('alphanumeric CNPJ: lowercase and punctuated input is normalised to upper case without punctuation', async () => {
    const a = await merchant(ctx.app);
    assert.equal((await create(a.devKey, body({ document: ALNUM_CNPJ }))).document, ALNUM_CNPJ);
    const b = await merchant(ctx.app);
    assert.equal((await create(b.devKey, body({ document: '12.abc.345/01de-35' }))).document, ALNUM_CNPJ);
    const d = await merchant(ctx.app);
    assert.equal((await create(d.devKey, body({ document: '12abc34501de35' }))).document, ALNUM_CNPJ);
  });

  test('wrong check digits are 400 INVALID_DOCUMENT on field document, and nothing is stored', async () => {
    const before = await total(m.devKey);
    const doc = cpf();
    const wrongCpf = doc.slice(0, 10) + String((Number(doc[10]) + 1) % 10);
    for (const document of [wrongCpf, '123.456.789-00', '52998224752', '11222333000182', '11.222.333/0001-18', '12ABC34501DE36', '12abc34501de53']) {
      const res = await post(m.devKey, body({ document }));
      assert400(res, 'INVALID_DOCUMENT', ['document']);
      assert.equal(res.body.errors[0].field, 'document');
    }
    assert.equal(await total(m.devKey), before);
  });

  test('repeated digits and malformed documents are INVALID_DOCUMENT', async () => {
    for (const document of ['11111111111', '000.000.000-00', '99999999999', '00000000000000', 'AAAAAAAAAAAAAA', '1234567890123', '123456789012345', 'ABC.DEF.GHI-JK', '12ABC34501DEXY', '5299822472#']) {
      const res = await post(m.devKey, body({ document }));
      assert400(res, 'INVALID_DOCUMENT', ['document']);
      assert.equal(res.body.errors[0].field, 'document');
    }
  });

  test('document is mandatory and 11 to 20 characters long', async () => {
    assert400(await post(m.devKey, { name: 'X', email: 'x@example.com' }), 'VALIDATION_ERROR', ['document']);
    assert400(await post(m.devKey, body({ document: '1234567890' })), 'VALIDATION_ERROR', ['document']);
    assert400(await post(m.devKey, body({ document: '529.982.247-25.......' })), 'VALIDATION_ERROR', ['document']);
    assert400(await post(m.devKey, body({ document: 52998224725 })), 'VALIDATION_ERROR', ['document']);
  });

  test('e-mail is mandatory and must be an e-mail address', async () => {
    const before = await total(m.devKey);
    assert400(await post(m.devKey, { name: 'X', document: cpf() }), 'VALIDATION_ERROR', ['email']);
    for (const email of ['ana', 'ana@', '@example.com', 'ana@@example.com', 'ana souza@example.com', '', `${'a'.repeat(250)}@example.com`]) {
      assert400(await post(m.devKey, body({ email })), 'VALIDATION_ERROR', ['email']);
    }
    assert.equal(await total(m.devKey), before);
  });

  test('phone: digits, spaces, parentheses, dashes and a leading +, 8 to 20 characters', async () => {
    for (const phone of ['abc', '1234567', '+55 11 9123-ABCD', '55+11912345678', '1'.repeat(21), '+55119123456789012345', '11.91234.5678', 123456789]) {
      assert400(await post(m.devKey, body({ phone })), 'VALIDATION_ERROR', ['phone']);
    }
    for (const phone of ['11912345678', '+5511912345678', '(11) 91234-5678', '1'.repeat(20), '+5511912345678901234', '12345678']) {
      assert.equal((await create(m.devKey, body({ phone }))).phone, phone);
    }
  });

  test('name is mandatory, 1 to 255 characters, and cleaned of markup', async () => {
    assert400(await post(m.devKey, { email: 'x@example.com', document: cpf() }), 'VALIDATION_ERROR', ['name']);
    assert400(await post(m.devKey, body({ name: '' })), 'VALIDATION_ERROR', ['name']);
    assert400(await post(m.devKey, body({ name: 'n'.repeat(256) })), 'VALIDATION_ERROR', ['name']);
    assert400(await post(m.devKey, body({ name: '<script>alert(1)</script>' })), 'VALIDATION_ERROR', ['name']);
    assert.equal((await create(m.devKey, body({ name: 'Ana <script>alert(1)</script>Souza' }))).name, 'Ana Souza');
    assert.equal((await create(m.devKey, body({ name: '<img src=x onerror=alert(1)>Caio' }))).name, 'Caio');
    assert.equal((await create(m.devKey, body({ name: 'n'.repeat(255) }))).name, 'n'.repeat(255));
  });

  test('an unknown field is refused and named', async () => {
    assert400(await post(m.devKey, body({ birthDate: '1990-01-01' })), 'VALIDATION_ERROR', ['birthDate']);
  });
});

describe('one client per document per merchant and environment', () => {
  test('a second client with the same document is 400 CLIENT_ALREADY_EXISTS, also when written with punctuation', async () => {
    const doc = cpf();
    const first = await create(m.devKey, body({ document: doc }));
    const before = await total(m.devKey);
    for (const document of [doc, formatDocument(doc), ` ${formatDocument(doc)} `]) {
      const res = await post(m.devKey, body({ document }));
      assert400(res, 'CLIENT_ALREADY_EXISTS', ['document']);
    }
    assert.equal(await total(m.devKey), before);
    assert.deepEqual((await get(m.devKey, first.id)).body.client, first);
  });

  test('alphanumeric CNPJ duplicates are caught whatever the case and punctuation', async () => {
    const a = await merchant(ctx.app);
    await create(a.devKey, body({ document: '12.abc.345/01de-35' }));
    assert400(await post(a.devKey, body({ document: ALNUM_CNPJ })), 'CLIENT_ALREADY_EXISTS', ['document']);
    assert400(await post(a.devKey, body({ document: '12ABC34501de35' })), 'CLIENT_ALREADY_EXISTS', ['document']);
  });

  test('the same document is fine for another merchant', async () => {
    const doc = cpf();
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const ca = await create(a.devKey, body({ document: doc }));
    const cb = await create(b.devKey, body({ document: formatDocument(doc) }));
    assert.equal(cb.document, doc);
    assert.notEqual(ca.id, cb.id);
  });

  test("the same document is fine in the same merchant's PRODUCTION environment (and unique there too)", async (t) => {
    const lm = await liveMerchant(t);
    if (!lm) return;
    const doc = cpf();
    const dev = await create(lm.devKey, body({ document: doc }));
    const live = await create(lm.liveKey!, body({ document: doc }));
    assert.notEqual(dev.id, live.id);
    assert.equal(live.document, doc);
    assert400(await post(lm.liveKey!, body({ document: formatDocument(doc) })), 'CLIENT_ALREADY_EXISTS', ['document']);
  });

  test('concurrent creations of one document: exactly one wins, the others are CLIENT_ALREADY_EXISTS', async () => {
    const doc = cpf();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => post(m.devKey, body({ document: i % 2 ? formatDocument(doc) : doc }))));
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.raw).join('\n'));
    for (const r of results.filter((x) => x.status !== 201)) assert400(r, 'CLIENT_ALREADY_EXISTS', ['document']);
    assert.equal((await list(m.devKey, `?search=${doc}`)).body.pagination.total, 1);
  });
});

describe('get one', () => {
  test('returns { message, client }; an unknown id is 404 { message }', async () => {
    const c = await create(m.devKey);
    const res = await get(m.devKey, c.id);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['client', 'message']);
    assert.deepEqual(res.body.client, c);
    assert404(await get(m.devKey, '01900000-0000-7000-8000-000000000000'));
  });
});

describe('update (PATCH)', () => {
  test('changes only the fields sent', async () => {
    const c = await create(m.devKey, body({ phone: '11912345678' }));
    await sleep(5);
    const res = await patch(m.devKey, c.id, { name: 'Novo Nome', email: 'NOVO@Example.com' });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['client', 'message']);
    const u = res.body.client;
    assert.deepEqual({ ...u, updatedAt: c.updatedAt }, { ...c, name: 'Novo Nome', email: 'novo@example.com' });
    assert.equal(u.createdAt, c.createdAt);
    assert.ok(Date.parse(u.updatedAt) > Date.parse(c.updatedAt));
    assert.deepEqual((await get(m.devKey, c.id)).body.client, u);
    const cleared = await patch(m.devKey, c.id, { phone: null });
    assert.equal(cleared.body.client.phone, null);
    assert.equal(cleared.body.client.name, 'Novo Nome');
  });

  test('a new document is validated and normalised', async () => {
    const c = await create(m.devKey);
    const before = (await get(m.devKey, c.id)).body.client;
    assert400(await patch(m.devKey, c.id, { document: '123.456.789-00' }), 'INVALID_DOCUMENT', ['document']);
    assert400(await patch(m.devKey, c.id, { document: '11111111111' }), 'INVALID_DOCUMENT', ['document']);
    assert400(await patch(m.devKey, c.id, { document: '123' }), 'VALIDATION_ERROR', ['document']);
    assert.deepEqual((await get(m.devKey, c.id)).body.client, before);
    const doc = cpf();
    const res = await patch(m.devKey, c.id, { document: formatDocument(doc) });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.client.document, doc);
  });

  test("another client's document is CLIENT_ALREADY_EXISTS; the client's own document is fine", async () => {
    const a = await create(m.devKey);
    const b = await create(m.devKey);
    assert400(await patch(m.devKey, b.id, { document: a.document }), 'CLIENT_ALREADY_EXISTS', ['document']);
    assert400(await patch(m.devKey, b.id, { document: formatDocument(a.document) }), 'CLIENT_ALREADY_EXISTS', ['document']);
    assert.equal((await get(m.devKey, b.id)).body.client.document, b.document);
    const same = await patch(m.devKey, b.id, { document: formatDocument(b.document), name: 'Mesmo doc' });
    assert.equal(same.status, 200, same.raw);
    assert.equal(same.body.client.document, b.document);
  });

  test('field rules apply on update; an empty body is 400; a refused update changes nothing', async () => {
    const c = await create(m.devKey);
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email' }, 'email'],
      [{ phone: 'abc' }, 'phone'],
      [{ phone: '1'.repeat(21) }, 'phone'],
      [{ name: '' }, 'name'],
      [{ name: '<b></b>' }, 'name'],
      [{ name: null }, 'name'],
      [{ document: null }, 'document'],
      [{ nickname: 'x' }, 'nickname'],
      [{}, 'body'],
    ];
    for (const [b, field] of cases) assert400(await patch(m.devKey, c.id, b), 'VALIDATION_ERROR', [field]);
    assert.deepEqual((await get(m.devKey, c.id)).body.client, c);
  });

  test('an unknown id is 404', async () => {
    assert404(await patch(m.devKey, '01900000-0000-7000-8000-000000000000', { name: 'X' }));
  });
});

describe('delete', () => {
  test('then GET, PATCH and DELETE are 404 and lists do not show it; the document can be registered again', async () => {
    const doc = cpf();
    const c = await create(m.devKey, body({ document: doc }));
    const before = await total(m.devKey);
    const res = await del(m.devKey, c.id);
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert404(await get(m.devKey, c.id));
    assert404(await patch(m.devKey, c.id, { name: 'Volta' }));
    assert404(await del(m.devKey, c.id));
    assert.equal(await total(m.devKey), before - 1);
    assert.ok(!ids(await list(m.devKey, '?limit=100')).includes(c.id));
    assert.deepEqual(ids(await list(m.devKey, `?search=${doc}`)), []);
    const again = await create(m.devKey, body({ document: formatDocument(doc) }));
    assert.notEqual(again.id, c.id);
    assert.equal(again.document, doc);
    assert.deepEqual(ids(await list(m.devKey, `?search=${doc}`)), [again.id]);
    // and a remaining client can take the document of a deleted one
    const other = await create(m.devKey);
    await del(m.devKey, again.id);
    const moved = await patch(m.devKey, other.id, { document: doc });
    assert.equal(moved.status, 200, moved.raw);
    assert.equal(moved.body.client.document, doc);
  });

  test('an unknown id is 404', async () => {
    assert404(await del(m.devKey, '01900000-0000-7000-8000-000000000000'));
  });
});

describe('list (page style)', () => {
  let key: string;
  const created: { id: string; name: string; email: string; document: string }[] = [];
  before(async () => {
    key = (await merchant(ctx.app)).devKey;
    const specs = [
      { name: 'Ana Souza', email: 'ana@loja.com.br', document: '529.982.247-25' },
      { name: 'Bruno Lima', email: 'bruno@example.com', document: NUMERIC_CNPJ },
      { name: 'Carla Dias', email: 'carla.souza@example.com', document: '12.abc.345/01de-35' },
      { name: 'Diego_Rocha', email: 'diego@example.com', document: cpf() },
      { name: 'Eva 100%', email: 'eva@example.com', document: cpf() },
    ];
    for (const s of specs) {
      created.push(await create(key, s));
      await sleep(3);
    }
  });
  const names = (res: Res) => res.body.clients.map((c: { name: string }) => c.name);

  test('{ message, clients, pagination: { page, limit, total, totalPages } }, newest first', async () => {
    const res = await list(key);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['clients', 'message', 'pagination']);
    assert.deepEqual(res.body.pagination, { page: 1, limit: 20, total: 5, totalPages: 1 });
    assert.deepEqual(ids(res), created.map((c) => c.id).reverse());
    assert.deepEqual(res.body.clients[4], created[0]);
  });

  test('walking the pages returns every client exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(key, `?limit=2&page=${page}`);
      assert.deepEqual(res.body.pagination, { page, limit: 2, total: 5, totalPages: 3 });
      seen.push(...ids(res));
    }
    assert.deepEqual(seen, created.map((c) => c.id).reverse());
    assert.deepEqual((await list(key, '?limit=2&page=4')).body.clients, []);
  });

  test('limit outside 1..100 and page < 1 are 400', async () => {
    assert400(await list(key, '?limit=0'), 'VALIDATION_ERROR', ['querystring.limit']);
    assert400(await list(key, '?limit=101'), 'VALIDATION_ERROR', ['querystring.limit']);
    assert400(await list(key, '?page=0'), 'VALIDATION_ERROR', ['querystring.page']);
    assert.equal((await list(key, '?limit=100')).status, 200);
  });

  test('search by name, e-mail or document, case-insensitively', async () => {
    assert.deepEqual(names(await list(key, '?search=souza')), ['Carla Dias', 'Ana Souza']); // name or e-mail
    assert.deepEqual(names(await list(key, '?search=BRUNO%40EXAMPLE')), ['Bruno Lima']);
    assert.deepEqual(names(await list(key, '?search=loja.com')), ['Ana Souza']);
    assert.deepEqual(names(await list(key, '?search=52998224725')), ['Ana Souza']);
    assert.deepEqual(names(await list(key, '?search=222333')), ['Bruno Lima']);
    assert.deepEqual(names(await list(key, '?search=12abc345')), ['Carla Dias']);
    const none = await list(key, '?search=ninguem');
    assert.deepEqual(none.body.clients, []);
    assert.deepEqual(none.body.pagination, { page: 1, limit: 20, total: 0, totalPages: 0 });
  });

  test('a document searched as it is printed (with punctuation) is found', async () => {
    assert.deepEqual(names(await list(key, '?search=529.982.247-25')), ['Ana Souza']);
    assert.deepEqual(names(await list(key, `?search=${encodeURIComponent('11.222.333/0001-81')}`)), ['Bruno Lima']);
    assert.deepEqual(names(await list(key, `?search=${encodeURIComponent('12.ABC.345/01DE-35')}`)), ['Carla Dias']);
  });

  test('% and _ in the search text are literal', async () => {
    assert.deepEqual(names(await list(key, '?search=_')), ['Diego_Rocha']);
    assert.deepEqual(names(await list(key, '?search=%25')), ['Eva 100%']);
    assert.deepEqual(names(await list(key, '?search=a_S')), []);
  });

  test('search paginates over the matches only', async () => {
    const res = await list(key, '?search=example&limit=2&page=2');
    assert.deepEqual(res.body.pagination, { page: 2, limit: 2, total: 4, totalPages: 2 });
    assert.deepEqual(names(res), ['Carla Dias', 'Bruno Lima']);
  });
});

describe('authentication and permissions', () => {
  test('no key is 401 { message }; customers:read cannot write; product keys cannot touch clients', async () => {
    const unauth = await call(ctx.app, 'GET', C);
    assert.equal(unauth.status, 401);
    assert.deepEqual(Object.keys(unauth.body), ['message']);

    const reader = await merchant(ctx.app, { permissions: ['customers:read'] });
    const full = await call(ctx.app, 'POST', '/api/credentials', { token: reader.token, body: { name: 'full', environment: 'DEVELOPMENT' } });
    assert.equal(full.status, 201, full.raw);
    const c = await create(full.body.key);
    assert.deepEqual((await get(reader.devKey, c.id)).body.client, c);
    assert.deepEqual(ids(await list(reader.devKey)), [c.id]);
    for (const res of [await post(reader.devKey, body()), await patch(reader.devKey, c.id, { name: 'X' }), await del(reader.devKey, c.id)]) {
      assert.equal(res.status, 403, res.raw);
      assert.deepEqual(Object.keys(res.body), ['message']);
    }
    assert.deepEqual((await get(reader.devKey, c.id)).body.client, c);

    const productsOnly = await merchant(ctx.app, { permissions: ['products:read', 'products:write'] });
    assert.equal((await list(productsOnly.devKey)).status, 403);
    assert.equal((await post(productsOnly.devKey, body())).status, 403);
  });
});

describe('tenant isolation', () => {
  test("merchant B gets 404 on merchant A's clients and never lists them", async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const ca = await create(a.devKey, body({ name: 'Cliente da loja A' }));
    const cb = await create(b.devKey, body({ name: 'Cliente da loja B' }));
    assert404(await get(b.devKey, ca.id));
    assert404(await patch(b.devKey, ca.id, { name: 'Roubado' }));
    assert404(await del(b.devKey, ca.id));
    for (const q of ['', '?search=loja', `?search=${ca.document}`, `?search=${encodeURIComponent(ca.email)}`]) {
      const l = await list(b.devKey, q);
      assert.ok(!ids(l).includes(ca.id), q);
    }
    assert.deepEqual(ids(await list(b.devKey)), [cb.id]);
    assert.deepEqual((await get(a.devKey, ca.id)).body.client, ca);
    // Document uniqueness is per merchant: B may give its client the document A's client has.
    const moved = await patch(b.devKey, cb.id, { document: ca.document });
    assert.equal(moved.status, 200, moved.raw);
  });
});

async function liveMerchant(t: NodeTestContext) {
  try {
    return await merchant(ctx.app, { live: true });
  } catch (err) {
    t.skip(`a PRODUCTION key could not be created (outside this suite's scope): ${(err as Error).message}`);
    return null;
  }
}

describe('environment isolation', () => {
  test('development clients are invisible to the production key of the same merchant, and vice versa', async (t) => {
    const lm = await liveMerchant(t);
    if (!lm) return;
    const live = lm.liveKey!;
    const dev = await create(lm.devKey, body({ name: 'Cliente sandbox' }));
    const prod = await create(live, body({ name: 'Cliente real' }));
    assert404(await get(live, dev.id));
    assert404(await patch(live, dev.id, { name: 'X' }));
    assert404(await del(live, dev.id));
    assert404(await get(lm.devKey, prod.id));
    assert404(await patch(lm.devKey, prod.id, { name: 'X' }));
    assert404(await del(lm.devKey, prod.id));
    assert.deepEqual(ids(await list(live)), [prod.id]);
    assert.deepEqual(ids(await list(live, '?search=cliente')), [prod.id]);
    assert.deepEqual(ids(await list(live, `?search=${dev.document}`)), []);
    assert.deepEqual(ids(await list(lm.devKey)), [dev.id]);
    assert.deepEqual((await get(lm.devKey, dev.id)).body.client, dev);
    assert.deepEqual((await get(live, prod.id)).body.client, prod);
  });
});
