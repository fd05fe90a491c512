// Group commit of transaction creations (transactions/creation.ts): the creation statement on the
// database (PGlite and PostgreSQL): array and JSON literals, a lone creation sent at once, a batch
// that fails as a whole written again row by row, keys already stored, the client upsert.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Transaction } from '../src/db/types.ts';
import type { RequestKey } from '../src/http/idempotency.ts';
import { arrayLiteral, BATCH, jsonTexts } from '../src/modules/transactions/creation.ts';
import { buildDraft, checkInput, type CreateInput } from '../src/modules/transactions/draft.ts';
import { uuidv7 } from '../src/db/ids.ts';
import { call, cpf, onPostgres } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { spyCreations } from './group-commit-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx);

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
