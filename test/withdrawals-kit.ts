// What the withdrawal tests share: the app (sandbox payouts at once, private webhook targets), a
// funded merchant, a withdrawal's body and request. Runs on PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { paidPix, pixFee, req, type Cred } from './wallet-helpers.ts';

export const W = '/api/withdraws';
export const FEE = 350;

export let ctx: TestContext;
before(async () => {
  ctx = await startApp({ env: { SANDBOX_PAYOUT_DELAY_MS: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
});
after(() => ctx.close());

/** A merchant whose development available balance is exactly `available` (a PIX grossed up for its fee). */
export async function funded(available = 99_010, opts: Parameters<typeof merchant>[1] = {}): Promise<Merchant & { k: Cred }> {
  const m = await merchant(ctx.app, opts);
  const k = { key: m.devKey };
  if (available > 0) {
    let gross = available;
    while (gross - pixFee(gross) < available) gross++;
    await paidPix(ctx.app, { key: m.devKey }, gross);
  }
  return { ...m, k };
}

export function wBody(amountCents: number, over: Record<string, unknown> = {}) {
  return { amountCents, pixKeyType: 'email', pixKey: 'loja@example.com', ...over };
}

export async function withdraw(cred: Cred, amountCents: number, over: Record<string, unknown> = {}) {
  const res = await req(ctx.app, 'POST', W, cred, wBody(amountCents, over));
  assert.equal(res.status, 201, res.raw);
  return res.body.data;
}

export const SPEC_FIELDS = ['amountCents', 'approvedAt', 'bankAccount', 'completedAt', 'createdAt', 'description', 'externalId', 'failedAt', 'failureCode', 'failureReason', 'feeCents', 'holdReason', 'holdUntil', 'id', 'netAmount', 'pixKey', 'pixKeyType', 'processedAt', 'status', 'updatedAt', 'userId'];
