// A client's data rights (LGPD): the export holds everything stored about the client and nothing of
// another; the erasure leaves none of its personal values in any row of any table (every table of the
// schema is searched) while amounts, statuses and the ledger stay, and the erased client can no longer
// be charged. The client pays by PIX, card, a saved card, a subscription and a hosted checkout with an
// address; webhooks are delivered to a loopback receiver and e-mails queued before the erasure.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { formatDocument, maskDocument } from '../src/payments/documents.ts';
import { EVENT_TYPES } from '../src/modules/events/service.ts';
import { call, cpf, merchant, type Merchant } from './helpers.ts';
import { ready, useApp } from './kit/app.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { env as webhookEnv, until, useReceiver } from './webhooks-kit.ts';

const YEAR = new Date().getUTCFullYear();
const PERSON = {
  name: 'Zuleica Quaresmeira Tavares',
  email: 'zuleica.quaresmeira@exemplo-lgpd.com.br',
  document: cpf(),
  phone: '+5521975318642',
  holder: 'ZULEICA Q TAVARES',
  address: { zipCode: '69915-882', street: 'Travessa Xiquexique Quaresmal', number: '77', complement: 'Casa Jacarandazul', neighborhood: 'Bosque Lilasino', city: 'Rio Branco', state: 'AC' },
};
const OTHER = { name: 'Otaviano Brandimarte', email: 'otaviano.brandimarte@exemplo-lgpd.com.br', document: cpf(), phone: '+5511912340000' };

/** Each personal value in the shapes it could be stored in: as given, normalised, formatted, masked. */
function needles(p: typeof PERSON | typeof OTHER): string[] {
  const shapes = [p.name, p.email, p.document, formatDocument(p.document), maskDocument(p.document), p.phone.slice(3)];
  return 'address' in p ? [...shapes, p.holder, p.address.street, p.address.complement, p.address.neighborhood, '69915882'] : shapes;
}

/** Every row of every table of the schema as JSON (column names kept), with the needles each holds. */
async function findIn(db: any, values: string[]): Promise<string[]> {
  const tables = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`.execute(db);
  assert.ok(tables.rows.length > 30, 'the tables were found');
  const found: string[] = [];
  for (const { name } of tables.rows) {
    const { rows } = await sql<{ row: string }>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(name)} t`.execute(db);
    for (const { row } of rows) for (const v of values) if (row.includes(v) || row.includes(JSON.stringify(v).slice(1, -1))) found.push(`${v} in ${name}: ${row.slice(Math.max(0, row.indexOf(v) - 60), row.indexOf(v) + 60)}`);
  }
  return found;
}

describe('client data export and erasure (LGPD)', () => {
  const receiver = useReceiver();
  const ctx = useApp(async () => ({ env: webhookEnv(await ready(receiver), true) }));
  let m: Merchant;
  let clientId: string;
  let otherId: string;
  let subscriptionId: string;
  let cardId: string;
  const api = (method: string, url: string, body?: unknown, key = m.devKey) => call(ctx.app, method, url, { key, body });
  const ok = async (method: string, url: string, body?: unknown, status = 200) => {
    const res = await api(method, url, body);
    assert.equal(res.status, status, `${method} ${url}: ${res.raw}`);
    return res.body;
  };

  before(async () => {
    await ready(ctx);
    await ctx.app.deps.webhooks.dispatcher.start();
    m = await merchant(ctx.app);
    await ok('POST', '/api/v1/webhooks/subscriptions', { url: receiver.url('/all'), events: [...EVENT_TYPES] }, 201);
  });

  test('the client pays by PIX, card, saved card, subscription and hosted checkout; webhooks delivered, e-mails queued', async () => {
    clientId = (await ok('POST', '/api/clients', { name: PERSON.name, email: PERSON.email, document: PERSON.document, phone: PERSON.phone }, 201)).client.id;
    otherId = (await ok('POST', '/api/clients', { name: OTHER.name, email: OTHER.email, document: OTHER.document, phone: OTHER.phone }, 201)).client.id;
    const sale = { product: 'Curso de cerâmica', amountCents: 15_000, paymentMethod: 'PIX' };
    const pix = (await ok('POST', '/api/v1/transactions', { ...sale, clientId, metadata: { pedido: 'A-1', comprador: PERSON.name }, postbackUrl: receiver.url('/postback') }, 201)).transaction;
    await ok('POST', `/api/v1/transactions/${pix.id}/simulate`, { outcome: 'PAID' });
    const card = { number: '4242424242424242', holderName: PERSON.holder, expMonth: 12, expYear: YEAR + 2, cvv: '123' };
    const byCard = await ok('POST', '/api/v1/transactions', { ...sale, paymentMethod: 'CARD', clientName: PERSON.name, clientEmail: PERSON.email, clientDocument: PERSON.document, clientPhone: PERSON.phone, card }, 201);
    assert.equal(byCard.transaction.status, 'PAID');
    cardId = (await ok('POST', '/api/v1/cards', { clientId, card }, 201)).card.id;
    assert.equal((await ok('POST', '/api/v1/transactions', { ...sale, paymentMethod: 'CARD', clientId, cardId }, 201)).transaction.status, 'PAID');
    const plan = (await ok('POST', '/api/subscriptions/plans', { name: 'Clube do barro', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['PIX'] }, 201)).plan;
    const sub = (await ok('POST', '/api/v1/subscriptions', { planId: plan.id, paymentMethod: 'PIX', clientId }, 201)).subscription;
    subscriptionId = sub.id;
    const link = (await ok('POST', '/api/v1/payment-links', { title: 'Oficina', amountCents: 8000, settings: { requireAddress: true, requirePhone: true } }, 201)).paymentLink;
    const order = { clientName: PERSON.name, clientEmail: PERSON.email, clientDocument: PERSON.document, clientPhone: PERSON.phone, paymentMethod: 'PIX', address: PERSON.address };
    const abandoned = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${link.slug}/cart-abandonment`, { body: { clientEmail: PERSON.email, clientName: PERSON.name, clientDocument: PERSON.document } });
    assert.equal(abandoned.status, 201, abandoned.raw);
    const checkout = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${link.slug}/checkout`, { body: order });
    assert.equal(checkout.status, 201, checkout.raw);
    await ok('POST', `/api/v1/transactions/${checkout.body.transaction.id}/simulate`, { outcome: 'PAID' });
    await ok('POST', '/api/v1/transactions', { ...sale, clientId: otherId }, 201);

    const db = ctx.app.deps.db;
    await until('the webhooks delivered', async () => (await db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'PENDING').execute()).length === 0, 30_000);
    assert.ok(receiver.requests.some((r) => r.raw.toString('utf8').includes(PERSON.email)), 'a webhook carried the client');
    assert.ok((await db.selectFrom('emails').select('id').where('to_address', '=', PERSON.email).execute()).length >= 1, 'an e-mail to the client');
    assert.ok((await findIn(db, needles(PERSON))).length > 20, 'the search finds the client before the erasure');
  });

  test('export: everything listed is there, nothing of another client; 404 across merchants and environments; customers:read or a dashboard token', async () => {
    const res = await api('GET', `/api/v1/clients/${clientId}/export`);
    assert.equal(res.status, 200, res.raw);
    const e = res.body.export;
    assert.deepEqual({ name: e.client.name, email: e.client.email, document: e.client.document, phone: e.client.phone, erasedAt: e.client.erasedAt }, { name: PERSON.name, email: PERSON.email, document: PERSON.document, phone: PERSON.phone, erasedAt: null });
    assert.equal(e.transactions.length, 5, 'PIX, card, saved card, the subscription\'s first charge, the checkout');
    assert.ok(e.transactions.every((t: { client: { id: string } }) => t.client.id === clientId));
    assert.ok(e.transactions.some((t: { address?: { street: string } }) => t.address?.street === PERSON.address.street));
    assert.deepEqual(e.subscriptions.map((s: { id: string; client: { document: string } }) => [s.id, s.client.document]), [[subscriptionId, PERSON.document]]);
    assert.deepEqual(e.savedCards.map((c: Record<string, unknown>) => Object.keys(c).sort()), [['brand', 'clientId', 'createdAt', 'expMonth', 'expYear', 'holderName', 'id', 'last4']]);
    assert.ok(e.emails.length >= 1 && e.emails.every((x: { to: string }) => x.to === PERSON.email));
    assert.equal(e.checkoutOrders.length, 1);
    assert.ok(e.webhookDeliveries.length >= 5 && e.webhookDeliveries.some((d: { url: string }) => d.url.endsWith('/postback')));
    for (const v of [...needles(OTHER), otherId]) assert.equal(res.raw.includes(v), false, `${v} of another client`);
    const row = await ctx.app.deps.db.selectFrom('saved_cards').select('token').where('id', '=', cardId).executeTakeFirstOrThrow();
    assert.equal(res.raw.includes(row.token), false, 'never the card token');

    const dashboard = await call(ctx.app, 'GET', `/api/clients/${clientId}/export`, { token: m.token });
    assert.equal(dashboard.status, 200, dashboard.raw);
    const stranger = await merchant(ctx.app);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/clients/${clientId}/export`, { key: stranger.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'POST', `/api/v1/clients/${clientId}/erase`, { key: stranger.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/clients/${clientId}/export`, { token: m.token, headers: { 'x-environment': 'production' } })).status, 404);
    const reader = (await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'r', environment: 'DEVELOPMENT', permissions: ['transactions:read'] } })).body.key;
    assert.equal((await call(ctx.app, 'GET', `/api/v1/clients/${clientId}/export`, { key: reader })).status, 403);
    assert.equal((await call(ctx.app, 'POST', `/api/v1/clients/${clientId}/erase`, { key: reader })).status, 403);
  });

  test('erase: refused while a subscription bills; then no personal value anywhere, the same answer twice, the ledger intact', async () => {
    const db = ctx.app.deps.db;
    const busy = await api('POST', `/api/v1/clients/${clientId}/erase`);
    assert.equal(busy.status, 409, busy.raw);
    assert.match(busy.body.message, /subscription/);
    await ok('PATCH', `/api/v1/subscriptions/${subscriptionId}/cancel`, {});
    const amountsBefore = await db.selectFrom('transactions').select(['id', 'amount_cents', 'fee_cents', 'status', 'paid_at']).where('client_id', '=', clientId).orderBy('id').execute();

    const first = await api('POST', `/api/v1/clients/${clientId}/erase`);
    assert.equal(first.status, 200, first.raw);
    assert.equal(first.body.client.name, 'Cliente removido');
    assert.ok(first.body.client.erasedAt);
    assert.equal(first.body.client.phone, null);
    const second = await call(ctx.app, 'POST', `/api/v1/clients/${clientId}/erase`, { token: m.token });
    assert.equal(second.status, 200, second.raw);
    assert.deepEqual(second.body.client, first.body.client);

    assert.deepEqual(await findIn(db, needles(PERSON)), []);
    assert.ok((await findIn(db, needles(OTHER))).length > 0, 'the other client is untouched');
    assert.deepEqual(await db.selectFrom('transactions').select(['id', 'amount_cents', 'fee_cents', 'status', 'paid_at']).where('client_id', '=', clientId).orderBy('id').execute(), amountsBefore);
    await assertLedgerBalanced(db);
    const after = (await ok('GET', `/api/v1/clients/${clientId}/export`)).export;
    assert.equal(after.transactions.length, 5);
    assert.ok(after.emails.every((x: { text: string }) => /Conteúdo removido/.test(x.text)));
  });

  test('an erased client cannot be charged, given a card, subscribed or edited: 400 CLIENT_ERASED', async () => {
    const refused = async (method: string, url: string, body: unknown, field: string) => {
      const res = await api(method, url, body);
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.code, 'CLIENT_ERASED', res.raw);
      assert.equal(res.body.errors[0].field, field);
    };
    const card = { number: '4242424242424242', holderName: 'ANA LIMA', expMonth: 12, expYear: YEAR + 2, cvv: '123' };
    await refused('POST', '/api/v1/transactions', { product: 'Curso', amountCents: 1000, paymentMethod: 'PIX', clientId }, 'clientId');
    await refused('POST', '/api/v1/cards', { clientId, card }, 'clientId');
    await refused('POST', '/api/v1/transactions', { product: 'Curso', amountCents: 1000, paymentMethod: 'CARD', clientName: 'Ana Lima', clientEmail: 'ana@example.com', clientDocument: cpf(), cardId }, 'cardId');
    const plan = (await ok('POST', '/api/subscriptions/plans', { name: 'Outro', amountCents: 1000, interval: 'MONTHLY', paymentMethods: ['PIX'] }, 201)).plan;
    await refused('POST', '/api/v1/subscriptions', { planId: plan.id, paymentMethod: 'PIX', clientId }, 'clientId');
    await refused('PATCH', `/api/v1/clients/${clientId}`, { name: 'De volta' }, 'id');
    // The person may buy again: by their document they are a new client.
    const again = await ok('POST', '/api/v1/transactions', { product: 'Curso', amountCents: 1000, paymentMethod: 'PIX', clientName: PERSON.name, clientEmail: PERSON.email, clientDocument: PERSON.document }, 201);
    assert.notEqual(again.transaction.client.id, clientId);
  });
});
