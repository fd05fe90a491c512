// Production PIX through the fake PSP, after the charge: expiry asked to the PSP, cancellation, refunds
// (devolução DEVOLVIDO, NAO_REALIZADO, refused, lost, past 90 days), and no secret in the logs.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { describe, test } from 'node:test';
import { expireCharges, reconcile } from '../../src/payments/pix-api/sweeps.ts';
import { syncRefunds } from '../../src/payments/pix-api/settle.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { call, merchant } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { until } from './kit.ts';
import { env, m, app, pixDeps, createPix, get } from './e2e-kit.ts';


describe('expiry and cancellation', () => {
  test('past expiry the PSP is asked: ATIVA -> removed there, EXPIRED here; paid there with the notification lost -> PAID', async () => {
    const open = await createPix();
    const paidThere = await createPix();
    await env.psp.pay(txidFor(paidThere.id), { mode: 'none' });
    // Nothing happens before expiry + grace.
    await expireCharges(pixDeps(), new Date(Date.now() + 3600_000));
    assert.equal((await get(open.id)).status, 'PENDING');
    await expireCharges(pixDeps(), new Date(Date.now() + 3600_000 + 3 * 60_000));
    assert.equal((await get(open.id)).status, 'EXPIRED');
    assert.equal(env.psp.cobs.get(txidFor(open.id))!.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'no payment can arrive for an expired transaction');
    assert.equal((await get(paidThere.id)).status, 'PAID');
    await assertLedgerBalanced(app().deps.db);
  });

  test('paid there with an amount that cannot pay it: FAILED (PIX_AMOUNT_MISMATCH) at expiry, nothing credited, not asked about again', async () => {
    const tx = await createPix();
    await env.psp.pay(txidFor(tx.id), { valor: '1.00' });
    assert.equal((await get(tx.id)).status, 'PENDING');
    const later = new Date(Date.now() + 3600_000 + 3 * 60_000);
    await expireCharges(pixDeps(), later);
    const failed = await get(tx.id);
    assert.deepEqual([failed.status, failed.failureReason], ['FAILED', 'PIX_AMOUNT_MISMATCH']);
    assert.ok(env.ctx.logs.some((l) => l.includes(tx.id) && l.includes('refunded by hand')));
    const journals = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_journals WHERE reference_id = ${tx.id}`.execute(app().deps.db);
    assert.equal(journals.rows[0].n, 0, 'nothing credited');
    const asked = env.psp.calls('GET', `/cob/${txidFor(tx.id)}`).length;
    await expireCharges(pixDeps(), new Date(later.getTime() + 60_000));
    assert.equal(env.psp.calls('GET', `/cob/${txidFor(tx.id)}`).length, asked, 'an ended charge is not polled again');
    await assertLedgerBalanced(app().deps.db);
  });

  test('the generic expiry leaves this provider\'s charges alone', async () => {
    const { expireDue } = await import('../../src/modules/transactions/service.ts');
    const tx = await createPix();
    await expireDue(app().deps.transactions, new Date(Date.now() + 7200_000));
    assert.equal((await get(tx.id)).status, 'PENDING');
  });

  test('cancel: the cob is removed at the PSP (REMOVIDA_PELO_USUARIO_RECEBEDOR), the transaction CANCELLED', async () => {
    const tx = await createPix();
    const res = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/cancel`, { key: m.liveKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'CANCELLED');
    assert.equal(env.psp.cobs.get(txidFor(tx.id))!.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
    const patch = env.psp.calls('PATCH', `/cob/${txidFor(tx.id)}`).at(-1)!;
    assert.deepEqual(patch.body, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    // Twice: refused by the state machine.
    assert.equal((await call(app(), 'POST', `/api/v1/transactions/${tx.id}/cancel`, { key: m.liveKey })).body.code, 'INVALID_STATE_TRANSITION');
  });

  test('cancel of a PIX already paid at the PSP is refused, and the payment is kept', async () => {
    const tx = await createPix();
    await env.psp.pay(txidFor(tx.id), { mode: 'none' });
    const res = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/cancel`, { key: m.liveKey });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'INVALID_STATE_TRANSITION');
    assert.match(res.body.errors[0].message, /paid at the provider/);
    assert.doesNotMatch(res.raw, /CONCLUIDA|pix\.bcb/);
    assert.equal((await get(tx.id)).status, 'PENDING');
    await reconcile(pixDeps(), new Date(), true);
    assert.equal((await get(tx.id)).status, 'PAID');
  });

  test('cancel: another merchant, or the other environment, gets 404 and the charge stays payable', async () => {
    const tx = await createPix();
    const other = await merchant(app(), { live: true });
    assert.equal((await call(app(), 'POST', `/api/v1/transactions/${tx.id}/cancel`, { key: other.liveKey })).status, 404);
    assert.equal((await call(app(), 'POST', `/api/v1/transactions/${tx.id}/cancel`, { key: m.devKey })).status, 404);
    assert.equal(env.psp.cobs.get(txidFor(tx.id))!.status, 'ATIVA');
  });
});

describe('refunds', () => {
  async function paidPix() {
    const tx = await createPix();
    const pix = await env.psp.pay(txidFor(tx.id));
    return { tx, pix };
  }
  const refundRow = (txId: string) => app().deps.db.selectFrom('refunds').selectAll().where('transaction_id', '=', txId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();

  test('a refund is a devolução under an id derived from the refund row; DEVOLVIDO (notified) -> SUCCEEDED', async () => {
    const { tx, pix } = await paidPix();
    const res = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey, body: { amountCents: 2345 } });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'PARTIALLY_REFUNDED');
    const refund = await refundRow(tx.id);
    assert.equal(refund.status, 'PENDING');
    // The merchant sees it in progress at the PSP, in the answer and on the transaction.
    assert.deepEqual(res.body.transaction.refunds.map((r: { id: string; amountCents: number; status: string }) => [r.id, r.amountCents, r.status]), [[refund.id, 2345, 'PENDING']]);
    const dev = env.psp.pix.get(pix.endToEndId)!.devolucoes[0];
    assert.equal(dev.id, refund.id.replace(/-/g, ''));
    assert.equal(dev.valor, '23.45');
    assert.equal(dev.status, 'EM_PROCESSAMENTO');
    assert.equal(refund.provider_ref, dev.id);
    // The customer's page does not say "devolvidos" before the PSP has returned the money.
    const box = async () => /<p id="status"[^>]*>([^<]*)<\/p>/.exec((await call(app(), 'GET', `/checkout/${tx.id}`)).raw)?.[1];
    assert.equal(await box(), 'Estorno parcial: R$\u00a023,45 de R$\u00a0123,45 em devolução');
    await env.psp.finishRefunds('DEVOLVIDO');
    await until(async () => (await refundRow(tx.id)).status === 'SUCCEEDED');
    assert.equal(env.psp.pix.get(pix.endToEndId)!.devolucoes[0].status, 'DEVOLVIDO');
    assert.equal((await get(tx.id)).refunds[0].status, 'SUCCEEDED');
    assert.equal(await box(), 'Estorno parcial: R$\u00a023,45 de R$\u00a0123,45 devolvidos');
    await assertLedgerBalanced(app().deps.db);
  });

  test('NAO_REALIZADO with the notification lost: the refund sweep records FAILED, the money comes back to the merchant, who is told and may refund again', async () => {
    const { tx } = await paidPix();
    const balance = async () => (await call(app(), 'GET', '/api/v1/balance', { key: m.liveKey })).body.availableCents as number;
    const before = await balance();
    const first = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey, body: { amountCents: 2345 } });
    assert.equal(first.body.transaction.status, 'PARTIALLY_REFUNDED', first.raw);
    const second = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey });
    assert.equal(second.body.transaction.status, 'REFUNDED', second.raw);
    assert.ok((await balance()) < before);
    await env.psp.finishRefunds('NAO_REALIZADO', { mode: 'none' });
    assert.equal((await refundRow(tx.id)).status, 'PENDING');
    await syncRefunds(pixDeps(), new Date(Date.now() + 60_000));
    const r = await refundRow(tx.id);
    assert.equal(r.status, 'FAILED');
    assert.equal(r.failure_reason, 'NAO_REALIZADO');
    // Both devoluções failed: the sale is paid again, its money back where it was, the ledger balanced.
    const seen = await get(tx.id);
    assert.deepEqual([seen.status, seen.refundedCents], ['PAID', 0]);
    assert.deepEqual(seen.refunds.map((x: { amountCents: number; status: string; failureReason: string | null }) => [x.amountCents, x.status, x.failureReason]), [[2345, 'FAILED', 'NAO_REALIZADO'], [12345 - 2345, 'FAILED', 'NAO_REALIZADO']]);
    assert.equal(await balance(), before, 'the available balance is what it was before the refunds');
    await assertLedgerBalanced(app().deps.db);
    const events = await sql<{ type: string; data: { status: string; previousStatus?: string; refund?: { id: string; status: string } } }>`
      SELECT type, data FROM events WHERE type IN ('transaction.refund_failed', 'transaction.updated') AND data->>'id' = ${tx.id}`.execute(app().deps.db);
    const failedEvents = events.rows.filter((e) => e.type === 'transaction.refund_failed');
    assert.equal(failedEvents.length, 2);
    assert.ok(failedEvents.every((e) => e.data.refund!.status === 'FAILED'));
    // The status moves back, and says so (whichever refund the sweep undid first).
    const backwards = events.rows.filter((e) => e.type === 'transaction.updated' && (e.data.previousStatus === 'REFUNDED' || (e.data.previousStatus === 'PARTIALLY_REFUNDED' && e.data.status === 'PAID')));
    assert.deepEqual(backwards.map((e) => `${e.data.previousStatus} -> ${e.data.status}`).sort(), ['PARTIALLY_REFUNDED -> PAID', 'REFUNDED -> PARTIALLY_REFUNDED']);
    // Recorded once: a second sweep finds nothing pending.
    await syncRefunds(pixDeps(), new Date(Date.now() + 120_000));
    assert.equal((await sql`SELECT 1 FROM events WHERE type = 'transaction.refund_failed' AND data->>'id' = ${tx.id}`.execute(app().deps.db)).rows.length, 2);
    assert.ok(env.ctx.logs.some((l) => l.includes(r.id) && l.includes('back in the merchant')));
    // The merchant may refund again: a new devolução, for the whole sale.
    const again = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey });
    assert.equal(again.status, 200, again.raw);
    assert.deepEqual([again.body.transaction.status, again.body.transaction.refundedCents], ['REFUNDED', 12345]);
    await assertLedgerBalanced(app().deps.db);
  });

  test('a devolução the PSP refuses at once: the refund answers FAILED and is undone, the sale PAID, its money in the balance', async () => {
    const { tx, pix } = await paidPix();
    const balance = async () => (await call(app(), 'GET', '/api/v1/balance', { key: m.liveKey })).body.availableCents as number;
    const before = await balance();
    env.psp.failNextOn('PUT', `/pix/${pix.endToEndId}/devolucao/`, 400);
    const res = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey });
    assert.equal(res.status, 200, res.raw);
    const t = res.body.transaction;
    assert.deepEqual([t.status, t.refundedCents], ['PAID', 0], 'the answer is the transaction as the refusal left it');
    assert.deepEqual(t.refunds.map((r: { status: string; failureReason: string }) => [r.status, r.failureReason]), [['FAILED', 'REFUND_REFUSED']]);
    assert.equal(await balance(), before);
    await assertLedgerBalanced(app().deps.db);
  });

  test('a devolução whose request was lost (PSP down) is sent again by the sweep under the same id', async () => {
    const { tx, pix } = await paidPix();
    env.psp.failNext(3, 503);
    const res = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey });
    assert.equal(res.status, 200);
    assert.equal((await refundRow(tx.id)).status, 'PENDING');
    assert.equal(env.psp.pix.get(pix.endToEndId)!.devolucoes.length, 0);
    await syncRefunds(pixDeps(), new Date(Date.now() + 60_000));
    assert.equal(env.psp.pix.get(pix.endToEndId)!.devolucoes.length, 1);
    await syncRefunds(pixDeps(), new Date(Date.now() + 60_000));
    assert.equal(env.psp.pix.get(pix.endToEndId)!.devolucoes.length, 1);
  });

  test('more than 90 days after payment a refund is refused before anything moves (REFUND_WINDOW_CLOSED)', async () => {
    const { tx } = await paidPix();
    await app().deps.db.updateTable('transactions').set({ paid_at: new Date(Date.now() - 91 * 86_400_000) }).where('id', '=', tx.id).execute();
    const res = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'REFUND_WINDOW_CLOSED');
    assert.equal((await get(tx.id)).status, 'PAID');
    assert.equal(await app().deps.db.selectFrom('refunds').select('id').where('transaction_id', '=', tx.id).executeTakeFirst(), undefined);
  });
});

test('no secret reaches the logs', () => {
  const all = env.ctx.logs.join('\n');
  assert.doesNotMatch(all, new RegExp(env.psp.clientSecret));
  assert.doesNotMatch(all, /PRIVATE KEY/);
  assert.doesNotMatch(all, /access_token/);
});
