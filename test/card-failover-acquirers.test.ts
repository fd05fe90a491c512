// Failover between the two real card connectors, over their fakes: CARD_PROVIDER=cielo,erede. Cielo
// answering 500s with no sale made fails over to e.Rede (refund there too); a decline at Cielo and a
// Cielo sale whose answer was lost never reach e.Rede. Each payment is charged exactly once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cieloEnv } from './fake-cielo/env.ts';
import { cardEnding } from './fake-cielo/cards.ts';
import { startFakeCielo, type FakeCielo } from './fake-cielo/server.ts';
import { startFakeErede, type FakeErede } from './fake-erede/server.ts';
import { eredeEnv } from './erede/kit.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';

const YEAR = new Date().getUTCFullYear() + 3;
let ctx: TestContext;
let cielo: FakeCielo;
let erede: FakeErede;
let m: Merchant;

before(async () => {
  cielo = await startFakeCielo();
  erede = await startFakeErede();
  ctx = await startApp({ env: { ...cieloEnv(cielo), ...eredeEnv(erede), CARD_PROVIDER: 'cielo,erede' } });
  m = await merchant(ctx.app, { live: true });
});
after(async () => {
  assert.deepEqual(cielo.violations, [], "every request met Cielo's rules");
  await assertLedgerBalanced(ctx.app.deps.db);
  await ctx.close();
  await cielo.close();
  await erede.close();
});

async function pay(last: string) {
  const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
    key: m.liveKey,
    body: { product: 'Curso', amountCents: 12_000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card: { number: cardEnding(last), holderName: 'Ana Souza', expMonth: 7, expYear: YEAR, cvv: '321' } },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}
const get = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
const provider = async (id: string) => (await ctx.app.deps.db.selectFrom('transactions').select('provider').where('id', '=', id).executeTakeFirstOrThrow()).provider;
const eredeSales = () => erede.calls('POST').filter((c) => !c.path.includes('/refunds')).length;

test('Cielo answering 500s with no sale made: the payment fails over to e.Rede, is paid once, and is refunded there', async () => {
  const eredeBefore = eredeSales();
  cielo.failNext(2, 500, 'api'); // the sale and its one retry; the query host answers there is none
  const tx = await pay('1');
  assert.equal(tx.status, 'PAID');
  assert.equal(await provider(tx.id), 'erede');
  assert.equal(cielo.salesOf(tx.id.replace(/-/g, '')).length, 0, 'no sale at Cielo');
  assert.equal(eredeSales(), eredeBefore + 1, 'one sale at e.Rede');
  const shown = await get(tx.id);
  assert.deepEqual(shown.attempts.map((a: { connector: string; outcome: string }) => [a.connector, a.outcome]), [['cielo', 'UNAVAILABLE'], ['erede', 'APPROVED']]);

  const refund = await call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey, body: { amountCents: 5_000 } });
  assert.equal(refund.status, 200, refund.raw);
  assert.equal(refund.body.transaction.status, 'PARTIALLY_REFUNDED');
  assert.equal(cielo.calls('PUT', '/1/sales/').length, 0, 'nothing sent to Cielo');
  assert.ok(erede.calls('POST').some((c) => c.path.endsWith('/refunds')), 'the refund went to e.Rede');
});

test('a decline at Cielo is an answer: no failover', async () => {
  const eredeBefore = eredeSales();
  const tx = await pay('2');
  assert.equal(tx.status, 'FAILED');
  assert.equal(await provider(tx.id), 'cielo');
  assert.equal(eredeSales(), eredeBefore);
});

test("a Cielo sale whose answer was lost is adopted: e.Rede is never asked, one sale in all", async () => {
  const eredeBefore = eredeSales();
  cielo.dropAnswer('POST', '/1/sales');
  const tx = await pay('4');
  assert.equal(tx.status, 'PAID');
  assert.equal(await provider(tx.id), 'cielo');
  assert.equal(cielo.salesOf(tx.id.replace(/-/g, '')).length, 1);
  assert.equal(eredeSales(), eredeBefore);
});
