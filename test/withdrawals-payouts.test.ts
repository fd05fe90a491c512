// Withdrawals paid out: the payout job and its janitor, production rules (KYC, no payout connector,
// an operator settles by hand), webhooks, permissions (helpers and the app in withdrawals-kit.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, emailedCode, merchant, operator, approveKyc, startApp } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import {
  accounts,
  assert400,
  assertMessageOnly,
  balance,
  eventsOf,
  liveFunds,
  paidPix,
  req,
  payoutConnectors,
  runPayoutJanitor,
  runPayouts,
  ScriptedProvider } from './wallet-helpers.ts';
import { W, FEE, ctx, funded, wBody, withdraw } from './withdrawals-kit.ts';

describe('payout job', () => {
  test('PENDING -> PROCESSING -> COMPLETED: reserved leaves to the outside (net) and the fee; processedAt, completedAt, externalId; withdrawal.completed', async () => {
    const m = await funded(20_000);
    const before = await accounts(ctx, m.id);
    const w = await withdraw(m.k, 10_000);
    const n = await runPayouts(ctx);
    assert.ok(n >= 1);
    const done = (await req(ctx.app, 'GET', `${W}/${w.id}`, m.k)).body.data;
    assert.equal(done.status, 'COMPLETED');
    assert.match(done.externalId, /^w[0-9a-f]{32}$/, 'our reference: letters and digits, at most 35 (a PSP idEnvio)');
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

  test('sandbox magic keys fail: FAILED with failureCode, failureReason in pt-BR and failedAt, funds back to available, withdrawal.failed', async () => {
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
      assert.equal(w.failureCode, cases[i][2]);
      assert.match(w.failureReason, cases[i][2] === 'PIX_KEY_NOT_FOUND' ? /chave Pix não foi encontrada/ : /recusou a transferência/);
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

  test('the job runs on its own runner (PAYOUT_INTERVAL_MS), not behind the other sweeps', async () => {
    const { payoutSweeps, sweeps } = await import('../src/jobs/runner.ts');
    assert.ok(!sweeps(ctx.app.deps).some((s) => s.name === 'process-payouts'));
    const m = await funded(20_000);
    const w = await withdraw(m.k, 2000);
    const list = payoutSweeps(ctx.app.deps);
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
    // From the dashboard a production withdrawal asks for the second factor first (security.md).
    const code = async () => ({ 'x-second-factor': await emailedCode(ctx.app, m.token, m.id) });
    const res = await req(ctx.app, 'POST', W, prod, wBody(1000), await code());
    assertMessageOnly(res, 403);
    assert.match(res.body.message, /KYC/);
    await approveKyc(ctx.app, m.id);
    // Balance first: nothing in production yet.
    assert400(await req(ctx.app, 'POST', W, prod, wBody(1000), await code()), 'INSUFFICIENT_BALANCE');
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
      assert.equal(failed.body.data.failureCode, null, "an operator's words have no code");
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
