// Public checkout of payment links: cart abandonment and its recovery.
// PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, cpf, type Res } from './helpers.ts';
import { specBody } from './envelope.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert429 } from './kit/assert.ts';
import { checkoutApi, order } from './checkout-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);
const { link, checkout, pay } = checkoutApi(ctx, m);

describe('cart abandonment', () => {
  const abandon = (slug: string, body: Record<string, unknown>, ip = '10.9.9.9') =>
    ctx.app.inject({ method: 'POST', url: `/api/payment-links/public/slug/${slug}/cart-abandonment`, payload: body, remoteAddress: ip }).then((r) => ({ status: r.statusCode, body: specBody('cart-abandonment', r.statusCode, JSON.parse(r.body)) as any, headers: r.headers as Res['headers'], raw: r.body }));
  const list = (q = '') => call(ctx.app, 'GET', `/api/v1/cart-abandonments${q}`, { key: m.devKey });

  test('201 with an id; one open abandonment per link and e-mail; validation', async () => {
    const l = await link();
    const a = await abandon(l.slug, { clientEmail: 'Lead@Example.com' });
    assert.equal(a.status, 201, a.raw);
    const doc = cpf();
    const again = await abandon(l.slug, { clientEmail: 'lead@example.com', clientName: 'Lia', clientDocument: doc, clientPhone: '11912345678' });
    assert.equal(again.body.cartAbandonment.id, a.body.cartAbandonment.id);
    const rows = (await list(`?paymentLinkId=${l.id}`)).body.cartAbandonments;
    assert.equal(rows.length, 1);
    assert.equal(rows[0].clientEmail, 'lead@example.com');
    assert.equal(rows[0].clientName, 'Lia');
    assert.equal(rows[0].clientDocument, doc);
    assert.equal(rows[0].recovered, false);
    assert.equal((await abandon(l.slug, { clientName: 'Sem e-mail' })).status, 400);
    assert.equal((await abandon(l.slug, { clientEmail: 'x@example.com', clientDocument: '11111111111' })).status, 400);
    assert.equal((await abandon('no-such-link', { clientEmail: 'x@example.com' })).status, 404);
    assert.equal((await abandon((await link({ status: 'INACTIVE' })).slug, { clientEmail: 'x@example.com' })).status, 400);
    // Other merchants do not see it.
    const theirs = await call(ctx.app, 'GET', '/api/v1/cart-abandonments', { key: other.devKey });
    assert.ok(!theirs.body.cartAbandonments.some((r: { id: string }) => r.id === a.body.cartAbandonment.id));
  });

  test('recover by id or e-mail; paying the link recovers it by itself', async () => {
    const l = await link();
    const a = (await abandon(l.slug, { clientEmail: 'um@example.com' })).body.cartAbandonment.id;
    await abandon(l.slug, { clientEmail: 'dois@example.com' });
    const doc = cpf();
    await abandon(l.slug, { clientEmail: 'tres@example.com', clientDocument: doc });
    const recover = (body: unknown) => call(ctx.app, 'POST', `/api/payment-links/public/slug/${l.slug}/cart-abandonment/recover`, { body });
    const noted = { message: 'Cart abandonment recovery noted' };
    // The same answer whether something matched or not: the route reveals nothing about an e-mail.
    for (const body of [{ id: a }, { clientEmail: 'DOIS@example.com' }, { clientEmail: 'nobody@example.com' }, { id: a }, { id: '0190f0f0-0000-7000-8000-000000000000' }]) {
      const res = await recover(body);
      assert.equal(res.status, 200, res.raw);
      assert.deepEqual(res.body, noted, JSON.stringify(body));
    }
    const open = (await list(`?paymentLinkId=${l.id}&recovered=false`)).body.cartAbandonments.map((r: { clientEmail: string }) => r.clientEmail);
    assert.deepEqual(open, ['tres@example.com'], 'by id and by e-mail both recovered');
    assert.equal((await recover({})).status, 400);
    // The third customer pays (another e-mail, same document): a checkout alone does not recover, payment does.
    const co = await checkout(l.slug, order({ clientEmail: 'outro@example.com', clientDocument: doc }));
    let rows = (await list(`?paymentLinkId=${l.id}&recovered=false`)).body.cartAbandonments;
    assert.equal(rows.length, 1);
    await pay(co.body.transaction.id);
    rows = (await list(`?paymentLinkId=${l.id}`)).body.cartAbandonments;
    assert.ok(rows.every((r: { recovered: boolean }) => r.recovered));
    const third = rows.find((r: { clientEmail: string }) => r.clientEmail === 'tres@example.com');
    assert.equal(third.transactionId, co.body.transaction.id);
    assert.ok(third.recoveredAt);
    // After recovery the same e-mail can abandon again (a new open abandonment).
    const fresh = await abandon(l.slug, { clientEmail: 'um@example.com' });
    assert.notEqual(fresh.body.cartAbandonment.id, a);
  });

  test('limited per IP', async () => {
    const l = await link();
    const ip = `10.8.${Math.floor(Math.random() * 250)}.1`;
    for (let i = 0; i < 29; i++) assert.equal((await abandon(l.slug, { clientEmail: `c${i}@example.com` }, ip)).status, 201);
    assert.equal((await abandon(l.slug, {}, ip)).status, 400, 'a malformed report is the 30th');
    assert429(await abandon(l.slug, { clientEmail: 'c31@example.com' }, ip));
    assert429(await abandon(l.slug, {}, ip));
  });
});
