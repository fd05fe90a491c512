// A production withdrawal to a Pix key or account never paid out to is accepted but held for
// PAYOUT_NEW_DESTINATION_HOLD_HOURS, its owner e-mailed at once; the payout job sends it only after
// the hold ends (or an operator approves it earlier); the merchant may cancel it meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, merchant, operator, startApp, testConfig, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { balance, liveFunds, liveMerchantWithFunds, paidPix, payoutConnectors, req, runPayouts } from './wallet-helpers.ts';

const W = '/api/withdraws';
const wBody = (amountCents: number, over: Record<string, unknown> = {}) => ({ amountCents, pixKeyType: 'email', pixKey: 'loja@example.com', ...over });

const HOUR = 3_600_000;
const account = (over: Record<string, unknown> = {}) => ({ ispb: '60701190', branch: '0001', account: '7654321', accountType: 'checking', holderName: 'Loja Exemplo Ltda', holderDocument: '11.222.333/0001-81', ...over });
const byAccount = (over: Record<string, unknown> = {}) => ({ pixKeyType: undefined, pixKey: undefined, bankAccount: account(over) });

let live: TestContext;
before(async () => {
  live = await startApp({ env: { PAYMENT_PROVIDER: 'sandbox', PAYOUT_PROVIDER: 'sandbox', PAYOUT_REVIEW_ABOVE_CENTS: '0' } });
});
after(() => live.close());

const liveMerchant = (funds?: number) => liveMerchantWithFunds(live, funds);

const mails = (userId: string) => live.database.db.selectFrom('emails').selectAll().where('user_id', '=', userId).where('template', '=', 'withdrawal_new_destination').orderBy('created_at').execute();
const statusOf = async (lk: { key: string }, id: string) => (await req(live.app, 'GET', `${W}/${id}`, lk)).body.data;
const connectors = () => payoutConnectors(live, { production: 'sandbox' });

describe('a production withdrawal to a new destination', () => {
  test('is held until its time (the payout job leaves it), the owner e-mailed at once in pt-BR; then sent; the same key again is not held', async () => {
    const { m, lk } = await liveMerchant();
    const before = Date.now();
    const res = await req(live.app, 'POST', W, lk, wBody(12_345, { pixKey: 'financeiro@lojanova.com.br' }));
    assert.equal(res.status, 201, res.raw);
    const w = res.body.data;
    assert.equal(w.status, 'PENDING');
    assert.equal(w.holdReason, 'NEW_DESTINATION');
    const until = new Date(w.holdUntil).getTime();
    assert.ok(until >= before + 24 * HOUR && until <= Date.now() + 24 * HOUR, w.holdUntil);

    const [mail, ...more] = await mails(m.id);
    assert.equal(more.length, 0);
    assert.equal(mail.to_address, m.email);
    assert.equal(mail.related_id, w.id);
    assert.match(mail.subject, /Saque de R\$\s123,45 para um destino novo/);
    assert.match(mail.text_body, /R\$\s123,45/);
    assert.match(mail.text_body, /chave Pix e-mail f\*+@lojanova\.com\.br/);
    assert.equal(mail.text_body.includes('financeiro@'), false, 'the key is masked');
    const sp = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(until));
    assert.ok(mail.text_body.includes(sp), `${sp} in ${mail.text_body}`);
    assert.match(mail.text_body, /Se não foi você, cancele o saque no painel/);
    assert.match(mail.text_body, /\/dashboard\/dinheiro\/saques/);
    assert.match(mail.html_body, /lang="pt-BR"/);

    assert.equal(await runPayouts(live, connectors()), 0);
    assert.equal(await runPayouts(live, connectors(), new Date(until - 60_000)), 0);
    assert.equal((await statusOf(lk, w.id)).status, 'PENDING');
    assert.equal(await runPayouts(live, connectors(), new Date(until + 1000)), 1);
    const sent = await statusOf(lk, w.id);
    assert.equal(sent.status, 'COMPLETED');
    assert.equal(sent.holdReason, null);
    assert.equal(sent.holdUntil, w.holdUntil, 'when the hold ended stays readable');

    const again = (await req(live.app, 'POST', W, lk, wBody(5000, { pixKey: 'Financeiro@LojaNova.com.br' }))).body.data;
    assert.equal(again.holdReason, null);
    assert.equal(again.holdUntil, null);
    assert.equal((await mails(m.id)).length, 1, 'no e-mail for a known destination');
    // Another key is new again.
    assert.equal((await req(live.app, 'POST', W, lk, wBody(5000, { pixKeyType: 'random', pixKey: '123e4567-e89b-42d3-a456-426614174000' }))).body.data.holdReason, 'NEW_DESTINATION');
    assert.match((await mails(m.id))[1].text_body, /chave Pix aleatória 123e\*+4000/);
    await assertLedgerBalanced(live.database.db);
  });

  test('an account by its bank, branch and number: held the first time, known after a completed payout (whatever holder name is typed)', async () => {
    const { m, lk } = await liveMerchant();
    const first = (await req(live.app, 'POST', W, lk, wBody(10_000, byAccount()))).body.data;
    assert.equal(first.holdReason, 'NEW_DESTINATION');
    assert.match((await mails(m.id))[0].text_body, /conta \*+21, agência 0001, instituição ISPB 60701190/);
    await runPayouts(live, connectors(), new Date(new Date(first.holdUntil).getTime() + 1000));
    assert.equal((await statusOf(lk, first.id)).status, 'COMPLETED');
    assert.equal((await req(live.app, 'POST', W, lk, wBody(10_000, byAccount({ holderName: 'LOJA EXEMPLO' })))).body.data.holdReason, null);
    assert.equal((await req(live.app, 'POST', W, lk, wBody(10_000, byAccount({ account: '7654322' })))).body.data.holdReason, 'NEW_DESTINATION');
  });

  test('the merchant cancels a held one: money back in the same commit, never sent; a cancelled or pending one does not make the key known', async () => {
    const { lk } = await liveMerchant(50_000);
    const start = await balance(live.app, lk);
    const w = (await req(live.app, 'POST', W, lk, wBody(20_000, { pixKey: 'golpe@example.com' }))).body.data;
    assert.equal(w.holdReason, 'NEW_DESTINATION');
    assert.equal((await balance(live.app, lk)).availableBalanceCents, start.availableBalanceCents - 20_000);
    const second = (await req(live.app, 'POST', W, lk, wBody(10_000, { pixKey: 'golpe@example.com' }))).body.data;
    assert.equal(second.holdReason, 'NEW_DESTINATION', 'a pending withdrawal to the key does not count');
    for (const id of [w.id, second.id]) assert.equal((await req(live.app, 'POST', `${W}/${id}/cancel`, lk)).status, 200);
    assert.deepEqual(await balance(live.app, lk), start);
    await runPayouts(live, connectors(), new Date(Date.now() + 48 * HOUR));
    for (const id of [w.id, second.id]) assert.equal((await statusOf(lk, id)).status, 'CANCELLED');
    assert.equal((await req(live.app, 'POST', W, lk, wBody(10_000, { pixKey: 'golpe@example.com' }))).body.data.holdReason, 'NEW_DESTINATION');
    await assertLedgerBalanced(live.database.db);
  });

  test('an operator may approve it before its time: sent on the next run', async () => {
    const { lk } = await liveMerchant();
    const w = (await req(live.app, 'POST', W, lk, wBody(10_000, { pixKey: 'cedo@example.com' }))).body.data;
    const op = await operator(live.app);
    const queue = await call(live.app, 'GET', '/api/admin/withdrawals', { token: op.token });
    assert.ok(queue.body.data.some((q: { id: string; holdReason: string; holdUntil: string }) => q.id === w.id && q.holdReason === 'NEW_DESTINATION' && q.holdUntil === w.holdUntil));
    const approved = await call(live.app, 'POST', `/api/admin/withdrawals/${w.id}/approve`, { token: op.token });
    assert.equal(approved.status, 200, approved.raw);
    assert.equal(approved.body.data.holdReason, null);
    assert.equal(approved.body.data.holdUntil, null);
    await runPayouts(live, connectors());
    assert.equal((await statusOf(lk, w.id)).status, 'COMPLETED');
  });

  test('development withdrawals are never held nor e-mailed', async () => {
    const m = await merchant(live.app);
    const dk = { key: m.devKey };
    await paidPix(live.app, dk, 50_000);
    const w = (await req(live.app, 'POST', W, dk, wBody(10_000, { pixKey: 'dev-nova@example.com' }))).body.data;
    assert.equal(w.holdReason, null);
    assert.equal(w.holdUntil, null);
    assert.equal((await mails(m.id)).length, 0);
  });
});

describe('PAYOUT_NEW_DESTINATION_HOLD_HOURS', () => {
  test('0 turns the hold (and its e-mail) off; a value outside 0..720 or not a whole number stops the start', async () => {
    const off = await startApp({ env: { PAYMENT_PROVIDER: 'sandbox', PAYOUT_PROVIDER: 'sandbox', PAYOUT_REVIEW_ABOVE_CENTS: '0', PAYOUT_NEW_DESTINATION_HOLD_HOURS: '0' } });
    try {
      const m = await merchant(off.app, { live: true });
      const lk = { key: m.liveKey! };
      await liveFunds(off, lk, 50_000);
      const w = (await req(off.app, 'POST', W, lk, wBody(10_000, { pixKey: 'sem-espera@example.com' }))).body.data;
      assert.equal(w.holdReason, null);
      const queued = await off.database.db.selectFrom('emails').select('id').where('user_id', '=', m.id).where('template', '=', 'withdrawal_new_destination').execute();
      assert.equal(queued.length, 0);
    } finally {
      await off.close();
    }
    assert.equal(testConfig({}).payouts.review.newDestinationHours, 24);
    assert.equal(testConfig({ PAYOUT_NEW_DESTINATION_HOLD_HOURS: '2' }).payouts.review.newDestinationHours, 2);
    assert.throws(() => testConfig({ PAYOUT_NEW_DESTINATION_HOLD_HOURS: '721' }), /PAYOUT_NEW_DESTINATION_HOLD_HOURS/);
    assert.throws(() => testConfig({ PAYOUT_NEW_DESTINATION_HOLD_HOURS: '1.5' }), /PAYOUT_NEW_DESTINATION_HOLD_HOURS/);
  });
});
