// Split races on real PostgreSQL: refunds of sales that paid a recipient, raced against that
// recipient's withdrawals and against refunds of its own sales that paid the first seller (crossed
// roles): no deadlock, no error, no withdrawal ever taken from a balance that did not cover it, and
// the ledger whole.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { assertLedgerBalanced } from './ledger-check.ts';
import { merchant, onPostgres, type Merchant } from './helpers.ts';
import { ready, useApp } from './kit/app.ts';
import { splitKit, T, type Recipient } from './splits-kit.ts';

const skip = onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)';
const ctx = useApp();
let base: string;

const http = async (method: string, path: string, key: string, body?: unknown) => {
  const res = await fetch(base + path, { method, headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const parsed = await res.json().catch(() => null);
  return { status: res.status, code: parsed?.code as string | undefined };
};

describe('refunds against a recipient\'s withdrawals', { skip }, () => {
  before(async () => {
    await ready(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });

  test('50 at once: 20 refunds by the seller, 10 by the recipient of sales that paid the seller, 20 withdrawals by the recipient', async () => {
    const kit = splitKit(ctx);
    const seller = await merchant(ctx.app);
    const r: Recipient = await kit.partnerOf(seller);
    // The recipient sells too, and pays the seller a share of each sale: the roles cross.
    const sellerAsPartner = await kit.partnerOf(r, seller);
    const ours: string[] = [];
    const theirs: string[] = [];
    for (let i = 0; i < 20; i++) ours.push(await kit.paid(seller.devKey, { split: [{ walletId: r.walletId, fixedCents: 3_000 }] }));
    for (let i = 0; i < 10; i++) theirs.push(await kit.paid(r.devKey, { split: [{ walletId: sellerAsPartner.walletId, percentageBp: 4000 }] }));
    // A sale of the recipient's own: whatever order the race runs in (every refund first takes back
    // about all the rest), some withdrawals are covered, so the check below is never vacuous.
    await kit.paid(r.devKey, { amountCents: 20_000 });
    const withdraw = (m: Merchant) => http('POST', '/api/withdraws', m.devKey, { amountCents: 1_500, pixKeyType: 'email', pixKey: 'recebedor@example.com' });
    const results = await Promise.all([
      ...ours.map((id) => http('POST', `${T}/${id}/refund`, seller.devKey)),
      ...theirs.map((id) => http('POST', `${T}/${id}/refund`, r.devKey)),
      ...Array.from({ length: 20 }, () => withdraw(r)),
    ]);
    const seen = results.map((x) => `${x.status}${x.code ? ` ${x.code}` : ''}`);
    assert.ok(seen.every((s) => s === '200' || s === '201' || s === '400 INSUFFICIENT_BALANCE'), seen.join());
    // Every seller refund went through: the seller's own balance covered them with the shares given back.
    assert.equal(results.slice(0, 20).filter((x) => x.status === 200).length, 20, seen.join());
    for (const id of ours) assert.deepEqual((await kit.shares(id)).map((s) => s.status), ['REVERSED']);
    // No withdrawal was taken from an available balance that did not cover it when it was made.
    const { rows } = await sql<{ after: number }>`
      SELECT e.balance_after_cents AS after FROM ledger_entries e JOIN ledger_journals j ON j.id = e.journal_id
      WHERE e.user_id = ${r.id} AND e.account_kind = 'available' AND j.reference_type = 'withdrawal'`.execute(ctx.database.db);
    assert.ok(rows.length > 0 && rows.every((x) => Number(x.after) >= 0), JSON.stringify(rows));
    await assertLedgerBalanced(ctx.database.db);
  });
});
