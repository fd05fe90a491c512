import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';
import { Basis } from '../transactions/split-schemas.ts';

export { SplitBody } from '../transactions/split-schemas.ts';

const Party = Type.Object({ walletId: Uuid, name: Type.String() });

export const SplitShareView = Type.Object({
  id: Uuid,
  transactionId: Uuid,
  displayId: Type.String(),
  product: Type.String(),
  paymentMethod: Type.String(),
  installments: Type.Integer(),
  seller: Party,
  recipient: Party,
  saleCents: Type.Integer({ description: 'What the shopper paid for the sale.' }),
  amountCents: Type.Integer({ description: "The recipient's share, as credited." }),
  feeCents: Type.Integer({ description: 'The part of the gateway fee the share bore (chargeFees).' }),
  reversedCents: Type.Integer({ description: 'What refunds and chargebacks took back of it.' }),
  status: Type.Union([Type.Literal('PAID'), Type.Literal('PARTIALLY_REVERSED'), Type.Literal('REVERSED')]),
  account: Type.Union([Type.Literal('available'), Type.Literal('receivable')], { description: 'Where it landed: available at once, or receivable until the sale settles.' }),
  basis: Basis,
  fixedCents: Nullable(Type.Integer()),
  percentageBp: Nullable(Type.Integer()),
  chargeFees: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ListSharesQuery = Type.Object(
  {
    ...PageQuery,
    role: Type.Optional(Type.Union([Type.Literal('received'), Type.Literal('sent')], { default: 'received', description: 'received: shares of other merchants\' sales paid to you; sent: shares of your sales paid to others.' })),
    status: Type.Optional(Type.Union([Type.Literal('PAID'), Type.Literal('PARTIALLY_REVERSED'), Type.Literal('REVERSED')])),
    walletId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const ShareList = Type.Object({ data: Type.Array(SplitShareView), meta: PagePagination });
export const TransactionShares = Type.Object({ data: Type.Array(SplitShareView) });

export const SummaryQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date', description: 'First day (America/Sao_Paulo) of sales paid; default 30 days ago.' })),
    to: Type.Optional(Type.String({ format: 'date', description: 'Last day, included; default today.' })),
  },
  { additionalProperties: false },
);

export const SplitSummary = Type.Object({
  from: Type.String(),
  to: Type.String(),
  sales: Type.Integer({ description: 'Paid sales in the period.' }),
  grossCents: Type.Integer({ description: 'What shoppers paid.' }),
  refundedCents: Type.Integer({ description: 'What was refunded or charged back of them.' }),
  feeCents: Type.Integer({ description: 'Gateway fees kept (those of refunded parts returned).' }),
  splitCents: Type.Integer({ description: 'What went to recipients, net of reversals.' }),
  netCents: Type.Integer({ description: 'Your own part: gross less refunds, fees and recipients (before affiliate commissions).' }),
  recipients: Type.Array(
    Type.Object({ walletId: Uuid, name: Type.String(), sales: Type.Integer(), amountCents: Type.Integer(), reversedCents: Type.Integer() }),
  ),
});
