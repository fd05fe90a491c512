// Chargebacks, the money and the states: a case opened debits the merchant (fee share returned,
// unsettled instalments first, then available, which may go negative), a contested case won gives it
// back, an accepted or lost one is final, and a report repeated changes nothing. The ledger is
// checked after each.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, merchant } from './helpers.ts';
import {
  balance,
  cardFee,
  CONTEST,
  ctx,
  dispute,
  eventsOfType,
  eventTypes,
  feeBack,
  get,
  ledgerBalanced,
  m,
  openChargeback,
  paidCard,
  paidPix,
  report,
  sandbox,
  simulate,
  useChargebacksApp,
} from './chargebacks-kit.ts';
import { settleAll } from './wallet-helpers.ts';

useChargebacksApp();

describe('a chargeback opened', () => {
  test('debits the merchant what it still has of the sale: CHARGEBACK, the fee share returned, events sent', async () => {
    const sale = await paidCard(m.devKey, 10_000, 3);
    assert.equal(sale.feeCents, cardFee(sale.chargedCents));
    const before = await balance(m.devKey);
    const tx = await openChargeback(m.devKey, sale.id);
    const fee = feeBack(sale.feeCents, sale.chargedCents, 0, sale.chargedCents);
    assert.equal(fee, sale.feeCents, 'a full chargeback returns the whole fee');
    assert.equal(tx.chargeback.status, 'OPEN');
    assert.equal(tx.chargeback.amountCents, sale.chargedCents);
    assert.equal(tx.chargeback.feeReturnedCents, fee);
    assert.equal(tx.chargeback.reasonCode, '10.4');
    assert.match(tx.chargeback.caseId, /^sbx_cb_[0-9a-f]{20}$/);
    assert.ok(new Date(tx.chargeback.respondBy).getTime() > Date.now() + 6 * 86_400_000);
    // Unsettled instalments went first: the whole net came out of receivable, available untouched.
    const after = await balance(m.devKey);
    assert.equal(before.receivable - after.receivable, sale.netAmountCents);
    assert.equal(after.available, before.available);
    // Events written by one change share their timestamp: compared as a set.
    assert.deepEqual((await eventTypes(m.id, sale.id)).sort(), ['transaction.chargeback', 'transaction.completed', 'transaction.created', 'transaction.updated', 'transaction.updated']);
    const [event] = (await eventsOfType(m.id, 'transaction.chargeback')).filter((e) => e.id === sale.id);
    assert.equal(event.status, 'CHARGEBACK');
    assert.equal(event.previousStatus, 'PAID');
    assert.equal(event.chargeback.caseId, tx.chargeback.caseId);
    assert.equal(event.chargeback.amountCents, sale.chargedCents);
    // The merchant sees it on the transaction, and can no longer refund it.
    const shown = await get(m.devKey, sale.id);
    assert.equal(shown.status, 'CHARGEBACK');
    assert.deepEqual(shown.chargeback, tx.chargeback);
    const refund = await call(ctx.app, 'POST', `/api/v1/transactions/${sale.id}/refund`, { key: m.devKey });
    assert.equal(refund.status, 400);
    assert.equal(refund.body.code, 'INVALID_STATE_TRANSITION');
    // The customer's page no longer says the payment is confirmed.
    const page = await call(ctx.app, 'GET', `/checkout/${sale.id}`);
    assert.equal(page.status, 200);
    assert.match(page.raw, /Pagamento contestado/);
    assert.doesNotMatch(page.raw, /Pagamento confirmado/);
    await ledgerBalanced();
  });

  test('on a partly refunded sale takes only what is left, with the fee share of that part', async () => {
    const sale = await paidCard(m.devKey, 20_000);
    await settleAll(ctx, 31);
    const r = await call(ctx.app, 'POST', `/api/v1/transactions/${sale.id}/refund`, { key: m.devKey, body: { amountCents: 5_000 } });
    assert.equal(r.status, 200, r.raw);
    const before = await balance(m.devKey);
    const tx = await openChargeback(m.devKey, sale.id);
    const left = sale.chargedCents - 5_000;
    const fee = feeBack(sale.feeCents, sale.chargedCents, 5_000, left);
    assert.equal(tx.chargeback.amountCents, left);
    assert.equal(tx.chargeback.feeReturnedCents, fee);
    assert.equal(before.available - (await balance(m.devKey)).available, left - fee);
    await ledgerBalanced();
  });

  test('a PIX, a pending card or an already charged-back sale cannot be charged back (400, nothing moves)', async () => {
    const pix = await paidPix(m.devKey, 3_000);
    const sale = await paidCard(m.devKey, 3_000);
    await openChargeback(m.devKey, sale.id);
    const before = await balance(m.devKey);
    for (const id of [pix.id, sale.id]) {
      const res = await simulate(m.devKey, id, 'CHARGEBACK');
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.code, 'INVALID_STATE_TRANSITION');
    }
    await assert.rejects(report({ transactionId: pix.id, caseId: 'CB-PIX-1', status: 'OPENED', amountCents: 100 }), /cannot open/);
    assert.deepEqual(await balance(m.devKey), before);
    await ledgerBalanced();
  });
});

describe('the outcome', () => {
  test('accepted: LOST at once, final; nothing more moves; the acquirer is told', async () => {
    const sale = await paidCard(m.devKey, 8_000);
    const opened = await openChargeback(m.devKey, sale.id);
    const before = await balance(m.devKey);
    const res = await dispute(m.devKey, sale.id, { action: 'ACCEPT' });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'CHARGEBACK');
    assert.equal(res.body.transaction.chargeback.status, 'LOST');
    assert.equal(res.body.transaction.chargeback.response, 'ACCEPTED');
    assert.ok(res.body.transaction.chargeback.closedAt);
    const sent = sandbox.disputes.at(-1)!;
    assert.deepEqual([sent.caseId, sent.action, sent.transactionId], [opened.chargeback.caseId, 'ACCEPT', sale.id]);
    assert.deepEqual(await balance(m.devKey), before);
    assert.equal((await eventsOfType(m.id, 'transaction.chargeback_lost')).filter((e) => e.id === sale.id).length, 1);
    // Final: no second answer, no win afterwards.
    assert.equal((await dispute(m.devKey, sale.id, CONTEST)).body.code, 'INVALID_STATE_TRANSITION');
    assert.equal((await simulate(m.devKey, sale.id, 'CHARGEBACK_WON')).status, 400);
    await report({ transactionId: sale.id, caseId: opened.chargeback.caseId, status: 'WON' });
    assert.equal((await get(m.devKey, sale.id)).status, 'CHARGEBACK');
    assert.deepEqual(await balance(m.devKey), before);
    await ledgerBalanced();
  });

  test('contested and won: the debit comes back to available, PAID again; the evidence is kept as sent, the files are not', async () => {
    const sale = await paidCard(m.devKey, 12_000, 2);
    const start = await balance(m.devKey);
    await openChargeback(m.devKey, sale.id);
    const pdf = Buffer.from('%PDF-1.7 nota fiscal');
    const res = await dispute(m.devKey, sale.id, { ...CONTEST, files: [{ name: 'nota.pdf', contentType: 'application/pdf', contentBase64: pdf.toString('base64') }] });
    assert.equal(res.status, 200, res.raw);
    const cb = res.body.transaction.chargeback;
    assert.equal(cb.status, 'CONTESTED');
    assert.deepEqual(cb.evidence, { text: CONTEST.text, files: [{ name: 'nota.pdf', contentType: 'application/pdf', bytes: pdf.length }] });
    assert.deepEqual(sandbox.disputes.at(-1)!.files, [{ name: 'nota.pdf', contentType: 'application/pdf', content: pdf }]);
    const stored = await ctx.database.db.selectFrom('chargebacks').selectAll().where('transaction_id', '=', sale.id).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(stored).includes(pdf.toString('base64')), 'the file is not in the database');

    const won = await simulate(m.devKey, sale.id, 'CHARGEBACK_WON');
    assert.equal(won.status, 200, won.raw);
    assert.equal(won.body.transaction.status, 'PAID');
    assert.equal(won.body.transaction.chargeback.status, 'WON');
    // What was debited (from receivable) returns, to available: the acquirer pays it back at once.
    const end = await balance(m.devKey);
    assert.equal(end.available + end.receivable, start.available + start.receivable);
    assert.equal(end.available - start.available, sale.netAmountCents);
    const won1 = (await eventsOfType(m.id, 'transaction.chargeback_won')).filter((e) => e.id === sale.id);
    assert.equal(won1.length, 1);
    assert.equal(won1[0].status, 'PAID');
    assert.equal(won1[0].previousStatus, 'CHARGEBACK');
    // The sale stands again: it can be refunded.
    const refund = await call(ctx.app, 'POST', `/api/v1/transactions/${sale.id}/refund`, { key: m.devKey, body: { amountCents: 1_000 } });
    assert.equal(refund.status, 200, refund.raw);
    await ledgerBalanced();
  });

  test('contested and lost: final, the money stays with the acquirer', async () => {
    const sale = await paidCard(m.devKey, 6_000);
    await openChargeback(m.devKey, sale.id);
    assert.equal((await dispute(m.devKey, sale.id, CONTEST)).status, 200);
    const before = await balance(m.devKey);
    const lost = await simulate(m.devKey, sale.id, 'CHARGEBACK_LOST');
    assert.equal(lost.status, 200, lost.raw);
    assert.equal(lost.body.transaction.status, 'CHARGEBACK');
    assert.equal(lost.body.transaction.chargeback.status, 'LOST');
    assert.equal(lost.body.transaction.chargeback.response, 'CONTESTED');
    assert.deepEqual(await balance(m.devKey), before);
    assert.equal((await eventTypes(m.id, sale.id)).filter((t) => t === 'transaction.chargeback_lost').length, 1);
    await ledgerBalanced();
  });

  test('a win needs a contest first (the sandbox decides no uncontested case for the merchant)', async () => {
    const sale = await paidCard(m.devKey, 4_000);
    await openChargeback(m.devKey, sale.id);
    const res = await simulate(m.devKey, sale.id, 'CHARGEBACK_WON');
    assert.equal(res.status, 400, res.raw);
    assert.equal(res.body.code, 'INVALID_STATE_TRANSITION');
    assert.equal((await get(m.devKey, sale.id)).chargeback.status, 'OPEN');
  });
});

describe('reports from a connector (ConnectorCore.applyChargeback)', () => {
  test('the same report twice, or an older one, changes nothing; an outcome for an unknown case opens it first', async () => {
    const sale = await paidCard(m.devKey, 9_000);
    await settleAll(ctx, 31);
    const opened = { transactionId: sale.id, caseId: 'CIELO-CB-0001', status: 'OPENED' as const, amountCents: 9_000, reasonCode: '4837', reason: 'No cardholder authorization' };
    await report(opened);
    const once = await balance(m.devKey);
    await report(opened);
    assert.deepEqual(await balance(m.devKey), once);
    await report({ ...opened, status: 'LOST' });
    await report({ ...opened, status: 'LOST' });
    await report(opened);
    assert.deepEqual(await balance(m.devKey), once);
    const rows = await ctx.database.db.selectFrom('chargebacks').selectAll().where('transaction_id', '=', sale.id).execute();
    assert.deepEqual(rows.map((r) => [r.case_id, r.status, r.reason_code]), [['CIELO-CB-0001', 'LOST', '4837']]);
    assert.equal((await eventsOfType(m.id, 'transaction.chargeback')).filter((e) => e.id === sale.id).length, 1);
    assert.equal((await eventsOfType(m.id, 'transaction.chargeback_lost')).filter((e) => e.id === sale.id).length, 1);

    // A WON arriving before its OPENED: opened and decided in one commit, the balance as before.
    const other = await paidCard(m.devKey, 5_000);
    const before = await balance(m.devKey);
    await report({ transactionId: other.id, caseId: 'CIELO-CB-0002', status: 'WON', amountCents: 5_000 });
    assert.equal((await get(m.devKey, other.id)).status, 'PAID');
    const after = await balance(m.devKey);
    assert.equal(after.available + after.receivable, before.available + before.receivable);
    await ledgerBalanced();
  });

  test("another connector's payment, an unknown id or another merchant's scope is not found", async () => {
    const sale = await paidCard(m.devKey, 2_000);
    await assert.rejects(report({ transactionId: '00000000-0000-4000-8000-000000000000', caseId: 'X1', status: 'OPENED', amountCents: 1 }), /not found/);
    await assert.rejects(report({ transactionId: 'not-a-uuid', caseId: 'X2', status: 'OPENED', amountCents: 1 }), /not found/);
    const { applyChargeback } = await import('../src/modules/transactions/chargeback.ts');
    await assert.rejects(applyChargeback(ctx.app.deps.transactions, 'cielo', { transactionId: sale.id, caseId: 'X3', status: 'OPENED', amountCents: 1 }), /not found/);
    assert.equal((await get(m.devKey, sale.id)).status, 'PAID');
  });

  test("a case id names one payment: an outcome pairing it with another merchant's payment moves nothing", async () => {
    const other = await merchant(ctx.app);
    const a = await paidCard(m.devKey, 10_000);
    const b = await paidCard(other.devKey, 10_000);
    await report({ transactionId: a.id, caseId: 'SHARED-1', status: 'OPENED' });
    const [beforeA, beforeB] = [await balance(m.devKey), await balance(other.devKey)];
    await assert.rejects(report({ transactionId: b.id, caseId: 'SHARED-1', status: 'WON' }), (e: { errors?: { message: string }[] }) => !!e.errors?.some((x) => x.message.includes('another transaction')));
    assert.deepEqual([(await get(m.devKey, a.id)).chargeback.status, (await get(other.devKey, b.id)).status], ['OPEN', 'PAID']);
    assert.deepEqual([await balance(m.devKey), await balance(other.devKey)], [beforeA, beforeB]);
    await ledgerBalanced();
  });
});

describe('a chargeback larger than the available balance', () => {
  test('leaves it negative: withdrawals refused meanwhile, the next sales pay it off', async () => {
    const seller = await merchant(ctx.app);
    const sale = await paidCard(seller.devKey, 50_000);
    await settleAll(ctx, 31);
    // The merchant withdraws most of it, then the acquirer takes the sale back.
    const w = await call(ctx.app, 'POST', '/api/withdraws', { key: seller.devKey, body: { amountCents: 40_000, pixKeyType: 'email', pixKey: 'loja@example.com' } });
    assert.equal(w.status, 201, w.raw);
    const before = await balance(seller.devKey);
    await openChargeback(seller.devKey, sale.id);
    const debt = (await balance(seller.devKey)).available;
    assert.equal(debt, before.available - sale.netAmountCents);
    assert.ok(debt < 0, `available is negative: ${debt}`);
    const wallet = await call(ctx.app, 'GET', '/api/withdraws/balance', { key: seller.devKey });
    assert.equal(wallet.body.availableBalanceCents, debt);
    const refused = await call(ctx.app, 'POST', '/api/withdraws', { key: seller.devKey, body: { amountCents: 1_000, pixKeyType: 'email', pixKey: 'loja@example.com' } });
    assert.equal(refused.status, 400, refused.raw);
    assert.equal(refused.body.code, 'INSUFFICIENT_BALANCE');
    // A new sale credits the same account: it pays the debt first.
    const pix = await paidPix(seller.devKey, 60_000);
    const now = (await balance(seller.devKey)).available;
    assert.equal(now, debt + pix.netAmountCents);
    assert.ok(now > 0);
    const ok = await call(ctx.app, 'POST', '/api/withdraws', { key: seller.devKey, body: { amountCents: now, pixKeyType: 'email', pixKey: 'loja@example.com' } });
    assert.equal(ok.status, 201, ok.raw);
    await ledgerBalanced();
  });
});
