import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';
import { CheckoutConfigBody, CheckoutConfigView, CustomizationBody, CustomizationView } from '../branding/schemas.ts';
import { SplitBody } from '../splits/schemas.ts';

const settingFields = {
  pixEnabled: Type.Boolean(),
  boletoEnabled: Type.Boolean(),
  creditCardEnabled: Type.Boolean(),
  maxInstallments: Type.Integer({ minimum: 1, maximum: 12 }),
  requirePhone: Type.Boolean(),
  requireAddress: Type.Boolean(),
  showOrderBumps: Type.Boolean({ description: 'false hides the order bumps without deleting them' }),
};

export const CheckoutSettingsBody = Type.Partial(Type.Object(settingFields), {
  additionalProperties: false,
  description: "Override the payment link's settings of the same name. Omitted fields keep their value (on creation: every method on, 12 instalments, nothing required, bumps shown)",
});
export const CheckoutSettingsView = Type.Object(settingFields);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  paymentLinkId: Nullable(Type.String({ format: 'uuid', description: 'The payment link whose page this checkout shapes; a link uses at most one checkout' })),
  settings: CheckoutSettingsBody,
  customization: CustomizationBody,
  checkoutConfig: CheckoutConfigBody,
  split: Nullable(SplitBody),
};

export const CreateCheckoutBody = Type.Object(
  {
    name: fields.name,
    paymentLinkId: Type.Optional(fields.paymentLinkId),
    settings: Type.Optional(fields.settings),
    customization: Type.Optional(fields.customization),
    checkoutConfig: Type.Optional(fields.checkoutConfig),
    split: Type.Optional(fields.split),
  },
  { additionalProperties: false },
);
export const UpdateCheckoutBody = Type.Partial(Type.Object(fields), { additionalProperties: false });

const discountFields = {
  discountCents: Nullable(Type.Integer({ minimum: 1, maximum: 100000000, description: "Off the product's price; less than the price" })),
  discountPercentage: Nullable(Type.Number({ minimum: 0.01, maximum: 99.99, multipleOf: 0.01, description: "Percent off the product's price (discountCents or discountPercentage, not both)" })),
};
const offerFields = {
  productId: Uuid,
  title: Nullable(Type.String({ minLength: 1, maxLength: 255, description: "Shown instead of the product's name" })),
  description: Nullable(Type.String({ maxLength: 1000 })),
  ...discountFields,
};

export const OfferBody = Type.Object(
  {
    productId: offerFields.productId,
    title: Type.Optional(offerFields.title),
    description: Type.Optional(offerFields.description),
    discountCents: Type.Optional(offerFields.discountCents),
    discountPercentage: Type.Optional(offerFields.discountPercentage),
  },
  { additionalProperties: false },
);
export const BumpBody = Type.Object(
  { ...OfferBody.properties, position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Order on the page, lowest first (default: after the others)' })) },
  { additionalProperties: false },
);
export const UpdateBumpBody = Type.Partial(Type.Object({ ...offerFields, position: Type.Integer({ minimum: 0, maximum: 100 }) }), { additionalProperties: false });

export const OfferView = Type.Object({
  id: Uuid,
  productId: Uuid,
  title: Type.String({ description: "The offer's title, or the product's name" }),
  description: Nullable(Type.String()),
  discountCents: Nullable(Type.Integer()),
  discountPercentage: Nullable(Type.Number()),
  position: Type.Integer(),
  priceCents: Type.Integer({ description: 'What the shopper pays for it: the product price less the discount' }),
  product: Type.Object({ id: Uuid, name: Type.String(), price: Type.Integer({ description: 'cents' }) }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const UpsellView = Type.Object({ ...OfferView.properties, downsell: Nullable(OfferView) });

export const CheckoutView = Type.Object({
  id: Uuid,
  name: Type.String(),
  paymentLinkId: Nullable(Uuid),
  settings: CheckoutSettingsView,
  customization: CustomizationView,
  checkoutConfig: CheckoutConfigView,
  split: Nullable(SplitBody),
  orderBumps: Type.Array(OfferView),
  upsell: Nullable(UpsellView),
  livemode: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CheckoutResponse = Type.Object({ message: Type.String(), checkout: CheckoutView });
export const CheckoutListResponse = Type.Object({ message: Type.String(), checkouts: Type.Array(CheckoutView), pagination: PagePagination });
export const ListCheckoutsQuery = Type.Object({ ...PageQuery, paymentLinkId: Type.Optional(Uuid) }, { additionalProperties: false });
export const BumpResponse = Type.Object({ message: Type.String(), orderBump: OfferView });
export const BumpListResponse = Type.Object({ message: Type.String(), orderBumps: Type.Array(OfferView) });
export const UpsellResponse = Type.Object({ message: Type.String(), upsell: UpsellView });
export const DownsellResponse = Type.Object({ message: Type.String(), downsell: OfferView });
export const BumpParams = Type.Object({ id: Uuid, bumpId: Uuid });
