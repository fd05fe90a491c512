// Status changes in batches (transactions/changes.ts): one merchant's concurrent changes share one
// database transaction, a savepoint each. Every request keeps its own answer (payments, refunds,
// the same payment twice, unknown ids), a change that fails leaves nothing behind while its
// neighbours commit, a change that loses a deadlock is run again alone (a simulated one through
// the API and in a batch held open; real ones between two merchants' batches on PostgreSQL), and
// the ledger balances afterwards. On PostgreSQL the changes really run concurrently (the pool); on
// PGlite they queue on its one connection.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Trx } from '../src/db/index.ts';
import type { Transaction } from '../src/db/types.ts';
import { ChangeWriter } from '../src/modules/transactions/changes.ts';
import type { TransactionHooks } from '../src/modules/transactions/hooks.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, onPostgres, type Merchant } from './helpers.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';

describe('status changes in batches', () => {
  /** The database transaction each change's afterChange ran in, by transaction id (its last attempt). */
  const ranIn = new Map<string, Trx>();
  /** Transactions whose change throws after writing (a plain error), and those that lose a deadlock (this many times). */
  const explode = new Set<string>();
  /** Transactions whose PAID journal carries a row the database refuses: it fails when the batch writes its journals. */
  const badRow = new Set<string>();
  const deadlocks = new Map<string, number>();
  const spy: TransactionHooks = {
    async paidJournals(_trx, tx) {
      if (!badRow.has(tx.id)) return [];
      // A journal whose own row breaks a NOT NULL column (transaction_splits.transaction_id).
      const postings = [{ account: 'fees' as const, amount: 1 }, { account: 'external' as const, amount: -1 }];
      return [{ kind: 'test', referenceType: 'transaction', referenceId: tx.id, description: 'refused row', postings, rows: [{ table: 'transaction_splits' as const, values: [{ id: tx.id } as never] }] }];
    },
    async afterChange(trx, _before, after: Transaction) {
      ranIn.set(after.id, trx);
      if (explode.has(after.id)) throw new Error('hook failed after the change was written');
      const left = deadlocks.get(after.id) ?? 0;
      if (left > 0) {
        deadlocks.set(after.id, left - 1);
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }
    },
  };

  const ctx = useApp({ perUserPerMinute: 1_000_000, deps: { extraHooks: [spy] } });
  const m = useMerchant(ctx);

  const pix = async (): Promise<string> => {
    const r = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'Pedido', amountCents: 1000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
    });
    assert.equal(r.status, 201, r.raw);
    return r.body.transaction.id;
  };
  const simulate = (id: string, outcome: 'PAID' | 'FAILED' = 'PAID') => call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey, body: { outcome } });
  const status = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.devKey })).body.transaction.status;
  const journalsOf = async (ids: string[]) =>
    Number((await ctx.database.db.selectFrom('ledger_journals').select((eb) => eb.fn.countAll().as('n')).where('reference_id', 'in', ids).executeTakeFirstOrThrow()).n);

  test('concurrent changes of one merchant: each answered as if alone, fewer commits than changes, the ledger balanced', async () => {
    const ids = await Promise.all(Array.from({ length: 60 }, pix));
    const failed = ids.slice(0, 3);
    for (const id of failed) assert.equal((await simulate(id, 'FAILED')).status, 200);
    const twice = ids.slice(3, 8);
    const unknown = ['01a20000-0000-7000-8000-000000000001', '01a20000-0000-7000-8000-000000000002'];
    const requests = [...ids.slice(3), ...twice, ...failed, ...unknown].map((id) => ({ id, res: simulate(id) }));
    const answers = await Promise.all(requests.map(async (r) => ({ id: r.id, res: await r.res })));

    for (const id of ids.slice(8)) assert.deepEqual(answers.filter((a) => a.id === id).map((a) => [a.res.status, a.res.body.transaction?.status]), [[200, 'PAID']]);
    // The same transaction twice at once: one pays it, the other finds it paid.
    for (const id of twice) {
      const codes = answers.filter((a) => a.id === id).map((a) => (a.res.status === 200 ? 'PAID' : a.res.body.code ?? a.res.status));
      assert.deepEqual(codes.sort(), ['INVALID_STATE_TRANSITION', 'PAID'], `twice ${id}`);
    }
    for (const id of failed) assert.equal(answers.find((a) => a.id === id)!.res.status, 400);
    for (const id of unknown) assert.equal(answers.find((a) => a.id === id)!.res.status, 404);
    for (const id of ids.slice(3)) assert.equal(await status(id), 'PAID');
    for (const id of failed) assert.equal(await status(id), 'FAILED');
    // Each answer is the row as the batch wrote it at its end (changed-rows.ts), field for field.
    for (const a of answers.filter((x) => x.res.status === 200)) {
      const stored = await call(ctx.app, 'GET', `/api/v1/transactions/${a.id}`, { key: m.devKey });
      assert.deepEqual(stored.body.transaction, a.res.body.transaction, a.id);
    }

    // Batches formed: the 57 PAID changes ran in fewer database transactions than changes.
    const paid = ids.slice(3);
    const transactions = new Set(paid.map((id) => ranIn.get(id)));
    assert.ok(transactions.size < paid.length, `${transactions.size} database transactions for ${paid.length} changes`);
    assert.equal(await journalsOf(paid), paid.length, 'one PAID journal per transaction');

    await assertLedgerBalanced(ctx.database.db);
  });

  test('payments, partial refunds and full refunds of one merchant at once: each as if alone, the ledger balanced', async () => {
    const paidFirst = await Promise.all(Array.from({ length: 20 }, pix));
    for (const id of paidFirst) assert.equal((await simulate(id)).status, 200);
    const fresh = await Promise.all(Array.from({ length: 20 }, pix));
    const refund = (id: string, amountCents?: number) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey, body: amountCents === undefined ? undefined : { amountCents } });
    const [pays, partials, fulls] = await Promise.all([
      Promise.all(fresh.map((id) => simulate(id))),
      Promise.all(paidFirst.slice(0, 10).map((id) => refund(id, 400))),
      Promise.all(paidFirst.slice(10).map((id) => refund(id))),
    ]);
    for (const r of pays) assert.equal(r.status, 200, r.raw);
    for (const r of [...partials, ...fulls]) assert.equal(r.status, 200, r.raw);
    for (const id of paidFirst.slice(0, 10)) assert.equal(await status(id), 'PARTIALLY_REFUNDED');
    for (const id of paidFirst.slice(10)) assert.equal(await status(id), 'REFUNDED');
    const refunds = await ctx.database.db.selectFrom('refunds').select(['transaction_id', 'amount_cents']).where('transaction_id', 'in', paidFirst).execute();
    assert.equal(refunds.length, 20, 'one refund row each');
    assert.equal(refunds.reduce((s, r) => s + Number(r.amount_cents), 0), 10 * 400 + 10 * 1000);
    await assertLedgerBalanced(ctx.database.db);
  });

  /** 30 payments at once, the one at `at` marked to fail: it fails alone, leaving nothing; the others commit. */
  const failsAlone = async (marked: Set<string>, at: number) => {
    const ids = await Promise.all(Array.from({ length: 30 }, pix));
    const bad = ids[at];
    marked.add(bad);
    const answers = await Promise.all(ids.map((id) => simulate(id)));
    marked.delete(bad);
    assert.equal(answers[at].status, 500);
    assert.equal(await status(bad), 'PENDING');
    assert.equal(await journalsOf([bad]), 0, 'no journal of the failed change');
    const good = ids.filter((id) => id !== bad);
    for (const [i, id] of ids.entries()) if (id !== bad) assert.equal(answers[i].status, 200, answers[i].raw);
    assert.equal(await journalsOf(good), good.length);
    // And it can be made again.
    assert.equal((await simulate(bad)).status, 200);
    await assertLedgerBalanced(ctx.database.db);
  };

  test('a change that fails leaves nothing behind; the changes beside it commit', () => failsAlone(explode, 10));


  test("a batch's journals and events are written at its end: each balance.updated carries the balance after its own payment", async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, pix));
    const before = (await call(ctx.app, 'GET', '/api/v1/balance', { key: m.devKey })).body;
    const answers = await Promise.all(ids.map((id) => simulate(id)));
    for (const a of answers) assert.equal(a.status, 200, a.raw);
    assert.ok(new Set(ids.map((id) => ranIn.get(id))).size < ids.length, 'the payments shared database transactions');
    const rows = await ctx.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('user_id', '=', m.id)
      .where('livemode', '=', false)
      .where(sql<boolean>`data->>'referenceId' = ANY(${ids}) OR data->>'id' = ANY(${ids})`)
      .execute();
    // Each payment's balance.updated carries the balance its own journal left (its entry's balance
    // after), not the batch's end: the balances step up by each net, one payment after another.
    const updates = rows.filter((r) => r.type === 'balance.updated').map((r) => r.data as { availableCents: number; referenceId: string; reason: string });
    assert.equal(updates.length, ids.length);
    for (const id of ids) assert.deepEqual(rows.filter((r) => (r.data as { id?: string }).id === id).map((r) => r.type).sort(), ['transaction.completed', 'transaction.created', 'transaction.updated']);
    const entries = await ctx.database.db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_journals as j', 'j.id', 'e.journal_id')
      .select(['j.reference_id', 'e.balance_after_cents', 'e.amount_cents'])
      .where('j.reference_id', 'in', ids)
      .where('e.user_id', '=', m.id)
      .where('e.account_kind', '=', 'available')
      .orderBy('e.balance_after_cents')
      .execute();
    const after = new Map(entries.map((e) => [e.reference_id, Number(e.balance_after_cents)]));
    for (const u of updates) {
      assert.equal(u.reason, 'payment');
      assert.equal(u.availableCents, after.get(u.referenceId), `balance.updated of ${u.referenceId}`);
    }
    let available = Number(before.availableCents);
    for (const e of entries) assert.equal(Number(e.balance_after_cents), (available += Number(e.amount_cents)));
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a journal the database refuses when the batch writes it fails its own change alone', () => failsAlone(badRow, 7));


  test('a change that loses a deadlock is run again alone and succeeds', async () => {
    const ids = await Promise.all(Array.from({ length: 30 }, pix));
    const victim = ids[12];
    // Lost in its batch (run first without savepoints, then with them), it runs a third time alone.
    deadlocks.set(victim, 2);
    const answers = await Promise.all(ids.map((id) => simulate(id)));
    assert.equal(deadlocks.get(victim), 0, 'the deadlock was raised');
    for (const r of answers) assert.equal(r.status, 200, r.raw);
    assert.equal(await status(victim), 'PAID');
    assert.equal(await journalsOf([victim]), 1);
    // Its last attempt ran in a database transaction of its own.
    assert.ok(!ids.some((id) => id !== victim && ranIn.get(id) === ranIn.get(victim)), 'the retry ran alone');
    await assertLedgerBalanced(ctx.database.db);
  });
});

// The writer itself on the test database, with a batch held open so that the next one forms for certain.
describe('ChangeWriter: savepoints and retries inside one batch', () => {
  const ctx = useApp();
  before(async () => {
    await ready(ctx);
    await sql`CREATE TABLE change_probe (n int PRIMARY KEY)`.execute(ctx.database.db);
  });

  test('the changes queued behind a batch form one transaction; one that throws leaves nothing, one that loses a deadlock runs again alone', async () => {
    const writer = new ChangeWriter(ctx.database.db, { maxBatch: 100, maxInFlight: 4, nextTurn: !onPostgres });
    const scope = { userId: '01a20000-0000-7000-8000-0000000000aa', livemode: false };
    const txOf = new Map<number, unknown[]>();
    const insert = (n: number) => async (trx: Trx) => {
      txOf.set(n, [...(txOf.get(n) ?? []), trx]);
      await sql`INSERT INTO change_probe VALUES (${n})`.execute(trx);
      return n;
    };
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const first = writer.run(scope, async (trx) => {
      await gate;
      return insert(0)(trx);
    });
    await new Promise((r) => setTimeout(r, 20)); // the first batch is in flight, holding its gate
    let lost = false;
    const queued = [
      writer.run(scope, insert(1)),
      writer.run(scope, async (trx) => {
        await insert(2)(trx);
        throw new Error('refused after writing');
      }),
      writer.run(scope, async (trx) => {
        await insert(3)(trx);
        if (!lost) {
          lost = true;
          throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        }
        return 3;
      }),
      writer.run(scope, insert(4)),
    ];
    open();
    assert.equal(await first, 0);
    const settled = await Promise.allSettled(queued);
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
      [1, 'refused after writing', 3, 4],
    );
    const rows = await sql<{ n: number }>`SELECT n FROM change_probe ORDER BY n`.execute(ctx.database.db);
    assert.deepEqual(rows.rows.map((r) => r.n), [0, 1, 3, 4], 'the refused change wrote nothing');
    // The batch ran first without savepoints and was rolled back when 2 threw; run again with them, 1,
    // 2, 3 (its first try there) and 4 shared one transaction, not the first batch's; 3's next try ran alone.
    const [fast, batch] = txOf.get(1)!;
    assert.notEqual(batch, txOf.get(0)![0]);
    assert.notEqual(batch, fast);
    assert.deepEqual(txOf.get(2), [fast, batch]);
    assert.deepEqual(txOf.get(4), [batch]);
    assert.equal(txOf.get(3)!.length, 2);
    assert.equal(txOf.get(3)![0], batch);
    assert.notEqual(txOf.get(3)![1], batch);
  });
});

// Two merchants' batches paying sales of the same two affiliates in opposite orders: each batch
// holds the first affiliate's accounts while it locks the second's, which lone changes never did.
// Whichever change PostgreSQL picks as a deadlock's victim is run again alone; every sale is paid
// once, with one commission, and the ledger balances.
describe('status changes in batches across merchants (PostgreSQL)', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  const ctx = useApp({ perUserPerMinute: 1_000_000 });

  test('sellers paying sales of shared affiliates in opposite orders: every sale paid once, one commission each', async () => {
    const [s1, s2, x, y] = await Promise.all([merchant(ctx.app), merchant(ctx.app), merchant(ctx.app), merchant(ctx.app)]);
    /** A product of `owner` with a program `affiliate` joined: its link's slug and the affiliate's code. */
    const program = async (owner: Merchant, affiliate: Merchant) => {
      const p = await call(ctx.app, 'POST', '/api/v1/products', { key: owner.devKey, body: { name: 'Curso', price: 10000 } });
      const l = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: owner.devKey, body: { title: 'Curso', products: [{ productId: p.body.product.id, quantity: 1 }] } });
      const pr = await call(ctx.app, 'POST', '/api/affiliate/programs', { key: owner.devKey, body: { productId: p.body.product.id, commissionType: 'PERCENTAGE', commissionValue: 1000 } });
      const j = await call(ctx.app, 'POST', `/api/affiliate/join/${pr.body.data.id}`, { key: affiliate.devKey });
      assert.equal(j.status, 201, j.raw);
      return { slug: l.body.paymentLink.slug as string, code: j.body.data.code as string };
    };
    const sale = async (p: { slug: string; code: string }) => {
      const r = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${p.slug}/checkout`, {
        body: { clientName: 'Joana Lima', clientEmail: 'joana@example.com', clientDocument: cpf(), paymentMethod: 'PIX', affiliateCode: p.code },
      });
      assert.equal(r.status, 201, r.raw);
      return r.body.transaction.id as string;
    };
    const [s1x, s1y, s2x, s2y] = await Promise.all([program(s1, x), program(s1, y), program(s2, x), program(s2, y)]);
    const rounds = 12;
    // s1's sales alternate x, y; s2's alternate y, x.
    const s1Sales: string[] = [];
    const s2Sales: string[] = [];
    for (let i = 0; i < rounds; i++) {
      s1Sales.push(await sale(i % 2 ? s1y : s1x));
      s2Sales.push(await sale(i % 2 ? s2x : s2y));
    }
    const pay = (id: string, m: Merchant) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    const answers = await Promise.all(s1Sales.flatMap((id, i) => [pay(id, s1), pay(s2Sales[i], s2)]));
    for (const r of answers) assert.equal(r.status, 200, r.raw);
    const commissions = await ctx.database.db.selectFrom('affiliate_commissions').select('transaction_id').where('transaction_id', 'in', [...s1Sales, ...s2Sales]).execute();
    assert.equal(commissions.length, 2 * rounds, 'one commission per sale');
    assert.equal(new Set(commissions.map((c) => c.transaction_id)).size, 2 * rounds);
    await assertLedgerBalanced(ctx.database.db);
  });
});
