// Group commit of transaction creations (db/group-commit.ts, transactions/creation.ts): how batches
// form, a batch that fails as a whole written again row by row, a lone creation written at once,
// and 200 concurrent API creations with duplicated keys, shared clients and invalid requests.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type CompiledQuery } from 'kysely';
import { GroupCommit } from '../src/db/group-commit.ts';
import type { Db } from '../src/db/index.ts';
import type { Transaction } from '../src/db/types.ts';
import type { RequestKey } from '../src/http/idempotency.ts';
import { arrayLiteral, BATCH, jsonTexts } from '../src/modules/transactions/creation.ts';
import { buildDraft, checkInput, type CreateInput } from '../src/modules/transactions/draft.ts';
import { uuidv7 } from '../src/db/ids.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, onPostgres, startApp, type Merchant, type TestContext } from './helpers.ts';

// ---------------------------------------------------------------------------------------------
// The batching writer alone, with a write we control.

/** A GroupCommit whose writes wait until released; records each batch. */
function controlled(opts: { maxBatch?: number; minExtraBatch?: number; onePerGroup?: boolean; failIf?: (item: string) => boolean } = {}) {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const gc = new GroupCommit<string, string>({
    maxBatch: opts.maxBatch ?? 200,
    maxInFlight: 2,
    minExtraBatch: opts.minExtraBatch,
    onePerGroup: opts.onePerGroup,
    group: (item) => item.split(':')[0],
    write: async (items) => {
      batches.push(items);
      await new Promise<void>((resolve) => pending.push(resolve));
      if (items.some((i) => opts.failIf?.(i))) throw new Error('statement failed');
      return items.map((i) => `${i} written`);
    },
  });
  /** Lets the oldest waiting write finish, then lets the writer react. */
  const release = async () => {
    pending.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { gc, batches, release, pending };
}

describe('group commit: how batches form', () => {
  test('a lone item on an idle writer is written at once, alone (no timer)', async () => {
    const { gc, batches, release } = controlled();
    const p = gc.submit('a:1');
    // Synchronously: the write has started before submit returned.
    assert.deepEqual(batches, [['a:1']]);
    await release();
    assert.equal(await p, 'a:1 written');
  });

  test('items arriving while two batches are in flight join the next batch, up to maxBatch, one group per batch', async () => {
    const { gc, batches, release, pending } = controlled({ maxBatch: 3 });
    const results = ['a:1', 'a:2', 'a:3', 'b:1', 'a:4', 'a:5', 'a:6'].map((i) => gc.submit(i));
    // Two batches in flight at once: the first two items, each alone.
    assert.deepEqual(batches, [['a:1'], ['a:2']]);
    await release();
    // One slot free: the oldest waiting item's group, in arrival order, at most 3.
    assert.deepEqual(batches.at(-1), ['a:3', 'a:4', 'a:5']);
    await release();
    assert.deepEqual(batches.at(-1), ['b:1']);
    await release();
    assert.deepEqual(batches.at(-1), ['a:6']);
    while (pending.length) await release();
    assert.equal(batches.length, 5);
    assert.deepEqual(await Promise.all(results), ['a:1', 'a:2', 'a:3', 'b:1', 'a:4', 'a:5', 'a:6'].map((i) => `${i} written`));
  });

  test('minExtraBatch: a second batch starts only once that many items wait; fewer go together after the first', async () => {
    const { gc, batches, release, pending } = controlled({ minExtraBatch: 3 });
    const results = ['a:1', 'a:2', 'a:3'].map((i) => gc.submit(i));
    // a:1 alone at once; two waiting are fewer than 3: no second batch yet.
    assert.deepEqual(batches, [['a:1']]);
    await release();
    assert.deepEqual(batches, [['a:1'], ['a:2', 'a:3']]);
    // With one in flight, a third waiting item starts the second batch.
    const more = ['a:4', 'a:5', 'a:6'].map((i) => gc.submit(i));
    assert.deepEqual(batches.at(-1), ['a:4', 'a:5', 'a:6']);
    while (pending.length) await release();
    assert.equal(batches.length, 3);
    assert.deepEqual(await Promise.all([...results, ...more]), ['a:1', 'a:2', 'a:3', 'a:4', 'a:5', 'a:6'].map((i) => `${i} written`));
  });

  test('onePerGroup: a group with a batch in flight waits although a slot is free; another group starts meanwhile', async () => {
    const { gc, batches, release, pending } = controlled({ onePerGroup: true });
    const results = ['a:1', 'a:2', 'b:1', 'a:3', 'b:2'].map((i) => gc.submit(i));
    // a:1 alone; a:2 waits for it although a slot is free; b:1 takes that slot.
    assert.deepEqual(batches, [['a:1'], ['b:1']]);
    await release();
    assert.deepEqual(batches.at(-1), ['a:2', 'a:3']);
    while (pending.length) await release();
    assert.deepEqual(batches, [['a:1'], ['b:1'], ['a:2', 'a:3'], ['b:2']]);
    assert.deepEqual(await Promise.all(results), ['a:1', 'a:2', 'b:1', 'a:3', 'b:2'].map((i) => `${i} written`));
  });

  test('nextTurn (PGlite): items submitted in the same turn make one batch, started on the next turn (no timer)', async () => {
    const batches: string[][] = [];
    const gc = new GroupCommit<string, string>({ maxBatch: 200, maxInFlight: 1, nextTurn: true, group: () => 'a', write: async (items) => (batches.push(items), items) });
    const results = ['a:1', 'a:2', 'a:3'].map((i) => gc.submit(i));
    assert.deepEqual(batches, []);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [['a:1', 'a:2', 'a:3']]);
    assert.deepEqual(await Promise.all(results), ['a:1', 'a:2', 'a:3']);
  });

  test('a batch that fails as a whole is written again item by item: only the bad item fails', async () => {
    const { gc, batches, release, pending } = controlled({ failIf: (i) => i === 'a:bad' });
    const results = ['a:1', 'a:2', 'a:3', 'a:bad', 'a:4'].map((i) => gc.submit(i).then((r) => r, (e: Error) => `failed: ${e.message}`));
    assert.deepEqual(batches, [['a:1'], ['a:2']]);
    await release();
    assert.deepEqual(batches.at(-1), ['a:3', 'a:bad', 'a:4']);
    while (pending.length) await release();
    assert.deepEqual(batches.slice(3), [['a:3'], ['a:bad'], ['a:4']]);
    assert.deepEqual(await Promise.all(results), ['a:1 written', 'a:2 written', 'a:3 written', 'failed: statement failed', 'a:4 written']);
  });

  test('observe is told of each batch once it has finished: its size, how long its oldest item waited, how long it ran', async () => {
    const seen: { size: number; waitedMs: number; ranMs: number }[] = [];
    let release = () => {};
    const gc = new GroupCommit<string, string>({
      maxBatch: 200,
      maxInFlight: 1,
      group: () => 'a',
      write: async (items) => (await new Promise<void>((r) => (release = r)), items),
      observe: (size, waitedMs, ranMs) => seen.push({ size, waitedMs, ranMs }),
    });
    const first = gc.submit('a:1');
    const rest = ['a:2', 'a:3'].map((i) => gc.submit(i));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(seen.length, 0, 'nothing is told before a batch has finished');
    release();
    await first;
    await new Promise((r) => setImmediate(r));
    release();
    await Promise.all(rest);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen.map((s) => s.size), [1, 2]);
    // The lone item started at once; the two others waited for the first batch, which ran >= 20 ms.
    assert.ok(seen[0].waitedMs < 5 && seen[0].ranMs >= 19, JSON.stringify(seen[0]));
    assert.ok(seen[1].waitedMs >= 19 && seen[1].ranMs >= 0, JSON.stringify(seen[1]));
  });
});

// ---------------------------------------------------------------------------------------------
// The creation statement, on the database (PGlite and PostgreSQL).

/** The creation statements the app sends (their row counts and outcomes), counted when sent. */
function spyCreations(db: Db) {
  const statements: { rows: number; ok?: boolean }[] = [];
  const original = db.executeQuery.bind(db);
  const spied = async (q: CompiledQuery) => {
    if (!q.sql.includes('WITH i AS (SELECT unnest(')) return original(q);
    // The first parameter is the ids' array literal ({"<uuid>","<uuid>"}): one comma between rows.
    const s: { rows: number; ok?: boolean } = { rows: (q.parameters[0] as string).split(',').length };
    statements.push(s);
    try {
      const res = await original(q);
      s.ok = true;
      return res;
    } catch (err) {
      s.ok = false;
      throw err;
    }
  };
  Object.assign(db, { executeQuery: spied });
  return { statements, restore: () => delete (db as { executeQuery?: unknown }).executeQuery };
}

let ctx: TestContext;
let m: Merchant;

/** A PENDING card payment (no card data: no provider call) of merchant m, built as the service builds it. */
async function cardDraft(product: string): Promise<Transaction> {
  const deps = ctx.app.deps.transactions;
  const scope = { userId: m.id, livemode: false };
  const input: CreateInput = { product, amountCents: 2_500, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD' };
  const now = new Date();
  const checked = checkInput(input, null, deps.config, now);
  return buildDraft({ id: uuidv7(now.getTime()), scope, input, checked, fees: await deps.fees.of(m.id), provider: 'sandbox', pix: null, boleto: null, extras: {}, now });
}

const keyOf = (key: string): RequestKey => ({ userId: m.id, livemode: false, key, fingerprint: `fp-${key}`, createdAt: new Date(), state: 'inline' });

describe('group commit: the creation statement', () => {
  before(async () => {
    ctx = await startApp();
    m = await merchant(ctx.app);
  });
  after(() => ctx?.close());

  test('a column travels as an array literal that the database reads back value for value', async () => {
    const texts = ['', 'NULL', 'null', 'a,b', '{x}', 'say "oi"', 'C:\\dir\\', '\\"', ' spaced ', 'ção 🇧🇷', '<script>', null];
    const at = [new Date('2026-01-31T23:59:59.999Z'), null, new Date(0)];
    const { rows } = await sql<{ t: (string | null)[]; n: (string | null)[]; d: (Date | null)[] }>`SELECT ${arrayLiteral(texts)}::text[] AS t,
      ${arrayLiteral([1, -2, 9_007_199_254_740_991, null])}::bigint[]::text[] AS n, ${arrayLiteral(at)}::timestamptz[] AS d`.execute(ctx.database.db);
    assert.deepEqual(rows[0].t, texts);
    assert.deepEqual(rows[0].n, ['1', '-2', '9007199254740991', null]);
    assert.deepEqual(rows[0].d, at);
    assert.throws(() => arrayLiteral([{}]), TypeError);
  });

  test('JSON texts travel joined by a control character and come back value for value', async () => {
    const texts = [JSON.stringify({ s: 'say "oi", \\ {x} ção 🇧🇷 \u0001\n', n: null }), null, JSON.stringify('a,b'), JSON.stringify(''), '{}'];
    const read = async (values: (string | null)[]) =>
      (await sql<{ t: (string | null)[] }>`SELECT string_to_array(${jsonTexts(values)}::text, chr(1), chr(2)) AS t`.execute(ctx.database.db)).rows[0].t;
    assert.deepEqual(await read(texts), texts);
    assert.deepEqual(await read([null]), [null]); // one row without a key: one NULL, not an empty array
    assert.throws(() => jsonTexts(['"\u0001"']), /control character/); // a raw control character: not JSON
  });

  test('quotes, backslashes and braces in what a merchant sends survive the statement: response, replay, the stored row and the event', async () => {
    const product = 'Caneca "Cofre" \\ 50% {edição}, ç/ü';
    const metadata = { 'pedido "x"': 'a\\b', nested: '{"já":[1,2]}' };
    const body = { product, amountCents: 4_321, clientName: 'Zé "Q" d\'Ávila', clientEmail: 'ze@example.com', clientDocument: cpf(), paymentMethod: 'PIX', metadata };
    const first = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, headers: { 'idempotency-key': 'quotes-1' }, body });
    assert.equal(first.status, 201, first.raw);
    assert.equal(first.body.transaction.product, product);
    assert.deepEqual(first.body.transaction.metadata, metadata);
    const replay = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, headers: { 'idempotency-key': 'quotes-1' }, body });
    assert.equal(replay.raw, first.raw);
    const read = await call(ctx.app, 'GET', `/api/v1/transactions/${first.body.transaction.id}`, { key: m.devKey });
    assert.equal(read.body.transaction.product, product);
    assert.equal(read.body.transaction.client.name, body.clientName);
    const event = await ctx.database.db.selectFrom('events').select('data').where(sql<boolean>`data->>'id' = ${first.body.transaction.id}`).executeTakeFirstOrThrow();
    const data = (typeof event.data === 'string' ? JSON.parse(event.data) : event.data) as { product: string; metadata: unknown; clientId: string };
    assert.equal(data.product, product);
    assert.deepEqual(data.metadata, metadata);
    assert.equal(data.clientId, first.body.transaction.client.id);
  });

  test('a lone creation is sent at once, in a statement of its own', async () => {
    const spy = spyCreations(ctx.database.db);
    try {
      const draft = await cardDraft('Sozinho');
      const p = ctx.app.deps.transactions.creations.insert(draft);
      // On PostgreSQL, sent before insert() returned: nothing waited for company. PGlite runs in
      // this thread: sent on the next turn of the event loop (no timer).
      if (!onPostgres) {
        assert.deepEqual(spy.statements, []);
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.deepEqual(spy.statements.map((s) => s.rows), [1]);
      const tx = await p;
      assert.equal(tx.id, draft.id);
      assert.deepEqual(spy.statements, [{ rows: 1, ok: true }]);
    } finally {
      spy.restore();
    }
  });

  test('a batch whose statement fails is written again row by row: the bad rows fail alone, their neighbours are stored with their keys', async () => {
    const { db } = ctx.database;
    await sql`CREATE FUNCTION gc_injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`.execute(db);
    await sql`CREATE TRIGGER gc_injected_failure BEFORE INSERT ON transactions FOR EACH ROW WHEN (NEW.product = 'Falha injetada') EXECUTE FUNCTION gc_injected_failure()`.execute(db);
    const spy = spyCreations(db);
    try {
      // All submitted in one go. PostgreSQL: the first is written at once, alone; the second slot
      // takes the next `extra` once they wait (minExtraBatch), and the last 13 wait for a free slot:
      // one bad row in each of those two batches. PGlite: one batch of them all, on the next turn.
      // Each batch fails as a whole and is written again row by row before the next one starts.
      const extra = BATCH.postgres.minExtraBatch!;
      const total = 1 + extra + 13;
      const bad = [10, 1 + extra + 4 + ((1 + extra) % 2)]; // even: rows without a key (see below)
      const products = Array.from({ length: total }, (_, i) => (bad.includes(i) ? 'Falha injetada' : `Pedido ${i}`));
      const drafts = await Promise.all(products.map(cardDraft));
      const { creations } = ctx.app.deps.transactions;
      const render = (row: Transaction) => JSON.stringify({ id: row.id, clientId: row.client_id });
      const settled = await Promise.allSettled(drafts.map((d, i) => (i % 2 ? creations.insertWith(d, { key: keyOf(`inj-${i}`), status: 201, render }) : creations.insert(d))));
      const one = { rows: 1, ok: true };
      const retried = (from: number, to: number) => [{ rows: to - from, ok: false }, ...products.slice(from, to).map((p) => ({ rows: 1, ok: p !== 'Falha injetada' }))];
      assert.deepEqual(spy.statements, onPostgres ? [one, ...retried(1, 1 + extra), ...retried(1 + extra, total)] : retried(0, total));

      const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [i] : []));
      assert.deepEqual(failed, bad);
      for (const i of failed) assert.match(String((settled[i] as PromiseRejectedResult).reason), /injected failure/);
      const stored = await db.selectFrom('transactions').select(['id', 'client_id']).where('id', 'in', drafts.map((d) => d.id)).execute();
      assert.deepEqual(new Set(stored.map((r) => r.id)), new Set(drafts.filter((_, i) => !failed.includes(i)).map((d) => d.id)));
      const events = await db.selectFrom('events').select(sql<string>`data->>'id'`.as('tx')).where('type', '=', 'transaction.created').where('user_id', '=', m.id).execute();
      for (const r of stored) assert.equal(events.filter((e) => e.tx === r.id).length, 1);
      // Keys: stored with their rendered responses for the written rows (the odd ones); none for a failed row (both even).
      const keys = await db.selectFrom('idempotency_keys').select(['key', 'response_body']).where('user_id', '=', m.id).where('key', 'like', 'inj-%').execute();
      assert.ok(bad.every((i) => i % 2 === 0));
      assert.equal(keys.length, Math.floor(total / 2));
      for (const k of keys) {
        const i = Number(k.key.slice(4));
        const row = stored.find((r) => r.id === drafts[i].id)!;
        assert.deepEqual(JSON.parse(k.response_body!), { id: row.id, clientId: row.client_id });
      }
    } finally {
      spy.restore();
      await sql`DROP TRIGGER gc_injected_failure ON transactions`.execute(db);
      await sql`DROP FUNCTION gc_injected_failure()`.execute(db);
    }
  });

  test('a key already stored, or taken twice in one go, writes nothing for that creation (the caller falls back)', async () => {
    const { creations } = ctx.app.deps.transactions;
    const render = (row: Transaction) => JSON.stringify({ id: row.id });
    const [a, b, c] = await Promise.all(['Um', 'Dois', 'Tres'].map(cardDraft));
    const first = await creations.insertWith(a, { key: keyOf('dup-1'), status: 201, render });
    assert.deepEqual(JSON.parse(first), { id: a.id });
    // Already stored; and taken twice by creations submitted together (the second waits for the first).
    const results = await Promise.allSettled([
      creations.insertWith(b, { key: keyOf('dup-1'), status: 201, render }),
      creations.insertWith(c, { key: keyOf('dup-2'), status: 201, render }),
      creations.insertWith({ ...b, id: uuidv7() }, { key: keyOf('dup-2'), status: 201, render }),
    ]);
    assert.equal(results[0].status, 'rejected');
    assert.equal((results[0] as PromiseRejectedResult).reason.constructor.name, 'KeyTaken');
    assert.deepEqual(JSON.parse((results[1] as PromiseFulfilledResult<string>).value), { id: c.id });
    assert.equal((results[2] as PromiseRejectedResult).reason.constructor.name, 'KeyTaken');
    const stored = await ctx.database.db.selectFrom('transactions').select('id').where('id', 'in', [a.id, b.id, c.id]).execute();
    assert.deepEqual(new Set(stored.map((r) => r.id)), new Set([a.id, c.id]));
  });

  test('the client upsert, with two rows of one client in a batch: the shared client ends as if its rows ran in turn (those without a phone last); each answer and stored reply carries its own client', async () => {
    const { db } = ctx.database;
    const { creations } = ctx.app.deps.transactions;
    const spy = spyCreations(db);
    try {
      const shared = cpf();
      const known = cpf();
      // A client stored beforehand with a phone: a creation without one takes it.
      await creations.insert({ ...(await cardDraft('Antes')), client_document: known, client_phone: '+55 11 90000-0000' });
      const render = (row: Transaction) => JSON.stringify({ id: row.id, client: { id: row.client_id, phone: row.client_phone } });
      const rows = await Promise.all(['Primeiro', 'A', 'B', 'C', 'D', 'E'].map(cardDraft));
      const [primer, a, b, c, d, e] = rows;
      Object.assign(a, { client_document: shared, client_name: 'Ana 1', client_phone: '+55 11 91111-1111' });
      Object.assign(b, { client_document: shared, client_name: 'Ana 2', client_phone: null });
      Object.assign(c, { client_document: shared, client_name: 'Ana 3', client_phone: '+55 11 93333-3333' });
      Object.assign(d, { client_document: known, client_name: 'Bia', client_phone: null });
      // PostgreSQL writes the first at once, alone, and the rest together once it is done; PGlite
      // all of them together, on the next turn.
      const answers = await Promise.all(rows.map((r, i) => creations.insertWith(r, { key: keyOf(`shape-${i}`), status: 201, render })));
      assert.ok(spy.statements.some((st) => st.rows >= 5 && st.ok), JSON.stringify(spy.statements));

      const clients = await db.selectFrom('clients').select(['id', 'document', 'name', 'phone']).where('user_id', '=', m.id).where('document', 'in', [shared, known]).execute();
      const sharedClient = clients.find((x) => x.document === shared)!;
      const knownClient = clients.find((x) => x.document === known)!;
      assert.equal(clients.length, 2);
      assert.equal(sharedClient.name, 'Ana 2'); // the last row (no phone: run last)
      assert.equal(sharedClient.phone, '+55 11 93333-3333'); // the last phone given
      assert.equal(knownClient.phone, '+55 11 90000-0000');
      const stored = await db.selectFrom('transactions').select(['id', 'client_id', 'client_phone', 'client_name']).where('id', 'in', rows.map((r) => r.id)).execute();
      const byId = new Map(stored.map((r) => [r.id, r]));
      const expect = new Map([
        [a.id, { client: sharedClient.id, phone: '+55 11 91111-1111', name: 'Ana 1' }],
        [b.id, { client: sharedClient.id, phone: '+55 11 93333-3333', name: 'Ana 2' }],
        [c.id, { client: sharedClient.id, phone: '+55 11 93333-3333', name: 'Ana 3' }],
        [d.id, { client: knownClient.id, phone: '+55 11 90000-0000', name: 'Bia' }],
      ]);
      for (const [id, x] of expect) assert.deepEqual({ client: byId.get(id)!.client_id, phone: byId.get(id)!.client_phone, name: byId.get(id)!.client_name }, x);
      const keys = await db.selectFrom('idempotency_keys').select(['key', 'response_body']).where('user_id', '=', m.id).where('key', 'like', 'shape-%').execute();
      assert.equal(keys.length, rows.length);
      rows.forEach((r, i) => {
        const row = byId.get(r.id)!;
        // The answer is the response the statement stored, byte for byte, with the client put in.
        assert.equal(answers[i], keys.find((k) => k.key === `shape-${i}`)!.response_body);
        assert.deepEqual(JSON.parse(answers[i]), { id: r.id, client: { id: row.client_id, phone: row.client_phone } });
      });
      assert.ok([primer, e].every((r) => byId.get(r.id)!.client_phone === null));
    } finally {
      spy.restore();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 200 concurrent API creations (PostgreSQL: PGlite runs one statement at a time).

describe('group commit: 200 concurrent creations on PostgreSQL', { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  before(async () => {
    ctx = await startApp();
    m = await merchant(ctx.app);
  });
  after(() => ctx?.close());

  test('20 duplicated keys, 5 invalid requests and shared clients inside the same batches: exactly the right answers, one row per key, the ledger clean', async (t) => {
    const spy = spyCreations(ctx.database.db);
    const docs = Array.from({ length: 10 }, () => cpf());
    const body = (i: number, extra: Record<string, unknown> = {}) => ({
      product: `Pedido ${i}`,
      amountCents: 1_000 + i,
      clientName: `Cliente ${i}`,
      clientEmail: `Cliente${i}@Example.com`,
      clientDocument: docs[i % docs.length],
      ...(i % 3 === 0 ? { clientPhone: `+55 11 9${String(i).padStart(8, '0')}` } : {}),
      paymentMethod: i % 4 === 0 ? 'BOLETO' : 'PIX',
      ...extra,
    });
    const run = Date.now();
    type Req = { kind: 'unique' | 'same' | 'other' | 'invalid' | 'nokey'; i: number; key?: string; body: Record<string, unknown> };
    const reqs: Req[] = [
      ...Array.from({ length: 160 }, (_, i): Req => ({ kind: 'unique', i, key: `k-${run}-${i}`, body: body(i) })),
      // 15 keys sent twice with the same body, 5 twice with another body.
      ...Array.from({ length: 15 }, (_, i): Req => ({ kind: 'same', i, key: `k-${run}-${i}`, body: body(i) })),
      ...Array.from({ length: 5 }, (_, j): Req => ({ kind: 'other', i: 15 + j, key: `k-${run}-${15 + j}`, body: body(15 + j, { amountCents: 9_999 }) })),
      // Refused before anything is written: a document with wrong check digits.
      ...Array.from({ length: 5 }, (_, j): Req => ({ kind: 'invalid', i: 200 + j, key: `bad-${run}-${j}`, body: body(200 + j, { clientDocument: '12345678900' }) })),
      ...Array.from({ length: 15 }, (_, j): Req => ({ kind: 'nokey', i: 300 + j, body: body(300 + j) })),
    ];
    // Interleaved, so that duplicates and invalid requests land among the others.
    const order = reqs.map((r, n) => ({ r, n: (n * 7919) % reqs.length })).sort((a, b) => a.n - b.n).map((x) => x.r);
    assert.equal(new Set(order).size, 200);
    const responses = await Promise.all(order.map((r) => call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: r.body, headers: r.key ? { 'idempotency-key': r.key } : {} })));
    spy.restore();
    const answers = new Map(order.map((r, n) => [r, responses[n]]));
    t.diagnostic(`creation statements: ${spy.statements.length}, rows per statement: ${spy.statements.map((s) => s.rows).join(' ')}`);
    assert.ok(spy.statements.every((s) => s.ok), 'no creation statement failed');
    assert.ok(spy.statements.some((s) => s.rows > 1), 'creations were written in batches');

    const replayed = (r: (typeof responses)[number]) => r.headers['idempotent-replayed'] === 'true';
    const byKey = (kind: Req['kind'], i: number) => answers.get(reqs.find((r) => r.kind === kind && r.i === i)!)!;
    for (let i = 0; i < 15; i++) {
      const [a, b] = [byKey('unique', i), byKey('same', i)];
      assert.deepEqual([a.status, b.status], [201, 201], `key ${i}: ${a.raw} / ${b.raw}`);
      assert.equal([a, b].filter(replayed).length, 1, `key ${i}: one response did the work, the other replays it`);
      assert.equal(a.raw, b.raw);
    }
    for (let i = 15; i < 20; i++) {
      const pair = [byKey('unique', i), byKey('other', i)];
      const created = pair.filter((r) => r.status === 201);
      assert.equal(created.length, 1, `key ${i}: ${pair.map((r) => r.raw).join(' / ')}`);
      assert.ok(!replayed(created[0]));
      const refused = pair.find((r) => r.status !== 201)!;
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'IDEMPOTENCY_KEY_REUSED');
    }
    for (let i = 20; i < 160; i++) assert.equal(byKey('unique', i).status, 201, byKey('unique', i).raw);
    for (const r of reqs.filter((x) => x.kind === 'nokey')) assert.equal(answers.get(r)!.status, 201);
    for (const r of reqs.filter((x) => x.kind === 'invalid')) {
      const res = answers.get(r)!;
      assert.equal(res.status, 400, res.raw);
      assert.match(JSON.stringify(res.body), /clientDocument/);
    }

    // One row per key (160) and per request without one (15); exactly the transactions answered.
    const { db } = ctx.database;
    const rows = await db.selectFrom('transactions').selectAll().where('user_id', '=', m.id).execute();
    assert.equal(rows.length, 175);
    const answered = new Set(responses.filter((r) => r.status === 201).map((r) => r.body.transaction.id));
    assert.deepEqual(new Set(rows.map((r) => r.id)), answered);
    // Each key's stored response is the response that did the work, byte for byte.
    const keys = await db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', m.id).where('key', 'like', `k-${run}-%`).execute();
    assert.equal(keys.length, 160);
    for (const k of keys) {
      const first = responses.find((r, n) => order[n].key === k.key && r.status === 201 && !replayed(r))!;
      assert.equal(k.response_status, 201);
      assert.equal(k.response_body, first.raw);
    }

    // Clients: one per document; each transaction keeps its own name and e-mail, and its own phone
    // or, without one, a phone given for that client (or none).
    const clients = await db.selectFrom('clients').selectAll().where('user_id', '=', m.id).execute();
    assert.equal(clients.length, docs.length);
    const sent = new Map(reqs.filter((r) => r.kind !== 'invalid').map((r) => [`${r.body.product}|${r.body.amountCents}`, r.body]));
    for (const tx of rows) {
      const b = sent.get(`${tx.product}|${tx.amount_cents}`)!;
      const client = clients.find((c) => c.id === tx.client_id)!;
      assert.equal(client.document, b.clientDocument);
      assert.equal(tx.client_name, b.clientName);
      assert.equal(tx.client_email, String(b.clientEmail).toLowerCase());
      const phones = reqs.filter((r) => r.body.clientDocument === b.clientDocument && r.body.clientPhone).map((r) => r.body.clientPhone);
      if (b.clientPhone) assert.equal(tx.client_phone, b.clientPhone);
      else assert.ok(tx.client_phone === null || phones.includes(tx.client_phone), `phone ${tx.client_phone}`);
    }
    // One transaction.created per transaction, naming its client.
    const events = await db.selectFrom('events').select(['data']).where('user_id', '=', m.id).where('type', '=', 'transaction.created').execute();
    assert.equal(events.length, 175);
    for (const e of events) {
      const data = e.data as { id: string; clientId: string };
      assert.equal(data.clientId, rows.find((r) => r.id === data.id)!.client_id);
    }
    await assertLedgerBalanced(db);
  });
});
