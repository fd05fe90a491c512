// Payout providers: send a withdrawal's net amount to the merchant's PIX key. Development
// withdrawals always use the sandbox (payments/sandbox.ts); production withdrawals use the provider
// the operator configured (PAYOUT_PROVIDER) or wait for an operator to settle them by hand
// (/api/admin). Chosen in payments/provider.ts (createProviders).
import type { PixKeyType } from '../db/types.ts';

export interface PayoutRequest {
  /**
   * Our reference for this payout, chosen before the first call. Providers must treat it as an
   * idempotency key: sending the same externalId again returns the first outcome, never a second
   * transfer (the payout job re-sends after a crash).
   */
  externalId: string;
  /** What reaches the merchant (the withdrawal's net amount). */
  amountCents: number;
  pixKeyType: PixKeyType;
  pixKey: string;
  description: string | null;
}

export type PayoutFailureReason = 'PIX_KEY_NOT_FOUND' | 'PAYOUT_REJECTED';

export type PayoutResult = { ok: true } | { ok: false; reason: PayoutFailureReason; message: string };

export interface PayoutProvider {
  readonly name: string;
  send(req: PayoutRequest): Promise<PayoutResult>;
}
