// A PIX with a due date and late-payment terms (API Pix cobv: validadeAposVencimento, multa, juros)
// through the fake PSP: the terms reach the PSP as the standard writes them; a payer who pays late
// pays the fine and interest the PSP computes, and the payment is booked for what was paid (fee on
// it, the merchant's net, one balanced journal) once the charge at the PSP and the terms explain it;
// an amount nothing explains pays nothing. The ceiling itself is checked on its own.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { ensureWebhook, reconcile } from '../../src/payments/pix-api/sweeps.ts';
import { endOfSpDay, spDate } from '../../src/payments/calendar.ts';
import { paymentFee } from '../../src/payments/fees.ts';
import { explainsLatePayment, latePaymentCeiling } from '../../src/payments/late-payment.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { cobvAmountOn } from '../fake-psp/server.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { startWithPsp, until, pixContext } from './kit.ts';

const DAY = 86_400_000;
const TERMS = { daysAfterDue: 10, fineBp: 200, interestMonthlyBp: 100 };

/** A weekday at least `days` days from now (a weekend due date moves to Monday at the PSP). */
function weekdayIn(days: number): string {
  let d = new Date(`${spDate(new Date(Date.now() + days * DAY))}T12:00:00Z`);
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d = new Date(d.getTime() + DAY);
  return d.toISOString().slice(0, 10);
}
/** Noon in São Paulo, `days` after `date`. */
const noonAfter = (date: string, days: number) => new Date(Date.parse(`${date}T12:00:00-03:00`) + days * DAY);

describe('late-payment ceiling (pure)', () => {
  test('on or before the due date: the amount; after: fine once plus interest per calendar day, rounded up; past the window: not payable', () => {
    assert.equal(latePaymentCeiling(12345, TERMS, '2026-03-10', '2026-03-09'), 12345);
    assert.equal(latePaymentCeiling(12345, TERMS, '2026-03-10', '2026-03-10'), 12345);
    // 2 % of 123,45 = 2,469 -> 247; 1 % a.m. for 5 days = 123,45 x 0,01 x 5/30 = 0,20575 -> 21.
    assert.equal(latePaymentCeiling(12345, TERMS, '2026-03-10', '2026-03-15'), 12345 + 247 + 21);
    // Across a month end, counted in calendar days.
    assert.equal(latePaymentCeiling(10000, { daysAfterDue: 30, fineBp: 0, interestMonthlyBp: 300 }, '2026-02-27', '2026-03-02'), 10000 + 30);
    assert.equal(latePaymentCeiling(12345, TERMS, '2026-03-10', '2026-03-21'), null);
  });

  test('explained: between the amount and the ceiling (a PSP that moved a weekend due date charges less)', () => {
    assert.equal(explainsLatePayment(12345, TERMS, '2026-03-10', '2026-03-15', 12613), true);
    assert.equal(explainsLatePayment(12345, TERMS, '2026-03-10', '2026-03-15', 12345 + 247), true);
    assert.equal(explainsLatePayment(12345, TERMS, '2026-03-10', '2026-03-15', 12614), false);
    assert.equal(explainsLatePayment(12345, TERMS, '2026-03-10', '2026-03-15', 12344), false);
    assert.equal(explainsLatePayment(12345, TERMS, '2026-03-10', '2026-03-21', 12345), false);
  });

  test('the fake PSP computes the same as the ceiling for whole-cent percentages, and moves a Saturday due date to Monday', () => {
    const body = { calendario: { dataDeVencimento: '2026-03-10', validadeAposVencimento: 10 }, valor: { original: '123.45', multa: { modalidade: 2, valorPerc: '2.00' }, juros: { modalidade: 3, valorPerc: '1.00' } } };
    assert.equal(cobvAmountOn(body, '2026-03-15'), 12613);
    assert.equal(cobvAmountOn(body, '2026-03-21'), null);
    // 2026-03-14 is a Saturday: paid on Monday 16th, nothing late; Tuesday 17th, one day late.
    const saturday = { ...body, calendario: { dataDeVencimento: '2026-03-14', validadeAposVencimento: 10 } };
    assert.equal(cobvAmountOn(saturday, '2026-03-16'), 12345);
    assert.equal(cobvAmountOn(saturday, '2026-03-17'), 12345 + 247 + 4);
    assert.ok(12345 + 247 + 4 <= latePaymentCeiling(12345, TERMS, '2026-03-14', '2026-03-17')!);
  });
});

let env: Awaited<ReturnType<typeof startWithPsp>>;
let m: Merchant;
before(async () => {
  env = await startWithPsp({ PIX_TTL_SECONDS: '3600' });
  m = await merchant(env.ctx.app, { live: true });
  assert.equal(await ensureWebhook(pixContext(env.ctx.app)), true);
});
after(() => env.close());

const app = () => env.ctx.app;

async function create(extra: Record<string, unknown>, key = m.liveKey!) {
  return call(app(), 'POST', '/api/v1/transactions', {
    key,
    body: { amountCents: 12345, paymentMethod: 'PIX', clientName: 'Maria da Silva', clientEmail: 'maria@example.com', clientDocument: cpf(), product: 'Mensalidade', ...extra },
  });
}
async function createLate(due: string, terms: Record<string, unknown> = TERMS) {
  const res = await create({ dueDate: due, latePayment: terms });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}
const get = async (id: string) => (await call(app(), 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
const paymentJournal = async (id: string) =>
  (
    await sql<{ kind: string; account_kind: string; amount_cents: string }>`
      SELECT j.kind, e.account_kind, e.amount_cents FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
      WHERE j.reference_id = ${id} AND j.kind = 'payment' ORDER BY e.account_kind`.execute(app().deps.db)
  ).rows.map((r) => [r.account_kind, Number(r.amount_cents)]);

describe('creating', () => {
  test('the terms go to the PSP as a cobv: validadeAposVencimento, multa (percentual) and juros (% ao mês, dias corridos)', async () => {
    const due = weekdayIn(3);
    const tx = await createLate(due);
    const cob = env.psp.cobs.get(txidFor(tx.id))!;
    assert.equal(cob.kind, 'cobv');
    assert.deepEqual(cob.body.calendario, { dataDeVencimento: due, validadeAposVencimento: 10 });
    assert.deepEqual(cob.body.valor, { original: '123.45', multa: { modalidade: 2, valorPerc: '2.00' }, juros: { modalidade: 3, valorPerc: '1.00' } });
    assert.equal(tx.pix.dueDate, due);
    assert.deepEqual(tx.pix.latePayment, TERMS);
    // Payable until the end of the last day after the due date, in São Paulo.
    assert.equal(new Date(tx.pix.expiresAt).getTime(), endOfSpDay(due).getTime() + 10 * DAY);
    assert.equal(tx.chargedCents, 12345);
  });

  test('only the terms given are sent; a due date of today still makes a cobv', async () => {
    const today = spDate(new Date());
    const tx = await createLate(today, { daysAfterDue: 5, fineBp: 200 });
    const cob = env.psp.cobs.get(txidFor(tx.id))!;
    assert.equal(cob.kind, 'cobv');
    assert.deepEqual(cob.body.valor, { original: '123.45', multa: { modalidade: 2, valorPerc: '2.00' } });
    assert.deepEqual(tx.pix.latePayment, { daysAfterDue: 5, fineBp: 200, interestMonthlyBp: 0 });
  });

  test('bad terms are refused with the field named, and nothing is written or sent', async () => {
    const before = (await app().deps.db.selectFrom('transactions').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;
    const puts = env.psp.calls('PUT', '/cobv/').length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ latePayment: TERMS }, 'latePayment'],
      [{ dueDate: new Date(Date.now() + 3 * DAY).toISOString(), latePayment: TERMS }, 'latePayment'],
      [{ dueDate: spDate(new Date(Date.now() - 2 * DAY)), latePayment: TERMS }, 'dueDate'],
      [{ dueDate: weekdayIn(3), latePayment: { ...TERMS, fineBp: 1001 } }, 'latePayment.fineBp'],
      [{ dueDate: weekdayIn(3), latePayment: { fineBp: 200 } }, 'latePayment.daysAfterDue'],
      [{ dueDate: weekdayIn(3), latePayment: { ...TERMS, discountBp: 5 } }, 'latePayment'],
      [{ dueDate: weekdayIn(360), latePayment: TERMS }, 'dueDate'],
      [{ paymentMethod: 'BOLETO', dueDate: weekdayIn(3), latePayment: TERMS }, 'latePayment'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR', res.raw);
      assert.ok(res.body.errors.some((e: { field: string }) => e.field.startsWith(field)), `${field}: ${res.raw}`);
    }
    assert.equal((await app().deps.db.selectFrom('transactions').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n, before);
    assert.equal(env.psp.calls('PUT', '/cobv/').length, puts);
  });

  test('development keys take the terms too (the sandbox pays on time)', async () => {
    const due = weekdayIn(3);
    const res = await create({ dueDate: due, latePayment: TERMS }, m.devKey);
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(res.body.transaction.pix.latePayment, TERMS);
    assert.equal(res.body.transaction.pix.dueDate, due);
  });
});

describe('paying', () => {
  test('on time: the amount charged, nothing else', async () => {
    const due = weekdayIn(3);
    const tx = await createLate(due);
    const pix = await env.psp.pay(txidFor(tx.id), { horario: noonAfter(due, 0) });
    assert.equal(pix.valor, '123.45');
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.chargedCents, 12345);
  });

  test('5 days late: the PSP settles fine and interest; PAID for what was paid, fee on it, one balanced journal, events and refund of the whole', async () => {
    const due = weekdayIn(3);
    const tx = await createLate(due);
    const pix = await env.psp.pay(txidFor(tx.id), { horario: noonAfter(due, 5) });
    assert.equal(pix.valor, '126.13');
    await until(async () => (await get(tx.id)).status === 'PAID');
    const paid = await get(tx.id);
    const fee = paymentFee(await app().deps.transactions.fees.of(m.id), 'PIX', 12613);
    assert.equal(paid.amountCents, 12345, 'the sale stays what was sold');
    assert.equal(paid.chargedCents, 12613, 'what the payer paid, fine and interest included');
    assert.equal(paid.feeCents, fee);
    assert.equal(paid.netAmountCents, 12613 - fee);
    // The charge at the PSP was asked for its original amount before the payment was booked.
    assert.ok(env.psp.calls('GET', `/cobv/${txidFor(tx.id)}`).length >= 1);
    assert.deepEqual(await paymentJournal(tx.id), [
      ['available', 12613 - fee],
      ['external', -12613],
      ['fees', fee],
    ]);
    await assertLedgerBalanced(app().deps.db);
    const events = await sql<{ type: string; data: { chargedCents: number; amountCents: number; netAmountCents: number } }>`
      SELECT type, data FROM events WHERE data->>'id' = ${tx.id} AND type = 'transaction.completed'`.execute(app().deps.db);
    assert.equal(events.rows.length, 1);
    assert.equal(events.rows[0].data.chargedCents, 12613);
    assert.equal(events.rows[0].data.amountCents, 12345);
    assert.equal(events.rows[0].data.netAmountCents, 12613 - fee);
    // Everything the payer paid can be given back: the devolução is of 126,13.
    const res = await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.refundedCents, 12613);
    assert.equal(env.psp.pix.get(pix.endToEndId)!.devolucoes[0].valor, '126.13');
    await assertLedgerBalanced(app().deps.db);
  });

  test('a late Pix notified three times at the same moment is booked once, for what was paid', async () => {
    const due = weekdayIn(3);
    const tx = await createLate(due);
    const pix = await env.psp.pay(txidFor(tx.id), { mode: 'none', horario: noonAfter(due, 5) });
    assert.deepEqual(await Promise.all([env.psp.notify([pix]), env.psp.notify([pix]), env.psp.notify([pix], { bare: true })]), [200, 200, 200]);
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.chargedCents, 12613);
    assert.equal((await paymentJournal(tx.id)).length, 3, 'one payment journal');
    const journals = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_journals WHERE reference_id = ${tx.id} AND kind = 'payment'`.execute(app().deps.db);
    assert.equal(journals.rows[0].n, 1);
    await assertLedgerBalanced(app().deps.db);
  });

  test('paid late with the notification lost: the reconciliation books the same amount', async () => {
    const due = weekdayIn(1);
    const tx = await createLate(due, { daysAfterDue: 3, fineBp: 200 });
    // Paid just now, as far as the reconciliation's window goes, but counted 2 days late by the PSP.
    const pix = await env.psp.pay(txidFor(tx.id), { mode: 'none', horario: noonAfter(due, 2) });
    assert.equal(pix.valor, '125.92');
    assert.equal((await get(tx.id)).status, 'PENDING');
    // The reconciliation asks for the hours before `now`: look from the payment's moment.
    assert.equal(await reconcile(pixContext(app()), new Date(noonAfter(due, 2).getTime() + 60_000), true), 1);
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.chargedCents, 12592);
    await assertLedgerBalanced(app().deps.db);
  });

  test('more than the terms allow that day: not paid, logged for a refund by hand', async () => {
    const due = weekdayIn(3);
    const tx = await createLate(due);
    await env.psp.pay(txidFor(tx.id), { horario: noonAfter(due, 5), valor: '126.14' });
    assert.equal((await get(tx.id)).status, 'PENDING');
    assert.ok(env.ctx.logs.some((l) => l.includes(tx.id) && l.includes('refunded by hand')));
  });

  test('more than charged on time (no late payment to explain it): not paid', async () => {
    const due = weekdayIn(3);
    const tx = await createLate(due);
    await env.psp.pay(txidFor(tx.id), { horario: noonAfter(due, 0), valor: '126.13' });
    assert.equal((await get(tx.id)).status, 'PENDING');
  });

  test('a charge whose original amount at the PSP is not what was charged here: a late Pix pays nothing', async () => {
    const due = weekdayIn(3);
    const tx = await createLate(due);
    // Revised at the PSP behind Cofre's back: the late amount is computed on another original.
    env.psp.cobs.get(txidFor(tx.id))!.body.valor.original = '124.00';
    await env.psp.pay(txidFor(tx.id), { horario: noonAfter(due, 1) });
    assert.equal((await get(tx.id)).status, 'PENDING');
    assert.ok(env.ctx.logs.some((l) => l.includes(tx.id) && l.includes('not for the amount charged here')));
  });

  test('a PIX without terms paid for more is still refused', async () => {
    const res = await create({ dueDate: weekdayIn(3) });
    assert.equal(res.status, 201, res.raw);
    await env.psp.pay(txidFor(res.body.transaction.id), { valor: '130.00' });
    assert.equal((await get(res.body.transaction.id)).status, 'PENDING');
  });
});
