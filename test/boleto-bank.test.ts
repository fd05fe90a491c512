// Production boletos issued by a bank after the transaction is stored (BOLETO_PROVIDER=inter over
// a bank kept in memory, test/boleto-bank-kit.ts): the creation answers ISSUING without waiting for
// the bank; the issuing sweep sends each boleto once (a lost answer is found by our number, not sent
// again) and records its numbers; a refusal fails the payment; the bank's callback is believed only
// when the bank confirms it, once; the reconciliation pays what a lost callback left; the expiry and
// the merchant's cancel ask the bank first; a paid boleto is refunded by Pix to the payer's key.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, test } from 'node:test';
import { settleUnknownRefunds } from '../src/modules/transactions/service.ts';
import { validateDigitableLine } from '../src/payments/boleto.ts';
import { nextBusinessDay, spDate, startOfSpDay } from '../src/payments/calendar.ts';
import { InterConnector } from '../src/payments/inter/connector.ts';
import type { InterContext } from '../src/payments/inter/edges.ts';
import { reconcile } from '../src/payments/inter/edges.ts';
import { Books } from './boleto-bank-kit.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { appOver, call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';

const QUIET = { info() {}, warn() {}, error() {} };
// The sweeps are run by the tests, in order: no run started by a creation races them (nudge off),
// and a boleto put off by a sweep is due again at once (pollMs, backoffMs 0: a lease ending 1 ms
// later could still be running when the next sweep starts within the same millisecond).
const ADDRESS = { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'sp' };
const boletoBody = (extra: object = {}) => ({ product: 'Consultoria', amountCents: 25_000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'BOLETO', clientAddress: ADDRESS, ...extra });

describe('bank-issued boletos (inter connector over a bank in memory)', () => {
  let ctx: TestContext;
  let bank: Books;
  let m: Merchant;
  const create = (extra: object = {}) => call(ctx.app, 'POST', '/api/v1/transactions', { key: m.liveKey, body: boletoBody(extra) });
  const get = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
  const edges = () => ctx.app.deps.connectors.edges('inter') as ReturnType<InterConnector['edges']> & { context: InterContext };
  const sweep = (name: string) => edges().sweeps.find((s) => s.name === name)!.run(new Date());
  const notify = (body: unknown) => call(ctx.app, 'POST', '/api/psp/inter/notifications', { body });
  /** Creates a boleto and runs the issuing sweep until it is ISSUED. */
  const issued = async (extra: object = {}) => {
    const res = await create(extra);
    assert.equal(res.status, 201, res.raw);
    for (let i = 0; i < 5 && (await get(res.body.transaction.id)).boleto.status !== 'ISSUED'; i++) await sweep('issue');
    return get(res.body.transaction.id);
  };

  before(async () => {
    ctx = await startApp({
      env: { SANDBOX_PAYOUT_DELAY_MS: '0', JANITOR_GRACE_SECONDS: '1' },
      deps: { connectors: { extra: [(db) => new InterConnector((bank = new Books()), db, QUIET, { reconcileMinutes: 60, issuing: { pollMs: 0, backoffMs: 0, nudge: false } })], production: { BOLETO: ['inter'], PAYOUT: ['sandbox'] } } },
    });
    m = await merchant(ctx.app, { live: true });
  });
  after(() => ctx.close());
  beforeEach(() => {
    bank.mode = { down: false, loseIssue: false, refuse: false, polls: 1 };
  });

  test('a production boleto needs the payer address, with a real UF; other methods refuse it', async () => {
    const none = await create({ clientAddress: undefined });
    assert.equal(none.status, 400);
    assert.equal(none.body.errors[0].field, 'clientAddress');
    const badUf = await create({ clientAddress: { ...ADDRESS, state: 'XX' } });
    assert.equal(badUf.status, 400);
    assert.equal(badUf.body.errors[0].field, 'clientAddress.state');
    const pix = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: boletoBody({ paymentMethod: 'PIX' }) });
    assert.equal(pix.status, 400);
    assert.equal(pix.body.errors[0].field, 'clientAddress');
    const small = await create({ amountCents: 249 });
    assert.equal(small.status, 400);
    assert.equal(small.body.errors[0].field, 'amountCents');
    assert.equal(bank.calls.issue.length, 0);
  });

  test('the creation answers ISSUING without the bank; the sweep issues it once and the numbers come with transaction.updated', async () => {
    bank.mode.polls = 2;
    const before = bank.calls.issue.length;
    const res = await create();
    assert.equal(res.status, 201, res.raw);
    const tx = res.body.transaction;
    assert.equal(tx.status, 'PENDING');
    assert.deepEqual(Object.keys(tx.boleto).sort(), ['dueDate', 'status', 'url']);
    assert.equal(tx.boleto.status, 'ISSUING');
    assert.equal(tx.address.state, 'SP');
    assert.equal(tx.address.zipCode, '01310100');
    await sweep('issue'); // sent; the bank has no numbers yet
    await sweep('issue');
    const done = await get(tx.id);
    assert.equal(done.boleto.status, 'ISSUED');
    assert.ok(validateDigitableLine(done.boleto.digitableLine));
    assert.equal(done.boleto.barcode.slice(0, 3), '077');
    assert.match(done.boleto.pixCode, /^00020101/);
    assert.match(done.boleto.pdfUrl, new RegExp(`/boleto/${tx.id}\\.pdf$`));
    assert.deepEqual(bank.calls.issue.slice(before), [tx.id], 'sent once');
    assert.equal(bank.of(tx.id)!.req.address?.state, 'SP');
    const events = await ctx.database.db.selectFrom('events').select(['type', 'data']).where('user_id', '=', m.id).orderBy('created_at').execute();
    const updated = events.filter((e) => e.type === 'transaction.updated' && (e.data as { id: string }).id === tx.id);
    assert.equal(updated.length, 1);
    assert.equal((updated[0].data as { boleto: { status: string; digitableLine: string } }).boleto.digitableLine, done.boleto.digitableLine);
  });

  test('an answer lost after the bank issued: found by our number, never issued twice', async () => {
    bank.mode.loseIssue = true;
    const res = await create();
    const id = res.body.transaction.id;
    await sweep('issue'); // issued at the bank, answer lost
    assert.equal((await get(id)).boleto.status, 'ISSUING');
    await new Promise((r) => setTimeout(r, 5));
    await sweep('issue');
    assert.equal((await get(id)).boleto.status, 'ISSUED');
    assert.equal(bank.calls.issue.filter((t) => t === id).length, 1);
    assert.equal([...bank.charges.values()].filter((c) => c.req.transactionId === id).length, 1);
  });

  test('a boleto the bank refuses fails the payment, with nothing booked', async () => {
    bank.mode.refuse = true;
    const res = await create();
    await sweep('issue');
    const tx = await get(res.body.transaction.id);
    assert.equal(tx.status, 'FAILED');
    assert.equal(tx.failureReason, 'BOLETO_REFUSED');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a callback is believed only when the bank confirms it, and pays once (by its Pix)', async () => {
    const tx = await issued();
    const ref = bank.of(tx.id)!.reference;
    assert.equal((await notify([{ codigoSolicitacao: ref, situacao: 'RECEBIDO' }])).status, 200, 'forged: not paid at the bank');
    assert.equal((await get(tx.id)).status, 'PENDING');
    bank.pay(ref, 'PIX');
    assert.equal((await notify([{ codigoSolicitacao: ref }])).status, 200);
    assert.equal((await notify({ codigoSolicitacao: ref })).status, 200, 'a duplicate');
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.paidWith, 'PIX');
    const journals = await ctx.database.db.selectFrom('ledger_journals').select('id').where('reference_id', '=', tx.id).where('kind', '=', 'payment').execute();
    assert.equal(journals.length, 1);
    bank.mode.down = true;
    assert.equal((await notify([{ codigoSolicitacao: ref }])).status, 503, 'the bank unreachable: the callback is sent again later');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a lost callback: the reconciliation pays it (by barcode); a wrong amount pays nothing', async () => {
    const tx = await issued();
    const odd = await issued();
    bank.pay(bank.of(tx.id)!.reference, 'BOLETO');
    bank.pay(bank.of(odd.id)!.reference, 'BOLETO', odd.chargedCents - 1);
    await reconcile(edges().context, new Date(), true);
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.paidWith, 'BOLETO');
    // Paid by barcode: receivable until the bank credits it, the next business day.
    const owed = await ctx.database.db.selectFrom('receivables').select(['amount_cents', 'settle_at', 'status']).where('transaction_id', '=', tx.id).execute();
    assert.deepEqual(owed.map((r) => [r.amount_cents, r.status]), [[paid.netAmountCents, 'PENDING']]);
    assert.equal(owed[0].settle_at.toISOString(), startOfSpDay(nextBusinessDay(spDate(new Date()))).toISOString());
    assert.equal((await get(odd.id)).status, 'PENDING');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('cancel withdraws the boleto at the bank; one paid there first is not cancelled', async () => {
    const tx = await issued();
    const res = await call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/cancel`, { key: m.liveKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'CANCELLED');
    assert.equal(bank.of(tx.id)!.state, 'CANCELLED');
    const paidFirst = await issued();
    bank.pay(bank.of(paidFirst.id)!.reference, 'BOLETO');
    const refused = await call(ctx.app, 'POST', `/api/v1/transactions/${paidFirst.id}/cancel`, { key: m.liveKey });
    assert.equal(refused.status, 400);
    assert.equal((await get(paidFirst.id)).status, 'PENDING');
  });

  test('expiry asks the bank first: paid at the last minute is PAID, otherwise withdrawn there and EXPIRED', async () => {
    const late = await issued();
    const unpaid = await issued();
    bank.pay(bank.of(late.id)!.reference, 'PIX');
    await ctx.database.db.updateTable('transactions').set({ expires_at: new Date(Date.now() - 3_600_000) }).where('id', 'in', [late.id, unpaid.id]).execute();
    await sweep('expire');
    assert.equal((await get(late.id)).status, 'PAID');
    assert.equal((await get(unpaid.id)).status, 'EXPIRED');
    assert.equal(bank.of(unpaid.id)!.state, 'CANCELLED');
  });

  test('a paid boleto is refunded by Pix to the payer key: required, checked, sent through the payout connector', async () => {
    const tx = await issued();
    const ref = bank.of(tx.id)!.reference;
    bank.pay(ref, 'BOLETO');
    await notify([{ codigoSolicitacao: ref }]);
    const refund = (body: object) => call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey, body });
    const missing = await refund({ amountCents: 1000 });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errors[0].field, 'pixKey');
    const bad = await refund({ amountCents: 1000, pixKey: '123.456.789-00' });
    assert.equal(bad.status, 400);
    const ok = await refund({ amountCents: 1000, pixKey: 'ana@example.com' });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal(ok.body.transaction.refunds[0].status, 'PENDING');
    const failing = await refund({ amountCents: 500, pixKey: '00000000191' });
    assert.equal(failing.status, 200);
    await new Promise((r) => setTimeout(r, 1100));
    await settleUnknownRefunds(ctx.app.deps.transactions, new Date());
    const rows = await ctx.database.db.selectFrom('refunds').select(['amount_cents', 'status', 'pix_key', 'payout_provider']).where('transaction_id', '=', tx.id).orderBy('amount_cents').execute();
    assert.deepEqual(
      rows.map((r) => [r.amount_cents, r.status, r.pix_key, r.payout_provider]),
      [
        [500, 'FAILED', '00000000191', 'sandbox'],
        [1000, 'SUCCEEDED', 'ana@example.com', 'sandbox'],
      ],
    );
    const after = await get(tx.id);
    assert.equal(after.refundedCents, 1000, 'the failed Pix refund was undone');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('the sandbox follows the same states: a hybrid boleto ISSUED at once, paid by barcode or by its Pix in simulate', async () => {
    const dev = (path: string, body: object) => call(ctx.app, 'POST', path, { key: m.devKey, body });
    const a = (await dev('/api/v1/transactions', boletoBody({ clientAddress: undefined }))).body.transaction;
    assert.equal(a.boleto.status, 'ISSUED');
    assert.ok(validateDigitableLine(a.boleto.digitableLine));
    assert.match(a.boleto.pixCode, /^000201/);
    assert.match(a.boleto.pixQrCodeImage, new RegExp(`/boleto/${a.id}/qr\\.png$`));
    assert.equal(a.boleto.pdfUrl, undefined, 'the sandbox has no bank PDF: the printable page');
    const byPix = await dev(`/api/v1/transactions/${a.id}/simulate`, { outcome: 'PAID', paidWith: 'PIX' });
    assert.equal(byPix.status, 200, byPix.raw);
    assert.equal(byPix.body.transaction.paidWith, 'PIX');
    const b = (await dev('/api/v1/transactions', boletoBody())).body.transaction;
    assert.equal((await dev(`/api/v1/transactions/${b.id}/simulate`, { outcome: 'PAID' })).body.transaction.paidWith, 'BOLETO');
    const pix = (await dev('/api/v1/transactions', boletoBody({ paymentMethod: 'PIX', clientAddress: undefined }))).body.transaction;
    const wrong = await dev(`/api/v1/transactions/${pix.id}/simulate`, { outcome: 'PAID', paidWith: 'PIX' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.errors[0].field, 'paidWith');
    const expired = await dev(`/api/v1/transactions/${b.id}/simulate`, { outcome: 'EXPIRED', paidWith: 'PIX' });
    assert.equal(expired.status, 400);
  });

  test('two instances issuing at once send each boleto once (claims on PostgreSQL)', async () => {
    const other = await appOver(ctx.config, ctx.database, {
      limiter: new MemoryLimiter(),
      logStream: new Writable({ write: (_c, _e, cb) => cb() }),
      connectors: { extra: [(db) => new InterConnector(bank, db, QUIET, { reconcileMinutes: 60, issuing: { pollMs: 1, backoffMs: 1, batch: 7, nudge: false } })], production: { BOLETO: ['inter'], PAYOUT: ['sandbox'] } },
    });
    try {
      bank.mode.polls = 2;
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await create()).body.transaction.id);
      const runs = (app: typeof other) => (app.deps.connectors.edges('inter') as ReturnType<InterConnector['edges']>).sweeps.find((s) => s.name === 'issue')!;
      for (let round = 0; round < 6; round++) {
        await Promise.all([runs(ctx.app).run(new Date()), runs(other).run(new Date()), runs(other).run(new Date())]);
        await new Promise((r) => setTimeout(r, 5));
      }
      const sent = bank.calls.issue.filter((t) => ids.includes(t));
      assert.equal(sent.length, ids.length, 'each sent once');
      assert.equal(new Set(sent).size, ids.length);
      const rows = await ctx.database.db.selectFrom('transactions').select('boleto_barcode').where('id', 'in', ids).execute();
      assert.ok(rows.every((r) => r.boleto_barcode), 'all ISSUED');
    } finally {
      await other.close();
    }
  });
});
