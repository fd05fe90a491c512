// What other modules do when a payment changes, without this module knowing them: deps.ts wires the
// hooks (a payment link's sale, a coupon's use, an affiliate's commission, a referral reward, a
// subscription's cycle). They run inside the status change's database transaction, on the locked
// transaction row, so they commit or roll back with it. The contract, which test/hooks.test.ts holds
// every wired hook to:
//   - database work only, through `trx` (never the root handle: on PGlite that deadlocks);
//   - no network, no files, no timers: anything slow or fallible outside the database is an
//     outbox row (an event, an e-mail) written here and sent after the commit;
//   - idempotent for one status change (a batch retried row by row runs a hook again on a rolled-back try).
import type { Trx } from '../../db/index.ts';
import type { AccountKind, Transaction } from '../../db/types.ts';
import type { EventInput } from '../events/service.ts';
import type { JournalInput, JournalRows } from '../ledger/service.ts';

export interface TransactionHooks {
  /**
   * Before PAID is written. A refusal (its reason) turns the payment into FAILED with that reason
   * (a payment link sold out meanwhile). The first refusal wins; a hook writes only when it accepts.
   */
  beforePaid?(trx: Trx, tx: Transaction, now: Date): Promise<string | null>;
  /** After any status change is written (`after` is the row as stored). */
  afterChange?(trx: Trx, before: Transaction, after: Transaction, now: Date): Promise<unknown>;
  /**
   * After a boleto its bank issued later got its numbers (boleto-issued.ts; `tx` as stored, still
   * PENDING): once per boleto, in the commit that records them. Not a status change.
   */
  boletoIssued?(trx: Trx, tx: Transaction, now: Date): Promise<unknown>;
  /**
   * Shares of a sale for other merchant accounts (a public split's recipients, an affiliate's
   * commission), posted in the PAID journal itself: taken from what the merchant is credited
   * (`net`: charged less the fee, less what earlier hooks' shares took), never more than it.
   * `settles`: where the sale's money lands (a share without an account lands there too, and
   * settles as the sale does: a card's instalments).
   */
  paidSplits?(trx: Trx, tx: Transaction, net: number, now: Date, settles: SaleAccount): Promise<Split[]>;
  /**
   * Shares given back in a refund's journal (negative amounts: from the other account to the
   * merchant's available balance), before the refund checks what the merchant can pay.
   */
  refundSplits?(trx: Trx, tx: Transaction, amountCents: number, now: Date): Promise<Split[]>;
  /**
   * Shares given back again when money a refund or chargeback took returns to the merchant (a
   * refund the provider did not make, a chargeback won): `tx` with what stays refunded. Positive
   * amounts, from the merchant's available balance, in the journal that returns the money.
   */
  restoredSplits?(trx: Trx, tx: Transaction, now: Date): Promise<Split[]>;
  /**
   * Journals of their own (the merchant's scope) posted with the PAID journal, every account of all
   * of them locked together in the ledger's one order: money that is not the merchant's net (a
   * referral reward paid out of the platform's fee).
   */
  paidJournals?(trx: Trx, tx: Transaction, now: Date): Promise<JournalInput[]>;
  /** Likewise with a refund's journal (a referral reward cancelled or clawed back). */
  refundJournals?(trx: Trx, tx: Transaction, amountCents: number, now: Date): Promise<JournalInput[]>;
}

/** Where a paid sale's net lands: available at once, or receivable until it settles. */
export type SaleAccount = 'available' | 'receivable';

/**
 * `amountCents` moves from the sale's merchant to `account` of the merchant `userId` (negative:
 * back); without `account` (at PAID only), to where the sale's own money lands, settling with it.
 */
export interface Split {
  userId: string;
  account?: AccountKind;
  amountCents: number;
  /** `userId`'s own events about it, recorded with the change's in one statement. */
  events?: EventInput[];
  /** Rows that describe it (a split's share), written with the journal that moves it. */
  rows?: JournalRows[];
}
