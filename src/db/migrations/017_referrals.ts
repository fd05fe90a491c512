import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Referral rewards (issue 14): an account that registered with another's referral code
// (users.referred_by) earns its referrer, in production only, a FIXED reward when its paid sales
// reach a threshold and a COMMISSION (a share of the platform's fee) on each sale for some months.
// Both are paid out of the platform's fee account through the ledger and held until released, with
// the affiliate commissions' release and clawback rules. Also affiliate coupons (coupons tied to
// an affiliate link).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE referral_rewards (
      id uuid PRIMARY KEY,
      -- The referrer, who is credited.
      user_id uuid NOT NULL REFERENCES users(id),
      referred_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL CHECK (livemode),
      kind text NOT NULL CHECK (kind IN ('FIXED','COMMISSION')),
      transaction_id uuid NOT NULL REFERENCES transactions(id),
      -- FIXED: the referred account's paid sales the sale brought to the threshold; COMMISSION: the fee.
      base_cents bigint NOT NULL CHECK (base_cents >= 0),
      -- COMMISSION: the share of the fee, in basis points, at the time of the sale.
      rate_bp integer CHECK (rate_bp BETWEEN 1 AND 10000),
      amount_cents integer NOT NULL CHECK (amount_cents > 0),
      status text NOT NULL CHECK (status IN ('PENDING','PAID','CANCELLED')),
      reason text,
      release_at timestamptz NOT NULL,
      paid_at timestamptz,
      cancelled_at timestamptz,
      clawed_back_at timestamptz,
      created_at timestamptz NOT NULL,
      CHECK ((kind = 'COMMISSION') = (rate_bp IS NOT NULL))
    );
    -- One commission per sale; one standing fixed reward per referred account (a cancelled one,
    -- its sale refunded, can be earned again).
    CREATE UNIQUE INDEX referral_rewards_commission ON referral_rewards (transaction_id) WHERE kind = 'COMMISSION';
    CREATE UNIQUE INDEX referral_rewards_fixed ON referral_rewards (referred_id) WHERE kind = 'FIXED' AND status <> 'CANCELLED';
    CREATE INDEX referral_rewards_transaction ON referral_rewards (transaction_id);
    CREATE INDEX referral_rewards_referrer ON referral_rewards (user_id, created_at DESC);
    CREATE INDEX referral_rewards_due ON referral_rewards (release_at) WHERE status = 'PENDING';
    CREATE INDEX users_referred_by ON users (referred_by, created_at DESC) WHERE referred_by IS NOT NULL;

    -- Affiliate coupons: a coupon tied to an affiliate of the merchant's programs attributes the sale
    -- to it, over any click. The code is copied (a link's code never changes) for the coupon's view.
    ALTER TABLE coupons ADD COLUMN affiliate_link_id uuid REFERENCES affiliate_links(id);
    ALTER TABLE coupons ADD COLUMN affiliate_code text;

    -- Extended commission: a plan may sell a product (whose affiliate program then covers its
    -- subscriptions); a subscription keeps the affiliate its checkout was attributed to, and each
    -- of its charges carries it.
    ALTER TABLE subscription_plans ADD COLUMN product_id uuid REFERENCES products(id);
    ALTER TABLE subscriptions ADD COLUMN affiliate_link_id uuid REFERENCES affiliate_links(id);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE subscriptions DROP COLUMN affiliate_link_id;
    ALTER TABLE subscription_plans DROP COLUMN product_id;
    ALTER TABLE coupons DROP COLUMN affiliate_code;
    ALTER TABLE coupons DROP COLUMN affiliate_link_id;
    DROP INDEX users_referred_by;
    DROP TABLE referral_rewards;
    `,
  );
}
