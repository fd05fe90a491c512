// Static list of migrations, in order: no directory scanning, works the same from any cwd.
import type { Migration } from 'kysely/migration';
import * as m001 from './001_foundation.ts';
import * as m002 from './002_transactions.ts';
import * as m003 from './003_webhooks.ts';
import * as m004 from './004_checkout.ts';
import * as m005 from './005_wallet.ts';
import * as m006 from './006_merchant_fees.ts';
import * as m007 from './007_provider_refs.ts';
import * as m008 from './008_sessions.ts';
import * as m009 from './009_product_sku.ts';
import * as m010 from './010_emails.ts';
import * as m011 from './011_subscriptions.ts';
import * as m012 from './012_pix_api.ts';
import * as m013 from './013_coupon_reservations.ts';
import * as m014 from './014_card_lifecycle.ts';
import * as m015 from './015_affiliates.ts';
import * as m016 from './016_subscription_history.ts';
import * as m017 from './017_referrals.ts';
import * as m018 from './018_report_days.ts';
import * as m019 from './019_pix_automatico.ts';
import * as m020 from './020_cycle_charge_recovery.ts';
import * as m022 from './022_pix_late_payment.ts';
import * as m023 from './023_report_days_per_statement.ts';
import * as m024 from './024_subscription_metrics_months.ts';
import * as m025 from './025_report_days_slot_per_statement.ts';
import * as m026 from './026_stored_responses_lz4.ts';
import * as m027 from './027_hot_path_user_fks.ts';
import * as m028 from './028_subscription_coupon_reservations.ts';
import * as m029 from './029_report_gross_charged.ts';
import * as m030 from './030_sandbox_operations.ts';
import * as m031 from './031_chargebacks.ts';
import * as m032 from './032_card_attempts.ts';
import * as m033 from './033_saved_cards.ts';
import * as m034 from './034_payouts.ts';
import * as m035 from './035_account_security.ts';
import * as m036 from './036_audit_log.ts';
import * as m037 from './037_new_destination_hold_and_erasure.ts';
import * as m038 from './038_report_chargebacks.ts';
import * as m039 from './039_report_chargebacks_won.ts';
import * as m040 from './040_boleto_issuing.ts';
import * as m041 from './041_subscription_address.ts';
import * as m042 from './042_checkouts.ts';
import * as m043 from './043_media_images.ts';
import * as m044 from './044_upsell_offers.ts';
import * as m045 from './045_splits.ts';
import * as m046 from './046_sub_account_login.ts';
import * as m048 from './048_partitions.ts';
import * as m049 from './049_subscription_clock_target.ts';

export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_transactions': m002,
  '003_webhooks': m003,
  '004_checkout': m004,
  '005_wallet': m005,
  '006_merchant_fees': m006,
  '007_provider_refs': m007,
  '008_sessions': m008,
  '009_product_sku': m009,
  '010_emails': m010,
  '011_subscriptions': m011,
  '012_pix_api': m012,
  '013_coupon_reservations': m013,
  '014_card_lifecycle': m014,
  '015_affiliates': m015,
  '016_subscription_history': m016,
  '017_referrals': m017,
  '018_report_days': m018,
  '019_pix_automatico': m019,
  '020_cycle_charge_recovery': m020,
  '022_pix_late_payment': m022,
  '023_report_days_per_statement': m023,
  '024_subscription_metrics_months': m024,
  '025_report_days_slot_per_statement': m025,
  '026_stored_responses_lz4': m026,
  '027_hot_path_user_fks': m027,
  '028_subscription_coupon_reservations': m028,
  '029_report_gross_charged': m029,
  '030_sandbox_operations': m030,
  '031_chargebacks': m031,
  '032_card_attempts': m032,
  '033_saved_cards': m033,
  '034_payouts': m034,
  '035_account_security': m035,
  '036_audit_log': m036,
  '037_new_destination_hold_and_erasure': m037,
  '038_report_chargebacks': m038,
  '039_report_chargebacks_won': m039,
  '040_boleto_issuing': m040,
  '041_subscription_address': m041,
  '042_checkouts': m042,
  '043_media_images': m043,
  '044_upsell_offers': m044,
  '045_splits': m045,
  '046_sub_account_login': m046,
  '048_partitions': m048,
  '049_subscription_clock_target': m049,
};
