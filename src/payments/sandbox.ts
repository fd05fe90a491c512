// The sandbox: the provider of every development (test) payment and payout, and of production ones
// when an operator sets PAYMENT_PROVIDER / PAYOUT_PROVIDER to `sandbox` (rehearsals). Its magic
// values decide outcomes (docs/sandbox.md): test card numbers, and PIX keys whose payouts fail.
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { validateCard, type CardInput } from './card.ts';
import { buildBoleto } from './boleto.ts';
import type { PayoutFailureReason, PayoutProvider, PayoutRequest, PayoutResult } from './payouts.ts';
import { buildBrCode, newTxid } from './pix.ts';
import type {
  BoletoCharge,
  BoletoRequest,
  CardChargeRequest,
  CardDeclineReason,
  CardResult,
  CardToken,
  PaymentProvider,
  PixCharge,
  PixRequest,
  ProviderEvent,
  TokenChargeRequest,
  ProviderResult,
  RefundResult,
} from './provider.ts';

/** Sandbox test cards: the card number decides the outcome. Any other valid card is approved. */
export const SANDBOX_CARDS: Record<string, { reason: CardDeclineReason; message: string }> = {
  '4000000000000002': { reason: 'CARD_DECLINED', message: 'Card declined by the issuer' },
  '4000000000009995': { reason: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds' },
  '4000000000000069': { reason: 'EXPIRED_CARD', message: 'Card expired' },
  '4000000000000127': { reason: 'INCORRECT_CVV', message: 'Incorrect security code' },
  '4000000000000119': { reason: 'PROCESSING_ERROR', message: 'Processing error at the issuer' },
  '5105105105105100': { reason: 'CARD_DECLINED', message: 'Card declined by the issuer' },
  // A hard decline (HARD_DECLINES): a subscription's dunning never retries it.
  '4000000000009979': { reason: 'STOLEN_CARD', message: 'Card reported stolen: do not retry' },
};

const DICT_MISS = { reason: 'PIX_KEY_NOT_FOUND', message: 'PIX key not found in the directory (DICT)' } as const;
const REJECTED = { reason: 'PAYOUT_REJECTED', message: 'The receiving institution rejected the transfer' } as const;

/**
 * Sandbox payouts to these keys fail; every other valid key is paid. Keys are compared in their
 * normalised form (CPF/CNPJ digits, lowercase e-mail, +55 phone, lowercase UUID).
 */
export const SANDBOX_PAYOUT_FAILURES: Record<string, { reason: PayoutFailureReason; message: string }> = {
  '00000000191': DICT_MISS,
  '00000000000191': DICT_MISS,
  'payout-not-found@example.com': DICT_MISS,
  '+5511900000001': DICT_MISS,
  '00000000-0000-4000-8000-000000000001': DICT_MISS,
  '00000000272': REJECTED,
  '00000000000272': REJECTED,
  'payout-rejected@example.com': REJECTED,
  '+5511900000002': REJECTED,
  '00000000-0000-4000-8000-000000000002': REJECTED,
};

/** How many charge outcomes the sandbox remembers by reference (a retried reference gets the first one). */
const REMEMBERED_CHARGES = 10_000;

/** 25-digit boleto free field ("nosso número") derived from the transaction id's random bits. */
function boletoFreeField(id: string): string {
  return (BigInt('0x' + id.replace(/-/g, '').slice(12)) % 10n ** 25n).toString().padStart(25, '0');
}

/** An idRec as the standard forms it (RR + agent + yyyyMMdd + 11 alphanumerics), the agent being "SANDBOX0". */
function sandboxRecurrenceId(): string {
  return `RRSANDBOX0${new Date().toISOString().slice(0, 10).replace(/-/g, '')}${randomBytes(8).toString('hex').slice(0, 11)}`;
}

export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';
  /** Pix Automático is simulated: POST /api/v1/subscriptions/{id}/simulate with `pixAutomatico`. */
  readonly pixAutomatico = true;
  private config: Pick<Config, 'pix' | 'boleto'>;
  /** Outcomes by reference, so that a charge sent twice is charged once (as a real provider's idempotency key). */
  private charges = new Map<string, CardResult>();
  constructor(config: Pick<Config, 'pix' | 'boleto'>) {
    this.config = config;
  }

  /** The BR Code is built here: the sandbox's (or the platform's) receiving key, a random txid. */
  async createPix(req: PixRequest): Promise<PixCharge> {
    const { key, merchantName, merchantCity } = this.config.pix;
    // Pix Automático: a cycle's debit has no code to pay (its outcome is simulated), a retry reuses the first attempt's charge.
    if (req.automatic?.kind === 'retry') return { txid: null, brCode: null };
    const txid = newTxid();
    if (req.automatic?.kind === 'cycle') return { txid, brCode: null };
    const brCode = buildBrCode({ pixKey: key, merchantName, merchantCity, amountCents: req.amountCents, txid });
    if (req.automatic?.kind === 'first') return { txid, brCode, recurrenceId: sandboxRecurrenceId() };
    return { txid, brCode };
  }

  async createBoleto(req: BoletoRequest): Promise<BoletoCharge> {
    const b = buildBoleto({ bankCode: this.config.boleto.bankCode, dueDate: req.dueDate, amountCents: req.amountCents, freeField: boletoFreeField(req.transactionId) });
    return { barcode: b.barcode, digitableLine: b.digitableLine };
  }

  async chargeCard(req: CardChargeRequest): Promise<CardResult> {
    return this.once(req.reference, () => SANDBOX_CARDS[req.card.number.replace(/[\s-]/g, '')]);
  }

  /**
   * A charge's outcome by reference: what this instance answered, else the outcome decided now
   * (remembered). The approval's reference is derived from ours, so every instance, after any
   * restart, answers a reference charged again with the same payment: one charge, as a real
   * provider's idempotency key.
   */
  private once(reference: string, decline: () => { reason: CardDeclineReason; message: string } | undefined): CardResult {
    const seen = this.charges.get(reference);
    if (seen) return seen;
    const outcome = decline();
    const result: CardResult = outcome ? { approved: false, ...outcome } : { approved: true, reference: `sbx_${createHash('sha256').update(reference).digest('hex').slice(0, 24)}` };
    if (this.charges.size >= REMEMBERED_CHARGES) this.charges.delete(this.charges.keys().next().value!);
    this.charges.set(reference, result);
    return result;
  }

  /** What this instance answered for the reference (null: it charged nothing with it, as far as it remembers). */
  async findCharge(reference: string): Promise<CardResult | null> {
    return this.charges.get(reference) ?? null;
  }

  /** Every authorisation the sandbox approved can be captured and voided. */
  async captureCard(): Promise<ProviderResult> {
    return { ok: true };
  }

  async voidCard(): Promise<ProviderResult> {
    return { ok: true };
  }

  async cancelCharge(): Promise<ProviderResult> {
    return { ok: true };
  }

  /** Nothing is kept: the sandbox's authorisations live on the subscription only. */
  async cancelMandate(): Promise<void> {}

  /**
   * Sandbox tokens carry the test card's outcome (`sbx_tok_<random>_<number's index or "ok">`), so
   * any instance, after any restart, charges a token the way its card would have been charged: a
   * declining test card tokenises (as a real card is saved) and its charges are declined.
   */
  async tokenizeCard(card: CardInput): Promise<CardToken> {
    const checked = validateCard(card, new Date());
    if (!checked.ok) throw new Error(`card.${checked.field}: ${checked.reason}`);
    const number = card.number.replace(/[\s-]/g, '');
    const outcome = Object.keys(SANDBOX_CARDS).indexOf(number);
    const year = Number(card.expYear);
    return {
      token: `sbx_tok_${randomBytes(12).toString('hex')}_${outcome < 0 ? 'ok' : outcome}`,
      brand: checked.brand,
      last4: checked.last4,
      expMonth: Number(card.expMonth),
      expYear: year < 100 ? 2000 + year : year,
    };
  }

  async chargeToken(req: TokenChargeRequest): Promise<CardResult> {
    const m = /^sbx_tok_[0-9a-f]{24}_(ok|\d+)$/.exec(req.token);
    if (!m) return { approved: false, reason: 'PROCESSING_ERROR', message: 'Unknown card token' };
    return this.once(req.reference, () => (m[1] === 'ok' ? undefined : Object.values(SANDBOX_CARDS)[Number(m[1])]));
  }

  async refund(): Promise<RefundResult> {
    return { ok: true, reference: `sbx_rf_${randomBytes(12).toString('hex')}` };
  }

  /** The sandbox's notifications are simulations: `{ transactionId, outcome }` (see the simulate route). */
  async parseCallback(body: unknown): Promise<ProviderEvent[]> {
    const b = body as { transactionId?: unknown; outcome?: unknown };
    if (typeof b?.transactionId !== 'string' || (b.outcome !== 'PAID' && b.outcome !== 'FAILED' && b.outcome !== 'EXPIRED')) return [];
    return [{ transactionId: b.transactionId, outcome: b.outcome, ...(b.outcome === 'FAILED' ? { reason: 'SIMULATED_FAILURE' } : {}) }];
  }
}

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
