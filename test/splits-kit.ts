// Shared by the split test files: a seller, recipients it may pay (sub-accounts, partners), sales
// with a split through the API, and each merchant's balance and events.
import assert from 'node:assert/strict';
import { call, cpf, merchant, type Merchant, type TestContext } from './helpers.ts';
import { card } from './checkout-kit.ts';

export const T = '/api/v1/transactions';
export { pixFee } from './wallet-helpers.ts';

export interface Recipient extends Merchant {
  walletId: string;
}

export function splitKit(ctx: TestContext) {
  const walletOf = async (m: Merchant) => {
    const me = await call(ctx.app, 'GET', '/api/auth/me', { token: m.token });
    assert.equal(me.status, 200, me.raw);
    return me.body.user.walletId as string;
  };

  /** A merchant (`partner`, or a new one) that accepted `seller`'s invitation to receive shares of its sales. */
  async function partnerOf(seller: Merchant, partner?: Merchant): Promise<Recipient> {
    const m = partner ?? (await merchant(ctx.app));
    const walletId = await walletOf(m);
    const inv = await call(ctx.app, 'POST', '/api/v1/split-partners', { key: seller.devKey, body: { walletId } });
    assert.equal(inv.status, 201, inv.raw);
    const ok = await call(ctx.app, 'POST', `/api/v1/split-partners/${inv.body.data.id}/accept`, { key: m.devKey });
    assert.equal(ok.status, 200, ok.raw);
    return { ...m, walletId };
  }

  let seq = 0;
  function sale(over: Record<string, unknown> = {}) {
    seq++;
    return { product: 'Curso', amountCents: 10_000, clientName: 'Joana Lima', clientEmail: `joana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over };
  }
  const create = (key: string, over: Record<string, unknown> = {}) => call(ctx.app, 'POST', T, { key, body: sale(over) });
  async function paid(key: string, over: Record<string, unknown> = {}) {
    const c = await create(key, over);
    assert.equal(c.status, 201, c.raw);
    const id = c.body.transaction.id as string;
    if (c.body.transaction.status !== 'PAID') {
      const p = await call(ctx.app, 'POST', `${T}/${id}/simulate`, { key, body: { outcome: 'PAID' } });
      assert.equal(p.status, 200, p.raw);
    }
    return id;
  }
  const cardSale = (installments: number) => ({ paymentMethod: 'CARD', installments, card: card() });
  async function refund(key: string, id: string, amountCents?: number) {
    const res = await call(ctx.app, 'POST', `${T}/${id}/refund`, { key, body: amountCents === undefined ? {} : { amountCents } });
    assert.equal(res.status, 200, res.raw);
    return res.body.transaction;
  }
  async function balance(m: Merchant) {
    const res = await call(ctx.app, 'GET', '/api/v1/balance', { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    return { available: res.body.availableCents as number, receivable: res.body.receivableCents as number };
  }
  const events = (m: Merchant, type: string) =>
    ctx.database.db.selectFrom('events').select(['type', 'data']).where('user_id', '=', m.id).where('type', '=', type as never).orderBy('created_at').execute();
  const shares = (id: string) => ctx.database.db.selectFrom('transaction_splits').selectAll().where('transaction_id', '=', id).orderBy('id').execute();
  return { walletOf, partnerOf, sale, create, paid, cardSale, refund, balance, events, shares };
}
