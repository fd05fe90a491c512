// Splits: one sale's money shared with other wallets in its own journal, reversed in proportion by
// refunds and chargebacks; who may receive; what each side sees.
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { settleDue } from '../src/modules/transactions/service.ts';
import { call, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { pixFee, splitKit, T, type Recipient } from './splits-kit.ts';
import { createAccount } from './accounts-kit.ts';

let ctx: TestContext;
let kit: ReturnType<typeof splitKit>;
let seller: Merchant;
let a: Recipient;
let b: Recipient;
let c: Recipient;

before(async () => {
  ctx = await startApp();
  kit = splitKit(ctx);
  seller = await merchant(ctx.app);
  [a, b, c] = [await kit.partnerOf(seller), await kit.partnerOf(seller), await kit.partnerOf(seller)];
});
after(async () => { if (process.env.SHOW_LOGS) console.log(ctx.logs.filter((l) => l.includes("\"level\":50")).join("\n")); await ctx.close(); });

describe('a PIX sale split three ways', () => {
  it('credits each recipient its share in the sale\'s journal and keeps the rest with the seller', async () => {
    const before = { seller: await kit.balance(seller), a: await kit.balance(a), b: await kit.balance(b), c: await kit.balance(c) };
    const split = [
      { walletId: a.walletId, percentageBp: 2000 },
      { walletId: b.walletId, fixedCents: 1500 },
      { walletId: c.walletId, percentageBp: 1000, basis: 'GROSS', chargeFees: true },
    ];
    const id = await kit.paid(seller.devKey, { split });
    const shown = await call(ctx.app, 'GET', `${T}/${id}`, { key: seller.devKey });
    assert.deepEqual(shown.body.transaction.split, split);
    const fee = pixFee(10_000);
    const net = 10_000 - fee;
    const shareA = Math.floor((net * 2000) / 10_000);
    const shareC = 1000 - Math.floor((fee * 1000) / 10_000);
    assert.deepEqual((await kit.shares(id)).map((s) => [s.recipient_id, s.amount_cents, s.account]), [
      [a.id, shareA, 'available'],
      [b.id, 1500, 'available'],
      [c.id, shareC, 'available'],
    ]);
    assert.equal((await kit.balance(a)).available - before.a.available, shareA);
    assert.equal((await kit.balance(b)).available - before.b.available, 1500);
    assert.equal((await kit.balance(c)).available - before.c.available, shareC);
    assert.equal((await kit.balance(seller)).available - before.seller.available, net - shareA - 1500 - shareC);
    const [received] = await kit.events(a, 'transaction.split_received');
    assert.equal(received.data.transactionId, id);
    assert.equal(received.data.amountCents, shareA);
    assert.deepEqual(received.data.seller, { walletId: await kit.walletOf(seller), name: 'Loja Teste' });
    assert.ok(!JSON.stringify(received.data).includes('Joana'), 'a share never carries the shopper');
    await assertLedgerBalanced(ctx.database.db);
  });

  it('takes the shares back in proportion on a partial refund, and the rest on the full refund', async () => {
    const id = await kit.paid(seller.devKey, { split: [{ walletId: a.walletId, percentageBp: 5000 }] });
    const [share] = await kit.shares(id);
    const start = await kit.balance(a);
    await kit.refund(seller.devKey, id, 2_500);
    const quarter = Math.floor((share.amount_cents * 2_500) / 10_000);
    assert.equal((await kit.balance(a)).available, start.available - quarter);
    assert.deepEqual((await kit.shares(id)).map((s) => [s.reversed_cents, s.status]), [[quarter, 'PARTIALLY_REVERSED']]);
    await kit.refund(seller.devKey, id);
    assert.equal((await kit.balance(a)).available, start.available - share.amount_cents);
    assert.deepEqual((await kit.shares(id)).map((s) => [s.reversed_cents, s.status]), [[share.amount_cents, 'REVERSED']]);
    const reversed = await kit.events(a, 'transaction.split_reversed');
    assert.deepEqual(reversed.filter((e) => e.data.transactionId === id).map((e) => e.data.reversedCents), [quarter, share.amount_cents]);
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('a card sale in instalments', () => {
  it("lands each share in the recipient's receivable, settled instalment by instalment", async () => {
    const r = await kit.partnerOf(seller);
    const id = await kit.paid(seller.devKey, { ...kit.cardSale(3), split: [{ walletId: r.walletId, percentageBp: 3000 }] });
    const [share] = await kit.shares(id);
    assert.equal(share.account, 'receivable');
    assert.deepEqual(await kit.balance(r), { available: 0, receivable: share.amount_cents });
    const rows = await ctx.database.db.selectFrom('receivables').select(['installment_number', 'amount_cents', 'settle_at']).where('user_id', '=', r.id).orderBy('installment_number').execute();
    assert.equal(rows.length, 3);
    assert.equal(rows.reduce((n, x) => n + x.amount_cents, 0), share.amount_cents);
    await settleDue(ctx.app.deps.transactions, new Date(rows[0].settle_at.getTime() + 1000), 100);
    assert.deepEqual(await kit.balance(r), { available: rows[0].amount_cents, receivable: share.amount_cents - rows[0].amount_cents });
    // A partial refund takes the recipient's part from its unsettled instalments first.
    const charged = (await kit.refund(seller.devKey, id, 5_000)).chargedCents as number;
    const after = await kit.balance(r);
    assert.equal(after.available, rows[0].amount_cents);
    assert.equal(after.receivable, share.amount_cents - rows[0].amount_cents - Math.floor((share.amount_cents * 5_000) / charged));
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('a recipient whose balance no longer covers its share', () => {
  it('goes negative on the refund and pays it back from its next share first', async () => {
    const r = await kit.partnerOf(seller);
    const id = await kit.paid(seller.devKey, { split: [{ walletId: r.walletId, fixedCents: 4_000 }] });
    const w = await call(ctx.app, 'POST', '/api/withdraws', { key: r.devKey, body: { amountCents: 4_000, pixKeyType: 'email', pixKey: 'parceiro@example.com' } });
    assert.equal(w.status, 201, w.raw);
    assert.equal((await kit.balance(r)).available, 0);
    await kit.refund(seller.devKey, id);
    assert.equal((await kit.balance(r)).available, -4_000);
    const refused = await call(ctx.app, 'POST', '/api/withdraws', { key: r.devKey, body: { amountCents: 100, pixKeyType: 'email', pixKey: 'parceiro@example.com' } });
    assert.equal(refused.status, 400, refused.raw);
    await kit.paid(seller.devKey, { split: [{ walletId: r.walletId, fixedCents: 5_000 }] });
    assert.equal((await kit.balance(r)).available, 1_000);
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('a platform and its sub-accounts', () => {
  test("a seller's sale pays its platform a commission; the platform's sale pays its sellers; no other platform may name them", async () => {
    const platform = await merchant(ctx.app);
    const platformWallet = await kit.walletOf(platform);
    const carla = await createAccount(ctx, platform.devKey, { createApiKey: true });
    const bruno = await createAccount(ctx, platform.devKey);
    const sellerKey = carla.apiKey!.key;
    // The seller's sale, 10% of its net to the platform.
    const id = await kit.paid(sellerKey, { split: [{ walletId: platformWallet, percentageBp: 1000 }] });
    const net = 10_000 - pixFee(10_000);
    assert.deepEqual((await kit.shares(id)).map((s) => [s.recipient_id, s.amount_cents]), [[platform.id, Math.floor(net / 10)]]);
    // The platform's sale, shared by its two sellers.
    const kitSale = await kit.paid(platform.devKey, { amountCents: 20_000, split: [{ walletId: carla.account.walletId, percentageBp: 4500 }, { walletId: bruno.account.walletId, fixedCents: 8_000 }] });
    assert.deepEqual((await kit.shares(kitSale)).map((s) => [s.recipient_id, s.amount_cents]), [
      [carla.account.id, Math.floor(((20_000 - pixFee(20_000)) * 4500) / 10_000)],
      [bruno.account.id, 8_000],
    ]);
    const other = await merchant(ctx.app);
    const refused = await kit.create(other.devKey, { split: [{ walletId: carla.account.walletId, percentageBp: 100 }] });
    assert.equal(refused.body.code, 'SPLIT_RECIPIENT_NOT_ALLOWED', refused.raw);
    // A seller may not name its platform's other sellers (they agreed with the platform, not with it).
    const sideways = await kit.create(sellerKey, { split: [{ walletId: bruno.account.walletId, percentageBp: 100 }] });
    assert.equal(sideways.body.code, 'SPLIT_RECIPIENT_NOT_ALLOWED', sideways.raw);
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('who may receive', () => {
  it('refuses a wallet that did not agree, the seller\'s own and an unknown one, and creates nothing', async () => {
    const stranger = await merchant(ctx.app);
    const count = async () => Number((await ctx.database.db.selectFrom('transactions').select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', seller.id).executeTakeFirstOrThrow()).n);
    const n = await count();
    for (const walletId of [await kit.walletOf(stranger), await kit.walletOf(seller), crypto.randomUUID()]) {
      const res = await kit.create(seller.devKey, { split: [{ walletId: a.walletId, percentageBp: 100 }, { walletId, percentageBp: 100 }] });
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.code, 'SPLIT_RECIPIENT_NOT_ALLOWED');
      assert.equal(res.body.errors[0].field, 'split.1.walletId');
    }
    assert.equal(await count(), n);
  });

  it('refuses rules that do not add up', async () => {
    const cases: [unknown, string, string][] = [
      [[{ walletId: a.walletId, fixedCents: 100, percentageBp: 100 }], 'VALIDATION_ERROR', 'split.0'],
      [[{ walletId: a.walletId }], 'VALIDATION_ERROR', 'split.0'],
      [[{ walletId: a.walletId, percentageBp: 6000 }, { walletId: b.walletId, percentageBp: 5000 }], 'VALIDATION_ERROR', 'split'],
      [[{ walletId: a.walletId, percentageBp: 100 }, { walletId: a.walletId, fixedCents: 100 }], 'VALIDATION_ERROR', 'split.1.walletId'],
      [[{ walletId: a.walletId, percentageBp: 100, chargeFees: true }], 'VALIDATION_ERROR', 'split.0.chargeFees'],
      [[{ walletId: a.walletId, fixedCents: 9_950 }], 'SPLIT_EXCEEDS_AMOUNT', 'split'],
      [[{ walletId: a.walletId, percentageBp: 9_000 }, { walletId: b.walletId, fixedCents: 1_000 }], 'SPLIT_EXCEEDS_AMOUNT', 'split'],
    ];
    for (const [split, code, field] of cases) {
      const res = await kit.create(seller.devKey, { split });
      assert.equal(res.status, 400, `${JSON.stringify(split)}: ${res.raw}`);
      assert.equal(res.body.code, code, res.raw);
      assert.equal(res.body.errors[0].field, field, res.raw);
    }
    const eleven = Array.from({ length: 11 }, () => ({ walletId: a.walletId, percentageBp: 1 }));
    assert.equal((await kit.create(seller.devKey, { split: eleven })).status, 400);
  });
});

describe('what each side sees', () => {
  it('lists the shares received and sent, a sale\'s shares to its seller only, and the summary', async () => {
    const id = await kit.paid(seller.devKey, { split: [{ walletId: a.walletId, fixedCents: 700 }] });
    const received = await call(ctx.app, 'GET', '/api/v1/splits?limit=100', { key: a.devKey });
    assert.equal(received.status, 200, received.raw);
    const mine = received.body.data.find((s: { transactionId: string }) => s.transactionId === id);
    assert.equal(mine.amountCents, 700);
    assert.equal(mine.seller.walletId, await kit.walletOf(seller));
    assert.ok(!/clientDocument|client/.test(JSON.stringify(mine)), 'no shopper data');
    const sent = await call(ctx.app, 'GET', `/api/v1/splits?role=sent&walletId=${a.walletId}&limit=100`, { key: seller.devKey });
    assert.ok(sent.body.data.some((s: { transactionId: string }) => s.transactionId === id));
    assert.ok(sent.body.data.every((s: { recipient: { walletId: string } }) => s.recipient.walletId === a.walletId));
    assert.equal((await call(ctx.app, 'GET', `${T}/${id}/splits`, { key: seller.devKey })).body.data[0].amountCents, 700);
    assert.equal((await call(ctx.app, 'GET', `${T}/${id}/splits`, { key: a.devKey })).status, 404);
    const sum = await call(ctx.app, 'GET', '/api/v1/splits/summary', { key: seller.devKey });
    assert.equal(sum.status, 200, sum.raw);
    const s = sum.body;
    assert.equal(s.netCents, s.grossCents - s.refundedCents - s.feeCents - s.splitCents);
    assert.equal(s.splitCents, s.recipients.reduce((n: number, r: { amountCents: number; reversedCents: number }) => n + r.amountCents - r.reversedCents, 0));
    assert.ok(s.recipients.some((r: { walletId: string }) => r.walletId === a.walletId));
    const bal = await kit.balance(seller);
    assert.ok(bal.available >= 0);
  });
});
