// Chargebacks through the API: the dispute's validation (400 with fields, nothing forwarded or
// stored), tenant isolation (404), permissions (403), the sandbox refused to production keys, a
// connector's answer refused; the shares of a sale undone like a refund's (an affiliate's commission
// cancelled, or clawed back once released; a referral reward clawed back); and a chargeback racing a
// refund on the same sale never debits twice (run on PostgreSQL too). The ledger is checked after each.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { releaseDue } from '../src/modules/affiliates/commissions.ts';
import { applyChargeback } from '../src/modules/transactions/chargeback.ts';
import { approveKyc, call, emailedCode, cpf, merchant, onPostgres, secondInstance, uniqueEmail } from './helpers.ts';
import { CONTEST, ctx, dispute, get, ledgerBalanced, m, openChargeback, paidCard, report, sandbox, simulate, useChargebacksApp } from './chargebacks-kit.ts';
import { commissionApi } from './affiliate-commissions-kit.ts';

// Production card payments go through the sandbox too (an operator's rehearsal): connectors report on them.
useChargebacksApp({ PAYMENT_PROVIDER: 'sandbox' });

const pdf = (bytes: number) => ({ name: 'nota.pdf', contentType: 'application/pdf', contentBase64: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(Math.max(0, bytes - 9), 7)]).toString('base64') });

describe('POST /api/v1/transactions/{id}/dispute', () => {
  test('bad answers are 400 with the field, and nothing is forwarded or stored', async () => {
    const sale = await paidCard(m.devKey, 7_000);
    await openChargeback(m.devKey, sale.id);
    const sent = sandbox.disputes.length;
    const cases: [unknown, string][] = [
      [{ action: 'CONTEST' }, 'text'],
      [{ action: 'CONTEST', text: 'curto' }, 'text'],
      [{ action: 'CONTEST', text: 'x'.repeat(5001) }, 'text'],
      [{ action: 'REFUND' }, 'action'],
      [{ action: 'ACCEPT', text: CONTEST.text }, 'text'],
      [{ ...CONTEST, files: [pdf(10), pdf(10), pdf(10), pdf(10)] }, 'files'],
      [{ ...CONTEST, files: [{ ...pdf(10), contentType: 'text/html' }] }, 'files'],
      [{ ...CONTEST, files: [{ ...pdf(10), name: '../etc/passwd' }] }, 'files'],
      [{ ...CONTEST, files: [{ ...pdf(10), contentBase64: 'não é base64!' }] }, 'files'],
      [{ ...CONTEST, files: [pdf(500 * 1024 + 1)] }, 'files'],
      // A Windows executable's first bytes labelled as a PDF: refused here, never sent to the acquirer.
      [{ ...CONTEST, files: [{ ...pdf(10), contentBase64: Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1').toString('base64') }] }, 'files.0.contentBase64'],
      [{ ...CONTEST, files: [{ ...pdf(10), contentType: 'image/png' }] }, 'files.0.contentBase64'],
      [{ ...CONTEST, extra: true }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await dispute(m.devKey, sale.id, body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.raw.slice(0, 300)}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR', res.raw.slice(0, 300));
      assert.ok(
        res.body.errors.some((e: { field: string }) => e.field.includes(field)),
        `${field}: ${JSON.stringify(res.body.errors)}`,
      );
    }
    assert.equal(sandbox.disputes.length, sent);
    assert.equal((await get(m.devKey, sale.id)).chargeback.status, 'OPEN');
  });

  test('no open chargeback (a sale never disputed): 400 INVALID_STATE_TRANSITION', async () => {
    const sale = await paidCard(m.devKey, 3_000);
    const res = await dispute(m.devKey, sale.id, { action: 'ACCEPT' });
    assert.equal(res.status, 400, res.raw);
    assert.equal(res.body.code, 'INVALID_STATE_TRANSITION');
    assert.equal(res.body.errors[0].field, 'status');
  });

  test("another merchant's transaction is 404; a key without transactions:write is 403; nothing changes", async () => {
    const sale = await paidCard(m.devKey, 3_500);
    await openChargeback(m.devKey, sale.id);
    const other = await merchant(ctx.app);
    const res = await dispute(other.devKey, sale.id, { action: 'ACCEPT' });
    assert.equal(res.status, 404, res.raw);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert.equal((await simulate(other.devKey, sale.id, 'CHARGEBACK_LOST')).status, 404);
    const reader = await merchant(ctx.app, { permissions: ['transactions:read'] });
    const forbidden = await dispute(reader.devKey, sale.id, { action: 'ACCEPT' });
    assert.equal(forbidden.status, 403, forbidden.raw);
    assert.equal((await get(m.devKey, sale.id)).chargeback.status, 'OPEN');
  });

  test('the acquirer refusing the answer is 502 and records nothing; sent again, it is taken', async () => {
    const sale = await paidCard(m.devKey, 4_500);
    await openChargeback(m.devKey, sale.id);
    sandbox.answer = async () => ({ ok: false, reason: 'DEADLINE', message: 'prazo encerrado' });
    try {
      const res = await dispute(m.devKey, sale.id, CONTEST);
      assert.equal(res.status, 502, res.raw);
      assert.equal((await get(m.devKey, sale.id)).chargeback.status, 'OPEN');
    } finally {
      sandbox.answer = async () => ({ ok: true });
    }
    const again = await dispute(m.devKey, sale.id, CONTEST);
    assert.equal(again.status, 200, again.raw);
    assert.equal(again.body.transaction.chargeback.status, 'CONTESTED');
  });
});

describe('production', () => {
  test('a production key cannot simulate a chargeback (403, before any lookup)', async () => {
    const live = await merchant(ctx.app, { live: true });
    const sale = await paidCard(live.liveKey!, 5_000);
    for (const outcome of ['CHARGEBACK', 'CHARGEBACK_WON', 'CHARGEBACK_LOST']) {
      const res = await simulate(live.liveKey!, sale.id, outcome);
      assert.equal(res.status, 403, res.raw);
    }
    assert.equal((await get(live.liveKey!, sale.id)).status, 'PAID');
  });

  test("a referral reward on the sale is cancelled like a refund's; the connector's report applies in production", async () => {
    const referrer = await merchant(ctx.app, { live: true });
    const code = (await call(ctx.app, 'GET', '/api/referral/code', { token: referrer.token })).body.data.code as string;
    const reg = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Loja Indicada', email: uniqueEmail('indicada'), password: 'correct horse battery', referralCode: code } });
    assert.equal(reg.status, 201, reg.raw);
    await approveKyc(ctx.app, reg.body.user.id);
    const key = (await call(ctx.app, 'POST', '/api/credentials', { token: reg.body.token, body: { name: 'live', environment: 'PRODUCTION' }, headers: { 'x-second-factor': await emailedCode(ctx.app, reg.body.token, reg.body.user.id) } })).body.key as string;
    const sale = await paidCard(key, 150_000);
    const rewards = () => ctx.database.db.selectFrom('referral_rewards').select(['kind', 'status', 'reason']).where('transaction_id', '=', sale.id).orderBy('kind').execute();
    assert.ok((await rewards()).length > 0, 'the sale earned the referrer a reward');
    await report({ transactionId: sale.id, caseId: 'LIVE-CB-1', status: 'OPENED', amountCents: sale.chargedCents, reasonCode: '4837' });
    assert.equal((await get(key, sale.id)).status, 'CHARGEBACK');
    assert.ok((await rewards()).every((r) => r.status === 'CANCELLED'), JSON.stringify(await rewards()));
    await ledgerBalanced();
  });
});

describe("an affiliate's commission", () => {
  test('is cancelled by a chargeback before its release, clawed back after it', async () => {
    const seller = await merchant(ctx.app);
    const aff = await merchant(ctx.app);
    const api = commissionApi(ctx, seller, aff);
    const { slug, code } = await api.setup(20_000);
    const card = { number: '4242424242424242', holderName: 'JOANA LIMA', expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvv: '123' };
    const early = await api.buy(slug, { affiliateCode: code, paymentMethod: 'CARD', card });
    const late = await api.buy(slug, { affiliateCode: code, paymentMethod: 'CARD', card });
    assert.equal((await get(seller.devKey, early)).status, 'PAID');
    const [c1] = await api.commissionOf(early);
    assert.equal(c1.status, 'PENDING');
    await openChargeback(seller.devKey, early);
    const [undone] = await api.commissionOf(early);
    assert.deepEqual([undone.status, undone.reason], ['CANCELLED', 'REFUNDED']);

    await releaseDue(ctx.app.deps.commissions, new Date(Date.now() + 60 * 86_400_000), 100);
    assert.equal((await api.commissionOf(late))[0].status, 'PAID');
    const affBefore = await api.accounts(aff.id);
    await openChargeback(seller.devKey, late);
    const [clawed] = await api.commissionOf(late);
    assert.deepEqual([clawed.status, clawed.reason], ['CANCELLED', 'REFUNDED_AFTER_RELEASE']);
    assert.equal((await api.accounts(aff.id)).available, affBefore.available - clawed.amount_cents);
    await ledgerBalanced();
  });
});

describe('a chargeback racing a refund on the same sale', () => {
  test('never debits twice: whichever comes second takes only what is left, or is refused', async (t) => {
    // The report arrives at another instance (its own status-change batches, its own database transactions).
    const second = await secondInstance(ctx);
    t.after(() => second.close());
    const seller = await merchant(ctx.app);
    // Funds, so a refund is never refused for the balance.
    await paidCard(seller.devKey, 200_000);
    const { settleAll } = await import('./wallet-helpers.ts');
    await settleAll(ctx, 31);
    const seen = { refundMade: 0, refundRefused: 0 };
    for (let i = 0; i < (onPostgres ? 8 : 4); i++) {
      const sale = await paidCard(seller.devKey, 10_000);
      const partial = i % 2 === 0;
      const [refund, charged] = await Promise.allSettled([
        call(ctx.app, 'POST', `/api/v1/transactions/${sale.id}/refund`, { key: seller.devKey, body: partial ? { amountCents: 3_000 } : undefined }),
        applyChargeback(second.deps.transactions, 'sandbox', { transactionId: sale.id, caseId: `RACE-${i}-${cpf()}`, status: 'OPENED', amountCents: sale.chargedCents }),
      ]);
      const row = await ctx.database.db.selectFrom('transactions').select(['status', 'refunded_cents', 'charged_cents']).where('id', '=', sale.id).executeTakeFirstOrThrow();
      const cbs = await ctx.database.db.selectFrom('chargebacks').select('amount_cents').where('transaction_id', '=', sale.id).execute();
      const chargedBack = cbs.reduce((a, c) => a + Number(c.amount_cents), 0);
      assert.ok(Number(row.refunded_cents) + chargedBack <= Number(row.charged_cents), `${row.refunded_cents} + ${chargedBack} > ${row.charged_cents}`);
      assert.ok(refund.status === 'fulfilled');
      if (refund.value.status !== 200) assert.equal(refund.value.body.code, 'INVALID_STATE_TRANSITION', refund.value.raw);
      if (charged.status === 'rejected') assert.match(String(charged.reason), /cannot open/);
      assert.ok(refund.value.status === 200 || charged.status === 'fulfilled', 'one of them went through');
      if (refund.value.status === 200) seen.refundMade++;
      else seen.refundRefused++;
      await ledgerBalanced();
    }
    t.diagnostic(`refunds made: ${seen.refundMade}; refused, the chargeback first: ${seen.refundRefused}`);
  });
});
