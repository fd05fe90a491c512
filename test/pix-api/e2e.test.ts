// Production PIX end to end through the fake PSP (API Pix v2.9.0): a production key (KYC approved)
// creates a PIX, the PSP settles and notifies, the transaction is PAID once with the ledger
// balanced; forged, duplicated, bare-array and out-of-order notifications; a lost notification
// recovered by reconciliation; expiry asked to the PSP; cancellation; refunds to DEVOLVIDO and
// NAO_REALIZADO; card and boleto refused in production.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { ensureWebhook, expireCharges, reconcile } from '../../src/payments/pix-api/sweeps.ts';
import { syncRefunds } from '../../src/payments/pix-api/settle.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { startWithPsp, until, pixContext } from './kit.ts';

let env: Awaited<ReturnType<typeof startWithPsp>>;
let m: Merchant;
before(async () => {
  env = await startWithPsp({ PIX_TTL_SECONDS: '3600' });
  m = await merchant(env.ctx.app, { live: true });
});
after(() => env.close());

const app = () => env.ctx.app;
const pixDeps = () => pixContext(app());

async function createPix(extra: Record<string, unknown> = {}, key = m.liveKey!) {
  const res = await call(app(), 'POST', '/api/v1/transactions', {
    key,
    body: { amountCents: 12345, paymentMethod: 'PIX', clientName: 'Maria da Silva', clientEmail: 'maria@example.com', clientDocument: cpf(), product: 'Curso', ...extra },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}

const get = async (id: string) => (await call(app(), 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
const row = (id: string) => app().deps.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const journals = (id: string) => app().deps.db.selectFrom('ledger_journals').select('kind').where('reference_id', '=', id).execute();

describe('start', () => {
  test('the webhook {BASE_URL}/api/psp/bcb-api/pix is registered for the key, idempotently', async () => {
    assert.equal(await ensureWebhook(pixDeps()), true);
    pixDeps().registered = false;
    assert.equal(await ensureWebhook(pixDeps()), true);
    assert.equal(env.psp.webhooks.get('pix@loja.example')?.webhookUrl, `${env.baseUrl}/api/psp/bcb-api/pix`);
    assert.equal(env.psp.calls('PUT', '/webhook/').length, 2);
  });
});

describe('payment', () => {
  test('a production PIX is a cob at the PSP: derived txid, payer, expiry; the BR Code is the PSP\'s', async () => {
    const tx = await createPix();
    const txid = txidFor(tx.id);
    assert.equal(tx.pix.txid, txid);
    const cob = env.psp.cobs.get(txid)!;
    assert.equal(cob.kind, 'cob');
    assert.equal(tx.pix.qrCode, cob.pixCopiaECola);
    assert.equal(cob.body.valor.original, '123.45');
    assert.equal(cob.body.chave, 'pix@loja.example');
    assert.equal(cob.body.devedor.nome, 'Maria da Silva');
    assert.match(cob.body.devedor.cpf, /^\d{11}$/);
    assert.ok(Math.abs(cob.body.calendario.expiracao - 3600) <= 2, String(cob.body.calendario.expiracao));
    // The QR image of a 32-character txid is served.
    const png = await call(app(), 'GET', `/pix/${txid}/qr.png`);
    assert.equal(png.status, 200);
  });

  test('settled and notified: PAID once, e2eid stored, ledger balanced; duplicates change nothing and cost no call', async () => {
    const tx = await createPix();
    const pix = await env.psp.pay(txidFor(tx.id), { mode: 'twice' });
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal((await row(tx.id)).provider_ref, pix.endToEndId);
    assert.deepEqual((await journals(tx.id)).map((j) => j.kind), ['payment']);
    const lookups = env.psp.calls('GET', `/pix/${pix.endToEndId}`).length;
    assert.equal(lookups, 1, 'the second notification of the same e2eid is not looked up again');
    assert.equal(await env.psp.notify([pix]), 200);
    assert.equal(env.psp.calls('GET', `/pix/${pix.endToEndId}`).length, 1);
    assert.deepEqual((await journals(tx.id)).map((j) => j.kind), ['payment']);
    const completed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'transaction.completed' AND data->>'id' = ${tx.id}`.execute(app().deps.db);
    assert.equal(completed.rows[0].n, 1);
    await assertLedgerBalanced(app().deps.db);
  });

  test('the same Pix notified twice at the same moment pays once', async () => {
    const tx = await createPix();
    const pix = await env.psp.pay(txidFor(tx.id), { mode: 'none' });
    assert.deepEqual(await Promise.all([env.psp.notify([pix]), env.psp.notify([pix]), env.psp.notify([pix], { bare: true })]), [200, 200, 200]);
    assert.equal((await get(tx.id)).status, 'PAID');
    assert.deepEqual((await journals(tx.id)).map((j) => j.kind), ['payment']);
    await assertLedgerBalanced(app().deps.db);
  });

  test('a forged notification (an e2eid the PSP never settled) changes nothing', async () => {
    const tx = await createPix();
    const forged = await env.psp.forge(txidFor(tx.id));
    assert.equal(forged.status, 200);
    assert.equal((await get(tx.id)).status, 'PENDING');
    assert.equal((await row(tx.id)).provider_ref, null);
    assert.equal(env.psp.calls('GET', `/pix/${forged.e2eid}`).length, 1, 'the notification was checked with the PSP');
    assert.ok(env.ctx.logs.some((l) => l.includes(forged.e2eid) && l.includes('unknown to the PSP')));
  });

  test('a notification with garbage is refused or ignored without a call to the PSP', async () => {
    const before = env.psp.requests.length;
    const res = await fetch(`${env.baseUrl}/api/psp/pix`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pix: [{ endToEndId: 'short' }, { endToEndId: 'x'.repeat(40) }] }) });
    assert.equal(res.status, 200);
    assert.equal((await fetch(`${env.baseUrl}/api/psp/pix`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"hello"' })).status, 400);
    // A PSP's test event at registration (no pix) is answered 200.
    assert.equal((await fetch(`${env.baseUrl}/api/psp/pix`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"evento":"teste_webhook"}' })).status, 200);
    assert.equal(env.psp.requests.length, before);
  });

  test('bare-array and out-of-order notifications at /api/psp/pix/pix pay each transaction', async () => {
    const a = await createPix();
    const b = await createPix();
    const pa = await env.psp.pay(txidFor(a.id), { mode: 'none' });
    const pb = await env.psp.pay(txidFor(b.id), { mode: 'none' });
    assert.equal((await get(a.id)).status, 'PENDING');
    const res = await fetch(`${env.baseUrl}/api/psp/pix/pix`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ endToEndId: pb.endToEndId }, { endToEndId: pa.endToEndId }]) });
    assert.equal(res.status, 200);
    assert.equal((await get(a.id)).status, 'PAID');
    assert.equal((await get(b.id)).status, 'PAID');
  });

  test('two notifications at once, each carrying the same twelve Pix of one merchant: each transaction paid once by its Pix', async () => {
    const txs = await Promise.all(Array.from({ length: 12 }, () => createPix()));
    const pix = [];
    for (const tx of txs) pix.push(await env.psp.pay(txidFor(tx.id), { mode: 'none' }));
    assert.deepEqual(await Promise.all([env.psp.notify(pix), env.psp.notify([...pix].reverse())]), [200, 200]);
    for (const [i, tx] of txs.entries()) {
      assert.equal((await get(tx.id)).status, 'PAID');
      assert.equal((await row(tx.id)).provider_ref, pix[i].endToEndId);
      assert.deepEqual((await journals(tx.id)).map((j) => j.kind), ['payment']);
    }
    await assertLedgerBalanced(app().deps.db);
  });

  test('a notification of more than 100 new Pix: the first 100 applied and a 503; sent again, the rest (no call for those already paid)', async () => {
    const txs = [];
    for (let i = 0; i < 104; i += 8) txs.push(...(await Promise.all(Array.from({ length: 8 }, () => createPix()))));
    const pix: Awaited<ReturnType<typeof env.psp.pay>>[] = [];
    for (const tx of txs) pix.push(await env.psp.pay(txidFor(tx.id), { mode: 'none' }));
    const asked = () => pix.filter((p) => env.psp.calls('GET', `/pix/${p.endToEndId}`).length > 0).length;
    assert.equal(await env.psp.notify(pix), 503);
    assert.equal(asked(), 100);
    assert.equal((await Promise.all(txs.map((t) => get(t.id)))).filter((t) => t.status === 'PAID').length, 100);
    assert.equal(await env.psp.notify(pix), 200);
    assert.equal(asked(), 104);
    assert.equal(pix.reduce((n, p) => n + env.psp.calls('GET', `/pix/${p.endToEndId}`).length, 0), 104, 'each Pix confirmed once');
    for (const tx of txs) assert.equal((await get(tx.id)).status, 'PAID');
    await assertLedgerBalanced(app().deps.db);
  });

  test('a lost notification is recovered by the reconciliation (GET /pix?inicio&fim)', async () => {
    const tx = await createPix();
    const pix = await env.psp.pay(txidFor(tx.id), { mode: 'none' });
    assert.equal((await get(tx.id)).status, 'PENDING');
    assert.equal(await reconcile(pixDeps(), new Date(), true), 1);
    assert.equal((await get(tx.id)).status, 'PAID');
    assert.equal((await row(tx.id)).provider_ref, pix.endToEndId);
    // Again: nothing new.
    assert.equal(await reconcile(pixDeps(), new Date(), true), 0);
    const q = env.psp.calls('GET', '/pix').at(-1)!.query;
    assert.ok(Date.parse(q.get('fim')!) - Date.parse(q.get('inicio')!) >= 6 * 3_600_000);
    await assertLedgerBalanced(app().deps.db);
  });

  test('a Pix of another amount than charged does not pay the transaction and is logged for a refund', async () => {
    const tx = await createPix();
    await env.psp.pay(txidFor(tx.id), { valor: '1.00' });
    assert.equal((await get(tx.id)).status, 'PENDING');
    assert.ok(env.ctx.logs.some((l) => l.includes(tx.id) && l.includes('refunded by hand')));
  });

  test('the PSP unreachable while confirming: 503, so that the PSP notifies again', async () => {
    const tx = await createPix();
    const pix = await env.psp.pay(txidFor(tx.id), { mode: 'none' });
    env.psp.failNext(3, 503);
    assert.equal(await env.psp.notify([pix]), 503);
    assert.equal((await get(tx.id)).status, 'PENDING');
    assert.equal(await env.psp.notify([pix]), 200);
    assert.equal((await get(tx.id)).status, 'PAID');
  });

  test('a due date after today makes a cobv with that date', async () => {
    const due = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const tx = await createPix({ dueDate: due });
    const cob = env.psp.cobs.get(txidFor(tx.id))!;
    assert.equal(cob.kind, 'cobv');
    assert.equal(cob.body.calendario.dataDeVencimento, due);
    assert.equal(tx.pix.qrCode, cob.pixCopiaECola);
    await env.psp.pay(txidFor(tx.id));
    assert.equal((await get(tx.id)).status, 'PAID');
  });

  test('development keys still use the sandbox', async () => {
    const tx = await createPix({}, m.devKey);
    assert.equal(tx.pix.txid.length, 25);
    assert.equal(env.psp.cobs.has(tx.pix.txid), false);
  });

  test('card and boleto in production answer 503 and write nothing', async () => {
    const count = async () => Number((await app().deps.db.selectFrom('transactions').select(({ fn }) => fn.countAll().as('n')).where('user_id', '=', m.id).executeTakeFirstOrThrow()).n);
    const before = await count();
    const base = { amountCents: 5000, product: 'Curso', clientName: 'Maria', clientEmail: 'maria@example.com', clientDocument: cpf() };
    const boleto = await call(app(), 'POST', '/api/v1/transactions', { key: m.liveKey, body: { ...base, paymentMethod: 'BOLETO' } });
    assert.equal(boleto.status, 503);
    assert.match(boleto.body.message, /Boleto payments are not available in production/);
    const card = await call(app(), 'POST', '/api/v1/transactions', { key: m.liveKey, body: { ...base, paymentMethod: 'CARD', card: { number: '4111111111111111', holderName: 'MARIA', expMonth: 12, expYear: 2035, cvv: '123' } } });
    assert.equal(card.status, 503);
    assert.equal(await count(), before);
  });
});

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
