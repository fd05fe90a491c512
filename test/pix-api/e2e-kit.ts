// What the production PIX tests share: the app wired to the fake PSP, a merchant with a production key and helpers.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { ensureWebhook } from '../../src/payments/pix-api/sweeps.ts';
import { startWithPsp, pixContext } from './kit.ts';

export let env: Awaited<ReturnType<typeof startWithPsp>>;
export let m: Merchant;
before(async () => {
  env = await startWithPsp({ PIX_TTL_SECONDS: '3600' });
  m = await merchant(env.ctx.app, { live: true });
  // The PSP notifies the app from the start (the payment tests check the registration itself).
  await ensureWebhook(pixContext(env.ctx.app));
});
after(() => env.close());

export const app = () => env.ctx.app;
export const pixDeps = () => pixContext(app());

export async function createPix(extra: Record<string, unknown> = {}, key = m.liveKey!) {
  const res = await call(app(), 'POST', '/api/v1/transactions', {
    key,
    body: { amountCents: 12345, paymentMethod: 'PIX', clientName: 'Maria da Silva', clientEmail: 'maria@example.com', clientDocument: cpf(), product: 'Curso', ...extra } });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}

export const get = async (id: string) => (await call(app(), 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
export const row = (id: string) => app().deps.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
export const journals = (id: string) => app().deps.db.selectFrom('ledger_journals').select('kind').where('reference_id', '=', id).execute();
