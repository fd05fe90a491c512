// Wallet races that only mean something on real PostgreSQL (PGlite runs one statement at a time):
// withdrawals competing for one balance, cancel racing the payout job, concurrent advance requests
// and KYC submissions, and an advance approval racing refunds and settlement of the same
// instalments. Each ends with the ledger check. Requests go over a real socket so the pool
// (30 connections) runs them in parallel.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { settleDue } from '../src/modules/transactions/service.ts';
import { processPayouts } from '../src/modules/withdrawals/payouts.ts';
import { merchant, onPostgres, operator, startApp, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { balance, DAY, kycBody, paidCard, paidPix, payoutConnectors, ScriptedProvider } from './wallet-helpers.ts';

const skip = onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)';

let ctx: TestContext;
let base: string;

interface HttpRes {
  status: number;
  body: any;
}

async function http(method: string, path: string, auth: { key: string } | { token: string; env?: string }, body?: unknown): Promise<HttpRes> {
  const headers: Record<string, string> = 'key' in auth ? { 'api-key': auth.key } : { authorization: `Bearer ${auth.token}`, ...(auth.env ? { 'x-environment': auth.env } : {}) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

function tally(list: HttpRes[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of list) {
    const k = r.status === 400 ? `400 ${r.body?.code}` : String(r.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/**
 * The statement read oldest first, page by page: each entry's balanceAfterCents is its account's
 * balance before it plus its amount, and the last of each account is the balance now.
 */
async function assertStatementInOrder(k: { key: string }) {
  const entries: { account: string; amountCents: number; balanceAfterCents: number }[] = [];
  let cursor: string | null = null;
  do {
    const page: HttpRes = await http('GET', `/api/v1/balance/entries?orderDirection=asc&limit=100${cursor ? `&cursor=${cursor}` : ''}`, k);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    entries.push(...page.body.entries);
    cursor = page.body.pagination.hasMore ? page.body.pagination.nextCursor : null;
  } while (cursor);
  const running: Record<string, number> = {};
  const wrong = entries.filter((e) => (running[e.account] = (running[e.account] ?? 0) + e.amountCents) !== e.balanceAfterCents);
  assert.deepEqual(wrong, [], `${wrong.length} of ${entries.length} entries out of order`);
  const b = (await http('GET', '/api/v1/balance', k)).body;
  assert.deepEqual([running.available ?? 0, running.receivable ?? 0, running.reserved ?? 0], [b.availableCents, b.receivableCents, b.reservedCents]);
}

describe('wallet concurrency on PostgreSQL', { skip }, () => {
  before(async () => {
    ctx = await startApp({ env: { PAYMENT_PROVIDER: 'sandbox' } });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(() => ctx?.close());

  test('20 concurrent withdrawals each needing 60% of the balance: exactly one is accepted', async (t) => {
    const m = await merchant(ctx.app);
    const k = { key: m.devKey };
    await paidPix(ctx.app, k, 100_000);
    const available = (await balance(ctx.app, k)).availableBalanceCents;
    const amount = Math.ceil(available * 0.6);
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => http('POST', '/api/withdraws', k, { amountCents: amount, pixKeyType: 'email', pixKey: `loja${i}@example.com` })));
    t.diagnostic(`responses: ${JSON.stringify(tally(all))}`);
    assert.deepEqual(tally(all), { '201': 1, '400 INSUFFICIENT_BALANCE': 19 });
    assert.deepEqual(await balance(ctx.app, k), { availableBalanceCents: available - amount, pendingBalanceCents: 0, reservedCents: amount });
    const rows = await ctx.database.db.selectFrom('withdrawals').select('id').where('user_id', '=', m.id).execute();
    assert.equal(rows.length, 1);
    await assertLedgerBalanced(ctx.database.db);

    // Mixed with the dashboard token and different amounts: never more reserved than was available.
    const m2 = await merchant(ctx.app);
    await paidPix(ctx.app, { key: m2.devKey }, 50_000);
    const avail2 = (await balance(ctx.app, { key: m2.devKey })).availableBalanceCents;
    const mixed = await Promise.all(
      Array.from({ length: 30 }, (_, i) => http('POST', '/api/withdraws', i % 2 ? { key: m2.devKey } : { token: m2.token }, { amountCents: 3000 + 100 * i, pixKeyType: 'random', pixKey: '123e4567-e89b-42d3-a456-426614174000' })),
    );
    assert.ok(mixed.every((r) => r.status === 201 || (r.status === 400 && r.body.code === 'INSUFFICIENT_BALANCE')), JSON.stringify(tally(mixed)));
    const accepted = mixed.filter((r) => r.status === 201).reduce((s, r) => s + r.body.data.amountCents, 0);
    const b2 = await balance(ctx.app, { key: m2.devKey });
    assert.equal(b2.reservedCents, accepted);
    assert.equal(b2.availableBalanceCents, avail2 - accepted);
    assert.ok(b2.availableBalanceCents >= 0);
    await assertLedgerBalanced(ctx.database.db);
    await assertStatementInOrder({ key: m2.devKey });
  });

  test('cancel racing the payout job: each withdrawal ends either CANCELLED (never sent) or PROCESSING (sent, then COMPLETED)', async (t) => {
    // Pay out whatever earlier tests left PENDING, so the sweeps below only meet this test's rows.
    await processPayouts({ ...ctx.app.deps.withdrawals, connectors: payoutConnectors(ctx) }, new Date(), 10_000);
    const m = await merchant(ctx.app);
    const k = { key: m.devKey };
    await paidPix(ctx.app, k, 1_000_000);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await http('POST', '/api/withdraws', k, { amountCents: 1000 + i, pixKeyType: 'email', pixKey: 'loja@example.com' });
      assert.equal(r.status, 201);
      ids.push(r.body.data.id);
    }
    // The provider holds every payout until the race is over, so what the job claimed is visibly PROCESSING.
    const provider = new ScriptedProvider(ctx);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    provider.answer = async () => {
      await gate;
      return { status: 'COMPLETED' };
    };
    const connectors = payoutConnectors(ctx, { sandbox: provider });
    const cancels = ids.map((id) => http('POST', `/api/withdraws/${id}/cancel`, k));
    // Sweeps spread over the storm, one withdrawal each, so claims and cancels interleave.
    const jobs = ids.map((_, i) => delay(i).then(() => processPayouts({ ...ctx.app.deps.withdrawals, connectors }, new Date(), i % 5 === 4 ? 10 : 1)));
    const cancelResults = await Promise.all(cancels);
    // Every claim has committed once its sweep reached the provider; wait for all of them to get there.
    for (let i = 0; i < 500 && provider.calls.length + cancelResults.filter((r) => r.status === 200).length < ids.length; i++) await delay(10);

    const rows = await ctx.database.db.selectFrom('withdrawals').select(['id', 'status', 'external_id']).where('id', 'in', ids).execute();
    const status = new Map(rows.map((r) => [r.id, r]));
    const sent = new Set(provider.calls.map((c) => c.externalId));
    ids.forEach((id, i) => {
      const row = status.get(id)!;
      const r = cancelResults[i];
      if (r.status === 200) {
        assert.equal(row.status, 'CANCELLED', id);
        assert.equal(row.external_id, null);
      } else {
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.equal(r.body.code, 'INVALID_STATE_TRANSITION');
        assert.equal(row.status, 'PROCESSING', id);
        assert.ok(sent.has(row.external_id!), 'a PROCESSING withdrawal was sent');
      }
    });
    const nCancelled = rows.filter((r) => r.status === 'CANCELLED').length;
    t.diagnostic(`CANCELLED ${nCancelled}, PROCESSING ${ids.length - nCancelled}`);
    assert.equal(sent.size, ids.length - nCancelled, 'each claimed withdrawal sent exactly once');
    assert.equal(provider.calls.length, sent.size);
    release();
    const claimed = (await Promise.all(jobs)).reduce((a, b) => a + b, 0);
    assert.equal(claimed, ids.length - nCancelled);
    const final = await ctx.database.db.selectFrom('withdrawals').select('status').where('id', 'in', ids).execute();
    assert.equal(final.filter((r) => r.status === 'COMPLETED').length, ids.length - nCancelled);
    assert.equal(final.filter((r) => r.status === 'CANCELLED').length, nCancelled);
    const b = await balance(ctx.app, k);
    assert.equal(b.reservedCents, 0);
    await assertLedgerBalanced(ctx.database.db);
    await assertStatementInOrder(k);
  });

  test('concurrent advance requests: exactly one (production: PENDING; development: one completes, the rest find it gone)', async (t) => {
    const m = await merchant(ctx.app, { live: true });
    const live = { key: m.liveKey! };
    await paidCard(ctx.app, live, 100_000, 6);
    const prod = await Promise.all(Array.from({ length: 20 }, (_, i) => http('POST', '/api/advances', i % 2 ? live : { token: m.token, env: 'production' }, { amountCents: 1000 + i, reason: 'corrida' })));
    t.diagnostic(`production: ${JSON.stringify(tally(prod))}`);
    assert.deepEqual(tally(prod), { '201': 1, '400 ADVANCE_ALREADY_ACTIVE': 19 });
    const rows = await ctx.database.db.selectFrom('advances').select(['status']).where('user_id', '=', m.id).where('livemode', '=', true).execute();
    assert.deepEqual(rows, [{ status: 'PENDING' }]);

    const dk = { key: m.devKey };
    await paidCard(ctx.app, dk, 100_000, 6);
    const dev = await Promise.all(Array.from({ length: 20 }, () => http('POST', '/api/advances', dk, { reason: 'tudo de uma vez' })));
    t.diagnostic(`development: ${JSON.stringify(tally(dev))}`);
    assert.equal(dev.filter((r) => r.status === 201).length, 1, JSON.stringify(tally(dev)));
    for (const r of dev) if (r.status !== 201) assert.ok(r.status === 400 && ['ADVANCE_ALREADY_ACTIVE', 'INSUFFICIENT_BALANCE'].includes(r.body.code), JSON.stringify(r.body));
    const devRows = await ctx.database.db.selectFrom('advances').select(['status']).where('user_id', '=', m.id).where('livemode', '=', false).execute();
    assert.deepEqual(devRows, [{ status: 'COMPLETED' }]);
    const b = await balance(ctx.app, dk);
    assert.equal(b.pendingBalanceCents, 0);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('concurrent KYC submissions: exactly one is accepted', async () => {
    const m = await merchant(ctx.app);
    const all = await Promise.all(Array.from({ length: 10 }, () => http('POST', '/api/kyc', { token: m.token }, kycBody())));
    assert.deepEqual(tally(all), { '201': 1, '400 INVALID_STATE_TRANSITION': 9 });
    const rows = await ctx.database.db.selectFrom('kyc_submissions').select('status').where('user_id', '=', m.id).execute();
    assert.deepEqual(rows, [{ status: 'SUBMITTED' }]);
  });

  test('an advance approval racing refunds and settlement of the same instalments: no deadlock, each instalment paid once', async (t) => {
    const op = await operator(ctx.app);
    const failures: string[] = [];
    for (let round = 0; round < 5; round++) {
      const m = await merchant(ctx.app, { live: true });
      const live = { key: m.liveKey! };
      await paidPix(ctx.app, { key: m.devKey }, 10); // keep a development ledger too
      const txs: { id: string; net: number }[] = [];
      for (let i = 0; i < 6; i++) txs.push(await paidCard(ctx.app, live, 20_000 + i * 1000, 4));
      const total = txs.reduce((s, x) => s + x.net, 0);
      const adv = await http('POST', '/api/advances', live, { amountCents: Math.floor(total * 0.5), reason: 'corrida' });
      assert.equal(adv.status, 201, JSON.stringify(adv.body));
      // Half the first instalments (the advance's first pick) fall due now: the settlement sweep competes for them.
      const recs = await ctx.database.db.selectFrom('receivables').select(['id', 'transaction_id', 'installment_number']).where('user_id', '=', m.id).where('livemode', '=', true).execute();
      const due = recs.filter((r) => r.installment_number === 1 && txs.findIndex((x) => x.id === r.transaction_id) % 2 === 0).map((r) => r.id);
      assert.equal(due.length, 3);
      await ctx.database.db.updateTable('receivables').set({ settle_at: new Date(Date.now() + 2000) }).where('id', 'in', due).execute();
      const later = new Date(Date.now() + 3000);
      const ops: Promise<unknown>[] = [
        http('POST', `/api/admin/advances/${adv.body.advance.id}/approve`, { token: op.token }, {}),
        ...txs.map((x, i) => http('POST', `/api/v1/transactions/${x.id}/refund`, live, { amountCents: 1000 + 100 * i })),
        ...Array.from({ length: 4 }, () => settleDue(ctx.app.deps.transactions, later, 2).catch((err: Error) => failures.push(err.message))),
      ];
      const results = await Promise.all(ops);
      const approve = results[0] as HttpRes;
      assert.ok(approve.status === 200 || (approve.status === 400 && approve.body.code === 'INSUFFICIENT_BALANCE'), JSON.stringify(approve.body));
      for (const r of results.slice(1, 1 + txs.length) as HttpRes[]) assert.ok(r.status === 200 || r.status === 400, JSON.stringify(r.body));
      t.diagnostic(`approval ${approve.status} ${approve.status === 400 ? approve.body.message : ""}, refunds ${JSON.stringify(tally(results.slice(1, 1 + txs.length) as HttpRes[]))}`);
      await assertLedgerBalanced(ctx.database.db);
    }
    assert.deepEqual(failures, []);
    // Everything settles in the end; nothing advanced is settled.
    while ((await settleDue(ctx.app.deps.transactions, new Date(Date.now() + 400 * DAY), 100)) > 0);
    await assertLedgerBalanced(ctx.database.db);
  });
});
