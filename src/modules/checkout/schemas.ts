import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { DocumentField, Phone } from '../clients/schemas.ts';
import { Address, BoletoView, CardData, Method, Status, TrackingParams } from '../transactions/schemas.ts';

export { Address };

export const CheckoutBody = Type.Object(
  {
    clientName: Type.String({ minLength: 1, maxLength: 255 }),
    clientEmail: Type.String({ format: 'email', maxLength: 255 }),
    clientDocument: DocumentField,
    clientPhone: Type.Optional(Phone),
    address: Type.Optional(Address),
    paymentMethod: Method,
    installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: 'Card only; at most the link\'s maxInstallments' })),
    couponCode: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    orderBumps: Type.Optional(Type.Array(Uuid, { maxItems: 5, description: "The order bumps the shopper ticked (ids from the link's orderBumps): paid in the same payment" })),
    affiliateCode: Type.Optional(
      Type.String({ minLength: 1, maxLength: 40, description: "An affiliate's tracking code (the ?aff= of the promotion URL): attributes the sale when it is an approved affiliate of this product's program; otherwise ignored." }),
    ),
    card: Type.Optional(CardData),
    trackingParams: Type.Optional(TrackingParams),
  },
  { additionalProperties: false },
);

export const PublicTransaction = Type.Object({
  id: Uuid,
  status: Status,
  paymentMethod: Method,
  amountCents: Type.Integer({ description: 'Price after the coupon, before card interest' }),
  discountCents: Type.Integer(),
  chargedCents: Type.Integer({ description: 'What the customer pays' }),
  installments: Type.Integer(),
  installmentCents: Nullable(Type.Integer()),
  failureReason: Nullable(Type.String()),
  checkoutUrl: Type.String({ description: 'The payment step page of this transaction' }),
  redirectUrl: Nullable(Type.String()),
  pix: Type.Optional(Type.Object({ qrCode: Type.String(), qrCodeImage: Type.String(), expiresAt: Timestamp })),
  boleto: Type.Optional(BoletoView),
  paidWith: Type.Optional(Type.Union([Type.Literal('BOLETO'), Type.Literal('PIX')])),
  card: Type.Optional(Type.Object({ brand: Nullable(Type.String()), last4: Nullable(Type.String()) })),
});

export const CheckoutResponse = Type.Object({ message: Type.String(), transaction: PublicTransaction });
export const StatusResponse = Type.Object({
  status: Status,
  boleto: Type.Optional(Type.Union([Type.Literal('ISSUING'), Type.Literal('ISSUED')], { description: "A boleto's state at its bank: ISSUING until the bank gives its numbers (the page then reloads)" })),
});
export const PayCardBody = Type.Object({ card: CardData }, { additionalProperties: false });
export const DeclineResponse = Type.Object({
  message: Type.String(),
  nextOfferId: Nullable(Type.String({ format: 'uuid', description: "The downsell now on offer (declining an upsell whose checkout has one); null: the shopper is done" })),
});
