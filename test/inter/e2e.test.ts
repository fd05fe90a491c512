// Production boletos through Banco Inter end to end, against the fake Inter over mTLS
// (test/fake-inter): the request Inter gets (no rule broken), ISSUING then ISSUED with numbers that
// pass FEBRABAN's check digits and a Pix code, paid by Pix (a callback confirmed at Inter, a
// duplicate and a forged one changing nothing), paid by barcode with the callback lost (the
// reconciliation), a lost answer after issuing (found by seuNumero: one boleto at Inter), 500s,
// cancel and expiry withdrawn at Inter, a refund by Pix, the webhook registered, the ledger balanced
// and the application's secret in no log line.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { settleUnknownRefunds } from '../../src/modules/transactions/service.ts';
import { validateDigitableLine } from '../../src/payments/boleto.ts';
import { seuNumeroOf } from '../../src/payments/inter/bank.ts';
import { startFakeInter, interEnv, type FakeInter } from '../fake-inter/server.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';

const ADDRESS = { zipCode: '04538-133', street: 'Avenida Brigadeiro Faria Lima', number: '3477', complement: 'Torre Norte', neighborhood: 'Itaim Bibi', city: 'São Paulo', state: 'SP' };

describe('boletos through the fake Inter (BOLETO_PROVIDER=inter)', () => {
  let inter: FakeInter;
  let ctx: TestContext;
  let m: Merchant;
  const create = async (extra: object = {}) => {
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.liveKey, body: { product: 'Mentoria', amountCents: 19_990, clientName: 'Bruno Lima', clientEmail: 'bruno@example.com', clientDocument: cpf(), paymentMethod: 'BOLETO', clientAddress: ADDRESS, ...extra } });
    assert.equal(res.status, 201, res.raw);
    return res.body.transaction;
  };
  const get = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
  const sweep = (name: string) => ctx.app.deps.connectors.sweeps().find((s) => s.name === `inter-${name}`)!.run(new Date());
  /** The issuing sweep until the boleto is ISSUED (claims made free between runs: no waiting for backoffs). */
  const issued = async (id: string) => {
    for (let i = 0; i < 8 && (await get(id)).boleto.status !== 'ISSUED'; i++) {
      await ctx.database.db.updateTable('boleto_issuing').set({ lease_until: new Date(0) }).execute();
      await sweep('issue');
    }
    return get(id);
  };
  const chargeOf = (id: string) => inter.bySeuNumero(seuNumeroOf(id))!;
  const notify = (body: unknown) => call(ctx.app, 'POST', '/api/psp/inter/notifications', { body });

  before(async () => {
    inter = await startFakeInter();
    ctx = await startApp({ env: { ...interEnv(inter), BASE_URL: 'https://cofre.test', PAYOUT_PROVIDER: 'sandbox', SANDBOX_PAYOUT_DELAY_MS: '0', JANITOR_GRACE_SECONDS: '1' } });
    m = await merchant(ctx.app, { live: true });
  });
  after(async () => {
    await ctx.close();
    await inter.close();
  });
  beforeEach(() => {
    Object.assign(inter.behaviour, { issueDelayMs: 0, fail500: 0, loseNext: 0, latencyMs: 0 });
  });

  test('the webhook is registered at start, at {BASE_URL}/api/psp/inter/notifications', async () => {
    await ctx.app.deps.connectors.start();
    assert.equal(inter.webhookUrl, 'https://cofre.test/api/psp/inter/notifications');
  });

  test('issued after the answer: the request keeps Inter’s rules, the numbers pass the check digits, a Pix code pays it too', async () => {
    inter.behaviour.issueDelayMs = 150;
    const tx = await create();
    assert.equal(tx.boleto.status, 'ISSUING');
    await sweep('issue');
    assert.equal((await get(tx.id)).boleto.status, 'ISSUING', 'Inter is still registering it');
    await new Promise((r) => setTimeout(r, 200));
    const done = await issued(tx.id);
    assert.equal(done.boleto.status, 'ISSUED');
    assert.ok(validateDigitableLine(done.boleto.digitableLine));
    assert.equal(done.boleto.barcode.slice(0, 3), '077');
    assert.match(done.boleto.pixCode, /^000201.*br\.gov\.bcb\.pix/);
    const sent = chargeOf(tx.id).request;
    assert.ok(sent.seuNumero.length <= 15);
    assert.deepEqual(sent.formasRecebimento, ['BOLETO', 'PIX']);
    assert.equal(sent.valorNominal, 199.9);
    assert.deepEqual({ cep: sent.pagador.cep, uf: sent.pagador.uf, tipo: sent.pagador.tipoPessoa }, { cep: '04538133', uf: 'SP', tipo: 'FISICA' });
    assert.deepEqual(inter.violations, []);
    const pdf = await call(ctx.app, 'GET', `/boleto/${tx.id}.pdf`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.match(pdf.raw, /^%PDF-1\.4[\s\S]*boleto /, "the bank's PDF, as Inter renders it");
    assert.ok(inter.requests.every((r) => r.path.startsWith('/oauth') || r.headers['x-conta-corrente'] === inter.account));
  });

  test('paid by its Pix: the callback is confirmed at Inter and pays once; forged and duplicate ones change nothing', async () => {
    const tx = await issued((await create()).id);
    const ref = chargeOf(tx.id).codigoSolicitacao;
    assert.equal((await notify([{ ...inter.callbackItem(ref), situacao: 'RECEBIDO' }])).status, 200);
    assert.equal((await get(tx.id)).status, 'PENDING', 'a forged callback: Inter says A_RECEBER');
    inter.pay(ref, 'PIX');
    await notify([inter.callbackItem(ref)]);
    await notify([inter.callbackItem(ref)]);
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.paidWith, 'PIX');
    const journals = await ctx.database.db.selectFrom('ledger_journals').select('id').where('reference_id', '=', tx.id).where('kind', '=', 'payment').execute();
    assert.equal(journals.length, 1);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('paid by barcode with the callback lost: the reconciliation pays it, receivable until the next business day', async () => {
    const tx = await issued((await create()).id);
    inter.pay(chargeOf(tx.id).codigoSolicitacao, 'BOLETO');
    await sweep('reconcile');
    const paid = await get(tx.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.paidWith, 'BOLETO');
    const owed = await ctx.database.db.selectFrom('receivables').select('status').where('transaction_id', '=', tx.id).execute();
    assert.deepEqual(owed.map((r) => r.status), ['PENDING']);
  });

  test('an answer lost after Inter issued, then 500s: found by seuNumero, one boleto at Inter', async () => {
    inter.behaviour.loseNext = 1;
    const tx = await create();
    await sweep('issue');
    assert.equal((await get(tx.id)).boleto.status, 'ISSUING');
    inter.behaviour.fail500 = 2;
    const done = await issued(tx.id);
    assert.equal(done.boleto.status, 'ISSUED');
    assert.equal(inter.issuedBySeuNumero.get(seuNumeroOf(tx.id)), 1);
  });

  test('cancel and expiry withdraw the boleto at Inter (baixa); one paid at the last minute is PAID', async () => {
    const cancelled = await issued((await create()).id);
    const res = await call(ctx.app, 'POST', `/api/v1/transactions/${cancelled.id}/cancel`, { key: m.liveKey });
    assert.equal(res.body.transaction.status, 'CANCELLED', res.raw);
    assert.equal(chargeOf(cancelled.id).situacao, 'CANCELADO');
    const unpaid = await issued((await create()).id);
    const late = await issued((await create()).id);
    inter.pay(chargeOf(late.id).codigoSolicitacao, 'PIX');
    await ctx.database.db.updateTable('transactions').set({ expires_at: new Date(Date.now() - 3_600_000) }).where('id', 'in', [unpaid.id, late.id]).execute();
    await sweep('expire');
    assert.equal((await get(unpaid.id)).status, 'EXPIRED');
    assert.equal(chargeOf(unpaid.id).situacao, 'CANCELADO');
    assert.equal((await get(late.id)).status, 'PAID');
  });

  test('a refund is a Pix to the payer key through the payout connector; the ledger balances', async () => {
    const tx = await issued((await create()).id);
    inter.pay(chargeOf(tx.id).codigoSolicitacao, 'PIX');
    await notify([inter.callbackItem(chargeOf(tx.id).codigoSolicitacao)]);
    const res = await call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey, body: { pixKey: '+5511987654321' } });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'REFUNDED');
    await new Promise((r) => setTimeout(r, 1100));
    await settleUnknownRefunds(ctx.app.deps.transactions, new Date());
    const [refund] = await ctx.database.db.selectFrom('refunds').select(['status', 'pix_key_type']).where('transaction_id', '=', tx.id).execute();
    assert.deepEqual(refund, { status: 'SUCCEEDED', pix_key_type: 'phone' });
    await assertLedgerBalanced(ctx.database.db);
  });

  test("Inter's client secret and private key reach no log line", () => {
    const logs = ctx.logs.join('\n');
    assert.ok(logs.length > 0);
    assert.ok(!logs.includes(inter.clientSecret));
    assert.ok(!logs.includes('PRIVATE KEY'));
  });
});
