// Payment providers. Development (test) transactions always use the sandbox; production
// transactions use the provider the operator configured (PAYMENT_PROVIDER), or are refused.
import { randomBytes } from 'node:crypto';
import type { CardInput } from './card.ts';

export type CardDeclineReason = 'CARD_DECLINED' | 'INSUFFICIENT_FUNDS' | 'EXPIRED_CARD' | 'INCORRECT_CVV' | 'PROCESSING_ERROR';

export type CardResult = { approved: true; reference: string } | { approved: false; reason: CardDeclineReason; message: string };

export interface PaymentProvider {
  readonly name: string;
  /** Authorises and captures a card payment of amountCents (the total the customer pays). */
  chargeCard(card: CardInput, amountCents: number, installments: number): Promise<CardResult>;
}

/** Sandbox test cards: the card number decides the outcome (docs/sandbox.md). Any other valid card is approved. */
export const SANDBOX_CARDS: Record<string, { reason: CardDeclineReason; message: string }> = {
  '4000000000000002': { reason: 'CARD_DECLINED', message: 'Card declined by the issuer' },
  '4000000000009995': { reason: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds' },
  '4000000000000069': { reason: 'EXPIRED_CARD', message: 'Card expired' },
  '4000000000000127': { reason: 'INCORRECT_CVV', message: 'Incorrect security code' },
  '4000000000000119': { reason: 'PROCESSING_ERROR', message: 'Processing error at the issuer' },
  '5105105105105100': { reason: 'CARD_DECLINED', message: 'Card declined by the issuer' },
};

export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';
  async chargeCard(card: CardInput): Promise<CardResult> {
    const number = card.number.replace(/[\s-]/g, '');
    const outcome = SANDBOX_CARDS[number];
    if (outcome) return { approved: false, ...outcome };
    return { approved: true, reference: `sbx_${randomBytes(12).toString('hex')}` };
  }
}

export interface Providers {
  sandbox: PaymentProvider;
  production: PaymentProvider | null;
}

export function createProviders(productionName: string | null): Providers {
  const sandbox = new SandboxProvider();
  return { sandbox, production: productionName === 'sandbox' ? sandbox : null };
}
