// Withdrawals requested: the balance, a request's bounds, PIX keys, fee and reservation, list and
// read, cancel (helpers and the app in withdrawals-kit.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import {
  accounts,
  assert400,
  assertMessageOnly,
  balance,
  count,
  eventsOf,
  req,
  runPayouts,
  UUID } from './wallet-helpers.ts';
import { W, FEE, ctx, funded, wBody, withdraw, SPEC_FIELDS } from './withdrawals-kit.ts';

describe('balance', () => {
  test('GET /api/withdraws/balance: available, pending (receivables) and reserved, the same numbers as /api/v1/balance', async () => {
    const m = await funded(50_000);
    const b = await balance(ctx.app, m.k);
    assert.deepEqual(Object.keys(b).sort(), ['availableBalanceCents', 'pendingBalanceCents', 'reservedCents']);
    const v1 = (await call(ctx.app, 'GET', '/api/v1/balance', { key: m.devKey })).body;
    assert.deepEqual(b, { availableBalanceCents: v1.availableCents, pendingBalanceCents: v1.receivableCents, reservedCents: v1.reservedCents });
    assert.ok(b.availableBalanceCents >= 50_000);
    await withdraw(m.k, 10_000);
    const after = await balance(ctx.app, m.k);
    assert.equal(after.availableBalanceCents, b.availableBalanceCents - 10_000);
    assert.equal(after.reservedCents, 10_000);
    // The dashboard token reads it too (development by default).
    assert.deepEqual(await balance(ctx.app, { token: m.token }), after);
    assert.deepEqual(await balance(ctx.app, { token: m.token, env: 'production' }), { availableBalanceCents: 0, pendingBalanceCents: 0, reservedCents: 0 });
  });
});

describe('request', () => {
  test('201 {message, data}: the spec fields, fee from config, netAmount, PENDING; the amount moves from available to reserved', async () => {
    const m = await funded(20_000);
    const before = await balance(ctx.app, m.k);
    const res = await req(ctx.app, 'POST', W, m.k, wBody(10_000, { pixKey: ' Loja.Financeiro@Example.COM ', description: 'Saque semanal' }));
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message']);
    const w = res.body.data;
    assert.deepEqual(Object.keys(w).sort(), SPEC_FIELDS);
    assert.match(w.id, UUID);
    assert.equal(w.userId, m.id);
    assert.equal(w.amountCents, 10_000);
    assert.equal(w.feeCents, FEE);
    assert.equal(w.netAmount, 10_000 - FEE);
    assert.equal(w.status, 'PENDING');
    assert.equal(w.pixKeyType, 'email');
    assert.equal(w.pixKey, 'loja.financeiro@example.com');
    assert.equal(w.description, 'Saque semanal');
    for (const f of ['externalId', 'failureReason', 'failureCode', 'processedAt', 'completedAt', 'failedAt']) assert.equal(w[f], null, f);
    assert.equal(w.createdAt, w.updatedAt);
    const after = await balance(ctx.app, m.k);
    assert.equal(after.availableBalanceCents, before.availableBalanceCents - 10_000);
    assert.equal(after.reservedCents, 10_000);
    // Events: withdrawal.requested and balance.updated, in the same environment.
    const events = (await eventsOf(ctx, m.id)).filter((e) => e.data.id === w.id || e.data.referenceId === w.id);
    assert.deepEqual(events.map((e) => e.type).sort(), ['balance.updated', 'withdrawal.requested']);
    const requested = events.find((e) => e.type === 'withdrawal.requested')!;
    assert.equal(requested.data.status, 'PENDING');
    assert.equal(requested.data.netAmount, 10_000 - FEE);
    assert.equal(requested.livemode, false);
    const bu = events.find((e) => e.type === 'balance.updated')!;
    assert.equal(bu.data.reservedCents, 10_000);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('the amount must be 100..10000000 and more than the fee; integers only', async () => {
    const m = await funded(20_000);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(99)), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(10_000_001)), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(150.5)), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody('1000' as unknown as number)), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(FEE)), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', W, m.k, { pixKeyType: 'email', pixKey: 'a@b.com' }), 'VALIDATION_ERROR', ['amountCents']);
    assert400(await req(ctx.app, 'POST', W, m.k, { ...wBody(1000), extra: 1 }), 'VALIDATION_ERROR', ['extra']);
    assert.equal((await req(ctx.app, 'POST', W, m.k, wBody(FEE + 1))).body.data.netAmount, 1);
    assert.equal((await req(ctx.app, 'POST', W, m.k, wBody(100, {}))).status, 400);
    assert.equal(await count(ctx, 'withdrawals', m.id), 1);
  });

  test('a larger amount is fine up to the limit, when the balance covers it', async () => {
    const m = await funded(10_000_000);
    const w = await withdraw(m.k, 10_000_000);
    assert.equal(w.netAmount, 10_000_000 - FEE);
  });

  test('more than the available balance: 400 INSUFFICIENT_BALANCE and nothing moves', async () => {
    const m = await funded(5_000);
    const b = await balance(ctx.app, m.k);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(b.availableBalanceCents + 1)), 'INSUFFICIENT_BALANCE', ['amountCents']);
    assert.deepEqual(await balance(ctx.app, m.k), b);
    assert.equal(await count(ctx, 'withdrawals', m.id), 0);
    // Exactly the balance is fine; then nothing is left.
    await withdraw(m.k, b.availableBalanceCents);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(1000)), 'INSUFFICIENT_BALANCE', ['amountCents']);
    // Receivables are not available: a merchant with only card money cannot withdraw it.
    const empty = await funded(0);
    assert400(await req(ctx.app, 'POST', W, empty.k, wBody(1000)), 'INSUFFICIENT_BALANCE');
  });

  test('PIX keys: each type validated and normalised', async () => {
    const m = await funded(100_000);
    const ok: [string, string, string][] = [
      ['cpf', '529.982.247-25', '52998224725'],
      ['cpf', '52998224725', '52998224725'],
      ['cnpj', '11.222.333/0001-81', '11222333000181'],
      ['cnpj', '12.abc.345/01de-35', '12ABC34501DE35'],
      ['email', 'Pagamentos@Loja.com.br', 'pagamentos@loja.com.br'],
      ['phone', '+55 (11) 91234-5678', '+5511912345678'],
      ['phone', '+5521987654321', '+5521987654321'],
      ['random', '123E4567-E89B-42D3-A456-426614174000', '123e4567-e89b-42d3-a456-426614174000'],
    ];
    for (const [type, key, normalized] of ok) {
      const w = await withdraw(m.k, 1000, { pixKeyType: type, pixKey: key });
      assert.equal(w.pixKeyType, type);
      assert.equal(w.pixKey, normalized, `${type} ${key}`);
    }
    const bad: [string, string, string][] = [
      ['cpf', '529.982.247-24', 'INVALID_DOCUMENT'],
      ['cpf', '111.111.111-11', 'INVALID_DOCUMENT'],
      ['cpf', '11222333000181', 'INVALID_DOCUMENT'], // a CNPJ under cpf
      ['cnpj', '11.222.333/0001-80', 'INVALID_DOCUMENT'],
      ['cnpj', '52998224725', 'INVALID_DOCUMENT'],
      ['email', 'not-an-email', 'VALIDATION_ERROR'],
      ['email', 'a@b', 'VALIDATION_ERROR'],
      ['email', `${'a'.repeat(70)}@example.com`, 'VALIDATION_ERROR'], // > 77 characters
      ['phone', '11912345678', 'VALIDATION_ERROR'], // no +55
      ['phone', '+1 415 555 0100', 'VALIDATION_ERROR'],
      ['phone', '+551112345678', 'VALIDATION_ERROR'], // landline
      ['phone', '+5501912345678', 'VALIDATION_ERROR'], // area code 01
      ['random', 'not-a-uuid', 'VALIDATION_ERROR'],
      ['random', '123e4567e89b42d3a456426614174000', 'VALIDATION_ERROR'],
    ];
    for (const [type, key, code] of bad) assert400(await req(ctx.app, 'POST', W, m.k, wBody(1000, { pixKeyType: type, pixKey: key })), code, ['pixKey']);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(1000, { pixKeyType: 'iban', pixKey: 'x' })), 'VALIDATION_ERROR', ['pixKeyType']);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(1000, { pixKey: '' })), 'VALIDATION_ERROR', ['pixKey']);
    assert.equal(await count(ctx, 'withdrawals', m.id), ok.length);
  });

  test('Idempotency-Key: a retry replays the first withdrawal; the same key with another body is refused', async () => {
    const m = await funded(20_000);
    const headers = { 'idempotency-key': `wd-${Date.now()}` };
    const a = await req(ctx.app, 'POST', W, m.k, wBody(5000), headers);
    const b = await req(ctx.app, 'POST', W, m.k, wBody(5000), headers);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal(b.headers['idempotent-replayed'], 'true');
    assert.equal(b.body.data.id, a.body.data.id);
    assert.equal(await count(ctx, 'withdrawals', m.id), 1);
    assert.equal((await balance(ctx.app, m.k)).reservedCents, 5000);
    assert400(await req(ctx.app, 'POST', W, m.k, wBody(6000), headers), 'IDEMPOTENCY_KEY_REUSED');
  });

  test('Idempotency-Key from the dashboard (token) too: a double-clicked withdrawal is made once', async () => {
    const m = await funded(20_000);
    const token = { token: m.token };
    const headers = { 'idempotency-key': `wd-token-${Date.now()}` };
    const [a, b] = await Promise.all([req(ctx.app, 'POST', W, token, wBody(5000), headers), req(ctx.app, 'POST', W, token, wBody(5000), headers)]);
    const statuses = [a.status, b.status].sort();
    assert.ok(statuses[0] === 201 && (statuses[1] === 201 || statuses[1] === 409), JSON.stringify(statuses));
    const again = await req(ctx.app, 'POST', W, token, wBody(5000), headers);
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await count(ctx, 'withdrawals', m.id), 1);
    assert.equal((await balance(ctx.app, m.k)).reservedCents, 5000);
  });
});

describe('list and read', () => {
  test('GET /api/withdraws: {data, meta}, newest first, page/limit/status; GET /{id}: {data}', async () => {
    const m = await funded(50_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await withdraw(m.k, 1000 + i)).id);
    await req(ctx.app, 'POST', `${W}/${ids[1]}/cancel`, m.k);
    const all = await req(ctx.app, 'GET', W, m.k);
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body).sort(), ['data', 'meta']);
    assert.deepEqual(all.body.meta, { page: 1, limit: 20, total: 5, totalPages: 1 });
    assert.deepEqual(all.body.data.map((w: { id: string }) => w.id), [...ids].reverse());
    for (const w of all.body.data) assert.deepEqual(Object.keys(w).sort(), SPEC_FIELDS);
    const page2 = await req(ctx.app, 'GET', `${W}?page=2&limit=2`, m.k);
    assert.deepEqual(page2.body.meta, { page: 2, limit: 2, total: 5, totalPages: 3 });
    assert.deepEqual(page2.body.data.map((w: { id: string }) => w.id), [ids[2], ids[1]]);
    const beyond = await req(ctx.app, 'GET', `${W}?page=9&limit=2`, m.k);
    assert.deepEqual(beyond.body.data, []);
    const cancelled = await req(ctx.app, 'GET', `${W}?status=CANCELLED`, m.k);
    assert.deepEqual(cancelled.body.data.map((w: { id: string }) => w.id), [ids[1]]);
    assert.equal(cancelled.body.meta.total, 1);
    assert.equal((await req(ctx.app, 'GET', `${W}?status=PENDING`, m.k)).body.meta.total, 4);
    assert.equal((await req(ctx.app, 'GET', `${W}?limit=100`, m.k)).status, 200);
    assert400(await req(ctx.app, 'GET', `${W}?limit=101`, m.k), 'VALIDATION_ERROR');
    assert400(await req(ctx.app, 'GET', `${W}?limit=0`, m.k), 'VALIDATION_ERROR');
    assert400(await req(ctx.app, 'GET', `${W}?page=0`, m.k), 'VALIDATION_ERROR');
    assert400(await req(ctx.app, 'GET', `${W}?status=DONE`, m.k), 'VALIDATION_ERROR');
    // search: part of the PIX key or the description, any case.
    const named = await withdraw(m.k, 1500, { pixKey: 'Fornecedor@Example.com', description: 'Aluguel de novembro' });
    const found = async (q: string) => (await req(ctx.app, 'GET', `${W}?search=${encodeURIComponent(q)}`, m.k)).body.data.map((w: { id: string }) => w.id);
    assert.deepEqual(await found('fornecedor@'), [named.id]);
    assert.deepEqual(await found('ALUGUEL'), [named.id]);
    assert.deepEqual(await found('100%'), []);
    assert.equal((await found('example.com')).length, 6);

    const one = await req(ctx.app, 'GET', `${W}/${ids[0]}`, m.k);
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.body), ['data']);
    assert.deepEqual(one.body.data, all.body.data[4]);
    assertMessageOnly(await req(ctx.app, 'GET', `${W}/00000000-0000-4000-8000-000000000000`, m.k), 404);
    assert400(await req(ctx.app, 'GET', `${W}/not-a-uuid`, m.k), 'VALIDATION_ERROR');
  });

  test("tenant and environment isolation: another merchant's or environment's withdrawal is a 404, never listed, never cancelled", async () => {
    const a = await funded(20_000, { live: true });
    const b = await funded(20_000, { live: true });
    const w = await withdraw(a.k, 2000);
    for (const cred of [{ key: b.devKey }, { key: a.liveKey! }, { token: a.token, env: 'production' as const }, { token: b.token }]) {
      assertMessageOnly(await req(ctx.app, 'POST', `${W}/${w.id}/cancel`, cred), 404);
    }
    for (const key of [b.devKey, a.liveKey!]) {
      assertMessageOnly(await req(ctx.app, 'GET', `${W}/${w.id}`, { key }), 404);
      assert.equal((await req(ctx.app, 'GET', W, { key })).body.meta.total, 0);
    }
    assert.equal((await req(ctx.app, 'GET', `${W}/${w.id}`, a.k)).body.data.status, 'PENDING');
  });
});

describe('cancel', () => {
  test('PENDING -> CANCELLED: 200 {message}, funds back to available, no payout; a second cancel is INVALID_STATE_TRANSITION', async () => {
    const m = await funded(20_000);
    const before = await balance(ctx.app, m.k);
    const accountsBefore = await accounts(ctx, m.id);
    const w = await withdraw(m.k, 7000);
    const res = await req(ctx.app, 'POST', `${W}/${w.id}/cancel`, m.k);
    assertMessageOnly(res, 200);
    assert.deepEqual(await balance(ctx.app, m.k), before);
    const row = (await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data;
    assert.equal(row.status, 'CANCELLED');
    assert.ok(Date.parse(row.updatedAt) >= Date.parse(row.createdAt));
    assert.equal(row.processedAt, null);
    assert400(await req(ctx.app, 'POST', `${W}/${w.id}/cancel`, m.k), 'INVALID_STATE_TRANSITION', ['status']);
    await runPayouts(ctx);
    assert.equal((await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data.status, 'CANCELLED');
    assert.deepEqual(await accounts(ctx, m.id), accountsBefore, 'nothing left for the outside, no fee');
    const types = (await eventsOf(ctx, m.id)).filter((e) => e.data.id === w.id || e.data.referenceId === w.id).map((e) => e.type);
    assert.deepEqual(types.sort(), ['balance.updated', 'balance.updated', 'withdrawal.requested']);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('with the dashboard token too (spec "T"); a key needs withdrawals:write', async () => {
    const m = await funded(20_000);
    const w1 = await withdraw(m.k, 1000);
    assertMessageOnly(await req(ctx.app, 'POST', `${W}/${w1.id}/cancel`, { token: m.token }), 200);
    const reader = await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'r', environment: 'DEVELOPMENT', permissions: ['withdrawals:read'] } });
    const w2 = await withdraw(m.k, 1000);
    assertMessageOnly(await req(ctx.app, 'POST', `${W}/${w2.id}/cancel`, { key: reader.body.key }), 403);
    assert.equal((await req(ctx.app, 'GET', `${W}/${w2.id}`, m.k)).body.data.status, 'PENDING');
    assertMessageOnly(await call(ctx.app, 'POST', `${W}/${w2.id}/cancel`), 401);
  });
});
