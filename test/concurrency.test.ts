// Races that only mean something on real PostgreSQL (PGlite serialises everything on one
// connection): idempotency storms, refund races, pay-vs-expire, refunds beside payments.
// The storms go over a real socket with fetch, so the pool (30 connections) runs them in parallel.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { expireDue, settleDue } from '../src/modules/transactions/service.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, onPostgres, type Merchant, type TestContext } from './helpers.ts';
import { ready, useApp } from './kit/app.ts';

const skip = onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)';

interface HttpRes {
  status: number;
  body: any;
  headers: Headers;
}

let ctx: TestContext;
let base: string;

/** One request over the socket. */
async function http(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpRes> {
  const res = await fetch(base + path, {
    method,
    headers: { 'api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

function pixBody(amountCents: number, extra: Record<string, unknown> = {}) {
  return { product: 'Plano mensal', amountCents, clientName: 'Maria Silva', clientEmail: 'maria@example.com', clientDocument: cpf(), paymentMethod: 'PIX', ...extra };
}

async function createPix(m: Merchant, amountCents: number, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: pixBody(amountCents, extra) });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction.id;
}

async function pay(m: Merchant, id: string) {
  const res = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
  assert.equal(res.status, 200, res.raw);
}

async function paidPix(m: Merchant, amountCents: number): Promise<string> {
  const id = await createPix(m, amountCents);
  await pay(m, id);
  return id;
}

async function txRow(id: string) {
  return ctx.database.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

const refund = (m: Merchant, id: string, amountCents?: number) => http('POST', `/api/v1/transactions/${id}/refund`, m.devKey, amountCents === undefined ? {} : { amountCents });
const simulatePaid = (m: Merchant, id: string) => http('POST', `/api/v1/transactions/${id}/simulate`, m.devKey, { outcome: 'PAID' });

/** Counts responses by "status" or "status CODE". */
function tally(list: HttpRes[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of list) {
    const k = r.status === 400 ? `400 ${r.body?.code}` : String(r.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

describe('concurrency on PostgreSQL', { skip }, () => {
  ctx = useApp();
  before(async () => {
    await ready(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });

  test('idempotency storm: 50 identical creations with one key make exactly one transaction', async (t) => {
    const m = await merchant(ctx.app);
    const body = pixBody(4990);
    const headers = { 'idempotency-key': `storm-${Date.now()}` };
    const all = await Promise.all(Array.from({ length: 50 }, () => http('POST', '/api/v1/transactions', m.devKey, body, headers)));

    t.diagnostic(`responses: ${JSON.stringify(tally(all))}`);
    // The key is stored by the creation statement with its response: a duplicate waits for that
    // statement and is replayed, never told 409 (docs/decisions.md, Idempotency).
    assert.deepEqual(tally(all), { '201': 50 });
    const ids = new Set(all.map((r) => r.body.transaction.id));
    assert.equal(ids.size, 1, 'every 201 carries the same transaction');
    const [id] = ids;
    // Exactly one response did the work; every other 201 is a replay of it, byte for byte.
    const first = all.filter((r) => r.headers.get('idempotent-replayed') === null);
    assert.equal(first.length, 1);
    for (const r of all) if (r !== first[0]) assert.equal(r.headers.get('idempotent-replayed'), 'true');
    for (const r of all) assert.deepEqual(r.body, first[0].body);

    const rows = await ctx.database.db.selectFrom('transactions').select('id').where('user_id', '=', m.id).execute();
    assert.deepEqual(rows.map((r) => r.id), [id]);
    const clients = await ctx.database.db.selectFrom('clients').select('id').where('user_id', '=', m.id).execute();
    assert.equal(clients.length, 1);

    // Once everything settled, a retry replays the first response.
    const again = await http('POST', '/api/v1/transactions', m.devKey, body, headers);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.transaction.id, id);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('idempotency storm on a card charge: 30 identical requests with one key charge once', async (t) => {
    const m = await merchant(ctx.app);
    const card = { number: '4242424242424242', holderName: 'MARIA SILVA', expMonth: 12, expYear: new Date().getFullYear() + 3, cvv: '123' };
    const body = { ...pixBody(7_500), paymentMethod: 'CARD', card };
    const headers = { 'idempotency-key': `card-storm-${Date.now()}` };
    const all = await Promise.all(Array.from({ length: 30 }, () => http('POST', '/api/v1/transactions', m.devKey, body, headers)));
    t.diagnostic(`responses: ${JSON.stringify(tally(all))}`);
    // The charge happens after the creation statement, so this key is claimed first: a duplicate
    // meanwhile gets 409 {message}, one afterwards the replay.
    const created = all.filter((r) => r.status === 201);
    assert.equal(created.length + all.filter((r) => r.status === 409).length, 30, JSON.stringify(tally(all)));
    assert.equal(created.filter((r) => r.headers.get('idempotent-replayed') === null).length, 1);
    assert.equal(new Set(created.map((r) => r.body.transaction.id)).size, 1);
    const rows = await ctx.database.db.selectFrom('transactions').select(['id', 'status']).where('user_id', '=', m.id).execute();
    assert.deepEqual(rows.map((r) => r.status), ['PAID']);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('refund race: concurrent refunds never refund more than was paid', async (t) => {
    const m = await merchant(ctx.app);
    // A large paid transaction keeps the available balance above any refund: fees are not
    // returned, so without it a full refund of a lone payment would be INSUFFICIENT_BALANCE.
    await paidPix(m, 1_000_000);

    // 20 partial refunds of 3000 on 10000: exactly 3 fit.
    const a = await paidPix(m, 10_000);
    const partial = await Promise.all(Array.from({ length: 20 }, () => refund(m, a, 3000)));
    assert.deepEqual(tally(partial), { '200': 3, '400 REFUND_EXCEEDS_PAID': 17 });
    const rowA = await txRow(a);
    assert.equal(rowA.refunded_cents, 9000);
    assert.equal(rowA.status, 'PARTIALLY_REFUNDED');
    const afterA = (await http('GET', `/api/v1/transactions/${a}`, m.devKey)).body.transaction;
    assert.equal(afterA.refundedCents, 9000);
    assert.deepEqual(partial.filter((r) => r.status === 200).map((r) => r.body.transaction.refundedCents).sort((x, y) => x - y), [3000, 6000, 9000]);
    await assertLedgerBalanced(ctx.database.db);

    // 10 full refunds: exactly one; the rest find it REFUNDED.
    const b = await paidPix(m, 10_000);
    const full = await Promise.all(Array.from({ length: 10 }, () => refund(m, b)));
    assert.deepEqual(tally(full), { '200': 1, '400 INVALID_STATE_TRANSITION': 9 });
    const rowB = await txRow(b);
    assert.equal(rowB.status, 'REFUNDED');
    assert.equal(rowB.refunded_cents, 10_000);
    await assertLedgerBalanced(ctx.database.db);

    // Partial and full refunds mixed: at most one full refund, and it takes exactly what was left.
    const c = await paidPix(m, 10_000);
    const mixed = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 3 === 1 ? refund(m, c) : refund(m, c, 4000))));
    for (const r of mixed) assert.ok(r.status === 200 || (r.status === 400 && ['REFUND_EXCEEDS_PAID', 'INVALID_STATE_TRANSITION'].includes(r.body.code)), `${r.status} ${JSON.stringify(r.body)}`);
    const ok = mixed.map((r, i) => ({ r, full: i % 3 === 1 })).filter((x) => x.r.status === 200);
    const fullOk = ok.filter((x) => x.full);
    const partialOk = ok.filter((x) => !x.full);
    assert.ok(fullOk.length <= 1);
    assert.ok(partialOk.length <= 2);
    t.diagnostic(`mixed refunds: ${fullOk.length} full, ${partialOk.length} partial succeeded`);
    const rowC = await txRow(c);
    assert.equal(rowC.refunded_cents, fullOk.length ? 10_000 : partialOk.length * 4000);
    assert.equal(rowC.status, fullOk.length ? 'REFUNDED' : partialOk.length ? 'PARTIALLY_REFUNDED' : 'PAID');
    // Every success reports a strictly larger refunded total, ending at the row's.
    const totals = ok.map((x) => x.r.body.transaction.refundedCents as number).sort((x, y) => x - y);
    assert.equal(new Set(totals).size, totals.length);
    assert.equal(totals[totals.length - 1], rowC.refunded_cents);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('pay vs expire: each PENDING PIX ends either PAID (one payment journal) or EXPIRED (none)', async (t) => {
    const m = await merchant(ctx.app);
    const dueDate = new Date(Date.now() + 10 * 60_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await createPix(m, 1000 + i, { dueDate }));
    // Past the 30 transactions' expiry, before the 24 h default of any other PENDING one.
    const future = new Date(Date.now() + 20 * 60_000);

    // The sweeps run in-process and would beat every HTTP request to the database, so they are
    // spread over the storm (2 ms apart) and most take one transaction each (batch 1): payments and
    // expiries then interleave. Which side wins each transaction is left to the database; the last
    // sweeps take the whole default batch (many rows locked with SKIP LOCKED at once).
    const sims = ids.map((id) => simulatePaid(m, id));
    const expiries = ids.map((_, i) => delay(2 * i).then(() => expireDue(ctx.app.deps.transactions, future, i >= 25 ? undefined : 1)));
    const [simResults, expired] = await Promise.all([Promise.all(sims), Promise.all(expiries)]);

    for (const r of simResults) assert.ok(r.status === 200 || (r.status === 400 && r.body.code === 'INVALID_STATE_TRANSITION'), `${r.status} ${JSON.stringify(r.body)}`);
    const rows = await ctx.database.db.selectFrom('transactions').select(['id', 'status']).where('id', 'in', ids).execute();
    const status = new Map(rows.map((r) => [r.id, r.status]));
    const journals = await ctx.database.db
      .selectFrom('ledger_journals')
      .select(['reference_id', 'kind'])
      .where('user_id', '=', m.id)
      .where('reference_id', 'in', ids)
      .execute();
    ids.forEach((id, i) => {
      const s = status.get(id);
      const payments = journals.filter((j) => j.reference_id === id && j.kind === 'payment').length;
      assert.ok(s === 'PAID' || s === 'EXPIRED', `${id} ended ${s}`);
      // The simulate call agrees with the final state.
      assert.equal(simResults[i].status, s === 'PAID' ? 200 : 400);
      assert.equal(payments, s === 'PAID' ? 1 : 0);
    });
    const nExpired = [...status.values()].filter((s) => s === 'EXPIRED').length;
    t.diagnostic(`PAID ${ids.length - nExpired}, EXPIRED ${nExpired}, sweeps ${JSON.stringify(expired)}`);
    // Each expiry was done by exactly one sweep.
    assert.equal(expired.reduce((a, b) => a + b, 0), nExpired);
    assert.equal(journals.filter((j) => j.kind !== 'payment').length, 0);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('refunds on two transactions beside 40 payments of one merchant: no deadlock, exact outcomes', async (t) => {
    const m = await merchant(ctx.app);
    await paidPix(m, 1_000_000); // keeps every refund clear of INSUFFICIENT_BALANCE
    const a = await paidPix(m, 10_000);
    const b = await paidPix(m, 10_000);
    const pending: string[] = [];
    for (let i = 0; i < 40; i++) pending.push(await createPix(m, 5000 + i));

    type Tagged = { kind: 'pay' | 'payAgain' | 'refundA' | 'refundB' | 'refundPending'; id: string; res: Promise<HttpRes> };
    const ops: Tagged[] = [];
    for (let i = 0; i < 40; i++) {
      // A full refund racing the payment of the same transaction, fired before or after it.
      const refundFirst = i >= 30 && i % 2 === 0;
      if (refundFirst) ops.push({ kind: 'refundPending', id: pending[i], res: refund(m, pending[i]) });
      ops.push({ kind: 'pay', id: pending[i], res: simulatePaid(m, pending[i]) });
      if (i < 12) ops.push({ kind: 'refundA', id: a, res: refund(m, a, 1500) });
      if (i < 12) ops.push({ kind: 'refundB', id: b, res: refund(m, b, 2000) });
      if (i < 10) ops.push({ kind: 'payAgain', id: pending[i], res: simulatePaid(m, pending[i]) });
      if (i >= 30 && !refundFirst) ops.push({ kind: 'refundPending', id: pending[i], res: refund(m, pending[i]) });
    }
    const done = await Promise.all(ops.map(async (o) => ({ ...o, r: await o.res })));
    t.diagnostic(`refunds racing payment: ${JSON.stringify(tally(done.filter((d) => d.kind === 'refundPending').map((d) => d.r)))}`);
    const of = (kind: Tagged['kind']) => done.filter((d) => d.kind === kind).map((d) => d.r);

    assert.ok(done.every((d) => d.r.status === 200 || d.r.status === 400), JSON.stringify(tally(done.map((d) => d.r))));
    // 12 x 1500 on 10000: six fit, the rest exceed what is left (1000).
    assert.deepEqual(tally(of('refundA')), { '200': 6, '400 REFUND_EXCEEDS_PAID': 6 });
    // 12 x 2000 on 10000: five fit and the fifth makes it REFUNDED.
    assert.deepEqual(tally(of('refundB')), { '200': 5, '400 INVALID_STATE_TRANSITION': 7 });
    assert.equal((await txRow(a)).refunded_cents, 9000);
    assert.equal((await txRow(b)).status, 'REFUNDED');
    // Every pending transaction is paid exactly once.
    const pays = done.filter((d) => d.kind === 'pay' || d.kind === 'payAgain');
    for (const id of pending) {
      const mine = pays.filter((d) => d.id === id).map((d) => d.r);
      assert.equal(mine.filter((r) => r.status === 200).length, 1, id);
      for (const r of mine) if (r.status !== 200) assert.equal(r.body.code, 'INVALID_STATE_TRANSITION');
    }
    // A refund that raced its payment either came first (refused, the transaction stays PAID) or after (REFUNDED).
    for (const d of done.filter((x) => x.kind === 'refundPending')) {
      const row = await txRow(d.id);
      if (d.r.status === 200) assert.equal(row.status, 'REFUNDED');
      else {
        assert.equal(d.r.body.code, 'INVALID_STATE_TRANSITION');
        assert.equal(row.status, 'PAID');
      }
    }
    const balance = (await http('GET', '/api/v1/balance', m.devKey)).body;
    const rows = await ctx.database.db.selectFrom('transactions').select(['charged_cents', 'fee_cents', 'refunded_cents']).where('user_id', '=', m.id).execute();
    // Each sale's net, less what was refunded beyond the fee the refunds returned (its share, rounded down).
    const net = (r: (typeof rows)[number]) => r.charged_cents - r.fee_cents - r.refunded_cents + Math.floor((r.fee_cents * r.refunded_cents) / r.charged_cents);
    assert.equal(balance.availableCents, rows.reduce((s, r) => s + net(r), 0));
    await assertLedgerBalanced(ctx.database.db);
  });
  test('settlement sweeps running in parallel over many merchants: no deadlock, each instalment settled once', async (t) => {
    // Pairs of merchants (A, B) each with a 2-instalment card payment. Their instalments fall due
    // in the order A1, B1, B2, A2, and parallel sweeps take two at a time: one sweep gets A1+B1, another
    // B2+A2. Were each sweep to lock merchant accounts in due order, the first would hold A's while
    // waiting for B's and the second B's while waiting for A's.
    const pairs = 10;
    const merchants: Merchant[] = [];
    for (let i = 0; i < pairs * 2; i++) merchants.push(await merchant(ctx.app));
    const card = { number: '4242424242424242', holderName: 'MARIA SILVA', expMonth: 12, expYear: new Date().getFullYear() + 3, cvv: '123' };
    const txOf: string[] = [];
    for (const m of merchants) {
      const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { ...pixBody(12_000), paymentMethod: 'CARD', installments: 2, card } });
      assert.equal(res.status, 201, res.raw);
      assert.equal(res.body.transaction.status, 'PAID');
      txOf.push(res.body.transaction.id);
    }
    const base = Date.now() - 86_400_000;
    for (let k = 0; k < pairs; k++) {
      const order: [string, number][] = [
        [txOf[2 * k], 1],
        [txOf[2 * k + 1], 1],
        [txOf[2 * k + 1], 2],
        [txOf[2 * k], 2],
      ];
      for (const [pos, [txId, n]] of order.entries()) {
        const res = await ctx.database.db
          .updateTable('receivables')
          .set({ settle_at: new Date(base + (4 * k + pos) * 1000) })
          .where('transaction_id', '=', txId)
          .where('installment_number', '=', n)
          .executeTakeFirst();
        assert.equal(Number(res.numUpdatedRows), 1);
      }
    }
    const userIds = merchants.map((m) => m.id);
    const total = pairs * 4;

    let settled = 0;
    const failures: string[] = [];
    for (let round = 0; round < 10 && settled < total; round++) {
      const counts = await Promise.all(Array.from({ length: pairs * 2 }, () => settleDue(ctx.app.deps.transactions, new Date(), 2).catch((err: Error) => (failures.push(err.message), 0))));
      settled += counts.reduce((a, b) => a + b, 0);
    }
    t.diagnostic(`settled ${settled} of ${total}; failures ${JSON.stringify(failures)}`);
    assert.deepEqual(failures, []);
    assert.equal(settled, total);
    const left = await ctx.database.db.selectFrom('receivables').select('id').where('user_id', 'in', userIds).where('status', '<>', 'SETTLED').execute();
    assert.deepEqual(left, []);
    const journals = await ctx.database.db.selectFrom('ledger_journals').select('id').where('user_id', 'in', userIds).where('kind', '=', 'settlement').execute();
    assert.equal(journals.length, total);
    for (const m of merchants) assert.equal((await http('GET', '/api/v1/balance', m.devKey)).body.receivableCents, 0);
    await assertLedgerBalanced(ctx.database.db);
  });
});
