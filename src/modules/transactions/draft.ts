// Building a transaction row from a request, before anything is written: pure functions (no I/O).
// The orchestration (service.ts) asks the provider for the PIX or boleto charge and the merchant's
// fees, then builds the row here and hands it to the creation statement (creation.ts).
import type { Static } from '@sinclair/typebox';
import type { Config, Fees } from '../../config.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { PaymentLink, SplitRecipient, Transaction, TransactionItem, TransactionSplitRule } from '../../db/types.ts';
import { badRequest, validation } from '../../http/errors.ts';
import { requiredText, sanitizeJson, sanitizeText } from '../../http/sanitize.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS, endOfSpDay, spDate } from '../../payments/calendar.ts';
import { priceTableInstallments, validateCard } from '../../payments/card.ts';
import { paymentFee } from '../../payments/fees.ts';
import { splitShares } from '../../payments/splits.ts';
import type { LatePayment } from '../../payments/late-payment.ts';
import type { BoletoCharge, PixAutomaticoCharge, PixCharge } from '../../payments/connector.ts';
import { normalizeDocument, normalizeEmail } from '../clients/service.ts';
import type { Address, CreateTransactionBody } from './schemas.ts';
import { MAX_METADATA_BYTES } from './schemas.ts';

export type CreateInput = Static<typeof CreateTransactionBody>;

const MAX_DUE_DAYS = 365;

/** What the public checkout adds to a creation (the API path sets only paymentLinkId in the body). */
export interface CheckoutExtras {
  /** The payment link being paid (already checked by the checkout: active, in stock, method allowed). */
  link?: PaymentLink;
  couponId?: string;
  discountCents?: number;
  address?: Record<string, string> | null;
  /** The subscription cycle this payment bills (modules/subscriptions). */
  subscription?: { id: string; cycleId: string };
  /**
   * A stored card (provider token) charged by the caller: its brand and last 4 are claimed on the
   * row; `connector`: the one keeping the token (a saved card), which charges it instead of the
   * environment's connector for new card payments.
   */
  storedCard?: { brand: string; last4: string; connector?: string };
  /** The affiliate link the checkout attributed the sale to (affiliates/attribution.ts). */
  affiliateLinkId?: string | null;
  /** A hosted checkout's order lines (checkout/order.ts). */
  items?: TransactionItem[] | null;
  /** The split rule the sale is created with (modules/splits resolveSplit: recipients checked and resolved). */
  split?: TransactionSplitRule | null;
  /** An accepted upsell's or downsell's first payment. */
  parentTransactionId?: string | null;
  /** A Pix Automático subscription's charge (a PIX): what the provider must make of it. */
  pixAutomatico?: PixAutomaticoCharge;
}

/** A request checked and normalised: everything the row needs that does not depend on I/O. */
export interface CheckedInput {
  product: string;
  clientName: string;
  clientEmail: string;
  document: string;
  card: { brand: string; last4: string } | null;
  installments: number;
  metadata: Record<string, unknown>;
  expiresAt: Date | null;
  dueDate: string | null;
  /** A PIX with a due date: its late-payment terms (defaults filled in). */
  latePayment: LatePayment | null;
  /** What the customer pays: the amount, plus card interest beyond the interest-free instalments. */
  chargedCents: number;
  installmentCents: number | null;
}

/**
 * When a PIX code expires / the boleto's due date, from the optional dueDate field. A PIX with
 * late-payment terms has a due date (dueDate as a date) and stays payable `daysAfterDue` days after it.
 */
function schedule(input: CreateInput, now: Date, config: Config): { expiresAt: Date | null; dueDate: string | null; latePayment: LatePayment | null } {
  const raw = input.dueDate;
  const dateOnly = raw !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(raw);
  if (input.latePayment) {
    if (input.paymentMethod !== 'PIX') throw validation('latePayment', 'is only for PIX payments');
    if (raw === undefined || !dateOnly) throw validation('latePayment', 'needs dueDate as a date (YYYY-MM-DD): the due date the fine and interest count from');
    if (raw < spDate(now)) throw validation('dueDate', 'must not be in the past');
    const { daysAfterDue, fineBp = 0, interestMonthlyBp = 0 } = input.latePayment;
    const expiresAt = new Date(endOfSpDay(raw).getTime() + daysAfterDue * DAY_MS);
    if (expiresAt.getTime() > now.getTime() + MAX_DUE_DAYS * DAY_MS) throw validation('dueDate', `with latePayment.daysAfterDue, must be within ${MAX_DUE_DAYS} days`);
    return { expiresAt, dueDate: raw, latePayment: { daysAfterDue, fineBp, interestMonthlyBp } };
  }
  if (input.paymentMethod === 'CARD') {
    if (raw !== undefined) throw validation('dueDate', 'is not used for card payments');
    return { expiresAt: null, dueDate: null, latePayment: null };
  }
  const latest = now.getTime() + MAX_DUE_DAYS * DAY_MS;
  if (input.paymentMethod === 'PIX') {
    const expiresAt = raw === undefined ? new Date(now.getTime() + config.pix.ttlSeconds * 1000) : dateOnly ? endOfSpDay(raw) : new Date(raw);
    if (expiresAt.getTime() <= now.getTime()) throw validation('dueDate', 'must be in the future');
    if (expiresAt.getTime() > latest) throw validation('dueDate', `must be within ${MAX_DUE_DAYS} days`);
    return { expiresAt, dueDate: null, latePayment: null };
  }
  const dueDate = raw === undefined ? spDate(new Date(now.getTime() + config.boleto.defaultDueDays * DAY_MS)) : dateOnly ? raw : spDate(new Date(raw));
  if (dueDate < spDate(now)) throw validation('dueDate', 'must not be in the past');
  if (endOfSpDay(dueDate).getTime() > latest + DAY_MS) throw validation('dueDate', `must be within ${MAX_DUE_DAYS} days`);
  return { expiresAt: new Date(endOfSpDay(dueDate).getTime() + config.boleto.daysAfterDue * DAY_MS), dueDate, latePayment: null };
}

const UFS = new Set('AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' '));

/** An address as stored: CEP as 8 digits, the UF in capitals (a real one), text sanitised; `field` names it in a 400. */
export function normalizeAddress(a: Static<typeof Address>, field: string): Record<string, string> {
  const state = a.state.toUpperCase();
  if (!UFS.has(state)) throw validation(`${field}.state`, 'is not a Brazilian state (UF, e.g. SP)');
  const out = Object.entries({ ...a, zipCode: a.zipCode.replace('-', ''), state }).map(([k, v]) => [k, sanitizeText(v)]);
  if (out.some(([k, v]) => k !== 'complement' && !v.trim())) throw validation(field, 'street, number, neighborhood and city must not be blank');
  return Object.fromEntries(out);
}

/** Checks a creation request against the rules no schema can say, and normalises it. Throws 400s. */
export function checkInput(input: CreateInput, link: PaymentLink | null, config: Config, now: Date): CheckedInput {
  if (link && input.installments !== undefined && input.installments > link.settings.maxInstallments) {
    throw validation('installments', `this payment link allows at most ${link.settings.maxInstallments} instalments`);
  }
  const document = normalizeDocument(input.clientDocument, 'clientDocument');
  const product = requiredText(input.product, 'product');
  const clientName = requiredText(input.clientName, 'clientName');
  const installments = input.installments ?? 1;
  if (input.paymentMethod !== 'CARD') {
    if (input.installments !== undefined && input.installments !== 1) throw validation('installments', 'only card payments take installments');
    if (input.card) throw validation('card', 'is only for paymentMethod CARD');
  }
  let card: CheckedInput['card'] = null;
  if (input.card) {
    const checked = validateCard(input.card, now);
    if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
    card = { brand: checked.brand, last4: checked.last4 };
  }
  const metadata = sanitizeJson(input.metadata ?? {}) as Record<string, unknown>;
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) throw validation('metadata', `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  const { expiresAt, dueDate, latePayment } = schedule(input, now, config);
  let chargedCents = input.amountCents;
  let installmentCents: number | null = null;
  if (input.paymentMethod === 'CARD') {
    // A link's settings replace the gateway's interest terms; a single payment never carries interest.
    const plan = priceTableInstallments({
      amountCents: input.amountCents,
      installments,
      interestFreeInstallments: link ? Math.max(1, link.settings.interestFreeInstallments) : config.card.interestFreeInstallments,
      monthlyInterestRatePercent: link ? link.settings.interestRate : config.card.monthlyInterestBp / 100,
    });
    chargedCents = plan.totalCents;
    installmentCents = plan.installmentCents;
  }
  return {
    // Text as PostgreSQL will hold it (UTF-8: a lone surrogate becomes U+FFFD): what RETURNING gives back.
    product: product.toWellFormed(),
    clientName: clientName.toWellFormed(),
    clientEmail: normalizeEmail(input.clientEmail).toWellFormed(),
    document,
    card,
    installments,
    metadata,
    expiresAt,
    dueDate,
    latePayment,
    chargedCents,
    installmentCents,
  };
}

/**
 * The row as it will be stored. Only the client's id (and its stored phone, when none is given)
 * comes from the client upsert of the creation statement: `client_id` holds the id the upsert
 * inserts with, a fresh random UUID found nowhere else, which the statement replaces where needed.
 * JSON with jsonb's key order: what RETURNING gives back.
 */
export function buildDraft(args: {
  id: string;
  scope: Scope;
  input: CreateInput;
  checked: CheckedInput;
  fees: Fees;
  provider: string;
  pix: PixCharge | null;
  boleto: BoletoCharge | null;
  extras: CheckoutExtras;
  now: Date;
}): Transaction {
  const { id, scope, input, checked: c, now, extras } = args;
  return {
    id,
    user_id: scope.userId,
    livemode: scope.livemode,
    display_id: '',
    product: c.product,
    amount_cents: input.amountCents,
    charged_cents: c.chargedCents,
    fee_cents: paymentFee(args.fees, input.paymentMethod, c.chargedCents),
    refunded_cents: 0,
    status: 'PENDING',
    payment_method: input.paymentMethod,
    client_id: uuidv7(now.getTime()),
    client_name: c.clientName,
    client_email: c.clientEmail,
    client_document: c.document,
    client_phone: input.clientPhone ?? null,
    installments: c.installments,
    installment_cents: c.installmentCents,
    card_brand: c.card?.brand ?? extras.storedCard?.brand ?? null,
    card_last4: c.card?.last4 ?? extras.storedCard?.last4 ?? null,
    pix_txid: args.pix?.txid ?? null,
    pix_qr_code: args.pix?.brCode ?? null,
    boleto_barcode: args.boleto?.barcode ?? null,
    boleto_line: args.boleto?.digitableLine ?? null,
    boleto_ref: null,
    boleto_pix: args.boleto?.pixCode ?? null,
    paid_with: null,
    due_date: c.dueDate,
    late_payment: c.latePayment && (jsonbOrdered(c.latePayment) as LatePayment),
    expires_at: c.expiresAt,
    payment_link_id: extras.link?.id ?? null,
    coupon_id: extras.couponId ?? null,
    affiliate_link_id: extras.affiliateLinkId ?? null,
    discount_cents: extras.discountCents ?? 0,
    address: extras.address ?? null,
    items: extras.items ? (jsonbOrdered(extras.items) as TransactionItem[]) : null,
    split: extras.split ? (jsonbOrdered(extras.split) as TransactionSplitRule) : null,
    parent_transaction_id: extras.parentTransactionId ?? null,
    metadata: jsonbOrdered(c.metadata) as Record<string, unknown>,
    tracking_params: jsonbOrdered(sanitizeJson(input.trackingParams ?? {})) as Record<string, string>,
    postback_url: input.postbackUrl ?? null,
    subscription_id: extras.subscription?.id ?? null,
    subscription_cycle_id: extras.subscription?.cycleId ?? null,
    provider: args.provider,
    provider_ref: null,
    failure_reason: null,
    authorized_at: null,
    captured_at: null,
    cancelled_at: null,
    paid_at: null,
    failed_at: null,
    expired_at: null,
    refunded_at: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * A JSON value with its object keys in jsonb's order (shorter first, then bytewise in UTF-8),
 * i.e. as PostgreSQL gives a jsonb value back; values are unchanged.
 */
function jsonbOrdered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrdered);
  if (!value || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort(jsonbKeyOrder);
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = jsonbOrdered((value as Record<string, unknown>)[k]);
  return out;
}
const jsonbKeyOrder = (a: string, b: string) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * A split rule's shares must fit in a sale's net (charged less the merchant's fee): checked when a
 * sale is created with one, and when a rule is saved on something sold at a known price.
 */
export function assertRuleFits(rule: readonly SplitRecipient[] | null | undefined, sale: { chargedCents: number; feeCents: number }, field = 'split'): void {
  if (!rule?.length) return;
  const { exceeds } = splitShares(rule, sale);
  if (exceeds > 0) {
    throw badRequest('SPLIT_EXCEEDS_AMOUNT', 'The split asks for more than the sale leaves after the gateway fee', [
      { field, message: `the shares ask for ${exceeds} cents more than the net of ${sale.chargedCents - sale.feeCents} cents` },
    ]);
  }
}
