// Production PIX through the fake PSP, paying: the webhook registered, charges (cob, cobv), notifications
// confirmed with the PSP (forged, repeated, bare-array, out-of-order, over 100), reconciliation.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { describe, test } from 'node:test';
import { ensureWebhook, reconcile } from '../../src/payments/pix-api/sweeps.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { call, cpf } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { env, m, app, pixDeps, createPix, get, row, journals } from './e2e-kit.ts';

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
