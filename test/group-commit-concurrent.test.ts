// Group commit of transaction creations: 200 concurrent API creations with duplicated keys, shared
// clients and invalid requests (PostgreSQL: PGlite runs one statement at a time).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Db } from '../src/db/index.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, onPostgres, type Res } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { spyCreations } from './group-commit-kit.ts';

const replayed = (r: Res) => r.headers['idempotent-replayed'] === 'true';

type Req = { kind: 'unique' | 'same' | 'other' | 'invalid' | 'nokey'; i: number; key?: string; body: Record<string, unknown> };

/** 200 requests: 160 with their own key, 15 keys sent twice alike, 5 twice with another body, 5 invalid, 15 without a key. */
function requests() {
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
  const reqs: Req[] = [
    ...Array.from({ length: 160 }, (_, i): Req => ({ kind: 'unique', i, key: `k-${run}-${i}`, body: body(i) })),
    // 15 keys sent twice with the same body, 5 twice with another body.
    ...Array.from({ length: 15 }, (_, i): Req => ({ kind: 'same', i, key: `k-${run}-${i}`, body: body(i) })),
    ...Array.from({ length: 5 }, (_, j): Req => ({ kind: 'other', i: 15 + j, key: `k-${run}-${15 + j}`, body: body(15 + j, { amountCents: 9_999 }) })),
    // Refused before anything is written: a document with wrong check digits.
    ...Array.from({ length: 5 }, (_, j): Req => ({ kind: 'invalid', i: 200 + j, key: `bad-${run}-${j}`, body: body(200 + j, { clientDocument: '12345678900' }) })),
    ...Array.from({ length: 15 }, (_, j): Req => ({ kind: 'nokey', i: 300 + j, body: body(300 + j) })),
  ];
  return { docs, run, reqs };
}

/** Each request got exactly its right answer: one of each duplicate did the work, the other replays it. */
function assertAnswers(reqs: Req[], answers: Map<Req, Res>) {
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
}

/** One row per key and per request without one; the stored responses; one client per document; one event per row. */
async function assertStored(db: Db, userId: string, run: number, reqs: Req[], order: Req[], responses: Res[], docs: string[]) {
  // One row per key (160) and per request without one (15); exactly the transactions answered.
  const rows = await db.selectFrom('transactions').selectAll().where('user_id', '=', userId).execute();
  assert.equal(rows.length, 175);
  const answered = new Set(responses.filter((r) => r.status === 201).map((r) => r.body.transaction.id));
  assert.deepEqual(new Set(rows.map((r) => r.id)), answered);
  // Each key's stored response is the response that did the work, byte for byte.
  const keys = await db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('key', 'like', `k-${run}-%`).execute();
  assert.equal(keys.length, 160);
  for (const k of keys) {
    const first = responses.find((r, n) => order[n].key === k.key && r.status === 201 && !replayed(r))!;
    assert.equal(k.response_status, 201);
    assert.equal(k.response_body, first.raw);
  }

  // Clients: one per document; each transaction keeps its own name and e-mail, and its own phone
  // or, without one, a phone given for that client (or none).
  const clients = await db.selectFrom('clients').selectAll().where('user_id', '=', userId).execute();
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
  const events = await db.selectFrom('events').select(['data']).where('user_id', '=', userId).where('type', '=', 'transaction.created').execute();
  assert.equal(events.length, 175);
  for (const e of events) {
    const data = e.data as { id: string; clientId: string };
    assert.equal(data.clientId, rows.find((r) => r.id === data.id)!.client_id);
  }
  await assertLedgerBalanced(db);
}

describe('group commit: 200 concurrent creations on PostgreSQL', { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  const ctx = useApp();
  const m = useMerchant(ctx);

  test('20 duplicated keys, 5 invalid requests and shared clients inside the same batches: exactly the right answers, one row per key, the ledger clean', async (t) => {
    const spy = spyCreations(ctx.database.db);
    const { docs, run, reqs } = requests();
    // Interleaved, so that duplicates and invalid requests land among the others.
    const order = reqs.map((r, n) => ({ r, n: (n * 7919) % reqs.length })).sort((a, b) => a.n - b.n).map((x) => x.r);
    assert.equal(new Set(order).size, 200);
    const responses = await Promise.all(order.map((r) => call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: r.body, headers: r.key ? { 'idempotency-key': r.key } : {} })));
    spy.restore();
    const answers = new Map(order.map((r, n) => [r, responses[n]]));
    t.diagnostic(`creation statements: ${spy.statements.length}, rows per statement: ${spy.statements.map((s) => s.rows).join(' ')}`);
    assert.ok(spy.statements.every((s) => s.ok), 'no creation statement failed');
    assert.ok(spy.statements.some((s) => s.rows > 1), 'creations were written in batches');
    assertAnswers(reqs, answers);
    await assertStored(ctx.database.db, m.id, run, reqs, order, responses, docs);
  });
});
