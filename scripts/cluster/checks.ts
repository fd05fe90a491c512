// What the rehearsal verifies in the database once the load and its faults are over (read on the
// primary directly). Each check gives a line: passed or not, and the figures behind it.
import pg from 'pg';
import { assertLedgerBalanced } from '../../test/ledger-check.ts';
import { connect } from '../../src/db/index.ts';
import type { Outcome } from './client.ts';
import type { Merchant } from './load.ts';
import { receipts, refusedOnRetry } from './windows.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const ok2xx = (o: Outcome) => o.status !== null && o.status >= 200 && o.status < 300;
const SETTLED = `('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'CHARGEBACK')`;

/** Rows per merchant of `sql` (which returns user_id, n) against the 2xx answers of `ops` per merchant. */
async function countsMatch(c: pg.Client, merchants: Merchant[], outcomes: Outcome[], ops: string[], sql: string): Promise<string[]> {
  const { rows } = await c.query<{ user_id: string; n: number }>(sql, [merchants.map((m) => m.userId)]);
  const problems: string[] = [];
  for (const m of merchants) {
    const answered = outcomes.filter((o) => o.merchant === m.index && ops.includes(o.op) && ok2xx(o)).length;
    const stored = Number(rows.find((r) => r.user_id === m.userId)?.n ?? 0);
    if (answered !== stored) problems.push(`merchant ${m.index} ${ops.join('/')}: ${answered} answered 2xx, ${stored} stored`);
  }
  return problems;
}

async function exactlyOnce(c: pg.Client, merchants: Merchant[], outcomes: Outcome[]): Promise<Check> {
  const ids = (op: string, pick: (b: any) => string | undefined) => outcomes.filter((o) => o.op === op && ok2xx(o)).map((o) => pick(o.response)).filter(Boolean) as string[];
  const txIds = ['pix.create', 'card.create', 'boleto.create'].flatMap((op) => ids(op, (b) => b?.transaction?.id));
  const subIds = ids('subscription.create', (b) => b?.subscription?.id);
  const missing = [
    ...(await c.query('SELECT x FROM unnest($1::uuid[]) x WHERE (SELECT count(*) FROM transactions t WHERE t.id = x) <> 1', [txIds])).rows,
    ...(await c.query('SELECT x FROM unnest($1::uuid[]) x WHERE (SELECT count(*) FROM subscriptions s WHERE s.id = x) <> 1', [subIds])).rows,
  ];
  const problems = [
    ...(await countsMatch(c, merchants, outcomes, ['pix.create', 'card.create', 'boleto.create'], 'SELECT user_id, count(*)::int AS n FROM transactions WHERE user_id = ANY($1) AND subscription_id IS NULL GROUP BY 1')),
    ...(await countsMatch(c, merchants, outcomes, ['subscription.create'], 'SELECT user_id, count(*)::int AS n FROM subscriptions WHERE user_id = ANY($1) GROUP BY 1')),
    ...(await countsMatch(c, merchants, outcomes, ['refund'], 'SELECT t.user_id, count(*)::int AS n FROM refunds r JOIN transactions t ON t.id = r.transaction_id WHERE t.user_id = ANY($1) GROUP BY 1')),
    ...(await countsMatch(c, merchants, outcomes, ['withdrawal'], 'SELECT user_id, count(*)::int AS n FROM withdrawals WHERE user_id = ANY($1) GROUP BY 1')),
  ];
  // By key: every 2xx answer is the response stored under its Idempotency-Key.
  const answered = outcomes.filter(ok2xx);
  const { rows } = await c.query<{ key: string }>(
    `SELECT k FROM unnest($1::uuid[], $2::text[]) AS x(u, k)
     WHERE NOT EXISTS (SELECT 1 FROM idempotency_keys i WHERE i.user_id = x.u AND i.key = x.k AND i.response_status BETWEEN 200 AND 299)`,
    [answered.map((o) => merchants[o.merchant].userId), answered.map((o) => o.key)],
  );
  const unfinished = outcomes.filter((o) => o.status === null).length;
  const ok = missing.length === 0 && problems.length === 0 && rows.length === 0 && unfinished === 0;
  return { name: 'every 2xx is in the database exactly once (by id and by Idempotency-Key)', ok, detail: `${answered.length} requests answered 2xx; ${txIds.length} sales and ${subIds.length} subscriptions by id; ids not found once: ${missing.length}; counts per merchant: ${problems.join('; ') || 'all equal'}; keys without their stored 2xx: ${rows.length}; requests never answered: ${unfinished}` };
}

async function notTwice(c: pg.Client, merchants: Merchant[], outcomes: Outcome[]): Promise<Check> {
  const users = [merchants.map((m) => m.userId)];
  const q = async (sql: string) => Number((await c.query<{ n: number }>(sql, users)).rows[0].n);
  const cardSales = await q(`SELECT count(*)::int AS n FROM transactions WHERE user_id = ANY($1) AND payment_method = 'CARD' AND status IN ${SETTLED}`);
  const charges = await q(`SELECT count(*)::int AS n FROM sandbox_operations o JOIN transactions t ON 'charge:' || t.id = o.reference WHERE t.user_id = ANY($1) AND (o.outcome->>'approved')::boolean`);
  const twiceCycles = await q(`SELECT count(*)::int AS n FROM (SELECT subscription_cycle_id FROM transactions WHERE user_id = ANY($1) AND subscription_cycle_id IS NOT NULL AND status IN ${SETTLED} GROUP BY 1 HAVING count(*) > 1) x`);
  const dupNumbers = await q(`SELECT count(*)::int AS n FROM (SELECT subscription_id, number FROM subscription_cycles WHERE user_id = ANY($1) GROUP BY 1, 2 HAVING count(*) > 1) x`);
  const renewed = outcomes.filter((o) => o.op === 'subscription.renew' && ok2xx(o)).length;
  const paidSecond = await q(`SELECT count(*)::int AS n FROM subscription_cycles WHERE user_id = ANY($1) AND number = 2 AND status = 'PAID'`);
  const completed = await q(`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ANY($1) AND status = 'COMPLETED'`);
  const payouts = await q(`SELECT count(*)::int AS n FROM sandbox_operations o JOIN withdrawals w ON 'payout:' || w.payout_ref = o.reference WHERE w.user_id = ANY($1)`);
  const open = await q(`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ANY($1) AND status IN ('PENDING', 'PROCESSING')`);
  const ok = charges === cardSales && twiceCycles === 0 && dupNumbers === 0 && paidSecond >= renewed && payouts === completed && open === 0;
  return { name: 'no charge, payout or renewal made twice', ok, detail: `card sales settled ${cardSales}, approved charges at the sandbox ${charges}; cycles paid twice ${twiceCycles}, cycle numbers repeated ${dupNumbers}; renewals answered 2xx ${renewed}, second cycles PAID ${paidSecond}; withdrawals COMPLETED ${completed}, payouts at the sandbox ${payouts}, still PENDING/PROCESSING ${open}` };
}

async function webhooks(c: pg.Client, merchants: Merchant[], received: Map<string, number>): Promise<Check> {
  const { rows } = await c.query<{ event_id: string; status: string }>('SELECT event_id, status FROM webhook_deliveries WHERE user_id = ANY($1) AND subscription_id IS NOT NULL', [merchants.map((m) => m.userId)]);
  const undelivered = rows.filter((r) => !received.has(r.event_id));
  const notSucceeded = rows.filter((r) => r.status !== 'SUCCEEDED').length;
  const { n: withoutDelivery } = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM events e WHERE e.user_id = ANY($1) AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`, [merchants.map((m) => m.userId)])).rows[0];
  const r = receipts(received);
  const ok = undelivered.length === 0 && notSucceeded === 0 && withoutDelivery === 0;
  return { name: 'every event delivered at least once', ok, detail: `${rows.length} deliveries, ${undelivered.length} never received, ${notSucceeded} not SUCCEEDED, events without a delivery ${withoutDelivery}; receiver: ${r.events} events, ${r.duplicates} duplicate receipts` };
}

async function stuckKeys(c: pg.Client, merchants: Merchant[]): Promise<Check> {
  const { n } = (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_keys WHERE user_id = ANY($1) AND response_status IS NULL', [merchants.map((m) => m.userId)])).rows[0];
  return { name: 'no Idempotency-Key stuck in progress', ok: n === 0, detail: `${n} keys without a response` };
}

async function ledger(url: string): Promise<Check> {
  const database = await connect({ url, poolSize: 2 });
  try {
    await assertLedgerBalanced(database.db);
    return { name: 'ledger balanced (test/ledger-check.ts, whole database)', ok: true, detail: 'every invariant holds' };
  } catch (err) {
    return { name: 'ledger balanced (test/ledger-check.ts, whole database)', ok: false, detail: (err as Error).message.split('\n')[0] };
  } finally {
    await database.close();
  }
}

function notRerun(outcomes: Outcome[]): Check {
  const refused = refusedOnRetry(outcomes);
  const detail = refused.map((o) => `${o.op} ${o.history.join('>')}>${o.status}: ${String(o.response?.message ?? '').slice(0, 80)}`).join('; ');
  return { name: 'no request refused when sent again after a failure (its work re-run)', ok: refused.length === 0, detail: `${refused.length} of ${outcomes.filter((o) => o.history.length > 1).length} requests sent more than once${detail ? `: ${detail}` : ''}` };
}

export async function runChecks(primaryUrl: string, merchants: Merchant[], outcomes: Outcome[], received: Map<string, number>): Promise<Check[]> {
  const c = new pg.Client({ connectionString: primaryUrl });
  await c.connect();
  try {
    return [await exactlyOnce(c, merchants, outcomes), await notTwice(c, merchants, outcomes), notRerun(outcomes), await webhooks(c, merchants, received), await stuckKeys(c, merchants), await ledger(primaryUrl)];
  } finally {
    await c.end();
  }
}

/** Waits (up to timeoutMs) until the workers have nothing left for these merchants: payouts sent, deliveries made, card charges settled. */
export async function settle(primaryUrl: string, merchants: Merchant[], timeoutMs = 90_000): Promise<number> {
  const c = new pg.Client({ connectionString: primaryUrl });
  await c.connect();
  const started = Date.now();
  try {
    for (;;) {
      const { rows } = await c.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM withdrawals WHERE user_id = ANY($1) AND status IN ('PENDING', 'PROCESSING'))
              + (SELECT count(*) FROM webhook_deliveries WHERE user_id = ANY($1) AND status = 'PENDING')
              -- card charges whose outcome a killed process never recorded: the janitor's, after JANITOR_GRACE_SECONDS
              + (SELECT count(*) FROM transactions WHERE user_id = ANY($1) AND payment_method = 'CARD' AND status = 'PENDING' AND card_last4 IS NOT NULL) AS n`,
        [merchants.map((m) => m.userId)],
      );
      if (Number(rows[0].n) === 0 || Date.now() - started > timeoutMs) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await c.end();
  }
}
