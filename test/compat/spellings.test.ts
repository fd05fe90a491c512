// Origin compatibility (issue 12): the origin's spellings of requests, and coupon validation with an
// API key, driven the way origin clients drive the API (docs/compatibility.md).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cpf, merchant, type Merchant } from '../helpers.ts';
import { paidPix } from '../wallet-helpers.ts';
import { data, failure, failureOn, send, useOrigin, type Origin } from './origin-client.ts';

let o: Origin;
let m: Merchant;
let other: Merchant;
useOrigin((s) => ({ o, m, other } = s));

const YEAR = new Date().getUTCFullYear();
const card = { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' };
const createTx = (body: Record<string, unknown>, key = m.devKey, headers: Record<string, string> = {}) => send(o, 'POST', '/api/v1/transactions', { key, body, headers });
const base = (over: Record<string, unknown> = {}) => ({ product: 'Plano mensal', amountCents: 10_000, ...over });
const flatClient = () => ({ clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf() });

describe('transactions', () => {
  test('paymentMethod omitted is PIX; CREDIT_CARD is CARD', async () => {
    const pix = data(await createTx(base(flatClient())), 201);
    assert.equal(pix.paymentMethod, 'PIX');
    assert.ok(pix.pix.qrCode);
    const cc = data(await createTx(base({ ...flatClient(), paymentMethod: 'CREDIT_CARD', card, installments: 2 })), 201);
    assert.deepEqual([cc.paymentMethod, cc.status, cc.installments], ['CARD', 'PAID', 2]);
    failureOn(await createTx(base({ ...flatClient(), paymentMethod: 'DEBIT_CARD' })), 'VALIDATION_ERROR', 'paymentMethod');
  });

  test('CREDIT_CARD in the list filters', async () => {
    const listed = data(await send(o, 'GET', '/api/v1/transactions?paymentMethod=CREDIT_CARD&limit=100', { key: m.devKey }));
    assert.ok(listed.length >= 1 && listed.every((t: { paymentMethod: string }) => t.paymentMethod === 'CARD'));
    assert.deepEqual(data(await send(o, 'GET', '/api/v1/transactions?method=CREDIT_CARD&limit=100', { key: m.devKey })), listed);
  });

  test('a nested client {name, email, document, phone}', async () => {
    const document = cpf();
    const tx = data(await createTx(base({ client: { name: 'Bruno Dias', email: 'Bruno@Example.com', document, phone: '+5511988887777' } })), 201);
    assert.deepEqual([tx.client.name, tx.client.email, tx.client.document, tx.client.phone], ['Bruno Dias', 'bruno@example.com', document, '+5511988887777']);
    failureOn(await createTx(base({ client: { name: 'B', email: 'b@example.com', document: cpf(), cpf: '1' } })), 'VALIDATION_ERROR', 'client.cpf');
    failureOn(await createTx(base({ client: 'Bruno' })), 'VALIDATION_ERROR', 'client');
    failureOn(await createTx(base({ client: { name: 'B', email: 'b@example.com' } })), 'VALIDATION_ERROR', 'clientDocument');
    failureOn(await createTx(base({ client: { name: 'B', email: 'b@example.com', document }, clientName: 'Outro' })), 'VALIDATION_ERROR', 'client.name');
    // Both at once when they agree as stored: a document with and without punctuation, an e-mail in another case.
    const dotted = `${document.slice(0, 3)}.${document.slice(3, 6)}.${document.slice(6, 9)}-${document.slice(9)}`;
    const both = data(await createTx(base({ client: { name: 'Bruno Dias', email: 'BRUNO@example.com', document }, clientName: 'Bruno Dias', clientEmail: 'bruno@example.com', clientDocument: dotted })), 201);
    assert.deepEqual([both.client.email, both.client.document], ['bruno@example.com', document]);
  });

  test('a clientId of this merchant and environment, and only that', async () => {
    const c = data(await send(o, 'POST', '/api/clients', { key: m.devKey, body: { name: 'Carla Reis', email: 'carla@example.com', document: cpf(), phone: '+5521977776666' } }), 201);
    const tx = data(await createTx(base({ clientId: c.id })), 201);
    assert.deepEqual(tx.client, { id: c.id, name: c.name, email: c.email, document: c.document, phone: c.phone });
    // Listed under the client.
    assert.deepEqual(data(await send(o, 'GET', `/api/v1/transactions?clientId=${c.id}`, { key: m.devKey })).map((t: { id: string }) => t.id), [tx.id]);
    failureOn(await createTx(base({ clientId: c.id }), other.devKey), 'VALIDATION_ERROR', 'clientId');
    // The same merchant's other environment: a development client is unknown to a production key.
    const both = await merchant(o.ctx.app, { live: true });
    const devClient = data(await send(o, 'POST', '/api/clients', { key: both.devKey, body: { name: 'Dev', email: 'dev@example.com', document: cpf() } }), 201);
    failureOn(await createTx(base({ clientId: devClient.id }), both.liveKey), 'VALIDATION_ERROR', 'clientId');
    failureOn(await createTx(base({ clientId: 'not-a-uuid' })), 'VALIDATION_ERROR', 'clientId');
    failureOn(await createTx(base({ clientId: c.id, clientName: 'Outra' })), 'VALIDATION_ERROR', 'clientId');
    // With an Idempotency-Key: the retry replays the first answer even after the client's data
    // changed (a sale to the same document with another name updates the client).
    const keyed = await createTx(base({ clientId: c.id }), m.devKey, { 'Idempotency-Key': 'client-id-retry' });
    data(keyed, 201);
    data(await createTx(base({ clientName: 'Carla Reis Souza', clientEmail: 'carla.souza@example.com', clientDocument: c.document })), 201);
    const retry = await createTx(base({ clientId: c.id }), m.devKey, { 'Idempotency-Key': 'client-id-retry' });
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, keyed.text);
    failure(await createTx(base({ clientId: c.id, amountCents: 10_001 }), m.devKey, { 'Idempotency-Key': 'client-id-retry' }), 400, 'IDEMPOTENCY_KEY_REUSED');
    // An archived client is no longer one to charge; a retry of a creation made before still
    // replays its answer (a new key, or another body under the old one, is refused).
    data(await send(o, 'DELETE', `/api/clients/${c.id}`, { key: m.devKey }));
    failureOn(await createTx(base({ clientId: c.id })), 'VALIDATION_ERROR', 'clientId');
    failureOn(await createTx(base({ clientId: c.id }), m.devKey, { 'Idempotency-Key': 'client-id-new' }), 'VALIDATION_ERROR', 'clientId');
    const late = await createTx(base({ clientId: c.id }), m.devKey, { 'Idempotency-Key': 'client-id-retry' });
    assert.equal(late.headers.get('idempotent-replayed'), 'true');
    assert.equal(late.text, keyed.text);
    failure(await createTx(base({ clientId: c.id, amountCents: 10_001 }), m.devKey, { 'Idempotency-Key': 'client-id-retry' }), 400, 'IDEMPOTENCY_KEY_REUSED');
    // Another merchant's key of the same name does not open this merchant's archived client.
    failureOn(await createTx(base({ clientId: c.id }), other.devKey, { 'Idempotency-Key': 'client-id-retry' }), 'VALIDATION_ERROR', 'clientId');
  });

  test('couponCode: applied as the checkout applies it, recorded on the transaction, counted when paid', async () => {
    const c = data(await send(o, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'API15', discountType: 'PERCENTAGE', discountValue: 15, usageLimit: 1 } }), 201);
    const tx = data(await createTx(base({ ...flatClient(), couponCode: 'api15' })), 201);
    assert.deepEqual([tx.amountCents, tx.discountCents, tx.couponId, tx.chargedCents], [8500, 1500, c.id, 8500]);
    assert.equal(tx.feeCents, Math.floor((8500 * 99 + 5000) / 10000));
    data(await send(o, 'POST', `/api/v1/transactions/${tx.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } }));
    assert.equal(data(await send(o, 'GET', `/api/v1/coupons/${c.id}`, { key: m.devKey })).usedCount, 1);
    // Used up now.
    failureOn(await createTx(base({ ...flatClient(), couponCode: 'API15' })), 'INVALID_COUPON', 'couponCode');
    failureOn(await createTx(base({ ...flatClient(), couponCode: 'NAOEXISTE' })), 'INVALID_COUPON', 'couponCode');
    // Another merchant's code is unknown here.
    data(await send(o, 'POST', '/api/v1/coupons', { key: other.devKey, body: { code: 'OUTRO10', discountType: 'PERCENTAGE', discountValue: 10 } }), 201);
    failureOn(await createTx(base({ ...flatClient(), couponCode: 'OUTRO10' })), 'INVALID_COUPON', 'couponCode');
    const free = data(await send(o, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'TUDO', discountType: 'FIXED', discountValue: 10_000 } }), 201);
    failureOn(await createTx(base({ ...flatClient(), couponCode: free.code })), 'VALIDATION_ERROR', 'couponCode');
  });

  test('couponCode with Idempotency-Key: a retry replays the first answer even once the coupon is used up', async () => {
    data(await send(o, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'UMAVEZ', discountType: 'FIXED', discountValue: 500, usageLimit: 1 } }), 201);
    const body = base({ ...flatClient(), couponCode: 'UMAVEZ' });
    const first = await createTx(body, m.devKey, { 'Idempotency-Key': 'coupon-replay' });
    const tx = data(first, 201);
    data(await send(o, 'POST', `/api/v1/transactions/${tx.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } }));
    const retry = await createTx(body, m.devKey, { 'Idempotency-Key': 'coupon-replay' });
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text);
    // The card path (claimed key) too.
    data(await send(o, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'CARTAO', discountType: 'FIXED', discountValue: 500, usageLimit: 1 } }), 201);
    const cardBody = base({ ...flatClient(), couponCode: 'CARTAO', paymentMethod: 'CREDIT_CARD', card });
    const paid = await createTx(cardBody, m.devKey, { 'Idempotency-Key': 'coupon-card' });
    assert.deepEqual([data(paid, 201).status, data(paid, 201).discountCents], ['PAID', 500]);
    const again = await createTx(cardBody, m.devKey, { 'Idempotency-Key': 'coupon-card' });
    assert.equal(again.text, paid.text);
  });

  test('couponCode with a payment link: restricted coupons see the link\'s products', async () => {
    const prod = data(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Curso', price: 20_000 } }), 201);
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Curso', products: [{ productId: prod.id, quantity: 1 }] } }), 201);
    data(await send(o, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'SOCURSO', discountType: 'FIXED', discountValue: 2000, productIds: [prod.id] } }), 201);
    const tx = data(await createTx(base({ ...flatClient(), amountCents: 20_000, paymentLinkId: link.id, couponCode: 'SOCURSO' })), 201);
    assert.deepEqual([tx.amountCents, tx.discountCents, tx.paymentLinkId], [18_000, 2000, link.id]);
    failureOn(await createTx(base({ ...flatClient(), couponCode: 'SOCURSO' })), 'INVALID_COUPON', 'couponCode');
  });

  test('CREDIT_CARD at the public checkout', async () => {
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Checkout', amountCents: 3000 } }), 201);
    const tx = data(
      await send(o, 'POST', `/api/payment-links/public/slug/${link.slug}/checkout`, {
        body: { clientName: 'Edu', clientEmail: 'edu@example.com', clientDocument: cpf(), paymentMethod: 'CREDIT_CARD', card },
      }),
      201,
    );
    assert.deepEqual([tx.paymentMethod, tx.status], ['CARD', 'PAID']);
  });
});

describe('payment links: amount for amountCents', () => {
  test('on creation and update; both at once only when they agree', async () => {
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Valor', amount: 4990 } }), 201);
    assert.equal(link.amount, 4990);
    const updated = data(await send(o, 'PATCH', `/api/v1/payment-links/${link.id}`, { key: m.devKey, body: { amount: 5990 } }));
    assert.equal(updated.amount, 5990);
    assert.equal(data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Igual', amount: 100, amountCents: 100 } }), 201).amount, 100);
    failureOn(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Dois', amount: 100, amountCents: 200 } }), 'VALIDATION_ERROR', 'amount');
    failureOn(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Zero', amount: 0 } }), 'VALIDATION_ERROR', 'amountCents');
  });
});

describe('withdrawals: pixKeyType inferred from pixKey', () => {
  test('CPF, CNPJ, e-mail, +55 phone and random key; origin spellings of the type; a key of no known shape is a 400', async () => {
    const w = await merchant(o.ctx.app);
    await paidPix(o.ctx.app, { key: w.devKey }, 100_000);
    const doc = cpf();
    const cases: [string, string, string][] = [
      [`${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`, 'cpf', doc],
      ['11.222.333/0001-81', 'cnpj', '11222333000181'],
      ['Pagamentos@Loja.com.br', 'email', 'pagamentos@loja.com.br'],
      ['+55 (11) 98765-4321', 'phone', '+5511987654321'],
      ['123E4567-E89B-42D3-A456-426614174000', 'random', '123e4567-e89b-42d3-a456-426614174000'],
    ];
    for (const [pixKey, type, stored] of cases) {
      const made = data(await send(o, 'POST', '/api/v1/withdraws', { key: w.devKey, body: { amountCents: 1000, pixKey } }), 201);
      assert.deepEqual([made.pixKeyType, made.pixKey], [type, stored], pixKey);
    }
    const upper = data(await send(o, 'POST', '/api/v1/withdraws', { key: w.devKey, body: { amountCents: 1000, pixKeyType: 'EVP', pixKey: '123e4567-e89b-42d3-a456-426614174000' } }), 201);
    assert.equal(upper.pixKeyType, 'random');
    assert.equal(data(await send(o, 'POST', '/api/v1/withdraws', { key: w.devKey, body: { amountCents: 1000, pixKeyType: 'EMAIL', pixKey: 'a@b.com.br' } }), 201).pixKeyType, 'email');
    failureOn(await send(o, 'POST', '/api/v1/withdraws', { key: w.devKey, body: { amountCents: 1000, pixKey: 'chave qualquer' } }), 'VALIDATION_ERROR', 'pixKeyType');
    // Inferred as a CPF, then checked as one.
    failureOn(await send(o, 'POST', '/api/v1/withdraws', { key: w.devKey, body: { amountCents: 1000, pixKey: '12345678900' } }), 'INVALID_DOCUMENT', 'pixKey');
    failureOn(await send(o, 'POST', '/api/v1/withdraws', { key: w.devKey, body: { amountCents: 1000, pixKey: '11987654321', pixKeyType: 'PHONE' } }), 'VALIDATION_ERROR', 'pixKey');
  });
});

describe('webhook subscriptions: isActive', () => {
  test('true = ACTIVE, false = DISABLED, on create, PATCH and PUT, and returned', async () => {
    const off = data(await send(o, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: 'https://hooks.example.com/a', events: ['transaction.created'], isActive: false } }), 201);
    assert.deepEqual([off.status, off.isActive, off.disabledReason], ['DISABLED', false, 'Disabled by request']);
    const on = data(await send(o, 'PUT', `/api/v1/webhooks/subscriptions/${off.id}`, { key: m.devKey, body: { isActive: true } }));
    assert.deepEqual([on.status, on.isActive, on.disabledReason], ['ACTIVE', true, null]);
    const again = data(await send(o, 'PATCH', `/api/v1/webhooks/subscriptions/${off.id}`, { key: m.devKey, body: { isActive: false } }));
    assert.deepEqual([again.status, again.isActive], ['DISABLED', false]);
    assert.equal(data(await send(o, 'GET', `/api/v1/webhooks/subscriptions/${off.id}`, { key: m.devKey })).isActive, false);
    failureOn(await send(o, 'PATCH', `/api/v1/webhooks/subscriptions/${off.id}`, { key: m.devKey, body: { isActive: 'yes' } }), 'VALIDATION_ERROR', 'isActive');
    failureOn(await send(o, 'PATCH', `/api/v1/webhooks/subscriptions/${off.id}`, { key: m.devKey, body: { isActive: true, status: 'DISABLED' } }), 'VALIDATION_ERROR', 'isActive');
    const plain = data(await send(o, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: 'https://hooks.example.com/b', events: ['transaction.created'] } }), 201);
    assert.deepEqual([plain.status, plain.isActive], ['ACTIVE', true]);
  });
});

describe('products: sku', () => {
  test('stored and returned; unique per merchant and environment among live products, any case; freed when archived', async () => {
    const p = data(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Camiseta P', price: 4990, sku: 'CAM-P-01' } }), 201);
    assert.equal(p.sku, 'CAM-P-01');
    assert.equal(data(await send(o, 'GET', `/api/v1/products/${p.id}`, { key: m.devKey })).sku, 'CAM-P-01');
    failureOn(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Outra', price: 1, sku: 'cam-p-01' } }), 'SKU_ALREADY_EXISTS', 'sku');
    const q = data(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Camiseta M', price: 4990 } }), 201);
    assert.equal(q.sku, null);
    failureOn(await send(o, 'PATCH', `/api/v1/products/${q.id}`, { key: m.devKey, body: { sku: 'CAM-P-01' } }), 'SKU_ALREADY_EXISTS', 'sku');
    assert.equal(data(await send(o, 'PATCH', `/api/v1/products/${q.id}`, { key: m.devKey, body: { sku: 'CAM-M-01' } })).sku, 'CAM-M-01');
    assert.deepEqual(data(await send(o, 'GET', '/api/v1/products?sku=cam-m-01', { key: m.devKey })).map((x: { id: string }) => x.id), [q.id]);
    // Another merchant, or the same merchant's other environment, may use the same SKU.
    data(await send(o, 'POST', '/api/v1/products', { key: other.devKey, body: { name: 'Dele', price: 1, sku: 'CAM-P-01' } }), 201);
    // Archived: the SKU is free again; cleared with null.
    data(await send(o, 'DELETE', `/api/v1/products/${p.id}`, { key: m.devKey }));
    assert.equal(data(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Nova P', price: 1, sku: 'CAM-P-01' } }), 201).sku, 'CAM-P-01');
    assert.equal(data(await send(o, 'PATCH', `/api/v1/products/${q.id}`, { key: m.devKey, body: { sku: null } })).sku, null);
  });
});

describe('coupon validation with an API key', () => {
  test('the key\'s merchant is the scope: no productIds needed; paymentLinkId works like paymentLinkSlug', async () => {
    const c = data(await send(o, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'CHAVE20', discountType: 'PERCENTAGE', discountValue: 20 } }), 201);
    const v = data(await send(o, 'POST', '/api/coupons/validate', { key: m.devKey, body: { code: c.code, amountCents: 5000 } }));
    assert.deepEqual([v.valid, v.discountAmount, v.finalAmount], [true, 1000, 4000]);
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Por id', amountCents: 8000 } }), 201);
    const byId = data(await send(o, 'POST', '/api/v1/coupons/validate', { key: m.devKey, body: { code: c.code, paymentLinkId: link.id } }));
    assert.deepEqual([byId.discountAmount, byId.finalAmount], [1600, 6400]);
    // Another merchant's key: its own scope, where the code does not exist (the same unified answer).
    const foreign = await send(o, 'POST', '/api/coupons/validate', { key: other.devKey, body: { code: c.code, amountCents: 5000 } });
    assert.deepEqual([foreign.status, foreign.json.valid, foreign.json.success], [400, false, false]);
    const foreignLink = await send(o, 'POST', '/api/coupons/validate', { key: other.devKey, body: { code: c.code, paymentLinkId: link.id } });
    assert.deepEqual([foreignLink.status, foreignLink.json.valid], [400, false]);
    failureOn(await send(o, 'POST', '/api/coupons/validate', { key: m.devKey, body: { code: c.code } }), 'VALIDATION_ERROR', 'amountCents');
  });

  test('an invalid key is a 401, a key without coupons:read a 403; without a key paymentLinkId is refused and the public limits apply', async () => {
    failure(await send(o, 'POST', '/api/coupons/validate', { key: 'cofre_test_' + 'x'.repeat(43), body: { code: 'X', amountCents: 1 } }), 401);
    failure(await send(o, 'POST', '/api/coupons/validate', { body: { code: 'X', amountCents: 1 }, headers: { Authorization: 'Bearer nope' } }), 401);
    const noCoupons = await merchant(o.ctx.app, { permissions: ['products:read'] });
    failure(await send(o, 'POST', '/api/coupons/validate', { key: noCoupons.devKey, body: { code: 'X', amountCents: 1 } }), 403);
    failureOn(await send(o, 'POST', '/api/coupons/validate', { body: { code: 'X', paymentLinkId: '01890000-0000-7000-8000-000000000000' } }), 'VALIDATION_ERROR', 'paymentLinkId');
    // Public: the unified answer, and 10 per minute per IP (this test's requests all come from 127.0.0.1).
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await send(o, 'POST', '/api/coupons/validate', { body: { code: 'NAOEXISTE', amountCents: 1000, productIds: [] }, headers: { 'X-Device-Id': `compat-device-${i}` } }));
    assert.ok(answers.slice(0, 8).every((a) => a.status === 400 && a.json.valid === false), answers.map((a) => a.status + a.text).join('\n'));
    assert.equal(answers.at(-1)!.status, 429);
    // With a key the merchant's limit applies, not the per-IP one.
    assert.equal((await send(o, 'POST', '/api/coupons/validate', { key: m.devKey, body: { code: 'NAOEXISTE', amountCents: 1000 } })).json.valid, false);
  });
});
