import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

const Status = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')]);
const DiscountType = Type.Union([Type.Literal('PERCENTAGE'), Type.Literal('FIXED')]);

export const CODE_PATTERN = '^[A-Za-z0-9_-]{3,50}$';

const fields = {
  code: Type.String({ minLength: 3, maxLength: 50, pattern: CODE_PATTERN, description: 'Letters, digits, - and _; unique per merchant and environment, case-insensitively' }),
  discountType: DiscountType,
  discountValue: Type.Integer({ minimum: 0, maximum: 100000000, description: 'PERCENTAGE: whole percent (0-100); FIXED: cents' }),
  description: Nullable(Type.String({ maxLength: 500 })),
  minPurchaseCents: Nullable(Type.Integer({ minimum: 0, maximum: 100000000 })),
  maxDiscountCents: Nullable(Type.Integer({ minimum: 0, maximum: 100000000, description: 'Caps a PERCENTAGE discount' })),
  usageLimit: Nullable(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Paid uses in total' })),
  perUserLimit: Nullable(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Paid uses per customer (document or e-mail)' })),
  validFrom: Nullable(DateTime),
  validUntil: Nullable(DateTime),
  productIds: Type.Array(Uuid, { maxItems: 100, uniqueItems: true, description: 'Restricts the coupon to orders containing one of these products; empty = any order' }),
  subscriptionCycles: Nullable(Type.Integer({ minimum: 1, maximum: 120, description: 'Subscriptions: how many charges the coupon discounts (null = the first only)' })),
  affiliateCode: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 32,
      description: "An affiliate coupon: the tracking code (NAME-XXXXXX) of an affiliate of one of your programs. A sale with the coupon is attributed to that affiliate, over any click or affiliateCode, when the affiliate is ACTIVE and the program's product is in the order; null = none.",
    }),
  ),
  status: Status,
};

export const CreateCouponBody = Type.Object(
  {
    code: fields.code,
    discountType: fields.discountType,
    discountValue: fields.discountValue,
    description: Type.Optional(fields.description),
    minPurchaseCents: Type.Optional(fields.minPurchaseCents),
    maxDiscountCents: Type.Optional(fields.maxDiscountCents),
    usageLimit: Type.Optional(fields.usageLimit),
    perUserLimit: Type.Optional(fields.perUserLimit),
    validFrom: Type.Optional(fields.validFrom),
    validUntil: Type.Optional(fields.validUntil),
    productIds: Type.Optional(fields.productIds),
    subscriptionCycles: Type.Optional(fields.subscriptionCycles),
    affiliateCode: Type.Optional(fields.affiliateCode),
    status: Type.Optional(fields.status),
  },
  { additionalProperties: false },
);

export const UpdateCouponBody = Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1 });

export const CouponView = Type.Object({
  id: Uuid,
  code: Type.String(),
  discountType: DiscountType,
  discountValue: Type.Integer(),
  description: Nullable(Type.String()),
  minPurchaseCents: Nullable(Type.Integer()),
  maxDiscountCents: Nullable(Type.Integer()),
  usageLimit: Nullable(Type.Integer()),
  perUserLimit: Nullable(Type.Integer()),
  validFrom: Nullable(Timestamp),
  validUntil: Nullable(Timestamp),
  productIds: Type.Array(Uuid),
  subscriptionCycles: Nullable(Type.Integer()),
  affiliateCode: Nullable(Type.String({ description: 'The affiliate the coupon attributes its sales to; null = none.' })),
  status: Status,
  usedCount: Type.Integer({ description: 'Paid uses so far (never above usageLimit)' }),
  livemode: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CouponResponse = Type.Object({ message: Type.String(), coupon: CouponView });
export const CouponListResponse = Type.Object({ message: Type.String(), coupons: Type.Array(CouponView), pagination: PagePagination });
export const ListCouponsQuery = Type.Object(
  {
    ...PageQuery,
    includeInactive: Type.Boolean({ default: false, description: 'Also list INACTIVE coupons' }),
    status: Type.Optional({ ...Status, description: 'Only coupons in this status (INACTIVE needs no includeInactive)' }),
    search: Type.Optional(Type.String({ maxLength: 50, description: 'Part of the code' })),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------------------------------------
// Public validation

export const ValidateBody = Type.Object(
  {
    // Loose on purpose: a code of the wrong shape gets the same "invalid coupon" answer as any other.
    code: Type.String({ maxLength: 200 }),
    amountCents: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000000 })),
    amount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000000, description: 'Alias of amountCents' })),
    productIds: Type.Optional(Type.Array(Uuid, { maxItems: 100 })),
    paymentLinkSlug: Type.Optional(Type.String({ maxLength: 80 })),
    orderBumps: Type.Optional(Type.Array(Uuid, { maxItems: 5, description: "With paymentLinkSlug: the order bumps ticked; the coupon discounts one only when it names the bump's product, finalAmount includes them all" })),
    paymentLinkId: Type.Optional({ ...Uuid, description: 'With an API key only: a payment link of that key\'s merchant and environment, as paymentLinkSlug' }),
    clientDocument: Type.Optional(Type.String({ maxLength: 20 })),
    clientEmail: Type.Optional(Type.String({ maxLength: 255 })),
  },
  {
    additionalProperties: false,
    description:
      'The merchant is found from paymentLinkSlug (the checkout page sends it) or from productIds; with an API key, it is the key\'s merchant and environment (no productIds needed, and paymentLinkId works like paymentLinkSlug). With a link, amountCents and productIds default to the link\'s. clientDocument / clientEmail check perUserLimit.',
  },
);

export const PublicCoupon = Type.Object({
  code: Type.String(),
  discountType: DiscountType,
  discountValue: Type.Integer(),
  description: Nullable(Type.String()),
});

export const ValidResponse = Type.Object({
  valid: Type.Literal(true),
  discountAmount: Type.Integer({ description: 'cents' }),
  finalAmount: Type.Integer({ description: 'cents' }),
  coupon: PublicCoupon,
});
export const InvalidResponse = Type.Object({ valid: Type.Literal(false), message: Type.String() });
