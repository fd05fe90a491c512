// The payout rail's part of the seam (connector.ts re-exports it): what a payout connector is asked
// to send, where to, and what it answers. Payouts are asynchronous: a send is taken (or refused, or
// held for the platform's funds), its outcome follows by notification or lookup under our reference.
import type { BankAccount, PixKeyType } from '../db/types.ts';

export type { BankAccount } from '../db/types.ts';

/** Where a payout goes: a Pix key (resolved by the PSP in the DICT) or an account's data. */
export type PayoutDestination = { type: 'pix_key'; pixKeyType: PixKeyType; pixKey: string } | { type: 'bank_account'; account: BankAccount };

export interface PayoutRequest {
  /**
   * Our reference, chosen before the first call and sent on every retry: the same reference never
   * pays twice. Letters and digits, at most 35 (PSPs' idEnvio).
   */
  externalId: string;
  /** What reaches the merchant (the withdrawal's net amount). */
  amountCents: number;
  destination: PayoutDestination;
  description: string | null;
}

/**
 * Why a payout failed for good (the merchant's money goes back to their wallet): the key is in no
 * DICT entry; the account does not exist or is closed; the holder's document does not match the
 * account; any other refusal by the PSP or the receiving bank.
 */
export type PayoutFailureReason = 'PIX_KEY_NOT_FOUND' | 'ACCOUNT_NOT_FOUND' | 'ACCOUNT_CLOSED' | 'DOCUMENT_MISMATCH' | 'PAYOUT_REJECTED';

/**
 * A send's answer: taken (its outcome follows by notification or findPayout; `providerId`: the PSP's
 * id of the transfer, e.g. the e2eId, when it gives one), refused for good (FAILED), or not taken
 * for a reason that is the platform's, not the merchant's (HELD: the platform's account at the PSP
 * lacks funds; nothing was sent, the same reference is sent again later).
 */
export type PayoutSent =
  | { status: 'SENT'; providerId?: string }
  | { status: 'FAILED'; reason: PayoutFailureReason; message: string }
  | { status: 'HELD'; reason: 'PLATFORM_FUNDS'; message: string };
/** A payout as its connector holds it; null from findPayout: it has none with that reference. */
export type PayoutState = { status: 'PROCESSING'; providerId?: string } | { status: 'COMPLETED'; providerId?: string } | { status: 'FAILED'; reason: PayoutFailureReason; message: string };

/** What a payout connector can tell operators about itself (GET /api/admin/payouts/health). */
export interface PayoutHealth {
  /** The platform's balance at the PSP, in cents, where its API gives it; null otherwise. */
  balanceCents: number | null;
}

export interface PayoutRail {
  sendPayout(req: PayoutRequest): Promise<PayoutSent>;
  findPayout(reference: string): Promise<PayoutState | null>;
  /** Asks the PSP (throws when it cannot be reached); absent: the connector has nothing to report but reachability by findPayout. */
  payoutHealth?(): Promise<PayoutHealth>;
}
