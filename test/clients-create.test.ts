// Clients: creation (fields, documents, bounds) and one client per document per merchant and environment.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDocument } from '../src/payments/documents.ts';
import { cpf, merchant } from './helpers.ts';
import { liveMerchant, useApp, useMerchant } from './kit/app.ts';
import { assert400, UUID } from './kit/assert.ts';
import { ALNUM_CNPJ, body, clientApi, NUMERIC_CNPJ, ON_CLIENTS } from './clients-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx);
const { post, create, get, list, total } = clientApi(ctx);

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
      { id: undefined, name: 'Ana Souza', email: 'ana.souza@example.com', document: doc, phone: '+55 (11) 91234-5678', erasedAt: null, createdAt: undefined, updatedAt: undefined },
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
      assert400(res, 'INVALID_DOCUMENT', ['document'], ON_CLIENTS);
      assert.equal(res.body.errors[0].field, 'document');
    }
    assert.equal(await total(m.devKey), before);
  });

  test('repeated digits and malformed documents are INVALID_DOCUMENT', async () => {
    for (const document of ['11111111111', '000.000.000-00', '99999999999', '00000000000000', 'AAAAAAAAAAAAAA', '1234567890123', '123456789012345', 'ABC.DEF.GHI-JK', '12ABC34501DEXY', '5299822472#']) {
      const res = await post(m.devKey, body({ document }));
      assert400(res, 'INVALID_DOCUMENT', ['document'], ON_CLIENTS);
      assert.equal(res.body.errors[0].field, 'document');
    }
  });

  test('document is mandatory and 11 to 20 characters long', async () => {
    assert400(await post(m.devKey, { name: 'X', email: 'x@example.com' }), 'VALIDATION_ERROR', ['document'], ON_CLIENTS);
    assert400(await post(m.devKey, body({ document: '1234567890' })), 'VALIDATION_ERROR', ['document'], ON_CLIENTS);
    assert400(await post(m.devKey, body({ document: '529.982.247-25.......' })), 'VALIDATION_ERROR', ['document'], ON_CLIENTS);
    assert400(await post(m.devKey, body({ document: 52998224725 })), 'VALIDATION_ERROR', ['document'], ON_CLIENTS);
  });

  test('e-mail is mandatory and must be an e-mail address', async () => {
    const before = await total(m.devKey);
    assert400(await post(m.devKey, { name: 'X', document: cpf() }), 'VALIDATION_ERROR', ['email'], ON_CLIENTS);
    for (const email of ['ana', 'ana@', '@example.com', 'ana@@example.com', 'ana souza@example.com', '', `${'a'.repeat(250)}@example.com`]) {
      assert400(await post(m.devKey, body({ email })), 'VALIDATION_ERROR', ['email'], ON_CLIENTS);
    }
    assert.equal(await total(m.devKey), before);
  });

  test('phone: digits, spaces, parentheses, dashes and a leading +, 8 to 20 characters', async () => {
    for (const phone of ['abc', '1234567', '+55 11 9123-ABCD', '55+11912345678', '1'.repeat(21), '+55119123456789012345', '11.91234.5678', 123456789]) {
      assert400(await post(m.devKey, body({ phone })), 'VALIDATION_ERROR', ['phone'], ON_CLIENTS);
    }
    for (const phone of ['11912345678', '+5511912345678', '(11) 91234-5678', '1'.repeat(20), '+5511912345678901234', '12345678']) {
      assert.equal((await create(m.devKey, body({ phone }))).phone, phone);
    }
  });

  test('name is mandatory, 1 to 255 characters, and cleaned of markup', async () => {
    assert400(await post(m.devKey, { email: 'x@example.com', document: cpf() }), 'VALIDATION_ERROR', ['name'], ON_CLIENTS);
    assert400(await post(m.devKey, body({ name: '' })), 'VALIDATION_ERROR', ['name'], ON_CLIENTS);
    assert400(await post(m.devKey, body({ name: 'n'.repeat(256) })), 'VALIDATION_ERROR', ['name'], ON_CLIENTS);
    assert400(await post(m.devKey, body({ name: '<script>alert(1)</script>' })), 'VALIDATION_ERROR', ['name'], ON_CLIENTS);
    assert.equal((await create(m.devKey, body({ name: 'Ana <script>alert(1)</script>Souza' }))).name, 'Ana Souza');
    assert.equal((await create(m.devKey, body({ name: '<img src=x onerror=alert(1)>Caio' }))).name, 'Caio');
    assert.equal((await create(m.devKey, body({ name: 'n'.repeat(255) }))).name, 'n'.repeat(255));
  });

  test('an unknown field is refused and named', async () => {
    assert400(await post(m.devKey, body({ birthDate: '1990-01-01' })), 'VALIDATION_ERROR', ['birthDate'], ON_CLIENTS);
  });
});

describe('one client per document per merchant and environment', () => {
  test('a second client with the same document is 400 CLIENT_ALREADY_EXISTS, also when written with punctuation', async () => {
    const doc = cpf();
    const first = await create(m.devKey, body({ document: doc }));
    const before = await total(m.devKey);
    for (const document of [doc, formatDocument(doc), ` ${formatDocument(doc)} `]) {
      const res = await post(m.devKey, body({ document }));
      assert400(res, 'CLIENT_ALREADY_EXISTS', ['document'], ON_CLIENTS);
    }
    assert.equal(await total(m.devKey), before);
    assert.deepEqual((await get(m.devKey, first.id)).body.client, first);
  });

  test('alphanumeric CNPJ duplicates are caught whatever the case and punctuation', async () => {
    const a = await merchant(ctx.app);
    await create(a.devKey, body({ document: '12.abc.345/01de-35' }));
    assert400(await post(a.devKey, body({ document: ALNUM_CNPJ })), 'CLIENT_ALREADY_EXISTS', ['document'], ON_CLIENTS);
    assert400(await post(a.devKey, body({ document: '12ABC34501de35' })), 'CLIENT_ALREADY_EXISTS', ['document'], ON_CLIENTS);
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
    const lm = await liveMerchant(ctx, t);
    if (!lm) return;
    const doc = cpf();
    const dev = await create(lm.devKey, body({ document: doc }));
    const live = await create(lm.liveKey!, body({ document: doc }));
    assert.notEqual(dev.id, live.id);
    assert.equal(live.document, doc);
    assert400(await post(lm.liveKey!, body({ document: formatDocument(doc) })), 'CLIENT_ALREADY_EXISTS', ['document'], ON_CLIENTS);
  });

  test('concurrent creations of one document: exactly one wins, the others are CLIENT_ALREADY_EXISTS', async () => {
    const doc = cpf();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => post(m.devKey, body({ document: i % 2 ? formatDocument(doc) : doc }))));
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.raw).join('\n'));
    for (const r of results.filter((x) => x.status !== 201)) assert400(r, 'CLIENT_ALREADY_EXISTS', ['document'], ON_CLIENTS);
    assert.equal((await list(m.devKey, `?search=${doc}`)).body.pagination.total, 1);
  });
});
