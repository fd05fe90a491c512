import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

export const WITHDRAWAL_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
const Status = Type.Union(WITHDRAWAL_STATUSES.map((s) => Type.Literal(s)));
const PixKeyType = Type.Union((['cpf', 'cnpj', 'email', 'phone', 'random'] as const).map((s) => Type.Literal(s)));

export const MIN_WITHDRAWAL_CENTS = 100;
export const MAX_WITHDRAWAL_CENTS = 10_000_000;

export const BANK_ACCOUNT_TYPES = ['checking', 'savings', 'payment', 'salary'] as const;
/** An account reached by Pix with its data instead of a key (the DICT's fields; still a Pix, not a TED). */
export const BankAccountSchema = Type.Object(
  {
    ispb: Type.String({ pattern: '^[0-9]{8}$', description: "The institution's ISPB, 8 digits (e.g. 00000000 Banco do Brasil, 60701190 Itaú)" }),
    branch: Type.String({ pattern: '^[0-9]{1,4}$', description: 'Agência, without its check digit' }),
    account: Type.String({ pattern: '^[0-9]{1,20}$', description: 'Conta with its check digit, digits only' }),
    accountType: Type.Union(BANK_ACCOUNT_TYPES.map((t) => Type.Literal(t)), { description: 'checking (corrente), savings (poupança), payment (pagamento), salary (salário)' }),
    holderName: Type.String({ minLength: 1, maxLength: 100 }),
    holderDocument: Type.String({ minLength: 11, maxLength: 18, description: "The holder's CPF or CNPJ (punctuation allowed); must match the account" }),
  },
  { additionalProperties: false },
);

export const CreateWithdrawalBody = Type.Object(
  {
    amountCents: Type.Integer({ minimum: MIN_WITHDRAWAL_CENTS, maximum: MAX_WITHDRAWAL_CENTS, description: 'Taken from the available balance; the fee comes out of it (netAmount = amountCents - feeCents)' }),
    pixKeyType: Type.Optional({ ...PixKeyType, description: 'Origin spellings accepted: upper case (CPF, EMAIL, ...) and EVP for random; omitted, it is inferred from pixKey (docs/compatibility.md)' }),
    pixKey: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'cpf/cnpj: valid check digits; email; phone: +55DD9XXXXXXXX; random: the UUID (EVP). Required unless bankAccount is given' })),
    bankAccount: Type.Optional({ ...BankAccountSchema, description: 'Instead of pixKey: the account the Pix goes to, by its data' }),
    description: Type.Optional(Type.String({ maxLength: 140 })),
  },
  { additionalProperties: false },
);

export const WITHDRAWAL_HOLDS = ['ABOVE_REVIEW_THRESHOLD', 'DAILY_LIMIT', 'NEW_DESTINATION'] as const;
export const PAYOUT_FAILURE_CODES = ['PIX_KEY_NOT_FOUND', 'ACCOUNT_NOT_FOUND', 'ACCOUNT_CLOSED', 'DOCUMENT_MISMATCH', 'PAYOUT_REJECTED'] as const;

/** The spec's Withdrawal fields (netAmount is in cents), plus the description given at creation. */
export const WithdrawalView = Type.Object({
  id: Uuid,
  userId: Uuid,
  amountCents: Type.Integer(),
  feeCents: Type.Integer(),
  netAmount: Type.Integer({ description: 'cents: amountCents - feeCents, what reaches the PIX key' }),
  status: Status,
  pixKeyType: Nullable(Type.String({ description: 'null for a withdrawal to bankAccount' })),
  pixKey: Nullable(Type.String()),
  bankAccount: Nullable(BankAccountSchema),
  description: Nullable(Type.String()),
  externalId: Nullable(Type.String({ description: "The payout's reference: the Pix end-to-end id once the PSP gives it, else ours (set when processing starts)" })),
  failureReason: Nullable(Type.String({ description: "Why it failed, in pt-BR words a merchant understands (the key was not found, the account is closed, the holder's document does not match...), or an operator's own words" })),
  failureCode: Nullable(Type.Union(PAYOUT_FAILURE_CODES.map((r) => Type.Literal(r)), { description: 'The same, for code: PIX_KEY_NOT_FOUND, ACCOUNT_NOT_FOUND, ACCOUNT_CLOSED, DOCUMENT_MISMATCH or PAYOUT_REJECTED; null when an operator failed it by hand' })),
  holdReason: Nullable(Type.Union(WITHDRAWAL_HOLDS.map((h) => Type.Literal(h)), { description: 'Production: waits for an operator to approve it (above the review threshold, or past the daily limit), or, for a Pix key or account never paid out to, until holdUntil (NEW_DESTINATION; an operator may approve it earlier); null once approved or released' })),
  holdUntil: Nullable(Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description: 'NEW_DESTINATION: when the hold ends by itself and the payout is sent; kept after it ends' })),
  approvedAt: Nullable(Timestamp),
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

export const AdminWithdrawalView = Type.Intersect([
  WithdrawalView,
  Type.Object({
    livemode: Type.Boolean(),
    provider: Nullable(Type.String()),
    payoutAttempts: Type.Integer(),
    nextAttemptAt: Nullable(Timestamp),
    lastError: Nullable(Type.String({ description: 'What the payout connector last said when it could not take it' })),
  }),
]);
export const AdminWithdrawalsQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Status),
    environment: Type.Optional(Type.Union([Type.Literal('development'), Type.Literal('production')], { default: 'production' })),
    userId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const SimulateWithdrawalBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('COMPLETED'), Type.Literal('FAILED')]),
    reason: Type.Optional(Type.Union(PAYOUT_FAILURE_CODES.map((r) => Type.Literal(r)), { description: 'For FAILED (default PAYOUT_REJECTED)' })),
  },
  { additionalProperties: false },
);

export const PayoutHealthView = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('attention')]),
  problems: Type.Array(Type.String()),
  provider: Nullable(Type.String({ description: 'PAYOUT_PROVIDER; null: production withdrawals are paid by hand' })),
  reachable: Nullable(Type.Boolean()),
  balanceCents: Nullable(Type.Integer({ description: "The platform's balance at the provider, where its API gives it" })),
  error: Nullable(Type.String()),
  lastCompletedAt: Nullable(Timestamp),
  pending: Type.Integer(),
  heldForReview: Type.Integer(),
  heldForFunds: Type.Integer({ description: "Waiting because the platform's account lacked funds (sent again with backoff)" }),
  processing: Type.Integer(),
  oldestPendingAt: Nullable(Timestamp),
});
