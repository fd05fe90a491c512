// Cielo's chargebacks end to end against the fake Cielo's Chargeback API: a case Cielo notifies is
// read back before anything changes and debits the merchant (CHARGEBACK, transaction.chargeback);
// notices without the secret are refused, repeated and out-of-order ones change nothing; the
// merchant's accept (LOST, final) and contest (its document, named after the case) are forwarded as
// the manual documents; a contested case Cielo decides for the store gives the money back (PAID).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { baseUrl, cielo, ctx, get, journals, m, pay, post, row, saleOf, T } from './kit.ts';

const caseUrl = () => `${baseUrl}/api/psp/cielo/chargebacks`;
const lifecycleUrl = () => `${baseUrl}/api/psp/cielo/chargebacks/lifecycle`;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const TEXT = 'Curso entregue em 02/11 ao e-mail do titular; acessos registrados em 03/11.';

async function total() {
  const res = await call(ctx.app, 'GET', '/api/v1/balance', { key: m.liveKey });
  assert.equal(res.status, 200, res.raw);
  return (res.body.availableCents as number) + (res.body.receivableCents as number);
}
const eventsOf = async (id: string) => (await ctx.app.deps.db.selectFrom('events').select('type').where('data', '@>', JSON.stringify({ id }) as never).orderBy('created_at').orderBy('id').execute()).map((e) => e.type);
const dispute = (id: string, body: unknown) => post(`${T}/${id}/dispute`, body);
const queries = () => cielo.chargebacks.calls('POST', '/PENDING').length + cielo.chargebacks.calls('POST', '/DONE').length;

/** A paid production card payment and a chargeback Cielo opened on it (not notified yet). */
async function disputedPayment(o?: Parameters<typeof cielo.chargebacks.open>[1]) {
  const tx = await pay();
  assert.equal(tx.status, 'PAID');
  return { tx, c: cielo.chargebacks.open(saleOf(tx.id).paymentId, o) };
}

describe('Cielo chargebacks: the new-case webhook', () => {
  test('without X-Notification-Secret or with another value: 401, Cielo not asked, nothing changes', async () => {
    const { tx, c } = await disputedPayment();
    const asked = queries();
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase, { secret: 'missing' }), 401);
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase, { secret: 'wrong' }), 401);
    assert.equal(await cielo.chargebacks.notifyLifecycle(lifecycleUrl(), c.idCase, { secret: 'missing' }), 401);
    assert.equal(queries(), asked);
    assert.equal((await row(tx.id)).status, 'PAID');
  });

  test('a notified case debits the merchant (read back first); repeats change nothing; accepting it is forwarded and final', async () => {
    const { tx, c } = await disputedPayment();
    const before = await total();
    const asked = queries();
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 200);
    assert.ok(queries() > asked, 'the case was read from the Chargeback API');
    const t = await get(tx.id);
    assert.equal(t.status, 'CHARGEBACK');
    assert.equal(t.chargeback.caseId, String(c.idCase));
    assert.equal(t.chargeback.status, 'OPEN');
    assert.equal(t.chargeback.amountCents, tx.chargedCents);
    assert.equal(t.chargeback.reasonCode, '4837');
    assert.equal(t.chargeback.respondBy, new Date(`${c.treatmentDeadline}T23:59:59-03:00`).toISOString(), 'the deadline day, to its end in Brasília');
    assert.equal(before - (await total()), t.chargeback.amountCents - t.chargeback.feeReturnedCents);
    assert.ok((await eventsOf(tx.id)).includes('transaction.chargeback'));
    const [events, booked] = [await eventsOf(tx.id), await journals(tx.id)];
    for (let i = 0; i < 2; i++) assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 200);
    assert.deepEqual([await eventsOf(tx.id), await journals(tx.id)], [events, booked], 'a duplicate changes nothing');
    await assertLedgerBalanced(ctx.app.deps.db);

    const res = await dispute(tx.id, { action: 'ACCEPT' });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual([res.body.transaction.status, res.body.transaction.chargeback.status, res.body.transaction.chargeback.response], ['CHARGEBACK', 'LOST', 'ACCEPTED']);
    assert.deepEqual(c.answers.map((a) => [a.kind, a.userName]), [['accept', 'chargebacks@loja.example']]);
    assert.equal(c.status, 'DONE');
    // Cielo's later word on the case changes nothing: LOST is final.
    cielo.chargebacks.decide(c.idCase, 'issuer');
    assert.equal(await cielo.chargebacks.notifyLifecycle(lifecycleUrl(), c.idCase), 200);
    assert.equal((await get(tx.id)).chargeback.status, 'LOST');
    await assertLedgerBalanced(ctx.app.deps.db);
  });

  test('Cielo unreachable while confirming: 503 (Cielo sends it again), then applied', async () => {
    const { tx, c } = await disputedPayment();
    cielo.chargebacks.failNext(2, 503);
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 503);
    assert.equal((await row(tx.id)).status, 'PAID');
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 200);
    assert.equal((await row(tx.id)).status, 'CHARGEBACK');
  });

  test('a case Cielo does not show, or one on no sale of ours, is ignored (200, nothing changes)', async () => {
    const headers = { 'x-notification-secret': cielo.notificationSecret };
    const forged = await call(ctx.app, 'POST', '/api/psp/cielo/chargebacks', { headers, body: { idCase: 12345678, idChargeback: 1, transactionAmount: 157 } });
    assert.equal(forged.status, 200, forged.raw);
    const { tx, c } = await disputedPayment({ tidShown: false });
    c.amountCents += 1; // a sale of another amount: none of ours
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 200);
    assert.equal((await row(tx.id)).status, 'PAID');
  });
});

describe('Cielo chargebacks: contested', () => {
  test('contested with one document (forwarded, named after the case) and won: the money back, PAID', async () => {
    const { tx, c } = await disputedPayment();
    const before = await total();
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 200);
    const file = (content: Buffer, contentType = 'application/pdf') => ({ name: 'comprovante.pdf', contentType, contentBase64: content.toString('base64') });
    const tooLong = await dispute(tx.id, { action: 'CONTEST', text: 'x'.repeat(101), files: [file(PDF)] });
    assert.equal(tooLong.status, 400, tooLong.raw);
    assert.equal(tooLong.body.errors[0].field, 'text');
    const png = await dispute(tx.id, { action: 'CONTEST', text: TEXT, files: [file(PNG, 'image/png')] });
    assert.equal(png.status, 400, png.raw);
    assert.equal(png.body.errors[0].field, 'files.0.contentType');
    const none = await dispute(tx.id, { action: 'CONTEST', text: TEXT });
    assert.equal(none.status, 400, none.raw);
    assert.equal(cielo.chargebacks.calls('PUT', '/refuse').length, 0, 'nothing Cielo would refuse was sent');

    const res = await dispute(tx.id, { action: 'CONTEST', text: TEXT, files: [file(PDF)] });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.chargeback.status, 'CONTESTED');
    const sent = c.answers[0];
    assert.deepEqual([sent.kind, sent.reasonToRefuse, sent.file?.name, sent.file?.contentType], ['refuse', TEXT, `${c.idCase}.pdf`, 'application/pdf']);
    assert.ok(sent.file?.bytes.equals(PDF), 'the document travelled unchanged');

    // An intermediate lifecycle step changes nothing; the decision for the store gives the money back.
    assert.equal(await cielo.chargebacks.notifyLifecycle(lifecycleUrl(), c.idCase), 200);
    assert.equal((await get(tx.id)).chargeback.status, 'CONTESTED');
    cielo.chargebacks.decide(c.idCase, 'merchant');
    assert.equal(await cielo.chargebacks.notifyLifecycle(lifecycleUrl(), c.idCase), 200);
    const won = await get(tx.id);
    assert.deepEqual([won.status, won.chargeback.status], ['PAID', 'WON']);
    assert.equal(await total(), before);
    const events = await eventsOf(tx.id);
    assert.ok(events.includes('transaction.chargeback_won'));
    assert.equal(await cielo.chargebacks.notifyLifecycle(lifecycleUrl(), c.idCase), 200);
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 200);
    assert.deepEqual(await eventsOf(tx.id), events, 'late and repeated notices change nothing');
    await assertLedgerBalanced(ctx.app.deps.db);
  });

  test('out of order: a decision notified before the case opens it and decides it; the late new-case notice changes nothing', async () => {
    // No tid shown on the case: the sale is matched by its NSU (ProofOfSale) and authorisation code.
    const { tx, c } = await disputedPayment({ tidShown: false });
    // Answered on Cielo's site and decided before any notice reached Cofre.
    Object.assign(c, { status: 'DONE', actionTakenCode: 'RECUSADO', replyDate: c.receptionDate });
    cielo.chargebacks.decide(c.idCase, 'issuer');
    assert.equal(await cielo.chargebacks.notifyLifecycle(lifecycleUrl(), c.idCase), 200);
    const lost = await get(tx.id);
    assert.deepEqual([lost.status, lost.chargeback.status, lost.chargeback.caseId], ['CHARGEBACK', 'LOST', String(c.idCase)]);
    const [events, booked] = [await eventsOf(tx.id), await journals(tx.id)];
    assert.equal(await cielo.chargebacks.notifyCase(caseUrl(), c.idCase), 200);
    assert.deepEqual([await eventsOf(tx.id), await journals(tx.id)], [events, booked]);
    await assertLedgerBalanced(ctx.app.deps.db);
  });
});
