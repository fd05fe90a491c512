import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

const Status = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')]);
const Attribution = Type.Union([Type.Literal('LAST_CLICK'), Type.Literal('FIRST_CLICK')], {
  description: 'Which click a sale is attributed to when a buyer followed several affiliates: the last one (default) or the first one still within cookieDays.',
});
const CommissionType = Type.Union([Type.Literal('PERCENTAGE'), Type.Literal('FIXED')]);
const Approval = Type.Union([Type.Literal('AUTO'), Type.Literal('MANUAL')], { description: 'MANUAL: affiliates stay PENDING until the owner approves them.' });
const PageUrl = Type.String({ format: 'uri', pattern: '^https?://[^/?#\\s]+', maxLength: 2048 });
export const LinkStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('ACTIVE'), Type.Literal('REFUSED'), Type.Literal('BLOCKED')]);

// No `default` on the shared fields: the validator applies defaults, and in the partial update body
// a default would reset the field on every PATCH. Creation defaults are on CreateProgramBody only.
const fields = {
  description: Nullable(Type.String({ maxLength: 5000 })),
  rules: Nullable(Type.String({ maxLength: 5000, description: 'What affiliates may and may not do (no brand bidding, no spam, ...).' })),
  affiliatePage: Nullable(PageUrl),
  salesPage: Nullable(PageUrl),
  cookieDays: Nullable(Type.Integer({ minimum: 1, maximum: 365, description: 'Days a click attributes a sale (1..365); null = unlimited.' })),
  attribution: Attribution,
  extendedCommission: Type.Boolean({ description: 'Also pays on subscription renewals of the product.' }),
  extendedCommissionMonths: Nullable(Type.Integer({ minimum: 1, maximum: 120, description: 'Renewals paid at most this many months after the first sale; null = no cap. Only with extendedCommission.' })),
  commissionOnOrderBumps: Type.Boolean({ description: "Commissions on the whole order (the order bumps ticked at the checkout too); false: on the main product's part only" }),
  commissionType: CommissionType,
  commissionValue: Type.Integer({ minimum: 1, maximum: 100000000, description: 'PERCENTAGE: basis points of the amount paid (1..10000, 1000 = 10%); FIXED: cents, at most the product price.' }),
  approval: Approval,
  guaranteeDays: Type.Integer({ minimum: 0, maximum: 365, description: 'Refund window before a commission is released.' }),
  status: Status,
};

export const CreateProgramBody = Type.Object(
  {
    productId: Uuid,
    commissionType: fields.commissionType,
    commissionValue: fields.commissionValue,
    description: Type.Optional(fields.description),
    rules: Type.Optional(fields.rules),
    affiliatePage: Type.Optional(fields.affiliatePage),
    salesPage: Type.Optional(fields.salesPage),
    cookieDays: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'Days a click attributes a sale (1..365, default 30); null = unlimited.' }))),
    attribution: Type.Optional(Type.Union([Type.Literal('LAST_CLICK'), Type.Literal('FIRST_CLICK')], { default: 'LAST_CLICK' })),
    extendedCommission: Type.Optional(Type.Boolean({ default: false })),
    extendedCommissionMonths: Type.Optional(fields.extendedCommissionMonths),
    commissionOnOrderBumps: Type.Optional(Type.Boolean({ default: false, description: fields.commissionOnOrderBumps.description })),
    approval: Type.Optional(Type.Union([Type.Literal('AUTO'), Type.Literal('MANUAL')], { default: 'AUTO' })),
    guaranteeDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, default: 7 })),
    status: Type.Optional(Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')], { default: 'ACTIVE' })),
  },
  { additionalProperties: false },
);

/** Only the fields sent change (the product does not); the rules are re-checked on the merged state. */
export const UpdateProgramBody = Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1 });

export const ProgramView = Type.Object({
  id: Uuid,
  productId: Uuid,
  description: Nullable(Type.String()),
  rules: Nullable(Type.String()),
  affiliatePage: Nullable(Type.String()),
  salesPage: Nullable(Type.String()),
  cookieDays: Nullable(Type.Integer()),
  attribution: Attribution,
  extendedCommission: Type.Boolean(),
  extendedCommissionMonths: Nullable(Type.Integer()),
  commissionOnOrderBumps: Type.Boolean(),
  commissionType: CommissionType,
  commissionValue: Type.Integer(),
  approval: Approval,
  guaranteeDays: Type.Integer(),
  status: Status,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ListProgramsQuery = Type.Object({ ...PageQuery, status: Type.Optional(Status) }, { additionalProperties: false });
export const ProgramResponse = Type.Object({ message: Type.Optional(Type.String()), data: ProgramView });
export const ProgramListResponse = Type.Object({ data: Type.Array(ProgramView), meta: PagePagination });

const Commission = Type.Object({
  type: CommissionType,
  value: Type.Integer(),
  perSaleCents: Type.Integer({ description: 'What one sale at the product price pays the affiliate, in cents.' }),
  perSale: Type.String({ description: 'The same in reais, formatted (R$ 12,34).' }),
});

export const MarketplaceQuery = Type.Object(
  { ...PageQuery, search: Type.Optional(Type.String({ maxLength: 255, description: 'Matches the product name and the program description.' })) },
  { additionalProperties: false },
);
export const MarketplaceItem = Type.Object({
  programId: Uuid,
  product: Type.Object({ id: Uuid, name: Type.String(), price: Type.Integer(), imageUrl: Nullable(Type.String()) }),
  description: Nullable(Type.String()),
  rules: Nullable(Type.String()),
  affiliatePage: Nullable(Type.String()),
  salesPage: Nullable(Type.String()),
  commission: Commission,
  cookieDays: Nullable(Type.Integer()),
  attribution: Attribution,
  extendedCommission: Type.Boolean(),
  approval: Approval,
  guaranteeDays: Type.Integer(),
  affiliateCount: Type.Integer({ description: 'Affiliates ACTIVE in the program.' }),
  conversionRate: Type.Number({ description: 'Conversions / clicks over all its links, at most 1 (0 without clicks).' }),
  refundRate: Type.Number({ description: 'Attributed sales refunded / attributed sales (self-purchases left out; 0 without sales).' }),
  createdAt: Timestamp,
});
export const MarketplaceResponse = Type.Object({ data: Type.Array(MarketplaceItem), meta: PagePagination });

export const LinkView = Type.Object({
  id: Uuid,
  programId: Uuid,
  product: Type.Object({ id: Uuid, name: Type.String() }),
  code: Type.String({ description: 'NAME-XXXXXX' }),
  status: LinkStatus,
  programActive: Type.Boolean({ description: 'false once the program was closed (deleted) or deactivated: its sales are no longer attributed, and urls is empty' }),
  urls: Type.Array(Type.Object({ paymentLinkId: Uuid, slug: Type.String(), url: Type.String() }), {
    description: '{CHECKOUT_URL}/pay/{slug}?aff={code} for each active payment link of the product, while the link is ACTIVE and its program active.',
  }),
  clicks: Type.Integer(),
  conversions: Type.Integer(),
  approvedAt: Nullable(Timestamp),
  createdAt: Timestamp,
});
export const LinkResponse = Type.Object({ message: Type.String(), data: LinkView });
export const LinkListResponse = Type.Object({ data: Type.Array(LinkView), meta: PagePagination });
export const ListLinksQuery = Type.Object({ ...PageQuery, status: Type.Optional(LinkStatus) }, { additionalProperties: false });

/** A program's affiliate as its owner sees it. */
export const ProgramAffiliateView = Type.Object({
  id: Uuid,
  affiliate: Type.Object({ id: Uuid, name: Type.String() }),
  code: Type.String(),
  status: LinkStatus,
  clicks: Type.Integer(),
  conversions: Type.Integer(),
  approvedAt: Nullable(Timestamp),
  createdAt: Timestamp,
});
export const ProgramAffiliateResponse = Type.Object({ message: Type.String(), data: ProgramAffiliateView });
export const ProgramAffiliateListResponse = Type.Object({ data: Type.Array(ProgramAffiliateView), meta: PagePagination });
export const ProgramLinkParams = Type.Object({ id: Uuid, linkId: Uuid });
export const ProgramIdParams = Type.Object({ programId: Uuid });

export const AffiliateStatsResponse = Type.Object(
  {
    data: Type.Object(
      {
        totalLinks: Type.Integer(),
        activeLinks: Type.Integer(),
        totalClicks: Type.Integer(),
        totalConversions: Type.Integer(),
        totalEarnedCents: Type.Integer(),
        pendingCents: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const CommissionStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('PAID'), Type.Literal('CANCELLED')]);
export const ListCommissionsQuery = Type.Object({ ...PageQuery, status: Type.Optional(CommissionStatus) }, { additionalProperties: false });
export const CommissionView = Type.Object({
  id: Uuid,
  programId: Uuid,
  product: Type.Object({ id: Uuid, name: Type.String() }),
  transactionId: Uuid,
  code: Type.String(),
  amountCents: Type.Integer(),
  baseCents: Type.Integer({ description: 'The amount paid the commission was computed on.' }),
  commissionType: CommissionType,
  commissionValue: Type.Integer({ description: "The program's terms at the time of the sale." }),
  status: CommissionStatus,
  reason: Nullable(Type.String({ description: 'Why it was cancelled: REFUNDED, REFUNDED_AFTER_RELEASE (clawed back) or SELF_PURCHASE (the buyer is the affiliate).' })),
  releaseAt: Timestamp,
  paidAt: Nullable(Timestamp),
  cancelledAt: Nullable(Timestamp),
  createdAt: Timestamp,
});
export const CommissionListResponse = Type.Object({ data: Type.Array(CommissionView), meta: PagePagination });
