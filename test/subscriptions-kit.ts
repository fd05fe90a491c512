// What the subscription tests share: the app, a merchant, and helpers to make plans, subscribe,
// read, move time (POST .../simulate, the same steps as the job runner) and read e-mails and events.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';

export const GOOD = { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: 2035, cvv: '123' };
export const card = (number: string) => ({ ...GOOD, number });
export const SOFT = '4000000000009995'; // INSUFFICIENT_FUNDS
export const HARD = '4000000000009979'; // STOLEN_CARD


export let ctx: TestContext;
export let m: Merchant;
before(async () => {
  ctx = await startApp();
  m = await merchant(ctx.app);
});
after(async () => {
  await assertLedgerBalanced(ctx.app.deps.db);
  await ctx.close();
});

export const newPlan = async (body: Record<string, unknown> = {}) => {
  const res = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.plan as { id: string; amountCents: number };
};
export const subscribe = async (planId: string, body: Record<string, unknown>) => {
  const res = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId, client: { name: 'Ana Souza', email: `ana.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.subscription;
};
export const get = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/subscriptions/${id}`, { key: m.devKey })).body.subscription;
export const sim = async (id: string, days: number) => {
  const res = await call(ctx.app, 'POST', `/api/v1/subscriptions/${id}/simulate`, { key: m.devKey, body: { advanceDays: days } });
  assert.equal(res.status, 200, res.raw);
  return get(id);
};
export const emails = (id: string, template?: string) =>
  ctx.app.deps.db
    .selectFrom('emails')
    .selectAll()
    .where('related_id', '=', id)
    .$if(!!template, (q) => q.where('template', '=', template!))
    .execute();
export const events = (id: string) =>
  ctx.app.deps.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('user_id', '=', m.id)
    .where('type', 'like', 'subscription.%')
    .orderBy('created_at')
    .execute()
    .then((rows) => rows.filter((r) => (r.data as { id: string }).id === id).map((r) => r.type));
