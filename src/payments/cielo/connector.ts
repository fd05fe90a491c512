// Production card payments through Cielo's E-commerce API 3.0: sales (authorise, or authorise and
// capture) under MerchantOrderId = our transaction id without hyphens, made once (sale.ts), capture
// (all or part), void of an authorisation, refunds as partial or full voids (refunds.ts), lookups
// by our reference, card tokens for subscriptions (POST /1/card, then sales with CardToken as
// merchant-initiated recurring charges), and Cielo's Notification Post (inbound.ts, edges); with
// CIELO_CHARGEBACK_* set, chargebacks through Cielo's Chargeback API (chargeback-*.ts).
// The PAN and CVV exist only in the body of the request to Cielo: never logged, never stored.
import type { CieloConfig } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { AppError, validation } from '../../http/errors.ts';
import { validateCard, type CardInput } from '../card.ts';
import type {
  AuthorizationRequest,
  CardChargeRequest,
  CardResult,
  CardToken,
  ChargeLookup,
  Connector,
  ConnectorCore,
  ConnectorEdges,
  ConnectorLog,
  DisputeRequest,
  ProviderResult,
  Rail,
  RefundRequest,
  RefundResult,
  TokenChargeKind,
  TokenChargeRequest,
} from '../connector.ts';
import { CieloChargebackClient } from './chargeback-client.ts';
import type { CaseParts } from './chargeback-cases.ts';
import { disputeCielo } from './chargeback-dispute.ts';
import { CieloClient, CieloError } from './client.ts';
import { cieloEdges } from './edges.ts';
import { BRANDS, CIELO_PROVIDER, digits, expirationOf, lookupOf, orderIdFor, PAYMENT_ID, STATUS } from './mapping.ts';
import { findRefund, voidResult } from './refunds.ts';
import { findSale, saleOf, sell, type SaleParts } from './sale.ts';

/** What a merchant is told when Cielo cannot be reached for a capture or a void (nothing changed here). */
const unreachable = () => new AppError(503, 'The card provider (Cielo) did not answer; nothing was changed here. Try again in a moment.');

/**
 * How a stored card's charge is told to Cielo, by why it is made (API E-commerce 3.0, "Card On File"
 * scenarios and "Indicador de início da transação Mastercard"): a subscription's charges are
 * Recurrent with CardOnFile Reason Recurring, a one-click purchase is not recurrent (Unscheduled);
 * Mastercard's Category C1 (the cardholder started it) or M1 (the merchant, for a recurring charge).
 */
const STORED_CARD_USE: Record<TokenChargeKind, { recurrent: boolean; reason: string; indicator: { Category: string; Subcategory: string } }> = {
  ONE_CLICK: { recurrent: false, reason: 'Unscheduled', indicator: { Category: 'C1', Subcategory: 'CredentialsOnFile' } },
  SIGNUP: { recurrent: true, reason: 'Recurring', indicator: { Category: 'C1', Subcategory: 'Subscription' } },
  RENEWAL: { recurrent: true, reason: 'Recurring', indicator: { Category: 'M1', Subcategory: 'Subscription' } },
};

/** A stored card's token as we keep it: Cielo's brand name and its CardToken (a sale with a CardToken needs both). */
const TOKEN = /^(Visa|Master|Amex|Elo|Diners|Hipercard):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export class CieloConnector implements Connector {
  readonly name = CIELO_PROVIDER;
  readonly rails: readonly Rail[] = ['CARD'];
  readonly client: CieloClient;
  readonly config: CieloConfig;
  readonly parts: SaleParts & { db: Db };
  /** Cielo's Chargeback API, when CIELO_CHARGEBACK_* is set; null: chargebacks are answered on Cielo's site. */
  readonly chargebacks: { parts: CaseParts; userName: string } | null;

  constructor(config: CieloConfig, db: Db, log: ConnectorLog) {
    this.config = config;
    this.client = new CieloClient(config);
    this.parts = { client: this.client, log, db };
    const cb = config.chargeback;
    this.chargebacks = cb ? { parts: { ...this.parts, cb: new CieloChargebackClient(cb, config.ca, config.timeoutMs), mainCustomer: cb.mainCustomer }, userName: cb.userName } : null;
  }

  /** POST /1/sales/ with the card (instalments with interest ByMerchant: the amount already includes it). */
  chargeCard(req: CardChargeRequest): Promise<CardResult> {
    const number = digits(req.card.number);
    const checked = validateCard(req.card, new Date());
    if (!checked.ok) return Promise.resolve({ approved: false, reason: 'INVALID_CARD', message: `card.${checked.field}: ${checked.reason}` });
    const body = {
      MerchantOrderId: orderIdFor(req.reference),
      Customer: { Name: req.card.holderName.trim().slice(0, 255) },
      Payment: {
        Type: 'CreditCard',
        Amount: req.amountCents,
        Installments: req.installments,
        Interest: 'ByMerchant',
        Capture: req.capture,
        SoftDescriptor: this.config.softDescriptor,
        CreditCard: { CardNumber: number, Holder: req.card.holderName.trim().slice(0, 25), ExpirationDate: expirationOf(req.card), SecurityCode: String(req.card.cvv), Brand: BRANDS[checked.brand] },
      },
    };
    return sell(this.parts, req.reference, body, req.capture);
  }

  /**
   * A stored card's charge: CreditCard.CardToken and Brand, no CVV, told why (STORED_CARD_USE):
   * Recurrent and CardOnFile Used/Recurring for a subscription's charges, Used/Unscheduled for a
   * one-click purchase; for Mastercard the initiator indicator the scheme requires on stored
   * credentials (customer-initiated C1, or merchant-initiated M1 for a renewal).
   */
  chargeToken(req: TokenChargeRequest): Promise<CardResult> {
    const m = TOKEN.exec(req.token);
    if (!m) return Promise.resolve({ approved: false, reason: 'INVALID_CARD', message: 'not a card token of this provider' });
    const use = STORED_CARD_USE[req.kind];
    const body = {
      MerchantOrderId: orderIdFor(req.reference),
      Payment: {
        Type: 'CreditCard',
        Amount: req.amountCents,
        Installments: 1,
        Interest: 'ByMerchant',
        Capture: true,
        Recurrent: use.recurrent,
        SoftDescriptor: this.config.softDescriptor,
        ...(m[1] === 'Master' ? { InitiatedTransactionIndicator: use.indicator } : {}),
        CreditCard: { CardToken: m[2].toLowerCase(), Brand: m[1], CardOnFile: { Usage: 'Used', Reason: use.reason } },
      },
    };
    return sell(this.parts, req.reference, body, true);
  }

  /** POST /1/card: Cielo keeps the card and answers its CardToken (no charge made). */
  async tokenizeCard(card: CardInput): Promise<CardToken> {
    const checked = validateCard(card, new Date());
    if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
    const brand = BRANDS[checked.brand];
    let answer: { CardToken?: unknown } | null;
    try {
      answer = await this.client.call('api', 'POST', '/1/card', { CustomerName: card.holderName.trim().slice(0, 255), CardNumber: digits(card.number), Holder: card.holderName.trim().slice(0, 25), ExpirationDate: expirationOf(card), Brand: brand });
    } catch (err) {
      this.parts.log.error({ cielo: err instanceof CieloError ? err.toLog() : { error: (err as Error).message } }, 'cielo: a card could not be tokenised');
      if (err instanceof CieloError && err.kind === 'refused') throw validation('card', 'the card provider (Cielo) refused to keep this card: check its data');
      throw unreachable();
    }
    const token = String(answer?.CardToken ?? '');
    if (!PAYMENT_ID.test(token)) throw unreachable();
    const year = Number(card.expYear);
    return { token: `${brand}:${token.toLowerCase()}`, brand: checked.brand, last4: checked.last4, expMonth: Number(card.expMonth), expYear: year < 100 ? 2000 + year : year };
  }

  /**
   * PUT /1/sales/{PaymentId}/capture?amount= (all or part). A capture that failed or got no answer is
   * judged by the sale's state: one already captured (a retry after a lost answer) is fine.
   */
  async captureCard(req: AuthorizationRequest): Promise<ProviderResult> {
    const id = req.paymentReference;
    if (!id || !PAYMENT_ID.test(id)) return { ok: false, reason: 'NO_AUTHORIZATION', message: 'the payment has no Cielo PaymentId' };
    const query = req.amountCents !== undefined ? `?amount=${req.amountCents}` : '';
    // Captured already (a retry after a lost answer) counts only for the amount asked.
    const capturedAsAsked = (p: { Status?: unknown; CapturedAmount?: unknown; Amount?: unknown } | undefined) =>
      p?.Status === STATUS.PaymentConfirmed && p.CapturedAmount === (req.amountCents ?? p.Amount);
    try {
      const answer = await this.client.call<{ Status?: unknown; ReturnCode?: unknown; ReturnMessage?: unknown } | null>('api', 'PUT', `/1/sales/${id}/capture${query}`);
      if (answer?.Status === STATUS.PaymentConfirmed) return { ok: true };
      return { ok: false, reason: 'CAPTURE_REFUSED', message: `Cielo ${String(answer?.ReturnCode ?? '?')}: ${String(answer?.ReturnMessage ?? 'capture refused').slice(0, 120)}` };
    } catch (err) {
      if (!(err instanceof CieloError) || (err.kind !== 'refused' && err.kind !== 'unavailable')) throw err;
      const sale = await saleOf(this.parts, id).catch(() => null);
      if (capturedAsAsked(sale?.Payment)) return { ok: true };
      if (err.kind === 'unavailable') throw unreachable();
      this.parts.log.warn({ transactionId: req.transactionId, cielo: err.toLog() }, 'cielo: a capture was refused');
      return { ok: false, reason: 'CAPTURE_REFUSED', message: `Cielo refused the capture (${err.codes.map((c) => c.code).join(', ') || err.status})` };
    }
  }

  /** Releases an authorisation: PUT /1/sales/{PaymentId}/void?amount= for what it holds; one already voided is fine. */
  async voidCard(req: AuthorizationRequest): Promise<ProviderResult> {
    const id = req.paymentReference;
    if (!id || !PAYMENT_ID.test(id)) return { ok: true };
    const state = async () => (await saleOf(this.parts, id).catch(() => null))?.Payment ?? null;
    const before = await state();
    if (!before) throw unreachable();
    if (before.Status === STATUS.Voided || before.Status === STATUS.Refunded) return { ok: true };
    if (before.Status !== STATUS.Authorized) return { ok: false, reason: 'NOT_AUTHORIZED', message: `the sale is not an authorisation at Cielo (Status ${String(before.Status)})` };
    try {
      const answer = await this.client.call<{ ReasonCode?: unknown } | null>('api', 'PUT', `/1/sales/${id}/void?amount=${Number(before.Amount)}`);
      const r = voidResult(answer, id);
      return r.ok ? { ok: true } : r;
    } catch (err) {
      if (!(err instanceof CieloError)) throw err;
      const after = await state();
      if (after?.Status === STATUS.Voided || after?.Status === STATUS.Refunded) return { ok: true };
      if (err.kind === 'unavailable' || !after) throw unreachable();
      return { ok: false, reason: 'VOID_REFUSED', message: `Cielo refused the void (${err.codes.map((c) => c.code).join(', ') || err.status})` };
    }
  }

  /**
   * A refund (all or part): PUT /1/sales/{PaymentId}/void?amount=. Sent once: a lost answer throws,
   * the refund stays PENDING and the janitor asks findRefund (refunds.ts) before anything is resent.
   */
  async refund(req: RefundRequest): Promise<RefundResult> {
    if (req.paymentMethod !== 'CARD') return { ok: false, reason: 'METHOD_NOT_OFFERED', message: `${req.paymentMethod} refunds are not handled by the card provider` };
    const id = req.paymentReference;
    if (!id || !PAYMENT_ID.test(id)) return { ok: false, reason: 'PAYMENT_NOT_SETTLED', message: 'the payment has no Cielo PaymentId to refund' };
    try {
      return voidResult(await this.client.call('api', 'PUT', `/1/sales/${id}/void?amount=${req.amountCents}`), id);
    } catch (err) {
      if (!(err instanceof CieloError) || err.kind !== 'refused') throw err;
      this.parts.log.warn({ refundId: req.refundId, cielo: err.toLog() }, 'cielo: a refund was refused');
      return { ok: false, reason: 'REFUND_REFUSED', message: `Cielo refused the refund (${err.codes.map((c) => c.code).join(', ') || err.status})` };
    }
  }

  /** The sale made under our reference (the transaction id), as a charge lookup; null: Cielo has none. */
  async findCharge(reference: string): Promise<ChargeLookup | null> {
    const p = await findSale(this.parts, reference);
    return p ? lookupOf(p) : null;
  }

  findRefund(req: RefundRequest): Promise<RefundResult | null> {
    return findRefund(this.parts, req);
  }

  /** The merchant's accept or contest, forwarded to Cielo's Chargeback API (chargeback-dispute.ts). */
  disputeChargeback(req: DisputeRequest): Promise<ProviderResult> {
    if (!this.chargebacks) return Promise.reject(new AppError(503, "Chargebacks of Cielo payments are answered on Cielo's site: this gateway has no access to Cielo's Chargeback API (CIELO_CHARGEBACK_*)"));
    return disputeCielo(this.chargebacks.parts, this.chargebacks.userName, req);
  }

  edges(core: ConnectorCore): ConnectorEdges {
    return cieloEdges(this, core);
  }

  close() {
    this.client.close();
    this.chargebacks?.parts.cb.close();
  }
}
