// Transactions and money: refunds, the ledger and balance, events, and the expiry and settlement jobs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { expireDue, settleDue } from '../src/modules/transactions/service.ts';
import { call, cpf, merchant, type Merchant, type Res } from './helpers.ts';
import { assert400, assertMessageOnly } from './kit/assert.ts';
import { DAY, assertLedgerConsistent, balance, boletoFee, card, cardFee, count, create, ctx, eventsFor, feeBack, get, pay, pixFee, receivables, refund, simulate, typesOf, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

describe('refunds', () => {
  let r: Merchant;
  before(async () => {
    r = await merchant(ctx.app);
    // A cushion of available balance.
    await pay(r.devKey, (await create(r.devKey, { amountCents: 100000 })).id);
  });

  test('partial -> PARTIALLY_REFUNDED with refundedCents; the rest -> REFUNDED; each debits the available balance less the fee it returns', async () => {
    const t = await pay(r.devKey, (await create(r.devKey, { amountCents: 10000 })).id);
    const b0 = await balance(r.devKey);
    const first = await refund(r.devKey, t.id, 4000);
    assert.equal(first.status, 200, first.raw);
    assert.equal(first.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal(first.body.transaction.refundedCents, 4000);
    assert.ok(first.body.transaction.refundedAt);
    assert.equal(feeBack(t, 0, 4000), 39); // 0.99% of R$ 40,00, rounded down
    assert.equal((await balance(r.devKey)).available, b0.available - (4000 - feeBack(t, 0, 4000)));
    const second = await refund(r.devKey, t.id, 1000);
    assert.equal(second.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal(second.body.transaction.refundedCents, 5000);
    const rest = await refund(r.devKey, t.id, 5000);
    assert.equal(rest.status, 200, rest.raw);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.equal(rest.body.transaction.refundedCents, 10000);
    // Three refunds returned exactly the sale's fee: the merchant gave back its net, no more.
    assert.equal(feeBack(t, 0, 4000) + feeBack(t, 4000, 1000) + feeBack(t, 5000, 5000), t.feeCents);
    assert.equal((await balance(r.devKey)).available, b0.available - t.netAmountCents);
    // Each refund listed on the transaction, oldest first, made at once by the sandbox.
    const listed = (await get(r.devKey, t.id)).body.transaction.refunds;
    assert.deepEqual(listed.map((x: { amountCents: number; status: string; failureReason: string | null }) => [x.amountCents, x.status, x.failureReason]), [[4000, 'SUCCEEDED', null], [1000, 'SUCCEEDED', null], [5000, 'SUCCEEDED', null]]);
    assert.deepEqual(rest.body.transaction.refunds, listed);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/transactions?limit=1', { key: r.devKey })).body.transactions[0].refunds, undefined, 'not on lists');
    assert400(await refund(r.devKey, t.id, 1), 'INVALID_STATE_TRANSITION');
    assert400(await refund(r.devKey, t.id), 'INVALID_STATE_TRANSITION');
    // Three transaction.refunded; transaction.updated only where the status changed (PAID ->
    // PARTIALLY_REFUNDED -> REFUNDED), not for the second partial refund, and each says from what.
    const events = (await eventsFor(t.id)).filter((e) => (e.type === 'transaction.refunded' || e.type === 'transaction.updated') && e.data.refundedCents > 0);
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.data.status} ${e.data.refundedCents} ${e.data.previousStatus ?? '-'}`).sort(),
      [
        'transaction.refunded PARTIALLY_REFUNDED 4000 PAID',
        'transaction.refunded PARTIALLY_REFUNDED 5000 -',
        'transaction.refunded REFUNDED 10000 PARTIALLY_REFUNDED',
        'transaction.updated PARTIALLY_REFUNDED 4000 PAID',
        'transaction.updated REFUNDED 10000 PARTIALLY_REFUNDED',
      ],
    );
    await assertLedgerConsistent();
  });

  test('more than what is left -> 400 REFUND_EXCEEDS_PAID on amountCents, nothing changes', async () => {
    const t = await pay(r.devKey, (await create(r.devKey, { amountCents: 3000 })).id);
    assert400(await refund(r.devKey, t.id, 3001), 'REFUND_EXCEEDS_PAID', ['amountCents']);
    assert.equal((await refund(r.devKey, t.id, 2000)).body.transaction.status, 'PARTIALLY_REFUNDED');
    const b = await balance(r.devKey);
    assert400(await refund(r.devKey, t.id, 1001), 'REFUND_EXCEEDS_PAID', ['amountCents']);
    const after = (await get(r.devKey, t.id)).body.transaction;
    assert.equal(after.status, 'PARTIALLY_REFUNDED');
    assert.equal(after.refundedCents, 2000);
    assert.deepEqual(await balance(r.devKey), b);
    assert400(await refund(r.devKey, t.id, 0), 'VALIDATION_ERROR', ['amountCents']);
  });

  test('omitted amount refunds the whole remainder', async () => {
    const t = await pay(r.devKey, (await create(r.devKey, { amountCents: 7000, paymentMethod: 'BOLETO' })).id);
    const whole = await refund(r.devKey, t.id);
    assert.equal(whole.status, 200, whole.raw);
    assert.equal(whole.body.transaction.status, 'REFUNDED');
    assert.equal(whole.body.transaction.refundedCents, 7000);
    const u = await pay(r.devKey, (await create(r.devKey, { amountCents: 7000 })).id);
    await refund(r.devKey, u.id, 2500);
    const rest = await refund(r.devKey, u.id);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.equal(rest.body.transaction.refundedCents, 7000);
  });

  test('PENDING, FAILED and EXPIRED transactions cannot be refunded: 400 INVALID_STATE_TRANSITION', async () => {
    const pending = await create(r.devKey);
    const failed = await create(r.devKey, { paymentMethod: 'CARD', card: card('4000000000000002') });
    const expired = await create(r.devKey);
    await simulate(r.devKey, expired.id, 'EXPIRED');
    for (const t of [pending, failed, expired]) {
      assert400(await refund(r.devKey, t.id, 100), 'INVALID_STATE_TRANSITION');
      assert400(await refund(r.devKey, t.id), 'INVALID_STATE_TRANSITION');
      assert.equal((await get(r.devKey, t.id)).body.transaction.refundedCents, 0);
    }
    assertMessageOnly(await refund(r.devKey, '01900000-0000-7000-8000-000000000000'), 404);
  });

  test('a card refund first cancels unsettled receivables (latest instalment first), then debits the available balance', async () => {
    const t = await create(r.devKey, { paymentMethod: 'CARD', amountCents: 30000, installments: 3, card: card() });
    const rs = await receivables(t.id);
    assert.equal(rs.length, 3);
    const b0 = await balance(r.devKey);
    // A refund whose merchant part (the amount less the fee it returns) is the last instalment and 100 cents more.
    let part = rs[2].amount + 100;
    while (part - feeBack(t, 0, part) < rs[2].amount + 100) part++;
    const share = part - feeBack(t, 0, part);
    assert.equal(share, rs[2].amount + 100);
    const res = await refund(r.devKey, t.id, part);
    assert.equal(res.body.transaction.status, 'PARTIALLY_REFUNDED');
    const after = await receivables(t.id);
    assert.deepEqual(
      after.map((x) => [x.status, x.amount]),
      [
        ['PENDING', rs[0].amount],
        ['PENDING', rs[1].amount - 100],
        ['CANCELLED', 0],
      ],
    );
    const b1 = await balance(r.devKey);
    assert.equal(b1.receivable, b0.receivable - share);
    assert.equal(b1.available, b0.available);
    // The rest: every receivable goes; with the whole fee returned, nothing comes from available.
    const rest = await refund(r.devKey, t.id);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.deepEqual((await receivables(t.id)).map((x) => [x.status, x.amount]), [['CANCELLED', 0], ['CANCELLED', 0], ['CANCELLED', 0]]);
    const b2 = await balance(r.devKey);
    assert.equal(b2.receivable, b0.receivable - t.netAmountCents);
    assert.equal(b2.available, b0.available);
    await assertLedgerConsistent();
  });

  test('the receivable balance day by day (GET /api/v1/balance/releases): each instalment on its São Paulo day, less what a refund took', async () => {
    const seller = await merchant(ctx.app);
    const empty = await call(ctx.app, 'GET', '/api/v1/balance/releases', { key: seller.devKey });
    assert.equal(empty.status, 200, empty.raw);
    assert.deepEqual(empty.body, { message: 'OK', releases: [], totalCents: 0 });
    const t = await create(seller.devKey, { paymentMethod: 'CARD', amountCents: 30000, installments: 3, card: card() });
    const rs = await receivables(t.id);
    const spDay = (ms: number) => new Date(ms - 3 * 3_600_000).toISOString().slice(0, 10);
    const releases = async (query = '') => (await call(ctx.app, 'GET', `/api/v1/balance/releases${query}`, { key: seller.devKey })).body;
    assert.deepEqual(await releases(), {
      message: 'OK',
      releases: rs.map((x) => ({ date: spDay(x.settleAt), amountCents: x.amount, instalments: 1 })),
      totalCents: t.netAmountCents,
    });
    assert.equal((await balance(seller.devKey)).receivable, t.netAmountCents);
    // limit counts days; the total still covers every release. The dashboard token reads it too.
    const first = await releases('?limit=1');
    assert.deepEqual(first.releases, [{ date: spDay(rs[0].settleAt), amountCents: rs[0].amount, instalments: 1 }]);
    assert.equal(first.totalCents, t.netAmountCents);
    assert.deepEqual((await call(ctx.app, 'GET', '/api/v1/balance/releases', { token: seller.token, headers: { 'X-Environment': 'development' } })).body, await releases());
    // A refund takes the latest instalment first: that day goes.
    const share = rs[2].amount;
    let part = share;
    while (part - feeBack(t, 0, part) < share) part++;
    assert.equal((await refund(seller.devKey, t.id, part)).body.transaction.status, 'PARTIALLY_REFUNDED');
    const after = await releases();
    assert.deepEqual(after.releases.map((x: { date: string }) => x.date), [spDay(rs[0].settleAt), spDay(rs[1].settleAt)]);
    assert.equal(after.totalCents, (await balance(seller.devKey)).receivable);
    // Another merchant sees none of it; bad limits are 400.
    assert.deepEqual((await call(ctx.app, 'GET', '/api/v1/balance/releases', { key: (await merchant(ctx.app)).devKey })).body.totalCents, 0);
    assert400(await call(ctx.app, 'GET', '/api/v1/balance/releases?limit=0', { key: seller.devKey }), 'VALIDATION_ERROR');
    await assertLedgerConsistent();
  });

  test('a sale is refunded in full from its own net: R$ 79,90 by PIX leaves R$ 79,11, and refunding R$ 79,90 empties it', async () => {
    const seller = await merchant(ctx.app);
    const t = await pay(seller.devKey, (await create(seller.devKey, { amountCents: 7990 })).id);
    assert.equal((await balance(seller.devKey)).available, 7911);
    const res = await refund(seller.devKey, t.id);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'REFUNDED');
    assert.equal((await balance(seller.devKey)).available, 0);
    await assertLedgerConsistent();
  });

  test('a refund the available balance cannot cover (the net was withdrawn) -> 400 INSUFFICIENT_BALANCE and nothing moves', async () => {
    const poor = await merchant(ctx.app);
    const t = await pay(poor.devKey, (await create(poor.devKey, { amountCents: 10000 })).id);
    assert.equal((await balance(poor.devKey)).available, 10000 - pixFee(10000));
    const w = await call(ctx.app, 'POST', '/api/withdraws', { key: poor.devKey, body: { amountCents: 9000, pixKeyType: 'email', pixKey: 'loja@example.com' } });
    assert.equal(w.status, 201, w.raw);
    const b = await balance(poor.devKey);
    assert.equal(b.available, 10000 - pixFee(10000) - 9000);
    const journals = await count('ledger_journals');
    assert400(await refund(poor.devKey, t.id), 'INSUFFICIENT_BALANCE');
    assert.equal((await get(poor.devKey, t.id)).body.transaction.status, 'PAID');
    assert.deepEqual(await balance(poor.devKey), b);
    assert.equal(await count('ledger_journals'), journals);
    // What is left can be given back.
    const amount = b.available + feeBack(t, 0, b.available);
    assert.equal(amount - feeBack(t, 0, amount), b.available);
    assert.equal((await refund(poor.devKey, t.id, amount)).body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal((await balance(poor.devKey)).available, 0);
  });
});

describe('ledger and balance', () => {
  test('PIX and boleto credit available net of fees, cards credit receivable, refunds debit; entries walk by cursor; the books balance', async () => {
    const l = await merchant(ctx.app);
    assert.deepEqual(await balance(l.devKey), { available: 0, receivable: 0, reserved: 0 });
    const bal = await call(ctx.app, 'GET', '/api/v1/balance', { key: l.devKey });
    // The spec's names, and the origin's pendingCents / totalCents beside them (docs/compatibility.md).
    assert.deepEqual(Object.keys(bal.body).sort(), ['availableCents', 'message', 'pendingCents', 'receivableCents', 'reservedCents', 'totalCents', 'walletId']);

    await create(l.devKey, { amountCents: 99999 }); // pending: moves nothing
    assert.deepEqual(await balance(l.devKey), { available: 0, receivable: 0, reserved: 0 });

    const pix = await pay(l.devKey, (await create(l.devKey, { amountCents: 12345 })).id);
    let available = 12345 - pixFee(12345);
    assert.deepEqual(await balance(l.devKey), { available, receivable: 0, reserved: 0 });

    await pay(l.devKey, (await create(l.devKey, { amountCents: 5000, paymentMethod: 'BOLETO' })).id);
    available += 5000 - boletoFee(5000);
    assert.deepEqual(await balance(l.devKey), { available, receivable: 0, reserved: 0 });

    const c = await create(l.devKey, { amountCents: 20000, paymentMethod: 'CARD', card: card() });
    const receivable = 20000 - cardFee(20000);
    assert.deepEqual(await balance(l.devKey), { available, receivable, reserved: 0 });
    assert.equal(c.netAmountCents, receivable);

    await pay(l.devKey, (await create(l.devKey, { amountCents: 3000, paymentMethod: 'CARD' })).id); // hosted-page card paid later
    const receivable2 = receivable + 3000 - cardFee(3000);
    assert.deepEqual(await balance(l.devKey), { available, receivable: receivable2, reserved: 0 });

    await refund(l.devKey, pix.id, 1000);
    available -= 1000 - feeBack(pix, 0, 1000);
    assert.deepEqual(await balance(l.devKey), { available, receivable: receivable2, reserved: 0 });

    // Walk the entries two by two: newest first, each once, summing to the balances.
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Res = await call(ctx.app, 'GET', `/api/v1/balance/entries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: l.devKey });
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.body.pagination.limit, 2);
      assert.equal(res.body.pagination.cursor, cursor);
      assert.ok(res.body.entries.length <= 2);
      seen.push(...res.body.entries);
      cursor = res.body.pagination.nextCursor;
      assert.equal(res.body.pagination.hasMore, cursor !== null);
      pages++;
    } while (cursor && pages < 20);
    assert.equal(seen.length, 5); // pix, boleto, card, card, refund: one merchant-account entry each
    assert.equal(new Set(seen.map((e) => e.id)).size, seen.length);
    for (let i = 1; i < seen.length; i++) assert.ok(Date.parse(seen[i - 1].createdAt) >= Date.parse(seen[i].createdAt), 'newest first');
    const sum = (account: string) => seen.filter((e) => e.account === account).reduce((s, e) => s + e.amountCents, 0);
    assert.equal(sum('available'), available);
    assert.equal(sum('receivable'), receivable2);
    assert.deepEqual(seen.map((e) => e.kind).sort(), ['payment', 'payment', 'payment', 'payment', 'refund']);
    const refundEntry = seen.find((e) => e.kind === 'refund');
    assert.equal(refundEntry.amountCents, -(1000 - feeBack(pix, 0, 1000)));
    assert.equal(refundEntry.referenceId, pix.id);
    assert.equal(refundEntry.balanceAfterCents, available); // the refund was the last movement of available
    assert400(await call(ctx.app, 'GET', `/api/v1/balance/entries?cursor=${encodeURIComponent('x' + seen[0].id)}`, { key: l.devKey }), 'INVALID_CURSOR');
    // Oldest first, walked the same way: the same entries in the opposite order.
    const asc: any[] = [];
    cursor = null;
    do {
      const res: Res = await call(ctx.app, 'GET', `/api/v1/balance/entries?limit=2&orderDirection=asc${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: l.devKey });
      assert.equal(res.status, 200, res.raw);
      asc.push(...res.body.entries);
      cursor = res.body.pagination.nextCursor;
    } while (cursor && asc.length < 20);
    assert.deepEqual(asc.map((e) => e.id), seen.map((e) => e.id).reverse());
    await assertLedgerConsistent();
  });
});

describe('events', () => {
  test('created on create; updated + completed + balance.updated on PAID; failed on FAILED; refunded on refund', async () => {
    const e = await merchant(ctx.app);
    const doc = cpf();
    const t = await create(e.devKey, { amountCents: 4321, clientDocument: doc, clientEmail: 'eva@example.com' });
    let events = await eventsFor(t.id);
    assert.deepEqual(typesOf(events), ['transaction.created']);
    assert.equal(events[0].data.status, 'PENDING');
    assert.equal(events[0].userId, e.id);
    assert.equal(events[0].livemode, false);

    const paid = await pay(e.devKey, t.id);
    events = await eventsFor(t.id);
    assert.deepEqual(typesOf(events), ['balance.updated', 'transaction.completed', 'transaction.created', 'transaction.updated']);
    const completed = events.find((x) => x.type === 'transaction.completed')!.data;
    assert.equal(completed.id, t.id);
    assert.equal(completed.status, 'PAID');
    assert.equal(completed.amountCents, 4321);
    assert.equal(completed.paymentMethod, 'PIX');
    assert.equal(completed.clientEmail, 'eva@example.com');
    assert.equal(Date.parse(completed.createdAt), Date.parse(t.createdAt));
    assert.equal(Date.parse(completed.paidAt), Date.parse(paid.paidAt));
    assert.equal(typeof completed.clientDocument, 'string');
    assert.notEqual(completed.clientDocument, doc);
    assert.ok(completed.clientDocument.includes('*'));
    for (const ev of events) {
      const text = JSON.stringify(ev.data);
      assert.ok(!text.includes(doc), `${ev.type} carries the full document`);
      assert.ok(!text.includes(`${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`), `${ev.type} carries the formatted document`);
    }
    assert.equal(events.find((x) => x.type === 'transaction.updated')!.data.status, 'PAID');
    const balanceEvent = events.find((x) => x.type === 'balance.updated')!.data;
    assert.equal(balanceEvent.availableCents, 4321 - pixFee(4321));

    await refund(e.devKey, t.id, 1000);
    events = await eventsFor(t.id);
    assert.equal(events.filter((x) => x.type === 'transaction.refunded').length, 1);
    assert.equal(events.find((x) => x.type === 'transaction.refunded')!.data.refundedCents, 1000);
    assert.equal(events.filter((x) => x.type === 'balance.updated').length, 2);

    const f = await create(e.devKey, { paymentMethod: 'BOLETO' });
    await simulate(e.devKey, f.id, 'FAILED');
    assert.deepEqual(typesOf(await eventsFor(f.id)), ['transaction.created', 'transaction.failed', 'transaction.updated']);

    const declined = await create(e.devKey, { paymentMethod: 'CARD', card: card('4000000000000002') });
    const de = await eventsFor(declined.id);
    assert.deepEqual(typesOf(de), ['transaction.created', 'transaction.failed', 'transaction.updated']);
    assert.deepEqual(de.find((x) => x.type === 'transaction.failed')!.data.card, { brand: 'VISA', last4: '0002' });

    const approved = await create(e.devKey, { paymentMethod: 'CARD', card: card() });
    assert.deepEqual(typesOf(await eventsFor(approved.id)), ['balance.updated', 'transaction.completed', 'transaction.created', 'transaction.updated']);
  });
});

describe('jobs', () => {
  test('expireDue: PENDING PIX and boleto past expiresAt become EXPIRED with events; card PENDING, paid and not-yet-due untouched', async () => {
    const j = await merchant(ctx.app);
    const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10); // São Paulo (UTC-3)
    const soon = new Date(Date.now() + 90_000).toISOString();
    const pix = await create(j.devKey, { dueDate: soon });
    const boleto = await create(j.devKey, { paymentMethod: 'BOLETO', dueDate: today });
    const cardPending = await create(j.devKey, { paymentMethod: 'CARD' });
    const paid = await pay(j.devKey, (await create(j.devKey, { dueDate: soon })).id);
    const later = await create(j.devKey, { dueDate: new Date(Date.now() + 10 * DAY).toISOString() });
    const laterBoleto = await create(j.devKey, { paymentMethod: 'BOLETO', dueDate: new Date(Date.now() + 5 * DAY - 3 * 3600_000).toISOString().slice(0, 10) });
    assert.equal(Date.parse(boleto.expiresAt), Date.parse(`${today}T23:59:59.999-03:00`));
    const future = new Date(Math.max(Date.parse(`${today}T23:59:59.999-03:00`), Date.now() + 90_000) + 60_000);

    // Not yet due: nothing of this merchant moves.
    while ((await expireDue(ctx.app.deps.transactions, new Date(), 500)) > 0);
    assert.equal((await get(j.devKey, pix.id)).body.transaction.status, 'PENDING');

    let total = 0;
    for (let n: number; (n = await expireDue(ctx.app.deps.transactions, future, 500)) > 0; ) total += n;
    assert.ok(total >= 2);
    const status = async (id: string) => (await get(j.devKey, id)).body.transaction.status;
    assert.equal(await status(pix.id), 'EXPIRED');
    assert.equal(await status(boleto.id), 'EXPIRED');
    assert.equal(await status(cardPending.id), 'PENDING');
    assert.equal(await status(paid.id), 'PAID');
    assert.equal(await status(later.id), 'PENDING');
    assert.equal(await status(laterBoleto.id), 'PENDING');
    for (const t of [pix, boleto]) {
      const events = await eventsFor(t.id);
      assert.deepEqual(typesOf(events), ['transaction.created', 'transaction.updated']);
      const updated = events.find((e) => e.type === 'transaction.updated')!.data;
      assert.equal(updated.status, 'EXPIRED');
      assert.equal(updated.previousStatus, 'PENDING');
    }
    assert.deepEqual(typesOf(await eventsFor(cardPending.id)), ['transaction.created']);
    // Running again changes nothing.
    await expireDue(ctx.app.deps.transactions, future, 500);
    assert.equal((await eventsFor(pix.id)).length, 2);
    assert.deepEqual(await balance(j.devKey), { available: paid.netAmountCents, receivable: 0, reserved: 0 });
    assert400(await simulate(j.devKey, pix.id, 'PAID'), 'INVALID_STATE_TRANSITION');
  });

  test('settleDue: after 31 days the first instalment of a paid card moves from receivable to available; later ones stay', async () => {
    const s = await merchant(ctx.app);
    const t = await create(s.devKey, { paymentMethod: 'CARD', amountCents: 30000, installments: 3, card: card() });
    const rs = await receivables(t.id);
    assert.deepEqual(await balance(s.devKey), { available: 0, receivable: t.netAmountCents, reserved: 0 });
    const settleAll = async (at: Date) => {
      while ((await settleDue(ctx.app.deps.transactions, at, 500)) > 0);
    };
    await settleAll(new Date(Date.now() + 29 * DAY));
    assert.deepEqual((await receivables(t.id)).map((r) => r.status), ['PENDING', 'PENDING', 'PENDING']);

    await settleAll(new Date(Date.now() + 31 * DAY));
    assert.deepEqual((await receivables(t.id)).map((r) => r.status), ['SETTLED', 'PENDING', 'PENDING']);
    assert.deepEqual(await balance(s.devKey), { available: rs[0].amount, receivable: t.netAmountCents - rs[0].amount, reserved: 0 });
    await settleAll(new Date(Date.now() + 31 * DAY));
    assert.deepEqual(await balance(s.devKey), { available: rs[0].amount, receivable: t.netAmountCents - rs[0].amount, reserved: 0 });

    await settleAll(new Date(Date.now() + 61 * DAY));
    assert.deepEqual((await receivables(t.id)).map((r) => r.status), ['SETTLED', 'SETTLED', 'PENDING']);
    assert.deepEqual(await balance(s.devKey), { available: rs[0].amount + rs[1].amount, receivable: rs[2].amount, reserved: 0 });
    const entries = (await call(ctx.app, 'GET', '/api/v1/balance/entries?limit=100', { key: s.devKey })).body.entries;
    assert.equal(entries.filter((e: any) => e.kind === 'settlement').length, 4); // two instalments, each receivable -> available
    await assertLedgerConsistent();
  });

  test('the whole ledger balances after everything above', async () => {
    await assertLedgerConsistent();
  });
});
