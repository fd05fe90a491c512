import { Type } from '@sinclair/typebox';
import { CursorPagination, CursorQuery, DateTime, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { CheckoutConfigBody, CheckoutConfigView } from '../branding/schemas.ts';
import { Phone, DocumentField } from '../clients/schemas.ts';
import { SplitBody } from '../splits/schemas.ts';

export const LinkStatus = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')]);

/** Monthly interest is bounded so that a typo (299 meant as 2.99) cannot reach a customer. */
export const MAX_INTEREST_RATE = 30;

export const SettingsBody = Type.Object(
  {
    pixEnabled: Type.Optional(Type.Boolean()),
    boletoEnabled: Type.Optional(Type.Boolean()),
    creditCardEnabled: Type.Optional(Type.Boolean()),
    maxInstallments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
    interestFreeInstallments: Type.Optional(Type.Integer({ minimum: 0, maximum: 12, description: 'Plans up to this many instalments carry no interest (0 and 1 both mean: only 1x is interest free)' })),
    interestRate: Type.Optional(
      Type.Number({ minimum: 0, maximum: MAX_INTEREST_RATE, multipleOf: 0.01, description: 'Monthly interest in percent (2.99 = 2.99% a month), Price table, beyond interestFreeInstallments' }),
    ),
    requirePhone: Type.Optional(Type.Boolean()),
    requireAddress: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Omitted fields keep their current value (defaults on creation: every method on, 12 instalments, the gateway interest settings, nothing required)' },
);

export const SettingsView = Type.Object({
  pixEnabled: Type.Boolean(),
  boletoEnabled: Type.Boolean(),
  creditCardEnabled: Type.Boolean(),
  maxInstallments: Type.Integer(),
  interestFreeInstallments: Type.Integer(),
  interestRate: Type.Number(),
  requirePhone: Type.Boolean(),
  requireAddress: Type.Boolean(),
});

export const LinkProductInput = Type.Object(
  { productId: Uuid, quantity: Type.Integer({ minimum: 1, maximum: 1000 }) },
  { additionalProperties: false },
);

// Redirects go to the merchant's site: http(s) only, so no javascript: or data: URL reaches a page.
const RedirectUrl = Type.String({ format: 'uri', pattern: '^https?://[^/?#\\s]+', maxLength: 2048 });
const PixelCode = Type.String({ pattern: '^[0-9]{5,20}$', description: 'Meta (Facebook) pixel id: digits only; rendered into the standard pixel snippet' });

const fields = {
  title: Type.String({ minLength: 1, maxLength: 255 }),
  description: Nullable(Type.String({ maxLength: 1000 })),
  amountCents: Type.Integer({ minimum: 1, maximum: 100000000, description: 'Fixed price in cents; optional if products is given' }),
  currency: Type.Literal('BRL'),
  status: LinkStatus,
  expiresAt: Nullable(DateTime),
  redirectUrl: Nullable(RedirectUrl),
  productDescription: Nullable(Type.String({ maxLength: 1000 })),
  settings: SettingsBody,
  products: Type.Array(LinkProductInput, { maxItems: 50, description: 'Price is the sum of price x quantity; optional if amountCents is given ([] with amountCents: no products)' }),
  stockQuantity: Nullable(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  stockEnabled: Type.Boolean(),
  metaPixelCode: Nullable(PixelCode),
  checkoutConfig: CheckoutConfigBody,
  split: Nullable(SplitBody),
};

const PRICING =
  'Pricing: amountCents (a fixed price), products (price = sum of product price x quantity, prices copied when saved), or both (products describe the order, amountCents is the price). ' +
  'At least one of them is required; on PATCH the pair is restated each time and an omitted one is cleared.';

export const CreateLinkBody = Type.Object(
  {
    title: fields.title,
    description: Type.Optional(fields.description),
    amountCents: Type.Optional(fields.amountCents),
    currency: Type.Optional(fields.currency),
    status: Type.Optional(fields.status),
    expiresAt: Type.Optional(fields.expiresAt),
    redirectUrl: Type.Optional(fields.redirectUrl),
    productDescription: Type.Optional(fields.productDescription),
    settings: Type.Optional(fields.settings),
    products: Type.Optional(fields.products),
    stockQuantity: Type.Optional(fields.stockQuantity),
    stockEnabled: Type.Optional(fields.stockEnabled),
    metaPixelCode: Type.Optional(fields.metaPixelCode),
    checkoutConfig: Type.Optional(fields.checkoutConfig),
    split: Type.Optional(fields.split),
  },
  { additionalProperties: false, description: PRICING },
);

export const UpdateLinkBody = Type.Partial(Type.Object(fields), { additionalProperties: false, description: PRICING });

export const LinkProductView = Type.Object({
  productId: Uuid,
  name: Type.String(),
  quantity: Type.Integer(),
  unitPriceCents: Type.Integer(),
});

export const PaymentLinkView = Type.Object({
  id: Uuid,
  slug: Type.String(),
  url: Type.String({ description: '{checkout_url}/pay/{slug}' }),
  title: Type.String(),
  description: Nullable(Type.String()),
  productDescription: Nullable(Type.String()),
  amount: Nullable(Type.Integer({ description: 'Fixed price in cents; null when the link is priced by its products' })),
  totalCents: Type.Integer({ description: 'What the customer pays before coupons and card interest' }),
  currency: Type.String(),
  status: LinkStatus,
  expiresAt: Nullable(Timestamp),
  redirectUrl: Nullable(Type.String()),
  settings: SettingsView,
  products: Type.Array(LinkProductView),
  stockEnabled: Type.Boolean(),
  stockQuantity: Nullable(Type.Integer()),
  metaPixelCode: Nullable(Type.String()),
  checkoutConfig: CheckoutConfigView,
  split: Nullable(SplitBody),
  salesCount: Type.Integer({ description: 'Paid transactions' }),
  timesUsed: Type.Integer({ description: 'Checkouts (transactions created)' }),
  livemode: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const PaymentLinkResponse = Type.Object({ message: Type.String(), paymentLink: PaymentLinkView });
export const PaymentLinkListResponse = Type.Object({ message: Type.String(), paymentLinks: Type.Array(PaymentLinkView), pagination: CursorPagination });

export const ListLinksQuery = Type.Object({ ...CursorQuery, status: Type.Optional(LinkStatus) }, { additionalProperties: false });

// ---------------------------------------------------------------------------------------------
// Public (no credentials)

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80, pattern: '^[a-z0-9-]+$' }) });

export const PublicLinkView = Type.Object({
  slug: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  productDescription: Nullable(Type.String()),
  amount: Nullable(Type.Integer()),
  totalCents: Type.Integer(),
  currency: Type.String(),
  products: Type.Array(Type.Object({ name: Type.String(), quantity: Type.Integer(), unitPriceCents: Type.Integer() })),
  settings: SettingsView,
  expiresAt: Nullable(Timestamp),
  redirectUrl: Nullable(Type.String()),
  metaPixelCode: Nullable(Type.String()),
  merchantName: Type.String(),
  checkoutConfig: CheckoutConfigView,
  orderBumps: Type.Array(
    Type.Object({ id: Uuid, title: Type.String(), description: Nullable(Type.String()), priceCents: Type.Integer(), originalPriceCents: Type.Integer({ description: "The product's price before the bump's discount" }) }),
    { description: 'Offered beside the main product: send their ids in the checkout\'s orderBumps' },
  ),
  available: Type.Boolean({ description: 'false when inactive, expired or sold out' }),
  unavailableReason: Nullable(Type.Union([Type.Literal('INACTIVE'), Type.Literal('EXPIRED'), Type.Literal('SOLD_OUT')])),
  sandbox: Type.Boolean({ description: 'A development (test) link: nothing is really charged' }),
});
export const PublicLinkResponse = Type.Object({ message: Type.String(), paymentLink: PublicLinkView });

export const AbandonmentBody = Type.Object(
  {
    clientEmail: Type.String({ format: 'email', maxLength: 255 }),
    clientName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    clientDocument: Type.Optional(DocumentField),
    clientPhone: Type.Optional(Phone),
  },
  { additionalProperties: false },
);

export const RecoverBody = Type.Object(
  {
    id: Type.Optional(Uuid),
    clientEmail: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
  },
  { additionalProperties: false, minProperties: 1, description: 'The abandonment id (from its creation) or the customer e-mail' },
);

export const AbandonmentView = Type.Object({
  id: Uuid,
  paymentLinkId: Uuid,
  clientEmail: Type.String(),
  clientName: Nullable(Type.String()),
  clientDocument: Nullable(Type.String()),
  clientPhone: Nullable(Type.String()),
  recovered: Type.Boolean(),
  recoveredAt: Nullable(Timestamp),
  transactionId: Nullable(Uuid),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AbandonmentCreatedResponse = Type.Object({ message: Type.String(), cartAbandonment: Type.Object({ id: Uuid }) });
/** The same answer whatever matched: a public caller learns nothing about who abandoned a cart. */
export const RecoverResponse = Type.Object({ message: Type.Literal('Cart abandonment recovery noted') });
export const AbandonmentListResponse = Type.Object({ message: Type.String(), cartAbandonments: Type.Array(AbandonmentView), pagination: CursorPagination });
export const ListAbandonmentsQuery = Type.Object(
  { ...CursorQuery, paymentLinkId: Type.Optional(Uuid), recovered: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
