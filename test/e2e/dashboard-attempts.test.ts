// A production card sale's tries at the acquirers on its dashboard page, in Chromium, over the fake
// Cielo and the fake e.Rede (CARD_PROVIDER=cielo,erede, the wiring of test/card-failover-acquirers):
// a sale Cielo takes at once has no "Tentativas no adquirente"; one whose answer and own lookup
// Cielo lets time out is found there and adopted (one try, why in Portuguese); one Cielo lets time
// out with no sale made is taken by e.Rede, and the page lists both tries in order; with Cielo's
// circuit then open, the next sale shows Cielo not called. The tests run in this order. axe-core, a 390 px phone, screenshots
// (test-output/dashboard/). Skips when Chromium is absent.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { after, before, describe, skipBrowser, test } from './browser.ts';
import { signIn, startDashboard, toProduction, type DashboardRun } from './dashboard-kit.ts';
import { cardEnding } from '../fake-cielo/cards.ts';
import { cieloEnv } from '../fake-cielo/env.ts';
import { startFakeCielo, type FakeCielo } from '../fake-cielo/server.ts';
import { startFakeErede, type FakeErede } from '../fake-erede/server.ts';
import { eredeEnv } from '../erede/kit.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';

const YEAR = new Date().getUTCFullYear() + 3;
/** dd/mm/aaaa hh:mm:ss, as the tries are dated. */
const WHEN = String.raw`\d{2}/\d{2}/\d{4} \d{2}:\d{2}:\d{2}`;
let run: DashboardRun;
let cielo: FakeCielo;
let erede: FakeErede;
let m: Merchant;
const errors = { page: [] as string[], csp: [] as string[] };

async function pay(): Promise<{ id: string; attempts?: { connector: string; outcome: string }[] }> {
  const res = await call(run.ctx.app, 'POST', '/api/v1/transactions', {
    key: m.liveKey,
    body: { product: 'Luminária de mesa', amountCents: 18_900, clientName: 'Lia Souza', clientEmail: 'lia@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card: { number: cardEnding('1'), holderName: 'LIA SOUZA', expMonth: 7, expYear: YEAR, cvv: '321' } },
  });
  assert.equal(res.status, 201, res.raw);
  assert.equal(res.body.transaction.status, 'PAID', res.raw);
  const shown = await call(run.ctx.app, 'GET', `/api/v1/transactions/${res.body.transaction.id}`, { key: m.liveKey });
  return shown.body.transaction;
}

const tries = (page: Page) => page.getByRole('region', { name: 'Tentativas no adquirente' }).getByRole('listitem');

async function openSale(id: string) {
  await run.page.goto(`${run.base}/dashboard/vendas/${id}`);
  await run.page.getByRole('heading', { name: 'Linha do tempo' }).waitFor();
}

describe("a card sale's tries at the acquirers in the dashboard", { skip: skipBrowser }, () => {
  before(async () => {
    cielo = await startFakeCielo();
    erede = await startFakeErede();
    // Two unanswered calls in a row open a connector's circuit: the adopted sale's and the timed-out one's.
    run = await startDashboard(errors, { env: { ...cieloEnv(cielo), ...eredeEnv(erede), CARD_PROVIDER: 'cielo,erede', CARD_BREAKER_FAILURES: '2' } });
    m = await merchant(run.ctx.app, { live: true });
    await signIn(run, m);
    await toProduction(run, m);
  });
  after(async () => {
    await run?.close();
    await cielo?.close();
    await erede?.close();
    assert.deepEqual(errors, { page: [], csp: [] }, 'no script errors, no Content-Security-Policy violations');
  });

  test('a sale Cielo took at once: no tries section', async () => {
    const sale = await pay();
    assert.equal(sale.attempts, undefined);
    await openSale(sale.id);
    await run.page.locator('.page-header .badge', { hasText: /^Paga$/ }).waitFor();
    assert.equal(await run.page.getByRole('heading', { name: 'Tentativas no adquirente' }).count(), 0);
  });

  test('a Cielo sale whose answer and own lookup timed out, found by the next lookup: adopted, one try', async () => {
    // The sale is made 1.1 s after it is sent, past CIELO_TIMEOUT_MS (800 ms); the connector's own
    // lookup times out too, twice (a GET is tried twice); the failover's lookup, 2.4 s in, finds it:
    // no sale at e.Rede.
    const eredeSales = erede.calls('POST').length;
    cielo.delayNext(3, 1_100);
    const sale = await pay();
    assert.deepEqual(sale.attempts?.map((a) => [a.connector, a.outcome]), [['cielo', 'APPROVED']]);
    assert.equal(erede.calls('POST').length, eredeSales);
    await openSale(sale.id);
    const items = tries(run.page);
    await items.first().waitFor();
    const [only, ...rest] = (await items.allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
    assert.deepEqual(rest, []);
    assert.match(only, new RegExp(`^Cielo Aprovada \\d[\\d.]* ms · ${WHEN} Sem resposta, mas a venda foi encontrada no adquirente e aproveitada \\(sem nova cobrança\\) · Erro: no answer from Cielo within 800 ms$`));
    await run.check('sale-attempts-adopted');
  });

  test('Cielo timing out with no sale made, e.Rede taking it: both tries, in order, in Portuguese', async () => {
    // The sale waits past CIELO_TIMEOUT_MS (800 ms) at Cielo, then fails there: no sale under our reference.
    cielo.delayNext(1, 1_500);
    cielo.failNext(1, 500, 'api');
    const sale = await pay();
    assert.deepEqual(sale.attempts?.map((a) => [a.connector, a.outcome]), [['cielo', 'UNAVAILABLE'], ['erede', 'APPROVED']]);
    await openSale(sale.id);
    const items = tries(run.page);
    await items.first().waitFor();
    assert.equal(await items.count(), 2);
    const [first, second] = (await items.allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
    assert.match(first, new RegExp(`^Cielo Sem resposta \\d[\\d.]* ms · ${WHEN} Erro: the sale of ${sale.id} timed out`));
    assert.match(second, new RegExp(`^e\\.Rede Aprovada \\d[\\d.]* ms · ${WHEN} Código \\S+$`));
    assert.equal(await run.page.getByRole('region', { name: 'Tentativas no adquirente' }).locator('ol').count(), 1, 'an ordered list');
    await run.check('sale-attempts');
  });

  test("with Cielo's circuit open, the next sale shows Cielo not called and e.Rede approving", async () => {
    const sale = await pay();
    assert.deepEqual(sale.attempts?.map((a) => [a.connector, a.outcome]), [['cielo', 'SKIPPED'], ['erede', 'APPROVED']]);
    await openSale(sale.id);
    const items = tries(run.page);
    await items.first().waitFor();
    const [first, second] = (await items.allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
    assert.match(first, new RegExp(`^Cielo Não enviada ${WHEN} O adquirente falhou seguidamente e está em pausa$`));
    assert.match(second, /^e\.Rede Aprovada /);
    await run.check('sale-attempts-skipped');
  });
});
