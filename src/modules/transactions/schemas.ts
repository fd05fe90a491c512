import { Type } from '@sinclair/typebox';
import { CursorPagination, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { DocumentField } from '../clients/schemas.ts';
import { ChargebackView } from './chargeback-schemas.ts';
import { SplitBody } from './split-schemas.ts';

export const STATUSES = ['PENDING', 'AUTHORIZED', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED', 'PARTIALLY_REFUNDED', 'CHARGEBACK'] as const;
export const Status = Type.Union(STATUSES.map((s) => Type.Literal(s)));
export const Method = Type.Union([Type.Literal('PIX'), Type.Literal('CARD'), Type.Literal('BOLETO')]);

export const TRACKING_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term', 'src', 'sck'] as const;
export const TrackingParams = Type.Object(
  Object.fromEntries(TRACKING_KEYS.map((k) => [k, Type.Optional(Type.String({ maxLength: 255 }))])),
  { additionalProperties: false, description: 'Only utm_source, utm_medium, utm_campaign, utm_content, utm_term, src and sck' },
);

export const CardData = Type.Object(
  {
    number: Type.String({ minLength: 12, maxLength: 23, description: 'Card number (digits; spaces allowed). Never stored.' }),
    holderName: Type.String({ minLength: 2, maxLength: 100 }),
    expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
    expYear: Type.Integer({ minimum: 0, maximum: 2100, description: '2 or 4 digits' }),
    cvv: Type.String({ pattern: '^[0-9]{3,4}$', description: 'Never stored.' }),
  },
  { additionalProperties: false },
);

export const MAX_METADATA_BYTES = 8192;

const lateTerms = {
  daysAfterDue: Type.Integer({ minimum: 1, maximum: 60, description: 'Calendar days after dueDate the PIX can still be paid (API Pix validadeAposVencimento)' }),
  fineBp: Type.Integer({ minimum: 0, maximum: 1000, description: 'Fine (multa) in basis points of amountCents, charged once from the day after dueDate: 200 = 2,00 %' }),
  interestMonthlyBp: Type.Integer({ minimum: 0, maximum: 1000, description: 'Simple interest (juros) per month in basis points of amountCents, 1/30 of it per calendar day late: 100 = 1,00 % a.m.' }),
};

export const LatePaymentBody = Type.Object(
  { daysAfterDue: lateTerms.daysAfterDue, fineBp: Type.Optional(lateTerms.fineBp), interestMonthlyBp: Type.Optional(lateTerms.interestMonthlyBp) },
  {
    additionalProperties: false,
    description:
      'PIX only, with dueDate given as a date: the PIX stays payable daysAfterDue days after it, with a fine and interest (default 0 each). A late payer pays more: the payment\'s chargedCents becomes what was paid',
  },
);

export const LatePaymentView = Type.Object(lateTerms);

/** A Brazilian address: the checkout's, and a boleto payer's (clientAddress). */
export const Address = Type.Object(
  {
    zipCode: Type.String({ pattern: '^[0-9]{5}-?[0-9]{3}$', description: 'CEP' }),
    street: Type.String({ minLength: 1, maxLength: 200 }),
    number: Type.String({ minLength: 1, maxLength: 20 }),
    complement: Type.Optional(Type.String({ maxLength: 100 })),
    neighborhood: Type.String({ minLength: 1, maxLength: 100 }),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    state: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'UF, two letters' }),
  },
  { additionalProperties: false },
);

/** An address as stored and shown: the CEP's 8 digits, the UF in capitals. */
export const AddressView = Type.Object({
  zipCode: Type.String(),
  street: Type.String(),
  number: Type.String(),
  complement: Type.Optional(Type.String()),
  neighborhood: Type.String(),
  city: Type.String(),
  state: Type.String(),
});

export const CreateTransactionBody = Type.Object(
  {
    product: Type.String({ minLength: 1, maxLength: 255, description: 'Name or description of what is sold' }),
    amountCents: Type.Integer({ minimum: 1, maximum: 100000000 }),
    clientName: Type.String({ minLength: 1, maxLength: 255 }),
    clientEmail: Type.String({ format: 'email', maxLength: 255 }),
    clientDocument: DocumentField,
    clientPhone: Type.Optional(Type.String({ maxLength: 20, pattern: '^\\+?[0-9 ()-]{8,20}$' })),
    paymentMethod: Method,
    paymentLinkId: Type.Optional(
      Type.String({ format: 'uuid', description: "A payment link of the same merchant and environment: the payment counts as the link's sale (stock, salesCount) and uses its instalment settings. An inactive or expired link: 400 PAYMENT_LINK_UNAVAILABLE; sold out: 400 INSUFFICIENT_STOCK" }),
    ),
    installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: 'Card only' })),
    dueDate: Type.Optional(
      Type.Unsafe<string>({
        anyOf: [{ type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }],
        description: 'PIX: when the QR code expires (default 24 h). BOLETO: due date (default 3 days). Not for cards.',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean(), Type.Null()]), {
        maxProperties: 50,
        description: 'Up to 50 keys; strings are cleaned of markup and script',
      }),
    ),
    trackingParams: Type.Optional(TrackingParams),
    postbackUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'HTTPS URL that receives this transaction\'s events (http only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true, local development)' })),
    card: Type.Optional(CardData),
    clientAddress: Type.Optional(
      Type.Object(Address.properties, {
        additionalProperties: false,
        description: "BOLETO only: the payer's address, which a registered boleto carries. Required for boletos with production keys (400 naming clientAddress without it)",
      }),
    ),
    latePayment: Type.Optional(LatePaymentBody),
    split: Type.Optional(SplitBody),
    capture: Type.Optional(
      Type.Boolean({ description: 'Card only. false: authorise only (AUTHORIZED, nothing credited) and capture later with POST /api/v1/transactions/{id}/capture; default true' }),
    ),
  },
  { additionalProperties: false },
);

export const CaptureBody = Type.Object(
  { amountCents: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000000, description: 'Omitted: the whole authorised amount; less captures part and releases the rest' })) },
  { additionalProperties: false },
);

export const ProcessBody = Type.Object(
  {
    card: CardData,
    capture: Type.Optional(Type.Boolean({ description: 'false: authorise only (AUTHORIZED); default true' })),
  },
  { additionalProperties: false },
);

export const ClientSummary = Type.Object({
  id: Uuid,
  name: Type.String(),
  email: Type.String(),
  document: Type.String(),
  phone: Nullable(Type.String()),
});

export const RefundView = Type.Object({
  id: Uuid,
  amountCents: Type.Integer(),
  status: Type.Union([Type.Literal('PENDING'), Type.Literal('SUCCEEDED'), Type.Literal('FAILED')], {
    description: 'PENDING while the provider processes it (a production PIX devolução at the PSP); FAILED when it was not made: the refund is undone, its money back in the available balance and the transaction\'s refundedCents and status as before it (refund again to retry)',
  }),
  failureReason: Nullable(Type.String({ description: 'FAILED: why (NAO_REALIZADO for a PIX devolução the PSP did not make, REFUND_REFUSED for one it refused outright)' })),
  items: Type.Optional(Type.Array(Type.Integer(), { description: 'The order lines it gave back (positions in the transaction\'s items), when it named them' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AttemptView = Type.Object({
  connector: Type.String({ description: 'The card connector asked (a CARD_PROVIDER name)' }),
  outcome: Type.Union(['PENDING', 'APPROVED', 'DECLINED', 'UNAVAILABLE', 'SKIPPED'].map((o) => Type.Literal(o)), {
    description: 'APPROVED or DECLINED: it answered; UNAVAILABLE: it did not answer (timeout, error) and made no sale, so the next connector was tried; SKIPPED: not called, its circuit open after repeated failures; PENDING: asked, answer not recorded yet',
  }),
  returnCode: Nullable(Type.String({ description: "The connector's own answer code, when it gave one" })),
  reason: Nullable(Type.String({ description: 'A decline reason, or why the connector was not used' })),
  latencyMs: Nullable(Type.Integer()),
  createdAt: Timestamp,
});

/** A boleto as its payment shows it (the merchant's API and the public checkout). */
export const BoletoView = Type.Object({
    status: Type.Union([Type.Literal('ISSUING'), Type.Literal('ISSUED')], {
      description: 'ISSUING: the bank is registering the boleto (production; seconds): its numbers come with transaction.updated. ISSUED: payable',
    }),
    barcode: Type.Optional(Type.String({ description: '44 digits (ISSUED)' })),
    digitableLine: Type.Optional(Type.String({ description: '47 digits, linha digitável (ISSUED)' })),
    pixCode: Type.Optional(Type.String({ description: 'Hybrid boleto: the Pix copia-e-cola that pays the same charge at once' })),
    pixQrCodeImage: Type.Optional(Type.String({ description: "URL of the Pix code's QR image (PNG)" })),
    dueDate: Type.String({ format: 'date' }),
    url: Type.String({ description: 'Printable boleto page' }),
    pdfUrl: Type.Optional(Type.String({ description: "The bank's PDF of the boleto (production boletos)" })),
  });

export const TransactionItemView = Type.Object({
  kind: Type.Union([Type.Literal('MAIN'), Type.Literal('BUMP')]),
  productId: Nullable(Type.String({ format: 'uuid' })),
  name: Type.String(),
  quantity: Type.Integer(),
  unitPriceCents: Type.Integer(),
  discountCents: Type.Integer({ description: "The bump's discount and the coupon's share on this line" }),
  totalCents: Type.Integer({ description: 'unitPriceCents x quantity - discountCents' }),
});

export const TransactionView = Type.Object({
  id: Uuid,
  displayId: Type.String(),
  product: Type.String(),
  amountCents: Type.Integer(),
  chargedCents: Type.Integer({ description: 'What the customer pays: amountCents plus card instalment interest; for a PIX paid after its due date, what was paid (fine and interest included)' }),
  discountCents: Type.Integer({ description: 'Coupon discount granted at checkout (already taken off amountCents)' }),
  paymentLinkId: Nullable(Uuid),
  couponId: Nullable(Uuid),
  subscriptionId: Type.Optional(Uuid),
  items: Type.Optional(
    Type.Array(TransactionItemView, { description: "A hosted checkout's order, once it has lines: the main product (or the link's fixed price) and the ticked order bumps; the lines' totals add up to amountCents" }),
  ),
  parentTransactionId: Type.Optional(Type.String({ format: 'uuid', description: 'An accepted upsell or downsell: the payment it followed' })),
  split: Type.Optional(SplitBody),
  feeCents: Type.Integer(),
  netAmountCents: Type.Integer({ description: 'chargedCents - feeCents: what the merchant receives' }),
  refundedCents: Type.Integer(),
  refunds: Type.Optional(Type.Array(RefundView, { description: 'Every refund, oldest first, once there is one: on GET /api/v1/transactions/{id} and the refund\'s answer (not on lists)' })),
  chargeback: Type.Optional(ChargebackView),
  attempts: Type.Optional(
    Type.Array(AttemptView, { description: 'Production card payments only, on GET /api/v1/transactions/{id}, once the charge went past one answered try (a connector did not answer, or was skipped): every connector tried, oldest first' }),
  ),
  status: Status,
  paymentMethod: Method,
  installments: Type.Integer(),
  client: ClientSummary,
  trackingParams: Type.Record(Type.String(), Type.String()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  postbackUrl: Nullable(Type.String()),
  failureReason: Nullable(Type.String()),
  expiresAt: Nullable(Timestamp),
  authorizedAt: Nullable(Timestamp),
  capturedAt: Nullable(Timestamp),
  cancelledAt: Nullable(Timestamp),
  paidAt: Nullable(Timestamp),
  refundedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  livemode: Type.Boolean(),
  pix: Type.Optional(
    Type.Object({
      qrCode: Type.String({ description: 'BR Code (copia e cola)' }),
      qrCodeImage: Type.String({ description: 'URL of the QR code PNG' }),
      txid: Type.String(),
      expiresAt: Timestamp,
      dueDate: Type.Optional(Type.String({ format: 'date', description: 'A PIX with a due date (payable until expiresAt: the due date plus latePayment.daysAfterDue)' })),
      latePayment: Type.Optional(LatePaymentView),
    }),
  ),
  boleto: Type.Optional(BoletoView),
  paidWith: Type.Optional(Type.Union([Type.Literal('BOLETO'), Type.Literal('PIX')], { description: 'A paid boleto: paid by its barcode (BOLETO) or by its Pix code (PIX)' })),
  card: Type.Optional(
    Type.Object({
      brand: Nullable(Type.String()),
      last4: Nullable(Type.String()),
      installmentCents: Type.Integer(),
      interestCents: Type.Integer(),
    }),
  ),
  paymentUrl: Type.Optional(Type.String({ description: 'Hosted page where the customer pays (cards without card data)' })),
  address: Type.Optional(AddressView),
});

export const TransactionResponse = Type.Object({ message: Type.String(), transaction: TransactionView });

export const ListTransactionsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
    orderBy: Type.Union([Type.Literal('createdAt'), Type.Literal('amountCents'), Type.Literal('status')], { default: 'createdAt' }),
    orderDirection: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    status: Type.Optional(Status),
    paymentMethod: Type.Optional(Method),
    method: Type.Optional(Method),
    clientId: Type.Optional(Uuid),
    createdFrom: Type.Optional(Type.String({ format: 'date-time' })),
    createdTo: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

const { limit: _limit, cursor: _cursor, ...listFilters } = ListTransactionsQuery.properties;

/** The list's filters and order, without paging: the export walks every page itself. */
export const ExportTransactionsQuery = Type.Object(
  {
    format: Type.Literal('csv', { default: 'csv', description: 'csv (the only format): `;`-separated, UTF-8 with a BOM, CRLF lines, pt-BR header and numbers' }),
    ...listFilters,
  },
  { additionalProperties: false },
);

export const TransactionListResponse = Type.Object({ message: Type.String(), transactions: Type.Array(TransactionView), pagination: CursorPagination });

export const RefundBody = Type.Object(
  {
    amountCents: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000000, description: 'Omitted: everything not yet refunded' })),
    items: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0, maximum: 99 }), {
        minItems: 1,
        maxItems: 6,
        uniqueItems: true,
        description: "Instead of amountCents, a hosted checkout's order lines to give back, by position in the transaction's items (0: the first): the refund is their totals (a bump refunded alone). A line is refunded once; card interest stays unless refunded by amount",
      }),
    ),
    pixKey: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "Production boletos only, and required there: a boleto cannot be reversed, so its refund is a Pix to this key of the payer (cpf/cnpj with check digits, e-mail, +55DD9XXXXXXXX, or a random key)" }),
    ),
    pixKeyType: Type.Optional(Type.Union((['cpf', 'cnpj', 'email', 'phone', 'random'] as const).map((s) => Type.Literal(s)), { description: 'Omitted: inferred from pixKey' })),
  },
  { additionalProperties: false },
);

export const SimulateBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('PAID'), Type.Literal('FAILED'), Type.Literal('EXPIRED'), Type.Literal('CHARGEBACK'), Type.Literal('CHARGEBACK_WON'), Type.Literal('CHARGEBACK_LOST')], {
      description:
        'PAID, FAILED, EXPIRED: a pending payment\'s outcome. CHARGEBACK: the acquirer opens a chargeback on a PAID or PARTIALLY_REFUNDED card payment (docs/sandbox.md). CHARGEBACK_WON: the acquirer decides a CONTESTED chargeback for you; CHARGEBACK_LOST: against you (OPEN or CONTESTED)',
    }),
    paidWith: Type.Optional(
      Type.Union([Type.Literal('BOLETO'), Type.Literal('PIX')], { description: "With outcome PAID, a boleto only: paid by its barcode (default) or by its Pix code (a hybrid boleto's QR)" }),
    ),
  },
  { additionalProperties: false },
);
