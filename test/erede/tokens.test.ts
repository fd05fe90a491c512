// Cards kept by e.Rede's token service: a card saved for a client (POST /api/v1/cards with a
// production key), listed, charged in one click; a card subscription charged at sign-up and renewed;
// a token charge whose answer was lost adopted by reference (one sale at e.Rede); a token not Active
// yet refused without a sale; another merchant's card refused (404) and another PV's token unknown
// to e.Rede; and the PAN and CVV nowhere in the database or the logs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { advance } from '../../src/modules/subscriptions/sweep.ts';
import { EredeConnector } from '../../src/payments/erede/connector.ts';
import { eredeReference } from '../../src/payments/erede/mapping.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { CARD, startWithErede, type EredeWorld } from './kit.ts';

const DAY = 86_400_000;
const CVV = '864';
const theCard = { ...CARD, number: '5448280000000007', cvv: CVV };

let w: EredeWorld;
before(async () => {
  w = await startWithErede({}, { tokens: true });
});
after(() => w.close());

const reference = (transactionId: string) => eredeReference(transactionId);
const readCa = () => readFileSync(w.fake.caFile, 'utf8');

describe('e.Rede: saved cards and card subscriptions through its token service', () => {
  /** A one-click purchase with the saved card `id` (the first one saved by default). */
  async function buy(id = cardId) {
    const res = await call(w.ctx.app, 'POST', '/api/v1/transactions', {
      key: w.m.liveKey,
      body: { product: 'Curso', amountCents: 5000, clientName: 'Ana Souza', clientEmail: 'ana.cards@example.com', clientDocument: client.document, paymentMethod: 'CARD', cardId: id },
    });
    assert.equal(res.status, 201, res.raw);
    return res.body.transaction;
  }

  let client: { id: string; document: string };
  let cardId: string;

  test('a card saved with a production key: kept by e.Rede (PAN and CVV only in that request), listed without its token', async () => {
    const c = await call(w.ctx.app, 'POST', '/api/clients', { key: w.m.liveKey, body: { name: 'Ana Souza', email: 'ana.cards@example.com', document: cpf() } });
    assert.equal(c.status, 201, c.raw);
    client = { id: c.body.client.id, document: c.body.client.document };
    const saved = await call(w.ctx.app, 'POST', '/api/v1/cards', { key: w.m.liveKey, body: { clientId: client.id, card: theCard } });
    assert.equal(saved.status, 201, saved.raw);
    cardId = saved.body.card.id;
    assert.deepEqual([saved.body.card.brand, saved.body.card.last4], ['MASTERCARD', '0007']);
    const asked = w.fake.calls('POST', '/token-service/oauth/v2/tokenization');
    assert.equal(asked.length, 1);
    assert.deepEqual([asked[0].body!.email, asked[0].body!.storageCard, asked[0].body!.embeddedZeroDollar, asked[0].body!.expirationYear], ['ana.cards@example.com', 0, true, String(theCard.expYear)]);
    const row = await w.ctx.database.db.selectFrom('saved_cards').selectAll().where('id', '=', cardId).executeTakeFirstOrThrow();
    assert.equal(row.connector, 'erede');
    assert.ok(w.fake.keptCards.has(row.token), "the token is e.Rede's tokenizationId");
    const list = await call(w.ctx.app, 'GET', `/api/v1/cards?clientId=${client.id}`, { key: w.m.liveKey });
    assert.equal(list.status, 200, list.raw);
    assert.deepEqual(list.body.cards.map((x: { id: string }) => x.id), [cardId]);
    assert.ok(!list.raw.includes(row.token), 'the token never leaves Cofre');
  });

  test('a one-click purchase: token Active, a cryptogram, then a sale with cardToken, storageCard 2, not a subscription', async () => {
    const tx = await buy();
    assert.equal(tx.status, 'PAID', JSON.stringify(tx));
    const sale = w.fake.salesWith(reference(tx.id))[0];
    const row = await w.ctx.database.db.selectFrom('saved_cards').select('token').where('id', '=', cardId).executeTakeFirstOrThrow();
    assert.deepEqual([sale.cardToken, sale.subscription, sale.amount, sale.last4], [row.token, false, 5000, '0007']);
    const sent = w.fake.calls('POST', '').find((r) => r.body?.reference === reference(tx.id))!;
    assert.deepEqual([sent.body!.storageCard, sent.body!.cardNumber, sent.body!.securityCode], [2, undefined, undefined]);
    assert.deepEqual(w.fake.keptCards.get(row.token)!.asked.at(-1), { subscription: false });
    assert.equal((await w.row(tx.id)).provider, 'erede');
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test("a token charge whose answer was lost is found by reference: one sale at e.Rede, PAID here", async () => {
    w.fake.dropAnswer('POST', '');
    const tx = await buy();
    assert.equal(tx.status, 'PAID', JSON.stringify(tx));
    assert.equal(w.fake.salesWith(reference(tx.id)).length, 1);
    assert.equal(w.fake.calls('POST', '').filter((r) => r.body?.reference === reference(tx.id)).length, 1, 'not sent again');
  });

  test('a token not Active yet is not charged: the purchase fails with a clear reason and no sale is made', async () => {
    w.fake.tokensPendingFor = 100;
    const saved = await call(w.ctx.app, 'POST', '/api/v1/cards', { key: w.m.liveKey, body: { clientId: client.id, card: theCard } });
    w.fake.tokensPendingFor = 0;
    assert.equal(saved.status, 201, saved.raw);
    const tx = await buy(saved.body.card.id);
    assert.deepEqual([tx.status, tx.failureReason], ['FAILED', 'PROCESSING_ERROR']);
    assert.equal(w.fake.salesWith(reference(tx.id)).length, 0);
    const row = await w.ctx.database.db.selectFrom('saved_cards').select('token').where('id', '=', saved.body.card.id).executeTakeFirstOrThrow();
    const kept = w.fake.keptCards.get(row.token)!;
    assert.equal(kept.status, 'Pending');
    assert.deepEqual(kept.asked, [], 'stopped at its status: no cryptogram asked');
  });

  test("another merchant's card is 404; another PV's connector cannot use the token (no sale)", async () => {
    const other: Merchant = await merchant(w.ctx.app, { live: true });
    for (const method of ['GET', 'DELETE']) assert.equal((await call(w.ctx.app, method, `/api/v1/cards/${cardId}`, { key: other.liveKey })).status, 404);
    const row = await w.ctx.database.db.selectFrom('saved_cards').select('token').where('id', '=', cardId).executeTakeFirstOrThrow();
    const pv = w.fake.addMerchant();
    const log = { info() {}, warn() {}, error() {} };
    const foreign = new EredeConnector({ url: w.fake.apiUrl, tokenUrl: w.fake.tokenUrl, clientId: pv.clientId, clientSecret: pv.clientSecret, softDescriptor: null, ca: readCa(), timeoutMs: 1000, tokenServiceUrl: w.fake.tokenServiceUrl }, log);
    try {
      const result = await foreign.chargeToken!({ reference: '00000000-0000-4000-8000-00000000f0f0', token: row.token, amountCents: 100, kind: 'RENEWAL' });
      assert.deepEqual([result.approved, !result.approved && result.reason], [false, 'INVALID_CARD']);
      assert.equal(w.fake.salesWith(reference('00000000-0000-4000-8000-00000000f0f0')).length, 0);
    } finally {
      foreign.close();
    }
  });

  test('a card subscription: the first charge and the renewal are token sales told a subscription', async () => {
    const plan = await call(w.ctx.app, 'POST', '/api/subscriptions/plans', { key: w.m.liveKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY' } });
    assert.equal(plan.status, 201, plan.raw);
    const res = await call(w.ctx.app, 'POST', '/api/v1/subscriptions', {
      key: w.m.liveKey,
      body: { planId: plan.body.plan.id, paymentMethod: 'CREDIT_CARD', card: theCard, client: { name: 'Ana Souza', email: 'ana.sub@example.com', document: cpf() } },
    });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.subscription.status, 'ACTIVE');
    const sub = await w.ctx.database.db.selectFrom('subscriptions').selectAll().where('id', '=', res.body.subscription.id).executeTakeFirstOrThrow();
    const kept = w.fake.keptCards.get(sub.card_token!)!;
    assert.equal(kept.email, 'ana.sub@example.com');
    await advance(w.ctx.app.deps.subscriptions, sub.id, new Date(Date.now() + 32 * DAY));
    const cycles = await w.ctx.database.db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', sub.id).orderBy('number').execute();
    assert.ok(cycles.length >= 2, 'renewed');
    for (const cycle of cycles.slice(0, 2)) {
      assert.equal(cycle.status, 'PAID');
      const [sale] = w.fake.salesWith(reference(cycle.transaction_id!));
      assert.deepEqual([sale.cardToken, sale.subscription, sale.amount], [sub.card_token, true, 4990]);
    }
    assert.deepEqual(kept.asked.slice(0, 2), [{ subscription: true }, { subscription: true }]);
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('the PAN and the CVV are in no table and no log line', async () => {
    const logs = w.ctx.logs.join('');
    assert.ok(logs.length > 0);
    assert.ok(!logs.includes(theCard.number), 'PAN in the logs');
    assert.ok(!/"(cvv|securityCode)"\s*:\s*"?\d/i.test(logs), 'a CVV field in the logs');
    assert.ok(!logs.includes(`"${CVV}"`), 'the CVV value in the logs');
    const tables = await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(w.ctx.app.deps.db);
    for (const { table_name } of tables.rows) {
      const dump = await sql<{ t: string }>`SELECT coalesce(string_agg(to_jsonb(x)::text, ' '), '') AS t FROM ${sql.table(table_name)} x`.execute(w.ctx.app.deps.db);
      assert.ok(!dump.rows[0].t.includes(theCard.number), `PAN in table ${table_name}`);
      assert.ok(!/"(cvv|security_code|securityCode)"\s*:\s*"?864/i.test(dump.rows[0].t), `CVV in table ${table_name}`);
    }
    // Webhooks and e-mails are rows of those tables (outbox, deliveries) before they leave.
  });
});
