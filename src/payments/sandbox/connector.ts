// The sandbox: the connector of every development (test) payment and payout on every rail, and of
// production ones when an operator chooses it (PAYMENT_PROVIDER=sandbox, CARD_PROVIDER=sandbox,
// PAYOUT_PROVIDER=sandbox...: rehearsals). Its magic values decide outcomes (docs/sandbox.md): test
// card numbers, and PIX keys whose payouts fail. Like a real provider it keeps its own books
// (sandbox_operations): what it answered for each of our references, so a reference sent again gets
// the first answer and any process can look an operation up (the janitor's findCharge/findRefund/findPayout).
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { buildBoleto } from '../boleto.ts';
import { validateCard, type CardInput } from '../card.ts';
import type {
  BoletoCharge,
  BoletoRequest,
  CardChargeRequest,
  CardDeclineReason,
  CardResult,
  CardToken,
  ChargeLookup,
  Connector,
  ConnectorCore,
  ConnectorEdges,
  DisputeRequest,
  PayoutFailureReason,
  PayoutRequest,
  PayoutSent,
  PayoutState,
  PixCharge,
  PixRequest,
  ProviderResult,
  Rail,
  RefundRequest,
  RefundResult,
  TokenChargeRequest,
} from '../connector.ts';
import { buildBrCode, newTxid } from '../pix.ts';
import { cieloSandboxDecline } from './cielo-table.ts';

export const SANDBOX = 'sandbox';

/** Sandbox test cards: the card number decides the outcome. Any other valid card is decided by Cielo's table (cielo-table.ts). */
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

/** Test cards approved as they always were (docs/sandbox.md), whatever their last digit says in Cielo's table. */
export const SANDBOX_APPROVED: ReadonlySet<string> = new Set(['4242424242424242', '5555555555554444', '378282246310005', '6362970000457013', '6062825624254001']);

/** How the sandbox decides a card (digits only): its fixed test cards first, then Cielo's last-digit table. */
export function sandboxDecline(number: string): { reason: CardDeclineReason; message: string } | undefined {
  if (SANDBOX_APPROVED.has(number)) return undefined;
  return SANDBOX_CARDS[number] ?? cieloSandboxDecline(number);
}

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

/** Sandbox payouts to these account numbers (bankAccount.account) fail; every other account is paid. */
export const SANDBOX_ACCOUNT_FAILURES: Record<string, { reason: PayoutFailureReason; message: string }> = {
  '9990001': { reason: 'ACCOUNT_NOT_FOUND', message: 'No such account at the receiving institution' },
  '9990002': { reason: 'ACCOUNT_CLOSED', message: 'The receiving account is closed' },
  '9990003': { reason: 'DOCUMENT_MISMATCH', message: "The holder's document does not match the account" },
  '9990004': REJECTED,
};

/** How long the sandbox keeps its books (a reference older than this is not retried by anyone). */
const KEPT_DAYS = 30;

type ChargeRecord = (CardResult & { captured?: boolean });

/** 25-digit boleto free field ("nosso número") derived from the transaction id's random bits. */
function boletoFreeField(id: string): string {
  return (BigInt('0x' + id.replace(/-/g, '').slice(12)) % 10n ** 25n).toString().padStart(25, '0');
}

/** An idRec as the standard forms it (RR + agent + yyyyMMdd + 11 alphanumerics), the agent being "SANDBOX0". */
function sandboxRecurrenceId(): string {
  return `RRSANDBOX0${new Date().toISOString().slice(0, 10).replace(/-/g, '')}${randomBytes(8).toString('hex').slice(0, 11)}`;
}

export class SandboxConnector implements Connector {
  readonly name: string = SANDBOX;
  readonly rails: readonly Rail[] = ['PIX', 'CARD', 'BOLETO', 'PIX_AUTOMATICO', 'PAYOUT'];
  private config: Pick<Config, 'pix' | 'boleto'>;
  private db: Db;
  private payoutDelayMs: number;
  constructor(config: Pick<Config, 'pix' | 'boleto'>, db: Db, payoutDelayMs: number) {
    this.config = config;
    this.db = db;
    this.payoutDelayMs = payoutDelayMs;
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
    // A hybrid boleto, as banks issue them: its Pix code pays the same charge (a txid derived from our id).
    const { key, merchantName, merchantCity } = this.config.pix;
    const pixCode = buildBrCode({ pixKey: key, merchantName, merchantCity, amountCents: req.amountCents, txid: createHash('sha256').update(req.transactionId).digest('hex').slice(0, 25) });
    return { barcode: b.barcode, digitableLine: b.digitableLine, pixCode };
  }

  async chargeCard(req: CardChargeRequest): Promise<CardResult> {
    return this.charge(req.reference, req.capture, () => sandboxDecline(req.card.number.replace(/[\s-]/g, '')));
  }

  /**
   * A charge's outcome by reference: the first answer given for it, by any process, else the one
   * decided now. The approval's reference is derived from ours: one charge per reference.
   */
  private async charge(reference: string, captured: boolean, decline: () => { reason: CardDeclineReason; message: string } | undefined): Promise<CardResult> {
    const outcome = decline();
    const decided: ChargeRecord = outcome ? { approved: false, ...outcome } : { approved: true, reference: `sbx_${createHash('sha256').update(reference).digest('hex').slice(0, 24)}`, captured };
    const first = await this.once<ChargeRecord>(`charge:${reference}`, decided);
    return first.approved ? { approved: true, reference: first.reference } : { approved: false, reason: first.reason, message: first.message };
  }

  /** Writes `outcome` under `reference` unless one is there; returns the one that stands. */
  private async once<T>(reference: string, outcome: T): Promise<T> {
    const row = await this.db
      .insertInto('sandbox_operations')
      .values({ reference, outcome: JSON.stringify(outcome) })
      .onConflict((oc) => oc.column('reference').doUpdateSet((eb) => ({ outcome: eb.ref('sandbox_operations.outcome') })))
      .returning('outcome')
      .executeTakeFirstOrThrow();
    return (typeof row.outcome === 'string' ? JSON.parse(row.outcome) : row.outcome) as T;
  }

  private async recorded<T>(reference: string): Promise<T | null> {
    const row = await this.db.selectFrom('sandbox_operations').select('outcome').where('reference', '=', reference).executeTakeFirst();
    if (!row) return null;
    return (typeof row.outcome === 'string' ? JSON.parse(row.outcome) : row.outcome) as T;
  }

  /** A card charge by reference; a PIX or boleto of the sandbox is payable until simulated (its state is the transaction's). */
  async findCharge(reference: string, method: 'PIX' | 'BOLETO' | 'CARD'): Promise<ChargeLookup | null> {
    if (method !== 'CARD') return { status: 'PENDING' };
    const r = await this.recorded<ChargeRecord>(`charge:${reference}`);
    if (!r) return null;
    if (!r.approved) return { status: 'FAILED', reason: r.reason, message: r.message };
    return { status: r.captured === false ? 'AUTHORIZED' : 'PAID', reference: r.reference };
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
   * Sandbox tokens carry the test card's outcome (`sbx_tok_<random>_<number's index, "d" and the
   * last digit Cielo's table declines, or "ok">`), so
   * any process charges a token the way its card would have been charged: a declining test card
   * tokenises (as a real card is saved) and its charges are declined.
   */
  async tokenizeCard(card: CardInput): Promise<CardToken> {
    const checked = validateCard(card, new Date());
    if (!checked.ok) throw new Error(`card.${checked.field}: ${checked.reason}`);
    const number = card.number.replace(/[\s-]/g, '');
    const outcome = Object.keys(SANDBOX_CARDS).indexOf(number);
    const decided = outcome >= 0 ? String(outcome) : sandboxDecline(number) ? `d${number.slice(-1)}` : 'ok';
    const year = Number(card.expYear);
    return {
      token: `sbx_tok_${randomBytes(12).toString('hex')}_${decided}`,
      brand: checked.brand,
      last4: checked.last4,
      expMonth: Number(card.expMonth),
      expYear: year < 100 ? 2000 + year : year,
    };
  }

  async chargeToken(req: TokenChargeRequest): Promise<CardResult> {
    const m = /^sbx_tok_[0-9a-f]{24}_(ok|\d+|d\d)$/.exec(req.token);
    if (!m) return { approved: false, reason: 'PROCESSING_ERROR', message: 'Unknown card token' };
    const decline = () => (m[1] === 'ok' ? undefined : m[1].startsWith('d') ? cieloSandboxDecline(m[1].slice(1)) : Object.values(SANDBOX_CARDS)[Number(m[1])]);
    return this.charge(req.reference, true, decline);
  }

  async refund(req: RefundRequest): Promise<RefundResult> {
    return this.once<RefundResult>(`refund:${req.refundId}`, { ok: true, reference: `sbx_rf_${randomBytes(12).toString('hex')}` });
  }

  async findRefund(req: RefundRequest): Promise<RefundResult | null> {
    return this.recorded<RefundResult>(`refund:${req.refundId}`);
  }

  /**
   * A merchant's answer to a chargeback, kept in the sandbox's books by case (the first answer
   * stands, as at an acquirer); the files are counted, not kept. The outcome of a contested case
   * is the merchant's to simulate (CHARGEBACK_WON / CHARGEBACK_LOST, docs/sandbox.md).
   */
  async disputeChargeback(req: DisputeRequest): Promise<ProviderResult> {
    await this.once(`dispute:${req.caseId}`, { action: req.action, files: req.files?.length ?? 0 });
    return { ok: true };
  }

  /** Takes `SANDBOX_PAYOUT_DELAY_MS` (a transfer takes a moment); the magic keys and accounts are refused, the rest paid. */
  async sendPayout(req: PayoutRequest): Promise<PayoutSent> {
    if (this.payoutDelayMs > 0) await sleep(this.payoutDelayMs);
    const d = req.destination;
    const failure = d.type === 'pix_key' ? SANDBOX_PAYOUT_FAILURES[d.pixKey] : SANDBOX_ACCOUNT_FAILURES[d.account.account];
    const state = await this.once<PayoutState>(`payout:${req.externalId}`, failure ? { status: 'FAILED', ...failure } : { status: 'COMPLETED' });
    return state.status === 'FAILED' ? state : { status: 'SENT' };
  }

  /** The sandbox's transfers complete at once. */
  async findPayout(reference: string): Promise<PayoutState | null> {
    return this.recorded<PayoutState>(`payout:${reference}`);
  }

  edges(core: ConnectorCore): ConnectorEdges {
    const purge = async (now: Date) => {
      const gone = await core.db.deleteFrom('sandbox_operations').where('created_at', '<', new Date(now.getTime() - KEPT_DAYS * 86_400_000)).executeTakeFirst();
      return Number(gone.numDeletedRows);
    };
    return { routes: [], sweeps: [{ name: 'purge-operations', batch: Infinity, run: purge }] };
  }
}
