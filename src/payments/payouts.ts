// Payout providers: send a withdrawal's net amount to the merchant's PIX key. Development
// withdrawals always use the sandbox; production withdrawals use the provider the operator
// configured (PAYOUT_PROVIDER) or wait for an operator to settle them by hand (/api/admin).
import { setTimeout as sleep } from 'node:timers/promises';
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

/**
 * Sandbox magic keys (docs/sandbox.md): these keys fail; every other valid key is paid.
 * Keys are compared in their normalised form (CPF/CNPJ digits, lowercase e-mail, +55 phone, lowercase UUID).
 */
export const SANDBOX_PAYOUT_FAILURES: Record<string, { reason: PayoutFailureReason; message: string }> = {
  '00000000191': { reason: 'PIX_KEY_NOT_FOUND', message: 'PIX key not found in the directory (DICT)' },
  '00000000000191': { reason: 'PIX_KEY_NOT_FOUND', message: 'PIX key not found in the directory (DICT)' },
  'payout-not-found@example.com': { reason: 'PIX_KEY_NOT_FOUND', message: 'PIX key not found in the directory (DICT)' },
  '+5511900000001': { reason: 'PIX_KEY_NOT_FOUND', message: 'PIX key not found in the directory (DICT)' },
  '00000000-0000-4000-8000-000000000001': { reason: 'PIX_KEY_NOT_FOUND', message: 'PIX key not found in the directory (DICT)' },
  '00000000272': { reason: 'PAYOUT_REJECTED', message: 'The receiving institution rejected the transfer' },
  '00000000000272': { reason: 'PAYOUT_REJECTED', message: 'The receiving institution rejected the transfer' },
  'payout-rejected@example.com': { reason: 'PAYOUT_REJECTED', message: 'The receiving institution rejected the transfer' },
  '+5511900000002': { reason: 'PAYOUT_REJECTED', message: 'The receiving institution rejected the transfer' },
  '00000000-0000-4000-8000-000000000002': { reason: 'PAYOUT_REJECTED', message: 'The receiving institution rejected the transfer' },
};

/** Pays after `delayMs` (a transfer takes a moment), except for the magic keys above. Deterministic per key, so re-sending is idempotent. */
export class SandboxPayoutProvider implements PayoutProvider {
  readonly name = 'sandbox';
  private delayMs: number;
  constructor(delayMs: number) {
    this.delayMs = delayMs;
  }
  async send(req: PayoutRequest): Promise<PayoutResult> {
    if (this.delayMs > 0) await sleep(this.delayMs);
    const failure = SANDBOX_PAYOUT_FAILURES[req.pixKey];
    return failure ? { ok: false, ...failure } : { ok: true };
  }
}

export interface PayoutProviders {
  sandbox: PayoutProvider;
  /** null: production withdrawals wait for an operator (manual payout). */
  production: PayoutProvider | null;
}

export const KNOWN_PAYOUT_PROVIDERS = ['sandbox'];

export function createPayoutProviders(opts: { productionProvider: string | null; sandboxDelayMs: number }): PayoutProviders {
  const sandbox = new SandboxPayoutProvider(opts.sandboxDelayMs);
  return { sandbox, production: opts.productionProvider === 'sandbox' ? sandbox : null };
}
