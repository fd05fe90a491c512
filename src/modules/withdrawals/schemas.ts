import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

export const WITHDRAWAL_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
const Status = Type.Union(WITHDRAWAL_STATUSES.map((s) => Type.Literal(s)));
const PixKeyType = Type.Union((['cpf', 'cnpj', 'email', 'phone', 'random'] as const).map((s) => Type.Literal(s)));

export const MIN_WITHDRAWAL_CENTS = 100;
export const MAX_WITHDRAWAL_CENTS = 10_000_000;

export const CreateWithdrawalBody = Type.Object(
  {
    amountCents: Type.Integer({ minimum: MIN_WITHDRAWAL_CENTS, maximum: MAX_WITHDRAWAL_CENTS, description: 'Taken from the available balance; the fee comes out of it (netAmount = amountCents - feeCents)' }),
    pixKeyType: { ...PixKeyType, description: 'Origin spellings accepted: upper case (CPF, EMAIL, ...) and EVP for random; omitted, it is inferred from pixKey (docs/compatibility.md)' },
    pixKey: Type.String({ minLength: 1, maxLength: 100, description: 'cpf/cnpj: valid check digits; email; phone: +55DD9XXXXXXXX; random: the UUID (EVP)' }),
    description: Type.Optional(Type.String({ maxLength: 140 })),
  },
  { additionalProperties: false },
);

/** The spec's Withdrawal fields (netAmount is in cents), plus the description given at creation. */
export const WithdrawalView = Type.Object({
  id: Uuid,
  userId: Uuid,
  amountCents: Type.Integer(),
  feeCents: Type.Integer(),
  netAmount: Type.Integer({ description: 'cents: amountCents - feeCents, what reaches the PIX key' }),
  status: Status,
  pixKeyType: Type.String(),
  pixKey: Type.String(),
  description: Nullable(Type.String()),
  externalId: Nullable(Type.String({ description: 'Payout reference, set when processing starts' })),
  failureReason: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  processedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  failedAt: Nullable(Timestamp),
});

export const ListWithdrawalsQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(Status), search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Part of the PIX key or the description (any case)' })) },
  { additionalProperties: false },
);
export const WithdrawalListResponse = Type.Object({ data: Type.Array(WithdrawalView), meta: PagePagination });
export const WithdrawalResponse = Type.Object({ data: WithdrawalView });
export const CreateWithdrawalResponse = Type.Object({ message: Type.String(), data: WithdrawalView });

export const WalletBalance = Type.Object({
  availableBalanceCents: Type.Integer({ description: 'Can be withdrawn now' }),
  pendingBalanceCents: Type.Integer({ description: 'Card receivables not yet settled (can be advanced)' }),
  reservedCents: Type.Integer({ description: 'Held for withdrawals in flight' }),
  availableCents: Type.Integer({ description: 'availableBalanceCents under the origin gateway\'s name' }),
  pendingCents: Type.Integer({ description: 'pendingBalanceCents under the origin gateway\'s name' }),
  totalCents: Type.Integer({ description: 'availableCents + pendingCents (the origin gateway\'s total)' }),
});

export const AdminWithdrawalView = Type.Intersect([WithdrawalView, Type.Object({ livemode: Type.Boolean(), provider: Nullable(Type.String()) })]);
export const AdminWithdrawalsQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Status),
    environment: Type.Optional(Type.Union([Type.Literal('development'), Type.Literal('production')], { default: 'production' })),
    userId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
