import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

export const ADVANCE_STATUSES = ['PENDING', 'APPROVED', 'COMPLETED', 'REJECTED', 'CANCELLED'] as const;
const Status = Type.Union(ADVANCE_STATUSES.map((s) => Type.Literal(s)));

export const MIN_ADVANCE_CENTS = 100;

export const AdvanceItemView = Type.Object({
  receivableId: Uuid,
  transactionId: Uuid,
  installmentNumber: Type.Integer(),
  settleAt: Timestamp,
  days: Type.Integer({ description: 'Days anticipated (each started day counts)' }),
  amountCents: Type.Integer({ description: 'Part of this instalment advanced' }),
  feeCents: Type.Integer(),
});

export const AdvanceView = Type.Object({
  id: Uuid,
  userId: Uuid,
  amountCents: Type.Integer({ description: 'Receivables advanced (gross)' }),
  feeCents: Type.Integer({ description: 'Quote while PENDING; the fee charged once COMPLETED' }),
  netAmountCents: Type.Integer({ description: 'Credited to the available balance: amountCents - feeCents' }),
  feePercentage: Type.Number({ description: 'feeCents as a percentage of amountCents (2 decimals)' }),
  status: Status,
  reason: Type.String(),
  decisionReason: Nullable(Type.String({ description: 'The operator’s reason (always given on rejection)' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  approvedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  rejectedAt: Nullable(Timestamp),
  cancelledAt: Nullable(Timestamp),
  receivables: Type.Optional(Type.Array(AdvanceItemView, { description: 'Instalments covered, nearest settlement first (once COMPLETED); on lists: omitted' })),
});

export const CreateAdvanceBody = Type.Object(
  {
    amountCents: Type.Optional(Type.Integer({ minimum: MIN_ADVANCE_CENTS, maximum: Number.MAX_SAFE_INTEGER, description: 'Omitted: everything that can be advanced now' })),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

export const SimulateQuery = Type.Object(
  { amountCents: Type.Optional(Type.Integer({ minimum: MIN_ADVANCE_CENTS, maximum: Number.MAX_SAFE_INTEGER, description: 'Omitted: everything that can be advanced now' })) },
  { additionalProperties: false },
);

export const SimulationResponse = Type.Object({
  message: Type.String(),
  availableToAdvanceCents: Type.Integer({ description: 'Card receivables not yet settled that can be advanced now' }),
  monthlyFeePercentage: Type.Number({ description: 'Fee per month anticipated (pro rata by day)' }),
  amountCents: Type.Integer(),
  feeCents: Type.Integer(),
  netAmountCents: Type.Integer(),
  feePercentage: Type.Number(),
  receivables: Type.Array(AdvanceItemView),
});

export const ListAdvancesQuery = Type.Object({ ...PageQuery, status: Type.Optional(Status) }, { additionalProperties: false });
export const AdvanceResponse = Type.Object({ message: Type.String(), advance: AdvanceView });
export const AdvanceListResponse = Type.Object({ message: Type.String(), advances: Type.Array(AdvanceView), pagination: PagePagination });

export const AdminAdvanceView = Type.Intersect([AdvanceView, Type.Object({ livemode: Type.Boolean() })]);
export const AdminAdvancesQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Status),
    environment: Type.Optional(Type.Union([Type.Literal('development'), Type.Literal('production')], { default: 'production' })),
    userId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
