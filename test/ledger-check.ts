// Ledger invariants, checked with SQL over the whole database (a test file's own schema or PGlite).
// Each query returns the rows that break an invariant; all of them must come back empty.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Executor } from '../src/db/index.ts';

const SETTLED = sql.raw(`('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')`);

export async function assertLedgerBalanced(db: Executor): Promise<void> {
  // 1. Every account's balance equals the sum of its entries.
  const accounts = await sql`
    SELECT a.id, a.user_id, a.kind, a.balance_cents, coalesce(sum(e.amount_cents), 0)::bigint AS entries_cents
    FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
    GROUP BY a.id
    HAVING a.balance_cents <> coalesce(sum(e.amount_cents), 0)`.execute(db);
  assert.deepEqual(accounts.rows, [], 'account balance differs from the sum of its entries');

  // 2. Every journal has at least two entries, and they sum to zero.
  const journals = await sql`
    SELECT j.id, j.kind, j.reference_id, count(e.id)::int AS entries, coalesce(sum(e.amount_cents), 0)::bigint AS total
    FROM ledger_journals j LEFT JOIN ledger_entries e ON e.journal_id = j.id
    GROUP BY j.id
    HAVING coalesce(sum(e.amount_cents), 0) <> 0 OR count(e.id) < 2`.execute(db);
  assert.deepEqual(journals.rows, [], 'unbalanced or empty journal');

  // 3. Entries belong to the same merchant, environment and kind as their account and journal.
  const misfiled = await sql`
    SELECT e.id FROM ledger_entries e
    JOIN ledger_accounts a ON a.id = e.account_id
    JOIN ledger_journals j ON j.id = e.journal_id
    WHERE e.user_id <> a.user_id OR e.livemode <> a.livemode OR e.account_kind <> a.kind
       OR j.user_id <> a.user_id OR j.livemode <> a.livemode`.execute(db);
  assert.deepEqual(misfiled.rows, [], 'entry filed under another merchant, environment or account');

  // 4. The accounts of each merchant and environment sum to zero.
  const merchants = await sql`
    SELECT user_id, livemode, sum(balance_cents)::bigint AS total
    FROM ledger_accounts GROUP BY user_id, livemode
    HAVING sum(balance_cents) <> 0`.execute(db);
  assert.deepEqual(merchants.rows, [], "a merchant's accounts do not sum to zero");

  // 5. The merchant's money (available + receivable + reserved) equals what its paid transactions
  //    netted (charged - fee) minus what was refunded. Reserved is 0 until reserves exist.
  const money = await sql`
    WITH tx AS (
      SELECT user_id, livemode, sum(charged_cents - fee_cents - refunded_cents)::bigint AS owed
      FROM transactions WHERE status IN ${SETTLED} GROUP BY user_id, livemode
    ), acc AS (
      SELECT user_id, livemode,
             coalesce(sum(balance_cents) FILTER (WHERE kind IN ('available', 'receivable', 'reserved')), 0)::bigint AS held
      FROM ledger_accounts GROUP BY user_id, livemode
    )
    SELECT user_id, livemode, coalesce(tx.owed, 0)::bigint AS owed, coalesce(acc.held, 0)::bigint AS held
    FROM tx FULL JOIN acc USING (user_id, livemode)
    WHERE coalesce(tx.owed, 0) <> coalesce(acc.held, 0)`.execute(db);
  assert.deepEqual(money.rows, [], 'merchant balance differs from net payments minus refunds');

  // 6. Per transaction: exactly one payment journal (taking exactly the charged amount from the
  //    outside) once paid and none before; refund journals return exactly refunded_cents.
  const perTx = await sql`
    SELECT * FROM (
      SELECT t.id, t.status, t.charged_cents, t.refunded_cents,
        (SELECT count(*) FROM ledger_journals j
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind = 'payment')::int AS payments,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind = 'payment'
            AND e.account_kind = 'external')::bigint AS paid_in,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind = 'refund'
            AND e.account_kind = 'external')::bigint AS paid_back
      FROM transactions t
    ) x
    WHERE payments <> (CASE WHEN status IN ${SETTLED} THEN 1 ELSE 0 END)
       OR paid_in <> (CASE WHEN status IN ${SETTLED} THEN -charged_cents ELSE 0 END)
       OR paid_back <> refunded_cents
       OR refunded_cents > charged_cents`.execute(db);
  assert.deepEqual(perTx.rows, [], 'transaction whose journals do not match its status or refunds');
}
