// Saved cards (POST/GET/DELETE /api/v1/cards) and one-click purchases (cardId on POST
// /api/v1/transactions): the connector's token is stored and never shown, a card pays only for its
// own merchant, environment and client, and it is charged on the connector that keeps it.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { App } from '../src/deps.ts';
import type { Db } from '../src/db/index.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { SandboxConnector } from '../src/payments/sandbox/connector.ts';
import { appConfig, appOver, call, cpf, merchant, startApp, type Merchant, type Res, type TestContext } from './helpers.ts';
import { assertFieldError, assert403, assert404, UUID } from './kit/assert.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assertLedgerBalanced } from './ledger-check.ts';

const YEAR = new Date().getUTCFullYear();
const card = (number = '4242424242424242') => ({ number, holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' });

/** Every response of the file, to check that no stored token ever appears in one. */
const seen: Res[] = [];
async function send(app: App, method: string, url: string, key: string, body?: unknown, headers?: Record<string, string>) {
  const res = await call(app, method, url, { key, body, headers });
  seen.push(res);
  return res;
}

async function newClient(app: App, key: string, document = cpf()): Promise<{ id: string; document: string }> {
  const res = await send(app, 'POST', '/api/clients', key, { name: 'Ana Souza', email: 'ana@example.com', document });
  assert.equal(res.status, 201, res.raw);
  return { id: res.body.client.id, document: res.body.client.document };
}

async function saveCard(app: App, key: string, clientId: string, number?: string) {
  const res = await send(app, 'POST', '/api/v1/cards', key, { clientId, card: card(number) });
  assert.equal(res.status, 201, res.raw);
  return res.body.card as { id: string; clientId: string; brand: string; last4: string };
}

const purchase = (client: { document: string }, cardId: string, over: Record<string, unknown> = {}) => ({
  product: 'Curso',
  amountCents: 5000,
  clientName: 'Ana Souza',
  clientEmail: 'ana@example.com',
  clientDocument: client.document,
  paymentMethod: 'CARD',
  cardId,
  ...over,
});

const transactions = async (db: Db, userId: string) => Number((await db.selectFrom('transactions').select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n);

describe('saved cards in the sandbox', () => {
  // The sandbox serves production here too: the other environment's cards exist.
  const ctx = useApp({ env: { PAYMENT_PROVIDER: 'sandbox' } });
  const m = useMerchant(ctx, { live: true });
  const other = useMerchant(ctx);
  const readOnly = useMerchant(ctx, { permissions: ['customers:read', 'transactions:write'] });

  test('save, get, list by client, delete: brand, last 4 and expiry shown, never the token', async () => {
    const client = await newClient(ctx.app, m.devKey);
    const res = await send(ctx.app, 'POST', '/api/v1/cards', m.devKey, { clientId: client.id, card: card('5555 5555 5555 4444') });
    assert.equal(res.status, 201, res.raw);
    const saved = res.body.card;
    assert.match(saved.id, UUID);
    assert.deepEqual(Object.keys(saved).sort(), ['brand', 'clientId', 'createdAt', 'expMonth', 'expYear', 'holderName', 'id', 'last4']);
    assert.deepEqual({ ...saved, id: 0, createdAt: 0 }, { id: 0, createdAt: 0, clientId: client.id, brand: 'MASTERCARD', last4: '4444', expMonth: 12, expYear: YEAR + 3, holderName: 'ANA SOUZA' });
    const row = await ctx.database.db.selectFrom('saved_cards').selectAll().where('id', '=', saved.id).executeTakeFirstOrThrow();
    assert.equal(row.connector, 'sandbox');
    assert.match(row.token, /^sbx_tok_/);

    const got = await send(ctx.app, 'GET', `/api/v1/cards/${saved.id}`, m.devKey);
    assert.equal(got.status, 200, got.raw);
    assert.deepEqual(got.body.card, saved);
    const second = await saveCard(ctx.app, m.devKey, client.id);
    const elsewhere = await saveCard(ctx.app, m.devKey, (await newClient(ctx.app, m.devKey)).id);
    const listed = await send(ctx.app, 'GET', `/api/v1/cards?clientId=${client.id}`, m.devKey);
    assert.equal(listed.status, 200, listed.raw);
    assert.deepEqual(listed.body.cards.map((c: { id: string }) => c.id), [second.id, saved.id], 'newest first, only this client');
    assert.deepEqual(listed.body.pagination, { page: 1, limit: 20, total: 2, totalPages: 1 });
    const all = await send(ctx.app, 'GET', '/api/v1/cards?limit=1', m.devKey);
    assert.deepEqual(all.body.cards.map((c: { id: string }) => c.id), [elsewhere.id]);
    assert.equal(all.body.pagination.total, 3);

    const gone = await send(ctx.app, 'DELETE', `/api/v1/cards/${saved.id}`, m.devKey);
    assert.equal(gone.status, 200, gone.raw);
    assert404(await send(ctx.app, 'GET', `/api/v1/cards/${saved.id}`, m.devKey));
    assert404(await send(ctx.app, 'DELETE', `/api/v1/cards/${saved.id}`, m.devKey));
    assert.equal((await send(ctx.app, 'GET', `/api/v1/cards?clientId=${client.id}`, m.devKey)).body.pagination.total, 1);
  });

  test('bad card data is a 400 on its field, an unknown or another merchant\'s client a 404; nothing is saved', async () => {
    const before = Number((await ctx.database.db.selectFrom('saved_cards').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const client = await newClient(ctx.app, m.devKey);
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/cards', m.devKey, { clientId: client.id, card: card('4242424242424241') }), 'card.number');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/cards', m.devKey, { clientId: client.id, card: { ...card(), expYear: YEAR - 1 } }), 'card.expYear');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/cards', m.devKey, { clientId: client.id, card: { ...card('378282246310005'), cvv: '123' } }), 'card.cvv');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/cards', m.devKey, { card: card() }), 'clientId');
    assert404(await send(ctx.app, 'POST', '/api/v1/cards', m.devKey, { clientId: '0190f0f0-0000-7000-8000-000000000000', card: card() }));
    const theirs = await newClient(ctx.app, other.devKey);
    assert404(await send(ctx.app, 'POST', '/api/v1/cards', m.devKey, { clientId: theirs.id, card: card() }));
    assert404(await send(ctx.app, 'POST', '/api/v1/cards', m.liveKey!, { clientId: client.id, card: card() }),);
    assert.equal(Number((await ctx.database.db.selectFrom('saved_cards').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), before);
  });

  test('one-click purchase: the saved card is charged (PAID, its brand and last 4), ledger balanced, replayed by its Idempotency-Key', async () => {
    const client = await newClient(ctx.app, m.devKey);
    const saved = await saveCard(ctx.app, m.devKey, client.id, '6062 8256 2425 4001');
    const headers = { 'idempotency-key': `one-click-${saved.id}` };
    const res = await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(client, saved.id), headers);
    assert.equal(res.status, 201, res.raw);
    const t = res.body.transaction;
    assert.equal(t.status, 'PAID', res.raw);
    assert.equal(t.paymentMethod, 'CARD');
    assert.equal(t.card.brand, 'HIPERCARD');
    assert.equal(t.card.last4, '4001');
    assert.equal(t.client.id, client.id);
    const again = await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(client, saved.id), headers);
    assert.equal(again.status, 201);
    assert.equal(again.body.transaction.id, t.id, 'the same purchase, not a second charge');
    const row = await ctx.database.db.selectFrom('transactions').select(['provider', 'provider_ref']).where('id', '=', t.id).executeTakeFirstOrThrow();
    assert.equal(row.provider, 'sandbox');
    assert.match(row.provider_ref!, /^sbx_/);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a saved card is decided as its card: a declining test card and a Cielo last digit fail with their reason', async () => {
    const client = await newClient(ctx.app, m.devKey);
    for (const [number, reason] of [
      ['4000000000000002', 'CARD_DECLINED'],
      ['4532015112830333', 'EXPIRED_CARD'], // Cielo: final 3, Expired Card
    ] as const) {
      const saved = await saveCard(ctx.app, m.devKey, client.id, number);
      const res = await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(client, saved.id));
      assert.equal(res.status, 201, res.raw);
      assert.equal(res.body.transaction.status, 'FAILED', number);
      assert.equal(res.body.transaction.failureReason, reason, number);
    }
  });

  test("another client's card is a 400 on cardId, and so is a deleted card, another merchant's or environment's; nothing is created", async () => {
    const ana = await newClient(ctx.app, m.devKey);
    const bia = await newClient(ctx.app, m.devKey);
    const anas = await saveCard(ctx.app, m.devKey, ana.id);
    const theirs = await saveCard(ctx.app, other.devKey, (await newClient(ctx.app, other.devKey)).id);
    const deleted = await saveCard(ctx.app, m.devKey, ana.id);
    assert.equal((await send(ctx.app, 'DELETE', `/api/v1/cards/${deleted.id}`, m.devKey)).status, 200);
    const count = await transactions(ctx.database.db, m.id);
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(bia, anas.id)), 'cardId');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase({ document: cpf() }, anas.id)), 'cardId');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(ana, deleted.id)), 'cardId');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(ana, theirs.id)), 'cardId');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.liveKey!, purchase(ana, anas.id)), 'cardId');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(ana, anas.id, { paymentMethod: 'PIX' })), 'cardId');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(ana, anas.id, { card: card() })), 'cardId');
    assertFieldError(await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(ana, anas.id, { installments: 3 })), 'installments');
    assert.equal(await transactions(ctx.database.db, m.id), count);
    // The client's card still pays for that client.
    const ok = await send(ctx.app, 'POST', '/api/v1/transactions', m.devKey, purchase(ana, anas.id));
    assert.equal(ok.body.transaction.status, 'PAID', ok.raw);
  });

  test("another merchant's card and the other environment's are 404 on every card route", async () => {
    const saved = await saveCard(ctx.app, m.devKey, (await newClient(ctx.app, m.devKey)).id);
    const live = await saveCard(ctx.app, m.liveKey!, (await newClient(ctx.app, m.liveKey!)).id);
    for (const [key, id] of [
      [other.devKey, saved.id],
      [m.liveKey!, saved.id],
      [m.devKey, live.id],
    ]) {
      assert404(await send(ctx.app, 'GET', `/api/v1/cards/${id}`, key));
      assert404(await send(ctx.app, 'DELETE', `/api/v1/cards/${id}`, key));
    }
    assert.equal((await send(ctx.app, 'GET', '/api/v1/cards', other.devKey)).body.cards.some((c: { id: string }) => c.id === saved.id), false);
    assert.equal((await send(ctx.app, 'GET', '/api/v1/cards', m.liveKey!)).body.cards.some((c: { id: string }) => c.id === saved.id), false);
    assert.equal((await send(ctx.app, 'GET', `/api/v1/cards/${saved.id}`, m.devKey)).status, 200, 'still there for its owner');
    assert.equal((await send(ctx.app, 'GET', `/api/v1/cards/${live.id}`, m.liveKey!)).status, 200);
  });

  test('permissions: reading cards needs customers:read, saving and deleting customers:write', async () => {
    const client = await newClient(ctx.app, m.devKey);
    const saved = await saveCard(ctx.app, m.devKey, client.id);
    assert403(await send(ctx.app, 'POST', '/api/v1/cards', readOnly.devKey, { clientId: client.id, card: card() }));
    assert403(await send(ctx.app, 'DELETE', `/api/v1/cards/${saved.id}`, readOnly.devKey));
    const noCustomers = await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'tx only', environment: 'DEVELOPMENT', permissions: ['transactions:read', 'transactions:write'] } });
    assert403(await send(ctx.app, 'GET', `/api/v1/cards/${saved.id}`, noCustomers.body.key));
    assert403(await send(ctx.app, 'GET', '/api/v1/cards', noCustomers.body.key));
  });

  test('a subscription takes a saved card of its client: charged now and at renewal; another client\'s card is a 400 on cardId', async () => {
    const plan = await send(ctx.app, 'POST', '/api/subscriptions/plans', m.devKey, { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['CARD', 'PIX'] });
    assert.equal(plan.status, 201, plan.raw);
    const ana = await newClient(ctx.app, m.devKey);
    const bia = await newClient(ctx.app, m.devKey);
    const saved = await saveCard(ctx.app, m.devKey, ana.id, '5555555555554444');
    const subscribe = (body: Record<string, unknown>) => send(ctx.app, 'POST', '/api/v1/subscriptions', m.devKey, { planId: plan.body.plan.id, paymentMethod: 'CARD', ...body });
    assertFieldError(await subscribe({ clientId: bia.id, cardId: saved.id }), 'cardId');
    assertFieldError(await subscribe({ client: { name: 'Bia', email: 'bia@example.com', document: bia.document }, cardId: saved.id }), 'cardId');
    assertFieldError(await subscribe({ clientId: ana.id, cardId: saved.id, card: card() }), 'cardId');
    assertFieldError(await subscribe({ clientId: ana.id, cardId: saved.id, paymentMethod: 'PIX' }), 'cardId');
    const res = await subscribe({ clientId: ana.id, cardId: saved.id });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.subscription.status, 'ACTIVE', res.raw);
    assert.equal(res.body.subscription.card.last4, '4444');
    const byDocument = await subscribe({ client: { name: 'Ana Souza', email: 'ana@example.com', document: ana.document }, cardId: saved.id });
    assert.equal(byDocument.body.subscription.status, 'ACTIVE', byDocument.raw);
    const renewed = await send(ctx.app, 'POST', `/api/v1/subscriptions/${res.body.subscription.id}/simulate`, m.devKey, { advanceDays: 31 });
    assert.equal(renewed.status, 200, renewed.raw);
    const paid = await ctx.database.db.selectFrom('transactions').select(['status', 'card_last4']).where('subscription_id', '=', res.body.subscription.id).execute();
    assert.deepEqual(paid, [{ status: 'PAID', card_last4: '4444' }, { status: 'PAID', card_last4: '4444' }]);
  });

  test('the token never leaves Cofre: no response of these tests carries one', async () => {
    // The token never leaves Cofre: no response of this file carries one.
    const tokens = (await ctx.database.db.selectFrom('saved_cards').select('token').execute()).map((r) => r.token);
    assert.ok(tokens.length > 3, 'cards were saved');
    assert.ok(seen.length > 20);
    for (const res of seen) {
      assert.doesNotMatch(res.raw, /sbx_tok_/, `a response carries a token: ${res.raw}`);
      for (const t of tokens) assert.ok(!res.raw.includes(t), 'a response carries a stored token');
    }
  });
});

/** A card connector under another name; `keeps: false`: one that keeps no cards (no tokenizeCard). */
class Named extends SandboxConnector {
  override readonly name: string;
  constructor(name: string, db: Db, keeps = true) {
    super({ pix: { key: 'pix@cofre.com.br', merchantName: 'COFRE', merchantCity: 'SAO PAULO', ttlSeconds: 3600 }, boleto: { bankCode: '000', defaultDueDays: 3, daysAfterDue: 0, reconcileMinutes: 60 } }, db, 0);
    this.name = name;
    if (!keeps) Object.defineProperty(this, 'tokenizeCard', { value: undefined });
  }
}

describe('a saved card is charged on the connector that keeps it; 503 when the card connector keeps none', () => {
  let ctx: TestContext;
  let moved: App;
  let m: Merchant;
  const quiet = () => new Writable({ write: (_c, _e, cb) => cb() });
  before(async () => {
    ctx = await startApp({ deps: { connectors: { extra: [(db) => new Named('alpha', db), (db) => new Named('keepless', db, false)], production: { CARD: ['alpha'] } } } });
    m = await merchant(ctx.app, { live: true });
    // The same gateway once its operator moved card payments to a connector that keeps no cards.
    moved = await appOver(appConfig(), ctx.database, { limiter: new MemoryLimiter(), logStream: quiet(), connectors: { extra: [new Named('alpha', ctx.database.db), new Named('keepless', ctx.database.db, false)], production: { CARD: ['keepless'] } } });
  });
  after(async () => {
    await moved?.close();
    await ctx?.close();
  });

  test('saved with alpha, charged on alpha after cards moved to keepless; saving there is a 503 that saves nothing', async () => {
    const client = await newClient(ctx.app, m.liveKey!);
    const saved = await saveCard(ctx.app, m.liveKey!, client.id);
    assert.equal((await ctx.database.db.selectFrom('saved_cards').select('connector').where('id', '=', saved.id).executeTakeFirstOrThrow()).connector, 'alpha');
    const refused = await send(moved, 'POST', '/api/v1/cards', m.liveKey!, { clientId: client.id, card: card() });
    assert.equal(refused.status, 503, refused.raw);
    assert.match(refused.body.message, /does not keep cards/);
    assert.equal((await send(moved, 'GET', `/api/v1/cards?clientId=${client.id}`, m.liveKey!)).body.pagination.total, 1);
    const res = await send(moved, 'POST', '/api/v1/transactions', m.liveKey!, purchase(client, saved.id));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.status, 'PAID', res.raw);
    const row = await ctx.database.db.selectFrom('transactions').select('provider').where('id', '=', res.body.transaction.id).executeTakeFirstOrThrow();
    assert.equal(row.provider, 'alpha');
    await assertLedgerBalanced(ctx.database.db);
  });
});
