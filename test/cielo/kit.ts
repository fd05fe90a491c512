// What the production card tests over Cielo share: the app wired to the fake Cielo (CARD_PROVIDER=
// cielo, the fake's CA trusted through CIELO_CA_FILE), listening on a loopback port so that the
// fake's notifications reach {BASE_URL}/api/psp/cielo/notifications; a merchant with a production
// key (KYC approved); helpers to pay, read and check. The ledger is checked after every file.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { call, cpf, freePort, merchant, startApp, type Merchant, type TestContext } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { cardEnding } from '../fake-cielo/cards.ts';
import { cieloEnv } from '../fake-cielo/env.ts';
import { startFakeCielo, type FakeCielo } from '../fake-cielo/server.ts';

export { cardEnding };
export const YEAR = new Date().getUTCFullYear() + 3;
export const card = (last = '1', over: Record<string, unknown> = {}) => ({ number: cardEnding(last), holderName: 'Ana Souza', expMonth: 7, expYear: YEAR, cvv: '321', ...over });

export let ctx: TestContext;
/**
 * The connector's time limit here: with headroom for a loaded CI host, where the fake (in this
 * process, beside PGlite) answered a batch of sales in up to 1.1 s. LATE_MS: an answer it gives up on.
 */
export const TIMEOUT_MS = 2_000;
export const LATE_MS = TIMEOUT_MS + 700;
export let cielo: FakeCielo;
export let baseUrl: string;
export let m: Merchant;
before(async () => {
  cielo = await startFakeCielo();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  ctx = await startApp({ env: { ...cieloEnv(cielo, TIMEOUT_MS), BASE_URL: baseUrl, JANITOR_GRACE_SECONDS: '1' } });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  m = await merchant(ctx.app, { live: true });
});
after(async () => {
  assert.deepEqual(cielo.violations, [], 'every request the connector sent met Cielo\'s rules');
  await assertLedgerBalanced(ctx.app.deps.db);
  await ctx.close();
  await cielo.close();
});

export const T = '/api/v1/transactions';
export const notificationUrl = () => `${baseUrl}/api/psp/cielo/notifications`;
export const orderOf = (id: string) => id.replace(/-/g, '');

/** A production card payment (201 expected unless `status` says otherwise). */
export async function pay(over: Record<string, unknown> = {}, status = 201) {
  const res = await call(ctx.app, 'POST', T, {
    key: m.liveKey,
    body: { amountCents: 15700, paymentMethod: 'CARD', card: card(), clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), product: 'Curso', ...over },
  });
  assert.equal(res.status, status, res.raw);
  return res.body.transaction;
}

export const post = (path: string, body?: unknown) => call(ctx.app, 'POST', path, { key: m.liveKey, body });
export const get = async (id: string) => (await call(ctx.app, 'GET', `${T}/${id}`, { key: m.liveKey })).body.transaction;
export const row = (id: string) => ctx.app.deps.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
export const refunds = (id: string) => ctx.app.deps.db.selectFrom('refunds').selectAll().where('transaction_id', '=', id).orderBy('id').execute();
export const journals = async (id: string) => (await ctx.app.deps.db.selectFrom('ledger_journals').select('kind').where('reference_id', '=', id).orderBy('created_at').execute()).map((j) => j.kind);

/** The only sale the fake holds for a transaction. */
export function saleOf(id: string) {
  const sales = cielo.salesOf(orderOf(id));
  assert.equal(sales.length, 1, `one sale at Cielo for ${id}`);
  return sales[0];
}

/** Waits until `check` holds. */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}
