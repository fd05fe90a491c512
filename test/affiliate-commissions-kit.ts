// Shared by the affiliate commission test files (affiliate-commissions, -attribution, -renewals): a
// seller's program with an affiliate joined, checkouts through its code, payments, refunds and what
// they leave in the ledger, over the file's app.
import assert from 'node:assert/strict';
import { releaseDue } from '../src/modules/affiliates/commissions.ts';
import { call, cpf, type Merchant, type TestContext } from './helpers.ts';

export const YEAR = new Date().getUTCFullYear();
export const pixFee = (c: number) => Math.floor((c * 99 + 5000) / 10000);

export function commissionApi(ctx: TestContext, seller: Merchant, aff: Merchant) {
  /** A product at `price`, its payment link, a program on it and `affiliate` joined: the code and slug. */
  async function setup(price: number, program: Record<string, unknown> = {}, affiliate = aff, owner = seller) {
    const p = await call(ctx.app, 'POST', '/api/v1/products', { key: owner.devKey, body: { name: `Curso ${price}`, price } });
    assert.equal(p.status, 201, p.raw);
    const l = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: owner.devKey, body: { title: 'Curso', products: [{ productId: p.body.product.id, quantity: 1 }] } });
    assert.equal(l.status, 201, l.raw);
    const pr = await call(ctx.app, 'POST', '/api/affiliate/programs', { key: owner.devKey, body: { productId: p.body.product.id, commissionType: 'PERCENTAGE', commissionValue: 4000, ...program } });
    assert.equal(pr.status, 201, pr.raw);
    const j = await call(ctx.app, 'POST', `/api/affiliate/join/${pr.body.data.id}`, { key: affiliate.devKey });
    return { productId: p.body.product.id as string, slug: l.body.paymentLink.slug as string, programId: pr.body.data.id as string, code: j.body.data.code as string, linkId: j.body.data.id as string };
  }

  let seq = 0;
  async function buy(slug: string, over: Record<string, unknown> = {}) {
    seq++;
    const res = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: `joana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over },
    });
    assert.equal(res.status, 201, res.raw);
    return res.body.transaction.id as string;
  }
  const simulatePaid = (id: string, key = seller.devKey) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key, body: { outcome: 'PAID' } });
  async function pay(id: string, key = seller.devKey) {
    const res = await simulatePaid(id, key);
    assert.equal(res.status, 200, res.raw);
    return res.body.transaction ?? res.body;
  }
  async function refund(id: string, amountCents?: number, key = seller.devKey) {
    const res = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key, body: amountCents === undefined ? undefined : { amountCents } });
    assert.ok(res.status === 200 || res.status === 201, res.raw);
  }
  const commissionOf = (transactionId: string) => ctx.database.db.selectFrom('affiliate_commissions').selectAll().where('transaction_id', '=', transactionId).execute();
  async function accounts(userId: string) {
    const rows = await ctx.database.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('user_id', '=', userId).where('livemode', '=', false).execute();
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.balance_cents)])) as Record<string, number>;
  }
  const stats = async (key: string) => (await call(ctx.app, 'GET', '/api/affiliate/stats', { key })).body.data;
  const sweep = (now: Date) => releaseDue(ctx.app.deps.commissions, now, 100);
  return { setup, buy, simulatePaid, pay, refund, commissionOf, accounts, stats, sweep };
}
