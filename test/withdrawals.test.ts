// Withdrawals: balance, request (bounds, PIX keys, fee, reservation), list and read, cancel, the
// payout job (sandbox outcomes, lease, guarded completion), production rules (KYC, no provider,
// operator settles by hand), permissions, tenant and environment isolation, ledger and events.
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, merchant, operator, approveKyc, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import {
  accounts,
  assert400,
  assertMessageOnly,
  balance,
  count,
  eventsOf,
  liveFunds,
  paidPix,
  pixFee,
  req,
  payoutConnectors,
  runPayoutJanitor,
  runPayouts,
  ScriptedProvider,
  UUID,
  type Cred,
} from './wallet-helpers.ts';

const W = '/api/withdraws';
const FEE = 350;

let ctx: TestContext;
before(async () => {
  ctx = await startApp({ env: { SANDBOX_PAYOUT_DELAY_MS: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
});
after(() => ctx.close());

/** A merchant whose development available balance is exactly `available` (a PIX grossed up for its fee). */
async function funded(available = 99_010, opts: Parameters<typeof merchant>[1] = {}): Promise<Merchant & { k: Cred }> {
  const m = await merchant(ctx.app, opts);
  const k = { key: m.devKey };
  if (available > 0) {
    let gross = available;
    while (gross - pixFee(gross) < available) gross++;
    await paidPix(ctx.app, { key: m.devKey }, gross);
  }
  return { ...m, k };
}

function wBody(amountCents: number, over: Record<string, unknown> = {}) {
  return { amountCents, pixKeyType: 'email', pixKey: 'loja@example.com', ...over };
}

async function withdraw(cred: Cred, amountCents: number, over: Record<string, unknown> = {}) {
  const res = await req(ctx.app, 'POST', W, cred, wBody(amountCents, over));
  assert.equal(res.status, 201, res.raw);
  return res.body.data;
}

const SPEC_FIELDS = ['amountCents', 'completedAt', 'createdAt', 'description', 'externalId', 'failedAt', 'failureReason', 'feeCents', 'id', 'netAmount', 'pixKey', 'pixKeyType', 'processedAt', 'status', 'updatedAt', 'userId'];

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
    for (const f of ['externalId', 'failureReason', 'processedAt', 'completedAt', 'failedAt']) assert.equal(w[f], null, f);
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

describe('payout job', () => {
  test('PENDING -> PROCESSING -> COMPLETED: reserved leaves to the outside (net) and the fee; processedAt, completedAt, externalId; withdrawal.completed', async () => {
    const m = await funded(20_000);
    const before = await accounts(ctx, m.id);
    const w = await withdraw(m.k, 10_000);
    const n = await runPayouts(ctx);
    assert.ok(n >= 1);
    const done = (await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data;
    assert.equal(done.status, 'COMPLETED');
    assert.match(done.externalId, /^payout_[0-9a-f]{32}$/);
    assert.ok(done.processedAt && done.completedAt);
    assert.ok(Date.parse(done.completedAt) >= Date.parse(done.processedAt));
    assert.equal(done.failedAt, null);
    assert.equal(done.failureReason, null);
    const a = await accounts(ctx, m.id);
    assert.equal(a.available, before.available - 10_000);
    assert.equal(a.reserved, 0);
    assert.equal(a.fees, before.fees + FEE);
    assert.equal(a.external, before.external + 10_000 - FEE);
    const events = (await eventsOf(ctx, m.id)).filter((e) => e.data.id === w.id || e.data.referenceId === w.id);
    // (Events of one database transaction share a timestamp: compare them as a set.)
    assert.deepEqual(events.map((e) => e.type).sort(), ['balance.updated', 'balance.updated', 'withdrawal.completed', 'withdrawal.requested']);
    const completed = events.find((e) => e.type === 'withdrawal.completed')!;
    assert.equal(completed.data.status, 'COMPLETED');
    assert.equal(completed.data.externalId, done.externalId);
    // A completed withdrawal cannot be cancelled, and the job leaves it alone.
    assert400(await req(ctx.app, 'POST', `${W}/${w.id}/cancel`, m.k), 'INVALID_STATE_TRANSITION');
    await runPayouts(ctx);
    assert.equal((await accounts(ctx, m.id)).external, a.external);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('sandbox magic keys fail: FAILED with failureReason and failedAt, funds back to available, withdrawal.failed', async () => {
    const m = await funded(50_000);
    const before = await balance(ctx.app, m.k);
    const accountsBefore = await accounts(ctx, m.id);
    const cases: [string, string, string][] = [
      ['cpf', '000.000.001-91', 'PIX_KEY_NOT_FOUND'],
      ['cnpj', '00.000.000/0001-91', 'PIX_KEY_NOT_FOUND'],
      ['email', 'payout-not-found@example.com', 'PIX_KEY_NOT_FOUND'],
      ['phone', '+55 11 90000-0001', 'PIX_KEY_NOT_FOUND'],
      ['random', '00000000-0000-4000-8000-000000000001', 'PIX_KEY_NOT_FOUND'],
      ['cpf', '000.000.002-72', 'PAYOUT_REJECTED'],
      ['cnpj', '00.000.000/0002-72', 'PAYOUT_REJECTED'],
      ['email', 'Payout-Rejected@example.com', 'PAYOUT_REJECTED'],
      ['phone', '+5511900000002', 'PAYOUT_REJECTED'],
      ['random', '00000000-0000-4000-8000-000000000002', 'PAYOUT_REJECTED'],
    ];
    const ids = [];
    for (const [type, key] of cases) ids.push((await withdraw(m.k, 1000, { pixKeyType: type, pixKey: key })).id);
    await runPayouts(ctx);
    for (const [i, id] of ids.entries()) {
      const w = (await req(ctx.app, 'GET', `${W}/${id}`, m.k)).body.data;
      assert.equal(w.status, 'FAILED', `${cases[i][0]} ${cases[i][1]}`);
      assert.equal(w.failureReason, cases[i][2]);
      assert.ok(w.failedAt && w.processedAt && w.externalId);
      assert.equal(w.completedAt, null);
    }
    assert.deepEqual(await balance(ctx.app, m.k), before);
    assert.deepEqual(await accounts(ctx, m.id), accountsBefore, 'nothing paid out, no withdrawal fee on failures');
    const failed = (await eventsOf(ctx, m.id)).filter((e) => e.type === 'withdrawal.failed');
    assert.equal(failed.length, cases.length);
    // CPF/CNPJ keys are masked in event payloads.
    const cpfEvent = failed.find((e) => e.data.pixKeyType === 'cpf')!;
    assert.ok(!JSON.stringify(cpfEvent.data).includes('00000000191'));
    assert400(await req(ctx.app, 'POST', `${W}/${ids[0]}/cancel`, m.k), 'INVALID_STATE_TRANSITION');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('PROCESSING cannot be cancelled; the outcome is recorded once even if two workers finish; a payout whose answer was lost is settled by the janitor with the same externalId', async () => {
    const m = await funded(20_000);
    const w = await withdraw(m.k, 3000);
    const provider = new ScriptedProvider(ctx);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    provider.answer = async () => {
      await gate;
      return { status: 'COMPLETED' };
    };
    const job = runPayouts(ctx, payoutConnectors(ctx, { sandbox: provider }));
    // While the provider call is in flight the row is PROCESSING (committed) and cannot be cancelled.
    for (let i = 0; i < 100 && (await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data.status !== 'PROCESSING'; i++) await new Promise((r) => setTimeout(r, 10));
    const processing = (await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data;
    assert.equal(processing.status, 'PROCESSING');
    assert.ok(processing.processedAt && processing.externalId);
    assert400(await req(ctx.app, 'POST', `${W}/${w.id}/cancel`, m.k), 'INVALID_STATE_TRANSITION');
    // Another sweep now does not take it (it is no longer PENDING).
    const other = new ScriptedProvider(ctx);
    await runPayouts(ctx, payoutConnectors(ctx, { sandbox: other }));
    assert.ok(!other.calls.some((c) => c.externalId === processing.externalId));
    release();
    await job;
    assert.equal((await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data.status, 'COMPLETED');

    // A worker that died after claiming: the provider threw (outcome unknown), the row stays PROCESSING.
    const w2 = await withdraw(m.k, 4000);
    const flaky = new ScriptedProvider(ctx);
    flaky.answer = async () => {
      throw new Error('connection reset');
    };
    await runPayouts(ctx, payoutConnectors(ctx, { sandbox: flaky }));
    const stuck = (await req(ctx.app, 'GET', `${W}/${w2.id}`, m.k)).body.data;
    assert.equal(stuck.status, 'PROCESSING');
    // Within JANITOR_GRACE_SECONDS nobody touches it; after, the janitor asks the connector by its
    // reference and, finding nothing there, sends it again with the same reference.
    const retry = new ScriptedProvider(ctx);
    const janitorOf = payoutConnectors(ctx, { sandbox: retry });
    await runPayouts(ctx, janitorOf);
    await runPayoutJanitor(ctx, janitorOf, new Date());
    assert.equal(retry.calls.filter((c) => c.externalId === stuck.externalId).length, 0);
    await runPayoutJanitor(ctx, janitorOf, new Date(Date.now() + ctx.config.janitorGraceSeconds * 1000 + 1000));
    assert.deepEqual(retry.calls.filter((c) => c.externalId === stuck.externalId), [{ externalId: stuck.externalId, amountCents: 4000 - FEE }]);
    const done = (await req(ctx.app, 'GET', `${W}/${w2.id}`, m.k)).body.data;
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.processedAt, stuck.processedAt, 'processedAt is the first claim');
    const row = await ctx.database.db.selectFrom('withdrawals').select('payout_attempts').where('id', '=', w2.id).executeTakeFirstOrThrow();
    assert.equal(row.payout_attempts, 2);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('the job runs inside the app’s sweeps with the configured delay', async () => {
    const { sweeps } = await import('../src/jobs/runner.ts');
    const m = await funded(20_000);
    const w = await withdraw(m.k, 2000);
    const list = sweeps(ctx.app.deps);
    const sweep = list.find((s) => s.name === 'process-payouts')!;
    assert.ok(sweep);
    await sweep.run(new Date());
    assert.equal((await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data.status, 'COMPLETED');
  });
});

describe('production', () => {
  test('needs approved KYC (403 {message}), then the production balance', async () => {
    const m = await merchant(ctx.app);
    const prod = { token: m.token, env: 'production' as const };
    const res = await req(ctx.app, 'POST', W, prod, wBody(1000));
    assertMessageOnly(res, 403);
    assert.match(res.body.message, /KYC/);
    await approveKyc(ctx.app, m.id);
    // Balance first: nothing in production yet.
    assert400(await req(ctx.app, 'POST', W, prod, wBody(1000)), 'INSUFFICIENT_BALANCE');
  });

  test('an operator completes or fails production withdrawals by hand; development ones and final states are refused', async () => {
    const live = await startApp({ env: { PAYMENT_PROVIDER: 'sandbox', SANDBOX_PAYOUT_DELAY_MS: '0' } });
    try {
      const m = await merchant(live.app, { live: true });
      const lk = { key: m.liveKey! };
      await liveFunds(live, lk, 100_000);
      const avail = (await balance(live.app, lk)).availableBalanceCents;
      const w1 = (await req(live.app, 'POST', W, lk, wBody(10_000))).body.data;
      const w2 = (await req(live.app, 'POST', W, lk, wBody(20_000))).body.data;
      assert.equal(w1.status, 'PENDING');
      // No production payout provider: the job leaves them for the operator.
      await runPayouts(live, payoutConnectors(live));
      assert.equal((await req(live.app, 'GET', `${W}/${w1.id}`, lk)).body.data.status, 'PENDING');

      const op = await operator(live.app);
      const queue = await call(live.app, 'GET', '/api/admin/withdrawals', { token: op.token });
      assert.equal(queue.status, 200, queue.raw);
      assert.deepEqual(queue.body.data.map((w: { id: string }) => w.id), [w1.id, w2.id]);
      assert.equal(queue.body.data[0].livemode, true);
      assert.equal(queue.body.meta.total, 2);
      // A merchant's token is not an operator's.
      assertMessageOnly(await call(live.app, 'GET', '/api/admin/withdrawals', { token: m.token }), 403);
      assertMessageOnly(await call(live.app, 'POST', `/api/admin/withdrawals/${w1.id}/complete`, { token: m.token, body: {} }), 403);
      assertMessageOnly(await call(live.app, 'GET', '/api/admin/withdrawals', { key: m.liveKey }), 401);

      const done = await call(live.app, 'POST', `/api/admin/withdrawals/${w1.id}/complete`, { token: op.token, body: { externalId: 'E12345678202601011200abcdef' } });
      assert.equal(done.status, 200, done.raw);
      assert.equal(done.body.data.status, 'COMPLETED');
      assert.equal(done.body.data.externalId, 'E12345678202601011200abcdef');
      assert.ok(done.body.data.processedAt && done.body.data.completedAt);
      assert.equal(done.body.data.provider, 'manual');
      assert400(await call(live.app, 'POST', `/api/admin/withdrawals/${w1.id}/fail`, { token: op.token, body: { reason: 'x' } }), 'INVALID_STATE_TRANSITION');
      assert400(await call(live.app, 'POST', `/api/admin/withdrawals/${w2.id}/fail`, { token: op.token, body: {} }), 'VALIDATION_ERROR', ['reason']);
      const failed = await call(live.app, 'POST', `/api/admin/withdrawals/${w2.id}/fail`, { token: op.token, body: { reason: 'Conta de destino encerrada' } });
      assert.equal(failed.status, 200, failed.raw);
      assert.equal(failed.body.data.status, 'FAILED');
      assert.equal(failed.body.data.failureReason, 'Conta de destino encerrada');
      assert400(await call(live.app, 'POST', `/api/admin/withdrawals/${w2.id}/complete`, { token: op.token }), 'INVALID_STATE_TRANSITION');
      assert.deepEqual(await balance(live.app, lk), { availableBalanceCents: avail - 10_000, pendingBalanceCents: 0, reservedCents: 0 });
      const types = (await eventsOf(live, m.id, true)).map((e) => e.type).filter((t) => t.startsWith('withdrawal.'));
      assert.deepEqual(types.sort(), ['withdrawal.completed', 'withdrawal.failed', 'withdrawal.requested', 'withdrawal.requested']);

      // Development withdrawals belong to the sandbox.
      await paidPix(live.app, { key: m.devKey }, 10_000);
      const dev = (await req(live.app, 'POST', W, { key: m.devKey }, wBody(1000))).body.data;
      assert400(await call(live.app, 'POST', `/api/admin/withdrawals/${dev.id}/complete`, { token: op.token }), 'INVALID_STATE_TRANSITION');
      assertMessageOnly(await call(live.app, 'POST', `/api/admin/withdrawals/00000000-0000-4000-8000-000000000000/complete`, { token: op.token }), 404);
      // The development queue is visible on request.
      const devQueue = await call(live.app, 'GET', `/api/admin/withdrawals?environment=development&userId=${m.id}`, { token: op.token });
      assert.deepEqual(devQueue.body.data.map((w: { id: string }) => w.id), [dev.id]);

      // With a production payout provider configured, the job pays production withdrawals.
      const w3 = (await req(live.app, 'POST', W, lk, wBody(5000))).body.data;
      await runPayouts(live, payoutConnectors(live, { production: 'sandbox' }));
      const w3done = (await req(live.app, 'GET', `${W}/${w3.id}`, lk)).body.data;
      assert.equal(w3done.status, 'COMPLETED');
      await assertLedgerBalanced(live.database.db);
    } finally {
      await live.close();
    }
  });

  test('an operator settling a PROCESSING payout wins over the late provider answer (recorded once)', async () => {
    const live = await startApp({ env: { PAYMENT_PROVIDER: 'sandbox' } });
    try {
      const m = await merchant(live.app, { live: true });
      const lk = { key: m.liveKey! };
      await liveFunds(live, lk, 50_000);
      const w = (await req(live.app, 'POST', W, lk, wBody(10_000))).body.data;
      const provider = new ScriptedProvider(live);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      provider.answer = async () => {
        await gate;
        return { status: 'COMPLETED' };
      };
      const job = runPayouts(live, payoutConnectors(live, { sandbox: provider, production: 'sandbox' }));
      for (let i = 0; i < 100 && (await req(live.app, 'GET', `${W}/${w.id}`, lk)).body.data.status !== 'PROCESSING'; i++) await new Promise((r) => setTimeout(r, 10));
      const op = await operator(live.app);
      const failed = await call(live.app, 'POST', `/api/admin/withdrawals/${w.id}/fail`, { token: op.token, body: { reason: 'Travado no provedor' } });
      assert.equal(failed.status, 200, failed.raw);
      release();
      await job;
      const final = (await req(live.app, 'GET', `${W}/${w.id}`, lk)).body.data;
      assert.equal(final.status, 'FAILED');
      assert.equal(final.failureReason, 'Travado no provedor');
      await assertLedgerBalanced(live.database.db);
    } finally {
      await live.close();
    }
  });
});

describe('webhooks', () => {
  test('withdrawal.* events reach a subscription that lists them (queued in the same transaction)', async () => {
    const m = await funded(20_000);
    const sub = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: 'https://127.0.0.1:9/hook', events: ['withdrawal.requested', 'withdrawal.completed', 'withdrawal.failed'] } });
    assert.equal(sub.status, 201, sub.raw);
    const ok = await withdraw(m.k, 2000);
    const bad = await withdraw(m.k, 2000, { pixKeyType: 'random', pixKey: '00000000-0000-4000-8000-000000000002' });
    await runPayouts(ctx);
    const rows = await ctx.database.db.selectFrom('webhook_deliveries').select(['event_type', 'body']).where('user_id', '=', m.id).execute();
    const byType = (t: string) => rows.filter((r) => r.event_type === t).map((r) => JSON.parse(r.body).data.id);
    assert.deepEqual(byType('withdrawal.requested').sort(), [ok.id, bad.id].sort());
    assert.deepEqual(byType('withdrawal.completed'), [ok.id]);
    assert.deepEqual(byType('withdrawal.failed'), [bad.id]);
    assert.equal(byType('balance.updated').length, 0, 'only the types it lists');
  });
});

describe('permissions', () => {
  test('withdrawals:read reads, withdrawals:write requests and cancels; list and read are key routes (spec "K")', async () => {
    const m = await funded(20_000);
    const mk = async (permissions: string[]) => (await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'k', environment: 'DEVELOPMENT', permissions } })).body.key as string;
    const reader = await mk(['withdrawals:read']);
    const writer = await mk(['withdrawals:write']);
    const other = await mk(['transactions:read', 'transactions:write']);
    const w = await withdraw(m.k, 1000);
    // reader
    assert.equal((await req(ctx.app, 'GET', W, { key: reader })).status, 200);
    assert.equal((await req(ctx.app, 'GET', `${W}/${w.id}`, { key: reader })).status, 200);
    assert.equal((await req(ctx.app, 'GET', `${W}/balance`, { key: reader })).status, 200);
    assertMessageOnly(await req(ctx.app, 'POST', W, { key: reader }, wBody(1000)), 403);
    // writer
    assert.equal((await req(ctx.app, 'POST', W, { key: writer }, wBody(1000))).status, 201);
    assertMessageOnly(await req(ctx.app, 'GET', W, { key: writer }), 403);
    assert.equal((await req(ctx.app, 'POST', `${W}/${w.id}/cancel`, { key: writer })).status, 200);
    // neither
    for (const [method, url] of [['GET', W], ['GET', `${W}/${w.id}`], ['GET', `${W}/balance`], ['POST', W], ['POST', `${W}/${w.id}/cancel`]] as const) {
      assertMessageOnly(await req(ctx.app, method, url, { key: other }, method === 'POST' && url === W ? wBody(1000) : undefined), 403);
      assertMessageOnly(await call(ctx.app, method, url), 401);
    }
    // Token: balance, create and cancel (spec "T" / dashboard), not list and read (spec "K").
    assert.equal((await req(ctx.app, 'POST', W, { token: m.token }, wBody(1000))).status, 201);
    assertMessageOnly(await req(ctx.app, 'GET', W, { token: m.token }), 401);
    assertMessageOnly(await req(ctx.app, 'GET', `${W}/${w.id}`, { token: m.token }), 401);
  });
});

