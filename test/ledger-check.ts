// Ledger invariants, checked with SQL over the whole database (a test file's own schema or PGlite).
// Each query returns the rows that break an invariant; all of them must come back empty.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Executor } from '../src/db/index.ts';

const SETTLED = sql.raw(`('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'CHARGEBACK')`);

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

  // 3. Entries belong to the same merchant, environment and kind as their account, and to the
  //    journal's environment. A journal may move another merchant's accounts (an affiliate's share
  //    of a sale), but each merchant's part of a journal sums to zero on its own, and only through
  //    transfers, commission_pending and available.
  const misfiled = await sql`
    SELECT e.id FROM ledger_entries e
    JOIN ledger_accounts a ON a.id = e.account_id
    JOIN ledger_journals j ON j.id = e.journal_id
    WHERE e.user_id <> a.user_id OR e.livemode <> a.livemode OR e.account_kind <> a.kind
       OR j.livemode <> a.livemode
       OR (j.user_id <> a.user_id AND a.kind NOT IN ('transfers', 'commission_pending', 'available', 'receivable'))`.execute(db);
  assert.deepEqual(misfiled.rows, [], 'entry filed under another merchant, environment or account');
  const parts = await sql`
    SELECT e.journal_id, e.user_id, sum(e.amount_cents)::bigint AS total FROM ledger_entries e
    GROUP BY e.journal_id, e.user_id HAVING sum(e.amount_cents) <> 0`.execute(db);
  assert.deepEqual(parts.rows, [], "a merchant's part of a journal does not sum to zero");

  // 4. The accounts of each merchant and environment sum to zero.
  const merchants = await sql`
    SELECT user_id, livemode, sum(balance_cents)::bigint AS total
    FROM ledger_accounts GROUP BY user_id, livemode
    HAVING sum(balance_cents) <> 0`.execute(db);
  assert.deepEqual(merchants.rows, [], "a merchant's accounts do not sum to zero");

  await assertMoneyHeld(db);
  await assertTransactionJournals(db);
  await assertWalletConsistent(db);
  await assertCommissionsConsistent(db);
}

/** Affiliate commissions agree with the ledger. */
export async function assertCommissionsConsistent(db: Executor): Promise<void> {
  // 11. commission_pending holds exactly the affiliate's PENDING commissions; transfers is what the
  //     merchant's standing commissions moved out less what its own standing commissions moved in.
  const accounts = await sql`
    WITH acc AS (
      SELECT user_id, livemode,
             coalesce(sum(balance_cents) FILTER (WHERE kind = 'commission_pending'), 0)::bigint AS pending,
             coalesce(sum(balance_cents) FILTER (WHERE kind = 'transfers'), 0)::bigint AS transfers
      FROM ledger_accounts GROUP BY user_id, livemode
    ), c AS (
      SELECT user_id, livemode, sum(pending)::bigint AS pending, sum(transfers)::bigint AS transfers FROM (
        SELECT user_id, livemode, CASE WHEN status = 'PENDING' THEN amount_cents ELSE 0 END AS pending,
               CASE WHEN status IN ('PENDING', 'PAID') THEN -amount_cents ELSE 0 END AS transfers
        FROM affiliate_commissions
        UNION ALL
        SELECT merchant_id, livemode, 0, CASE WHEN status IN ('PENDING', 'PAID') THEN amount_cents ELSE 0 END FROM affiliate_commissions
        UNION ALL
        -- A split's standing shares likewise, from the seller to each recipient.
        SELECT recipient_id, livemode, 0, -(amount_cents - reversed_cents) FROM transaction_splits
        UNION ALL
        SELECT user_id, livemode, 0, amount_cents - reversed_cents FROM transaction_splits
        UNION ALL
        -- Referral rewards likewise, from the referred account's (fee) side to the referrer's.
        SELECT user_id, livemode, CASE WHEN status = 'PENDING' THEN amount_cents ELSE 0 END,
               CASE WHEN status IN ('PENDING', 'PAID') THEN -amount_cents ELSE 0 END
        FROM referral_rewards
        UNION ALL
        SELECT referred_id, livemode, 0, CASE WHEN status IN ('PENDING', 'PAID') THEN amount_cents ELSE 0 END FROM referral_rewards
      ) x GROUP BY user_id, livemode
    )
    SELECT user_id, livemode, coalesce(acc.pending, 0) AS pending, coalesce(c.pending, 0) AS expected_pending,
           coalesce(acc.transfers, 0) AS transfers, coalesce(c.transfers, 0) AS expected_transfers
    FROM acc FULL JOIN c USING (user_id, livemode)
    WHERE coalesce(acc.pending, 0) <> coalesce(c.pending, 0) OR coalesce(acc.transfers, 0) <> coalesce(c.transfers, 0)`.execute(db);
  assert.deepEqual(accounts.rows, [], 'commission_pending or transfers differ from the commissions');

  // 12. Per commission: at most one per transaction (a unique index), of a paid sale; the sale's
  //     payment journal moved exactly its amount to the affiliate unless it was a self-purchase;
  //     released ones (PAID, or clawed back) have exactly one release journal.
  const perCommission = await sql`
    SELECT * FROM (
      SELECT c.id, c.status, c.reason, c.amount_cents, t.status AS tx_status,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = c.merchant_id AND j.reference_type = 'transaction' AND j.reference_id = c.transaction_id AND j.kind = 'payment'
            AND e.user_id = c.user_id AND e.account_kind = 'commission_pending')::bigint AS split,
        (SELECT count(*) FROM ledger_journals j WHERE j.user_id = c.user_id AND j.reference_type = 'affiliate_commission' AND j.reference_id = c.id)::int AS releases,
        c.paid_at IS NOT NULL AS released
      FROM affiliate_commissions c JOIN transactions t ON t.id = c.transaction_id
    ) x
    WHERE tx_status NOT IN ${SETTLED}
       OR split <> (CASE WHEN reason = 'SELF_PURCHASE' THEN 0 ELSE amount_cents END)
       OR releases <> (CASE WHEN released THEN 1 ELSE 0 END)
       OR (status = 'PAID') <> (released AND reason IS NULL)`.execute(db);
  assert.deepEqual(perCommission.rows, [], 'commission whose journals do not match its status');

  await assertReferralRewardsConsistent(db);
  await assertSplitsConsistent(db);
}

/** 15. Each split share agrees with the journals of its sale. */
export async function assertSplitsConsistent(db: Executor): Promise<void> {
  // Per share: of a settled sale; its payment journal moved exactly its amount to the recipient
  // (where the sale's money landed); the refund and chargeback journals, less what their reversals
  // gave back, took exactly reversed_cents, never more than the share; the shares of a sale never more than its net.
  const perShare = await sql`
    SELECT * FROM (
      SELECT s.id, s.amount_cents, s.reversed_cents, s.status, t.status AS tx_status,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = s.user_id AND j.reference_type = 'transaction' AND j.reference_id = s.transaction_id AND j.kind = 'payment'
            AND e.user_id = s.recipient_id AND e.account_kind = s.account)::bigint AS credited,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = s.user_id AND j.reference_type = 'transaction' AND j.reference_id = s.transaction_id AND j.kind IN ('refund', 'chargeback', 'refund_reversal', 'chargeback_reversal')
            AND e.user_id = s.recipient_id AND e.account_kind IN ('available', 'receivable'))::bigint AS taken,
        (SELECT sum(x.amount_cents) FROM transaction_splits x WHERE x.transaction_id = s.transaction_id)::bigint AS shares,
        t.charged_cents - t.fee_cents AS net
      FROM transaction_splits s JOIN transactions t ON t.id = s.transaction_id
    ) x
    WHERE tx_status NOT IN ${SETTLED} OR credited <> amount_cents OR taken <> -reversed_cents
       OR reversed_cents > amount_cents OR shares > net
       OR status <> (CASE WHEN reversed_cents = 0 THEN 'PAID' WHEN reversed_cents < amount_cents THEN 'PARTIALLY_REVERSED' ELSE 'REVERSED' END)`.execute(db);
  assert.deepEqual(perShare.rows, [], 'split share whose journals do not match it');
}

/** Withdrawals, advances and receivables agree with the ledger. */
export async function assertWalletConsistent(db: Executor): Promise<void> {
  // 7. Reserved holds exactly the withdrawals in flight; receivable exactly the PENDING instalments.
  const held = await sql`
    WITH acc AS (
      SELECT user_id, livemode,
             coalesce(sum(balance_cents) FILTER (WHERE kind = 'reserved'), 0)::bigint AS reserved,
             coalesce(sum(balance_cents) FILTER (WHERE kind = 'receivable'), 0)::bigint AS receivable
      FROM ledger_accounts GROUP BY user_id, livemode
    ), w AS (
      SELECT user_id, livemode, sum(amount_cents)::bigint AS in_flight FROM withdrawals
      WHERE status IN ('PENDING', 'PROCESSING') GROUP BY user_id, livemode
    ), r AS (
      SELECT user_id, livemode, sum(amount_cents)::bigint AS pending FROM receivables
      WHERE status = 'PENDING' GROUP BY user_id, livemode
    )
    SELECT user_id, livemode, coalesce(acc.reserved, 0) AS reserved, coalesce(w.in_flight, 0) AS in_flight,
           coalesce(acc.receivable, 0) AS receivable, coalesce(r.pending, 0) AS pending
    FROM acc FULL JOIN w USING (user_id, livemode) FULL JOIN r USING (user_id, livemode)
    WHERE coalesce(acc.reserved, 0) <> coalesce(w.in_flight, 0) OR coalesce(acc.receivable, 0) <> coalesce(r.pending, 0)`.execute(db);
  assert.deepEqual(held.rows, [], 'reserved or receivable balance differs from withdrawals in flight or PENDING instalments');

  // 8. Per withdrawal: its journals reserve the amount once, and release it once it is final
  //    (paid out: external +net and fees +fee; failed or cancelled: back to available).
  const perWithdrawal = await sql`
    SELECT * FROM (
      SELECT w.id, w.status, w.amount_cents, w.net_amount_cents, w.fee_cents,
        coalesce(sum(e.amount_cents) FILTER (WHERE e.account_kind = 'reserved'), 0)::bigint AS reserved,
        coalesce(sum(e.amount_cents) FILTER (WHERE e.account_kind = 'available'), 0)::bigint AS available,
        coalesce(sum(e.amount_cents) FILTER (WHERE e.account_kind = 'external'), 0)::bigint AS external,
        coalesce(sum(e.amount_cents) FILTER (WHERE e.account_kind = 'fees'), 0)::bigint AS fees
      FROM withdrawals w
      LEFT JOIN ledger_journals j ON j.user_id = w.user_id AND j.reference_type = 'withdrawal' AND j.reference_id = w.id
      LEFT JOIN ledger_entries e ON e.journal_id = j.id
      GROUP BY w.id
    ) x
    WHERE reserved <> (CASE WHEN status IN ('PENDING', 'PROCESSING') THEN amount_cents ELSE 0 END)
       OR available <> (CASE WHEN status = 'COMPLETED' THEN -amount_cents WHEN status IN ('PENDING', 'PROCESSING') THEN -amount_cents ELSE 0 END)
       OR external <> (CASE WHEN status = 'COMPLETED' THEN net_amount_cents ELSE 0 END)
       OR fees <> (CASE WHEN status = 'COMPLETED' THEN fee_cents ELSE 0 END)`.execute(db);
  assert.deepEqual(perWithdrawal.rows, [], 'withdrawal whose journals do not match its status');

  // 9. Per advance: completed ones took exactly their items from receivable (net to available, fee
  //    to fees); the others moved no money and have no items.
  const perAdvance = await sql`
    SELECT * FROM (
      SELECT a.id, a.status, a.amount_cents, a.fee_cents, a.net_amount_cents,
        (SELECT coalesce(sum(i.amount_cents), 0) FROM advance_items i WHERE i.advance_id = a.id)::bigint AS items,
        (SELECT coalesce(sum(i.fee_cents), 0) FROM advance_items i WHERE i.advance_id = a.id)::bigint AS item_fees,
        (SELECT coalesce(sum(e.amount_cents) FILTER (WHERE e.account_kind = 'receivable'), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = a.user_id AND j.reference_type = 'advance' AND j.reference_id = a.id)::bigint AS receivable,
        (SELECT coalesce(sum(e.amount_cents) FILTER (WHERE e.account_kind = 'available'), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = a.user_id AND j.reference_type = 'advance' AND j.reference_id = a.id)::bigint AS available
      FROM advances a
    ) x
    WHERE (status = 'COMPLETED' AND (items <> amount_cents OR item_fees <> fee_cents OR receivable <> -amount_cents OR available <> net_amount_cents))
       OR (status <> 'COMPLETED' AND (items <> 0 OR receivable <> 0 OR available <> 0))`.execute(db);
  assert.deepEqual(perAdvance.rows, [], 'advance whose items or journals do not match its status');

  // 10. An advanced instalment was covered in full by one completed advance and never settled.
  const advanced = await sql`
    SELECT r.id FROM receivables r
    WHERE r.status = 'ADVANCED' AND (
      EXISTS (SELECT 1 FROM ledger_journals j WHERE j.user_id = r.user_id AND j.kind = 'settlement' AND j.reference_id = r.transaction_id
                AND j.description = 'Card instalment ' || r.installment_number || ' settled')
      OR NOT EXISTS (SELECT 1 FROM advance_items i JOIN advances a ON a.id = i.advance_id
                     WHERE i.receivable_id = r.id AND a.status = 'COMPLETED'))`.execute(db);
  assert.deepEqual(advanced.rows, [], 'advanced instalment settled again, or advanced by no completed advance');
}

/** 5. Each merchant's money agrees with its payments, refunds, withdrawals, advances and commissions. */
async function assertMoneyHeld(db: Executor): Promise<void> {
  // 5. The merchant's money (available + receivable + reserved) equals what its paid transactions
  //    netted (charged - fee) minus what was refunded less the fee the refunds returned (the fee's
  //    share of the refunded total, rounded down), minus completed withdrawals (their amount: net
  //    paid out plus the fee) and the fees of completed advances, minus the standing commissions of
  //    its sales, plus its own released commissions as an affiliate.
  const money = await sql`
    WITH tx AS (
      SELECT user_id, livemode, sum(owed)::bigint AS owed FROM (
        SELECT user_id, livemode, charged_cents - fee_cents - refunded_cents + (fee_cents * refunded_cents) / charged_cents AS owed
        FROM transactions WHERE status IN ${SETTLED}
        UNION ALL
        -- A chargeback debits the merchant like a refund (its fee share returned) until it is won.
        SELECT user_id, livemode, -(amount_cents - fee_returned_cents) FROM chargebacks WHERE status <> 'WON'
        UNION ALL
        SELECT user_id, livemode, -amount_cents FROM withdrawals WHERE status = 'COMPLETED'
        UNION ALL
        SELECT user_id, livemode, -fee_cents FROM advances WHERE status = 'COMPLETED'
        UNION ALL
        -- An affiliate's commission leaves the seller while it stands (cancelled: given back) ...
        SELECT merchant_id, livemode, -amount_cents FROM affiliate_commissions WHERE status IN ('PENDING', 'PAID')
        UNION ALL
        -- ... and is the affiliate's money once released (a clawback takes it back: CANCELLED).
        SELECT user_id, livemode, amount_cents FROM affiliate_commissions WHERE status = 'PAID'
        UNION ALL
        -- A split's share leaves the seller and is the recipient's, less what reversals took back.
        SELECT user_id, livemode, -(amount_cents - reversed_cents) FROM transaction_splits
        UNION ALL
        SELECT recipient_id, livemode, amount_cents - reversed_cents FROM transaction_splits
        UNION ALL
        -- A referral reward is paid out of the platform's fee: the referrer's money once released.
        SELECT user_id, livemode, amount_cents FROM referral_rewards WHERE status = 'PAID'
      ) o GROUP BY user_id, livemode
    ), acc AS (
      SELECT user_id, livemode,
             coalesce(sum(balance_cents) FILTER (WHERE kind IN ('available', 'receivable', 'reserved')), 0)::bigint AS held
      FROM ledger_accounts GROUP BY user_id, livemode
    )
    SELECT user_id, livemode, coalesce(tx.owed, 0)::bigint AS owed, coalesce(acc.held, 0)::bigint AS held
    FROM tx FULL JOIN acc USING (user_id, livemode)
    WHERE coalesce(tx.owed, 0) <> coalesce(acc.held, 0)`.execute(db);
  assert.deepEqual(money.rows, [], 'merchant balance differs from net payments minus refunds');
}

/** 6. Each transaction's journals agree with its status and refunds. */
async function assertTransactionJournals(db: Executor): Promise<void> {
  // 6. Per transaction: exactly one payment journal (taking exactly the charged amount from the
  //    outside) once paid and none before; refund journals, less those of refunds the provider did
  //    not make (refund_reversal), return exactly refunded_cents.
  const perTx = await sql`
    SELECT * FROM (
      SELECT t.id, t.status, t.charged_cents, t.refunded_cents,
        (SELECT count(*) FROM ledger_journals j
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind = 'payment')::int AS payments,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind = 'payment'
            AND e.account_kind = 'external')::bigint AS paid_in,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind IN ('refund', 'refund_reversal')
            AND e.account_kind = 'external')::bigint AS paid_back
      FROM transactions t
    ) x
    WHERE payments <> (CASE WHEN status IN ${SETTLED} THEN 1 ELSE 0 END)
       OR paid_in <> (CASE WHEN status IN ${SETTLED} THEN -charged_cents ELSE 0 END)
       OR paid_back <> refunded_cents
       OR refunded_cents > charged_cents`.execute(db);
  assert.deepEqual(perTx.rows, [], 'transaction whose journals do not match its status or refunds');
  await assertChargebacksConsistent(db);
}

/** 14. Each transaction's chargeback journals agree with its cases; a CHARGEBACK transaction has a standing case. */
async function assertChargebacksConsistent(db: Executor): Promise<void> {
  // Per transaction: the chargeback journals took from the outside exactly the standing (not WON)
  // cases' amounts, with their fee shares; the reversals gave back the won ones'. At most one case
  // is undecided, and the transaction is CHARGEBACK exactly while its latest case is not WON.
  const perTx = await sql`
    SELECT * FROM (
      SELECT t.id, t.status,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind IN ('chargeback', 'chargeback_reversal')
            AND e.account_kind = 'external')::bigint AS taken,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.user_id = t.user_id AND j.reference_type = 'transaction' AND j.reference_id = t.id AND j.kind IN ('chargeback', 'chargeback_reversal')
            AND e.account_kind = 'fees')::bigint AS fee,
        (SELECT coalesce(sum(c.amount_cents), 0) FROM chargebacks c WHERE c.transaction_id = t.id AND c.status <> 'WON')::bigint AS standing,
        (SELECT coalesce(sum(c.fee_returned_cents), 0) FROM chargebacks c WHERE c.transaction_id = t.id AND c.status <> 'WON')::bigint AS standing_fee,
        (SELECT count(*) FROM chargebacks c WHERE c.transaction_id = t.id AND c.status IN ('OPEN', 'CONTESTED'))::int AS undecided,
        (SELECT c.status FROM chargebacks c WHERE c.transaction_id = t.id ORDER BY c.created_at DESC, c.id DESC LIMIT 1) AS latest
      FROM transactions t
    ) x
    WHERE taken <> standing OR fee <> -standing_fee OR undecided > 1
       OR (status = 'CHARGEBACK') <> (latest IS NOT NULL AND latest <> 'WON')`.execute(db);
  assert.deepEqual(perTx.rows, [], 'transaction whose chargeback journals or status do not match its chargebacks');
}

/** 13. Each referral reward's journals agree with its status. */
async function assertReferralRewardsConsistent(db: Executor): Promise<void> {
  // 13. Per referral reward: of a settled production sale of an account its referrer referred; one
  //     journal paid it from the referred account's fees into the referrer's commission_pending;
  //     one released it iff released; one undid it iff cancelled (from available iff clawed back).
  const perReward = await sql`
    SELECT * FROM (
      SELECT r.id, r.kind, r.status, r.amount_cents, t.status AS tx_status, t.livemode AS tx_live, t.user_id = r.referred_id AS same_seller,
        u.referred_by = r.user_id AS referred,
        (SELECT count(*) FROM ledger_journals j WHERE j.reference_type = 'referral_reward' AND j.reference_id = r.id AND j.kind = 'referral_reward' AND j.user_id = r.referred_id)::int AS paid_journals,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.reference_type = 'referral_reward' AND j.reference_id = r.id AND j.kind = 'referral_reward'
            AND e.user_id = r.user_id AND e.account_kind = 'commission_pending')::bigint AS credited,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.reference_type = 'referral_reward' AND j.reference_id = r.id AND j.kind = 'referral_reward'
            AND e.user_id = r.referred_id AND e.account_kind = 'fees')::bigint AS from_fees,
        (SELECT count(*) FROM ledger_journals j WHERE j.reference_type = 'referral_reward' AND j.reference_id = r.id AND j.kind = 'referral_release' AND j.user_id = r.user_id)::int AS releases,
        (SELECT count(*) FROM ledger_journals j WHERE j.reference_type = 'referral_reward' AND j.reference_id = r.id AND j.kind = 'referral_reversal')::int AS reversals,
        (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id
          WHERE j.reference_type = 'referral_reward' AND j.reference_id = r.id AND j.kind = 'referral_reversal'
            AND e.user_id = r.user_id AND e.account_kind = 'available')::bigint AS clawed,
        r.paid_at IS NOT NULL AS released, r.clawed_back_at IS NOT NULL AS clawed_back
      FROM referral_rewards r JOIN transactions t ON t.id = r.transaction_id JOIN users u ON u.id = r.referred_id
    ) x
    WHERE tx_status NOT IN ${SETTLED} OR NOT tx_live OR NOT same_seller OR NOT referred
       OR paid_journals <> 1 OR credited <> amount_cents OR from_fees <> -amount_cents
       OR releases <> (CASE WHEN released THEN 1 ELSE 0 END)
       OR reversals <> (CASE WHEN status = 'CANCELLED' THEN 1 ELSE 0 END)
       OR clawed <> (CASE WHEN clawed_back THEN -amount_cents ELSE 0 END)
       OR (status = 'PAID') <> (released AND NOT clawed_back AND status <> 'CANCELLED')
       OR (clawed_back AND NOT released)`.execute(db);
  assert.deepEqual(perReward.rows, [], 'referral reward whose journals do not match its status');
}
