// The connector seam: every way money comes in (PIX, boleto, card, Pix Automático), goes back
// (refunds) and goes out (payouts) passes through a Connector, one folder under payments/ each.
// Which connector serves a rail in an environment is decided once, by the registry (registry.ts);
// a stored payment, refund or payout names the connector that made it, and everything after
// (capture, cancel, refund, confirmation, reconciliation) goes back to that one. What a connector
// learns later (a notification, a lookup, a sandbox simulation) reaches the payment core as
// ProviderEvents through the ConnectorCore port, never by importing the core.
import type { Db } from '../db/index.ts';
import type { Transaction } from '../db/types.ts';
import { AppError } from '../http/errors.ts';
import type { AuthorizationRequest, CardChargeRequest, CardHolder, CardResult, CardToken, ChargebackReport, DisputeRequest, TokenChargeRequest } from './card-rail.ts';
import type { CardInput } from './card.ts';
import type { LatePayment } from './late-payment.ts';
import type { PayoutRail, PayoutState } from './payout.ts';

export { ACQUIRER_SOCKETS, HARD_DECLINES } from './card-rail.ts';
export type { AuthorizationRequest, CardChargeRequest, CardDeclineReason, CardHolder, CardResult, CardToken, ChargebackReport, DisputeRequest, TokenChargeKind, TokenChargeRequest } from './card-rail.ts';
export type { BankAccount, PayoutDestination, PayoutFailureReason, PayoutHealth, PayoutRail, PayoutRequest, PayoutSent, PayoutState } from './payout.ts';

export const RAILS = ['PIX', 'CARD', 'BOLETO', 'PIX_AUTOMATICO', 'PAYOUT'] as const;
export type Rail = (typeof RAILS)[number];

/** Who pays, as connectors need it on a charge (the document normalised: digits, or CNPJ letters). */
export interface Payer {
  name: string;
  email: string;
  document: string;
}

export interface PixRequest {
  /** Our transaction id: a connector derives its charge id (txid) from it, so a retry finds the same charge. */
  transactionId: string;
  amountCents: number;
  expiresAt: Date;
  payer: Payer;
  description: string;
  /** São Paulo date (YYYY-MM-DD) the merchant gave as the due date, if any: a connector may make a charge with a due date. */
  dueDate?: string;
  /** With `dueDate`: the charge stays payable that many days after it, with a fine and interest (API Pix cobv). */
  latePayment?: LatePayment;
  /** A Pix Automático subscription's charge (modules/subscriptions): what kind it is. */
  automatic?: PixAutomaticoCharge;
}

/**
 * Pix Automático charges. `first`: the first payment, which also asks the payer to authorise the
 * recurring debits (API Pix journey 3: an immediate charge with the authorisation attached; the
 * connector returns the authorisation's id). `cycle`: a period's automatic debit under an approved
 * authorisation, on its due date (no BR Code: the payer's bank debits it). `retry`: a new attempt
 * of a cycle's debit that failed, on `date`, under the same charge (`txid`).
 */
export type PixAutomaticoCharge =
  | { kind: 'first'; contract: string; object: string; periodicity: 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL'; firstDebitDate: string }
  | { kind: 'cycle'; recurrenceId: string; dueDate: string }
  | { kind: 'retry'; recurrenceId: string; txid: string; date: string };

export interface PixCharge {
  /** The charge id in the BR Code (25-35 alphanumerics); null for a retry of a debit (its charge is the first attempt's). */
  txid: string | null;
  /** The BR Code the payer copies or scans ("pix copia e cola"); null for an automatic debit (Pix Automático). */
  brCode: string | null;
  /** Pix Automático `first`: the authorisation the connector created (idRec). */
  recurrenceId?: string;
}

/** A payer's address, as a registered boleto needs it (the checkout's address shape). */
export interface PayerAddress {
  street: string;
  number: string;
  complement?: string;
  neighborhood: string;
  city: string;
  /** UF, two capital letters. */
  state: string;
  /** CEP, eight digits. */
  zipCode: string;
}

export interface BoletoRequest {
  /** Our transaction id: a connector derives its own number of the boleto from it, so a retry issues none twice. */
  transactionId: string;
  amountCents: number;
  /** São Paulo calendar date, YYYY-MM-DD. */
  dueDate: string;
  /** Calendar days after dueDate the boleto can still be paid (BOLETO_DAYS_AFTER_DUE). */
  daysAfterDue: number;
  payer: Payer;
  /** The payer's address; required by connectors with `needsPayerAddress`. */
  address: PayerAddress | null;
  description: string;
}

/** An issued boleto: its numbers and, for a hybrid boleto, the Pix code that pays it too. */
export interface BoletoCharge {
  barcode: string;
  digitableLine: string;
  pixCode: string | null;
}

/** A pending PIX or boleto charge to withdraw (the merchant cancelled the order). */
export interface CancelRequest {
  transactionId: string;
  paymentMethod: 'PIX' | 'BOLETO';
  /** The PIX charge id. */
  txid: string | null;
  /** A boleto's id at its bank (boleto_ref), when it has one. */
  boletoRef?: string | null;
}

export type ProviderResult = { ok: true } | { ok: false; reason: string; message: string };

/**
 * A charge as its connector holds it, asked by our reference (the transaction id): how the core
 * settles an outcome it never recorded. null: the connector made no charge with that reference.
 */
export type ChargeLookup =
  | { status: 'PAID'; reference: string }
  | { status: 'AUTHORIZED'; reference: string }
  | { status: 'FAILED'; reason: string; message: string }
  | { status: 'PENDING' }
  | { status: 'CANCELLED' };

export interface RefundRequest {
  /** Our refund id, chosen before the call; an idempotency key like CardChargeRequest.reference. */
  refundId: string;
  transactionId: string;
  paymentMethod: 'PIX' | 'BOLETO' | 'CARD';
  /** The connector's own reference of the payment (card charge id, PIX end-to-end id), when it gave one. */
  paymentReference: string | null;
  amountCents: number;
}

/**
 * `pending`: the connector accepted the refund and reports its outcome later (the refund row stays
 * PENDING with the connector's reference until then).
 */
export type RefundResult = { ok: true; reference: string; pending?: boolean } | { ok: false; reason: string; message: string };

/** A payment's fate as a connector reports it, to be applied by the payment core. */
export interface ProviderEvent {
  transactionId: string;
  outcome: 'PAID' | 'FAILED' | 'EXPIRED';
  /** For FAILED: why. */
  reason?: string;
  /**
   * The connector's id of the payment (a PIX end-to-end id), stored as the transaction's
   * provider_ref when it becomes PAID: one payment id pays one transaction, once.
   */
  reference?: string;
  /** For PAID, when reported: the amount paid (must equal the amount charged, or what a PIX's late-payment terms allow on `paidAt`). */
  amountCents?: number;
  /** For PAID, when reported: when the payer paid. */
  paidAt?: Date;
  /** For a PAID boleto: paid by its barcode or by its Pix code (a hybrid boleto). */
  paidWith?: 'BOLETO' | 'PIX';
  /** For PAID: when the money reaches the platform's account, if later (a boleto paid by barcode settles in business days): receivable until then. */
  settlesAt?: Date;
}

/** How the core settles what it never recorded: a charging connector answers by our references. */
export interface Lookups {
  /** The charge made with our reference (the transaction id), or null when it made none. */
  findCharge(reference: string, method: 'PIX' | 'BOLETO' | 'CARD'): Promise<ChargeLookup | null>;
  /** The refund made with our refund id, or null when it made none (then it may be sent again with the same id). */
  findRefund(req: RefundRequest): Promise<RefundResult | null>;
}

/** The rails' operations. A connector serving a rail implements all of that rail's (checked by the registry). */
export interface PixRail extends Lookups {
  createPix(req: PixRequest): Promise<PixCharge>;
  /** Withdraws a pending charge, so it can no longer be paid. */
  cancelCharge(req: CancelRequest): Promise<ProviderResult>;
  refund(req: RefundRequest): Promise<RefundResult>;
}
export interface BoletoRail extends Lookups {
  /**
   * The boleto's numbers at once, or null when its bank issues it after the transaction is stored:
   * the boleto is ISSUING until the connector's own sweep records it (ConnectorCore.recordBoleto).
   */
  createBoleto(req: BoletoRequest): Promise<BoletoCharge | null>;
  cancelCharge(req: CancelRequest): Promise<ProviderResult>;
  refund(req: RefundRequest): Promise<RefundResult>;
}
export interface CardRail extends Lookups {
  /** Authorises (and captures, unless `capture` is false) a card payment. */
  chargeCard(req: CardChargeRequest): Promise<CardResult>;
  /** Takes an authorised amount (all or part). Idempotent per transaction. */
  captureCard(req: AuthorizationRequest): Promise<ProviderResult>;
  /** Releases an authorisation (cancelled, or past its time). Idempotent per transaction. */
  voidCard(req: AuthorizationRequest): Promise<ProviderResult>;
  refund(req: RefundRequest): Promise<RefundResult>;
  /** Keeps a card for later charges (no charge made); absent: no card subscriptions. The card was validated by the caller. */
  tokenizeCard?(card: CardInput, holder: CardHolder): Promise<CardToken>;
  /** Charges a stored card once per reference (no CVV), told why (`kind`). */
  chargeToken?(req: TokenChargeRequest): Promise<CardResult>;
  /** Sends a merchant's answer to a chargeback (accept it, or contest it with evidence); absent: disputes are answered at the acquirer. */
  disputeChargeback?(req: DisputeRequest): Promise<ProviderResult>;
}
export interface PixAutomaticoRail {
  /** Makes the charges of PixRequest.automatic (the first one with its authorisation, debits, retries). */
  createPix(req: PixRequest): Promise<PixCharge>;
  /** Withdraws an authorisation (the subscription ended). One already final there is fine. */
  cancelMandate(recurrenceId: string): Promise<void>;
}
export interface RailApi {
  PIX: PixRail;
  CARD: CardRail;
  BOLETO: BoletoRail;
  PIX_AUTOMATICO: PixAutomaticoRail;
  PAYOUT: PayoutRail;
}

/** What each rail asks of a connector, checked when the registry is built. */
export const RAIL_METHODS: Record<Rail, readonly string[]> = {
  PIX: ['createPix', 'cancelCharge', 'refund', 'findCharge', 'findRefund'],
  CARD: ['chargeCard', 'captureCard', 'voidCard', 'refund', 'findCharge', 'findRefund'],
  BOLETO: ['createBoleto', 'cancelCharge', 'refund', 'findCharge', 'findRefund'],
  PIX_AUTOMATICO: ['createPix', 'cancelMandate'],
  PAYOUT: ['sendPayout', 'findPayout'],
};

/** How a connector's background work and inbound notifications reach the payment core. */
export interface ConnectorCore {
  db: Db;
  log: ConnectorLog;
  /** The gateway's public base URL (BASE_URL): where a provider sends notifications. */
  baseUrl: string;
  /** Applies reported outcomes to this connector's transactions of one merchant and environment; refused (AppError) for another's. */
  applyEvents(tx: Pick<Transaction, 'user_id' | 'livemode'>, events: ProviderEvent[]): Promise<Transaction[]>;
  /** Records what the connector says about a refund (SUCCEEDED, still PENDING, or FAILED and undone). */
  recordRefund(refundId: string, transactionId: string, result: RefundResult): Promise<void>;
  /**
   * Records what a bank says of a boleto it issues after the transaction was stored: its id there
   * (`ref`), then its numbers once it has them (the boleto becomes ISSUED; transaction.updated).
   * Only a PENDING boleto of this connector changes; returns whether it did.
   */
  recordBoleto(transactionId: string, ref: string, issued: BoletoCharge | null): Promise<boolean>;
  /** Applies a Pix Automático authorisation's state to its subscription. */
  applyMandate(report: { recurrenceId: string; status: string; cancelledBy?: string | null }): Promise<void>;
  /**
   * Applies a chargeback this connector reports on one of its card payments (money, status, events
   * in one database transaction); a repeated report changes nothing. Refused (AppError) for another
   * connector's payment, or one not PAID/PARTIALLY_REFUNDED when a case opens.
   */
  applyChargeback(report: ChargebackReport): Promise<void>;
  /**
   * Records a payout's state, confirmed by the connector's own findPayout (never a notification's
   * word): COMPLETED or FAILED settle the withdrawal sent under `reference` by this connector, once;
   * PROCESSING stores the PSP's id. Unknown references and settled withdrawals change nothing.
   */
  applyPayout(reference: string, state: PayoutState): Promise<void>;
}

export interface ConnectorLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A notification route, mounted by the registry at `/api/psp/<connector>/<path>` (and at its aliases). */
export interface InboundRoute {
  /** Under /api/psp/<connector>: the first is the one registered with the provider. */
  paths: string[];
  /** Full paths kept for providers registered before the connector paths existed (e.g. /api/psp/pix). */
  aliases?: string[];
  operationId: string;
  summary: string;
  description: string;
  /** TypeBox schema of the body. */
  body: unknown;
  /** Requests per minute per address before 429. */
  perMinute: number;
  /**
   * Handles the body; throws AppError(503) when the provider cannot be asked to confirm it (it sends
   * again), AppError(401) when the request lacks what the provider was told to send (a secret header,
   * or a query parameter for a provider that cannot send headers). `headers`: the request's, names in
   * lower case; `query`: its parsed query string.
   */
  handle(body: unknown, headers: Record<string, string | string[] | undefined>, query?: Record<string, unknown>): Promise<void>;
}

/** Periodic work of a connector, run by the job runner on every tick. */
export interface ConnectorSweep {
  name: string;
  batch: number;
  run(now: Date): Promise<number>;
}

export interface ConnectorEdges {
  routes: InboundRoute[];
  sweeps: ConnectorSweep[];
  /** Once the server listens (e.g. registering the notification URL); retried by a sweep on failure. */
  start?(): Promise<void>;
}

export interface Connector extends Partial<PixRail & BoletoRail & CardRail & PixAutomaticoRail & PayoutRail & Lookups> {
  readonly name: string;
  /** The rails it can serve (the registry refuses a configuration naming it for another). */
  readonly rails: readonly Rail[];
  /** Days after payment within which a refund can still be sent; absent = no limit. */
  readonly refundWindowDays?: number;
  /** true: its pending charges are expired by its own sweep, which asks the provider first; the generic expiry leaves them. */
  readonly expiresOwnCharges?: boolean;
  /** true: a paid payment cannot be reversed here; its refund is a Pix to the payer's key (modules/transactions/pix-refund.ts). */
  readonly refundsByPix?: boolean;
  /** The smallest boleto its bank registers (cents); a smaller one is refused at creation (400), not failed later. */
  readonly minBoletoCents?: number;
  /** true: its boletos are registered with the payer's address (a production transaction by boleto must give clientAddress). */
  readonly needsPayerAddress?: boolean;
  /** A boleto's PDF as its bank renders it, by the bank's id (boleto_ref); absent: the printable page only. */
  boletoPdf?(boletoRef: string): Promise<Buffer>;
  /** Its inbound routes and sweeps, over the core (built once by the registry). */
  edges?(core: ConnectorCore): ConnectorEdges;
  close?(): void;
}

/** The 503 for a rail this environment has no connector for (asked before anything is written). */
export function railNotOffered(rail: Rail): AppError {
  if (rail === 'PAYOUT') return new AppError(503, 'Automatic payouts are not configured on this gateway.');
  if (rail === 'PIX_AUTOMATICO') return new AppError(503, "Pix Automático is not available with this gateway's payment provider: subscribe with PIX instead");
  const what = { PIX: 'PIX', BOLETO: 'Boleto', CARD: 'Card' }[rail];
  return new AppError(503, `${what} payments are not available in production yet: this gateway does not take them with its configured provider. Use a development key to test ${what} payments.`);
}
