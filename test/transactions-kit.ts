// Shared by the transaction test files (creation, money, API behaviour): one app per file, the
// request helpers, and checks computed independently of src/.
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, cpf, type Merchant, type TestContext } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';

export const T = '/api/v1/transactions';
export const DAY = 86_400_000;
export const YEAR = new Date().getUTCFullYear();

export let ctx: TestContext; // the default deployment: no production payment provider configured
export let m: Merchant;

/** Boots the app and a merchant for the test file that calls it (live bindings: ctx, m). */
export function useTransactionsApp() {
  ctx = useApp();
  m = useMerchant(ctx);
}

// ---------------------------------------------------------------------------------------------
// helpers

let seq = 0;
/** A valid creation body (PIX by default). */
export function body(over: Record<string, unknown> = {}): Record<string, any> {
  seq++;
  return { product: `Curso de violão ${seq}`, amountCents: 10000, clientName: 'Ana Souza', clientEmail: `ana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over };
}

export function card(number = '4242424242424242', over: Record<string, unknown> = {}) {
  return { number, holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123', ...over };
}

/** Completes a number with its Luhn check digit. */
export function luhn(prefix: string, length = 16): string {
  const body = prefix.padEnd(length - 1, '0');
  for (let d = 0; d < 10; d++) {
    const n = body + d;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let x = Number(n[n.length - 1 - i]);
      if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable');
}

export const post = (key: string, b: unknown, headers: Record<string, string> = {}, c: TestContext = ctx) => call(c.app, 'POST', T, { key, body: b, headers });

export async function create(key: string, over: Record<string, unknown> = {}, c: TestContext = ctx) {
  const res = await post(key, body(over), {}, c);
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}
export const get = (key: string, id: string, c: TestContext = ctx) => call(c.app, 'GET', `${T}/${id}`, { key });
export const simulate = (key: string, id: string, outcome: string, c: TestContext = ctx) => call(c.app, 'POST', `${T}/${id}/simulate`, { key, body: { outcome } });
export const refund = (key: string, id: string, amountCents?: number, headers: Record<string, string> = {}) =>
  call(ctx.app, 'POST', `${T}/${id}/refund`, { key, body: amountCents === undefined ? undefined : { amountCents }, headers });
export const list = (key: string, query = '', c: TestContext = ctx) => call(c.app, 'GET', `${T}${query}`, { key });

export async function pay(key: string, id: string, c: TestContext = ctx) {
  const res = await simulate(key, id, 'PAID', c);
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.body.transaction.status, 'PAID');
  return res.body.transaction;
}

export async function balance(key: string, c: TestContext = ctx) {
  const res = await call(c.app, 'GET', '/api/v1/balance', { key });
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.body.pendingCents, res.body.receivableCents);
  assert.equal(res.body.totalCents, res.body.availableCents + res.body.receivableCents);
  return { available: res.body.availableCents, receivable: res.body.receivableCents, reserved: res.body.reservedCents };
}

/** The platform's fees, computed here independently of src/payments/fees.ts. */
export const pixFee = (c: number) => Math.floor((c * 99 + 5000) / 10000);
export const cardFee = (c: number) => Math.min(c, Math.floor((c * 399 + 5000) / 10000) + 39);
export const boletoFee = (c: number) => Math.min(c, 349);
/** The fee a refund of `amount` returns, after `refunded` cents refunded before: the fee's share of the refunded total, less earlier refunds' share. */
export const feeBack = (t: { feeCents: number; chargedCents: number }, refunded: number, amount: number) =>
  Math.floor((t.feeCents * (refunded + amount)) / t.chargedCents) - Math.floor((t.feeCents * refunded) / t.chargedCents);

export async function count(table: string, c: TestContext = ctx): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(c.database.db);
  return Number(r.rows[0].n);
}

export async function txCount(userId: string, c: TestContext = ctx): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from transactions where user_id = ${userId}`.execute(c.database.db);
  return Number(r.rows[0].n);
}

/** Events about one transaction (its own and the balance.updated it caused), oldest first. */
export async function eventsFor(id: string, c: TestContext = ctx) {
  const rows = await c.database.db
    .selectFrom('events')
    .selectAll()
    .where((eb) => eb.or([eb(sql<string>`data->>'id'`, '=', id), eb(sql<string>`data->>'referenceId'`, '=', id)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ type: r.type, data: r.data as Record<string, any>, livemode: r.livemode, userId: r.user_id }));
}
export const typesOf = (events: { type: string }[]) => events.map((e) => e.type).sort();

/** Every journal sums to zero and has entries; every account balance equals the sum of its entries. */
export async function assertLedgerConsistent(c: TestContext = ctx) {
  const db = c.database.db;
  const unbalanced = await sql`select journal_id, sum(amount_cents)::text as total, count(*)::int as n from ledger_entries group by journal_id having sum(amount_cents) <> 0 or count(*) < 2`.execute(db);
  assert.deepEqual(unbalanced.rows, [], 'every journal sums to zero over at least two entries');
  const empty = await sql`select j.id from ledger_journals j where not exists (select 1 from ledger_entries e where e.journal_id = j.id)`.execute(db);
  assert.deepEqual(empty.rows, [], 'no journal without entries');
  const drift = await sql`
    select a.id, a.kind, a.balance_cents::text as balance, coalesce(sum(e.amount_cents), 0)::text as entries
    from ledger_accounts a left join ledger_entries e on e.account_id = a.id
    group by a.id, a.kind, a.balance_cents
    having a.balance_cents <> coalesce(sum(e.amount_cents), 0)`.execute(db);
  assert.deepEqual(drift.rows, [], 'every account balance equals the sum of its entries');
  const journals = await count('ledger_journals', c);
  assert.ok(journals > 0, 'the ledger was exercised');
}

export async function receivables(txId: string) {
  const rows = await ctx.database.db.selectFrom('receivables').selectAll().where('transaction_id', '=', txId).orderBy('installment_number').execute();
  return rows.map((r) => ({ n: r.installment_number, amount: Number(r.amount_cents), status: r.status, settleAt: new Date(r.settle_at).getTime() }));
}

// ---------------------------------------------------------------------------------------------
