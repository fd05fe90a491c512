// What the Pix Automático tests share: the app wired to the fake PSP with a receiving account, a merchant and helpers.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { advanceDue } from '../../src/modules/subscriptions/sweep.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { ensureWebhook } from '../../src/payments/pix-api/sweeps.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { startWithPsp, pixContext } from './kit.ts';

export const DAY = 86_400_000;
export let env: Awaited<ReturnType<typeof startWithPsp>>;
export let m: Merchant;
before(async () => {
  env = await startWithPsp({ PIX_TTL_SECONDS: '3600', PIX_API_RECEIVER_ACCOUNT: 'CORRENTE:0001:1234567' });
  m = await merchant(env.ctx.app, { live: true });
  await ensureWebhook(pixContext(env.ctx.app));
});
after(() => env.close());

export const app = () => env.ctx.app;
export const db = () => app().deps.db;
export const pixDeps = () => pixContext(app());

export async function newPlan(body: Record<string, unknown> = {}) {
  const res = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.liveKey, body: { name: 'Clube do Livro', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['PIX_AUTOMATICO', 'PIX'], ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.plan;
}
export async function subscribe(planId: string) {
  const res = await call(app(), 'POST', '/api/v1/subscriptions', {
    key: m.liveKey,
    body: { planId, client: { name: 'Maria da Silva', email: `maria.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' } });
  assert.equal(res.status, 201, res.raw);
  return res.body.subscription;
}
export const get = async (id: string) => (await call(app(), 'GET', `/api/v1/subscriptions/${id}`, { key: m.liveKey })).body.subscription;
export const txOf = async (id: string) => (await call(app(), 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
export const journals = (id: string) => db().selectFrom('ledger_journals').select('kind').where('reference_id', '=', id).execute();
export const eventTypes = async (subId: string) =>
  (await db().selectFrom('events').select(['type', 'data']).where('user_id', '=', m.id).where('type', 'like', 'subscription.%').orderBy('created_at').execute()).filter((e) => (e.data as { id: string }).id === subId).map((e) => e.type);
/** The last subscription.mandate_updated of a subscription: the subscription as that change left it. */
export const lastMandateNews = async (subId: string) =>
  (await db().selectFrom('events').select('data').where('user_id', '=', m.id).where('type', '=', 'subscription.mandate_updated').orderBy('created_at').execute())
    .map((e) => e.data as { id: string; status: string; cancelReason: string | null; cancelAtPeriodEnd: boolean; pixAutomatico: { status: string } })
    .filter((d) => d.id === subId)
    .at(-1)!;
/** The cycle numbered n, with its transaction row. */
export async function cycle(subId: string, n: number) {
  const c = (await get(subId)).cycles.find((x: { number: number }) => x.number === n);
  return c;
}

/** Issues a subscription's second cycle (its debit is scheduled 3 days before the due date) and returns it. */
export async function secondCycle(subId: string) {
  const end = new Date((await get(subId)).currentPeriodEnd);
  await advanceDue(app().deps.subscriptions, new Date(end.getTime() - 3 * DAY + 60_000));
  return cycle(subId, 2);
}

/** A subscription whose first charge is paid and authorisation APROVADA, with its second cycle issued. */
export async function approvedWithSecondCycle() {
  const sub = await subscribe((await newPlan()).id);
  await env.psp.pay(txidFor(sub.cycles[0].transactionId));
  await env.psp.answerRec(sub.pixAutomatico.recurrenceId, 'APROVADA');
  return { sub, c2: await secondCycle(sub.id) };
}
