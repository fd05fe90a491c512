import { Type, type Static } from '@sinclair/typebox';
import { CursorPagination, CursorQuery, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { DocumentField } from '../clients/schemas.ts';
import { Address, CardData as CardBody } from '../transactions/schemas.ts';
import { SplitBody } from '../splits/schemas.ts';

const Phone = Type.String({ maxLength: 20, pattern: '^\\+?[0-9 ()-]{8,20}$' });

/** Merchant routes answer under both families: one handler, two paths. */
export const PREFIXES = ['/api/subscriptions', '/api/v1/subscriptions'] as const;
/** The OpenAPI operationId of a route under a prefix: the /api/v1 twin's ends in V1. */
export const opId = (prefix: (typeof PREFIXES)[number], name: string) => (prefix === '/api/subscriptions' ? name : `${name}V1`);
export const READ = { auth: { key: 'subscriptions:read', token: true } } as const;
export const WRITE = { auth: { key: 'subscriptions:write', token: true } } as const;

// ---------------------------------------------------------------------------------------------
// Plans

/** YEARLY is accepted as ANNUAL (the service normalises it); stored and shown as ANNUAL. */
const IntervalIn = Type.Union(['DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL', 'YEARLY'].map((v) => Type.Literal(v)), {
  description: 'DAILY, WEEKLY, MONTHLY, QUARTERLY, SEMIANNUAL, ANNUAL (YEARLY = ANNUAL)',
});
const Interval = Type.Union(['DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'].map((v) => Type.Literal(v)));
const PlanStatus = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')]);
/** CREDIT_CARD is accepted as CARD. */
const MethodIn = Type.Union([Type.Literal('CARD'), Type.Literal('CREDIT_CARD'), Type.Literal('PIX'), Type.Literal('BOLETO'), Type.Literal('PIX_AUTOMATICO')], {
  description: 'CARD (CREDIT_CARD accepted), PIX, BOLETO, or PIX_AUTOMATICO (Pix Automático: the subscriber authorises recurring debits when paying the first charge)',
});
const Method = Type.Union([Type.Literal('CARD'), Type.Literal('PIX'), Type.Literal('BOLETO'), Type.Literal('PIX_AUTOMATICO')]);
const FinalAction = Type.Union([Type.Literal('CANCEL'), Type.Literal('PAUSE'), Type.Literal('PAST_DUE')]);

export const DunningBody = Type.Object(
  {
    retryDays: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 60 }), { maxItems: 8, description: 'Card retries, days after the first failure, increasing (default [1, 3, 5, 7]); [] = no retry' }),
    ),
    finalAction: Type.Optional(Type.Union([FinalAction], { description: 'After the last retry: CANCEL (default), PAUSE, or PAST_DUE (leave it)' })),
    pixDaysBefore: Type.Optional(Type.Integer({ minimum: 0, maximum: 30, description: 'PIX charges are issued this many days before the due date (default 3)' })),
    boletoDaysBefore: Type.Optional(Type.Integer({ minimum: 0, maximum: 30, description: 'Boletos are issued this many days before the due date (default 5)' })),
    pixAutomaticoDaysBefore: Type.Optional(
      Type.Integer({ minimum: 2, maximum: 10, description: 'Pix Automático charges are sent to the PSP this many days before the due date (2 to 10, as the Pix rules require; default 3)' }),
    ),
  },
  { additionalProperties: false },
);

const planFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Nullable(Type.String({ maxLength: 1000 })),
  amountCents: Type.Integer({ minimum: 500, maximum: 100_000_000, description: 'cents, at least 500 (R$ 5,00)' }),
  interval: IntervalIn,
  intervalCount: Type.Integer({ minimum: 1, maximum: 365, description: 'Periods of `interval` per billing period (default 1)' }),
  trialDays: Type.Integer({ minimum: 0, maximum: 730 }),
  maxSubscribers: Nullable(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'null = unlimited' })),
  paymentMethods: Type.Array(MethodIn, { minItems: 1, maxItems: 4, uniqueItems: true, description: 'Methods a subscriber may choose (default CARD, PIX, BOLETO; PIX_AUTOMATICO only when listed)' }),
  status: PlanStatus,
  dunning: DunningBody,
  productId: Nullable(Type.String({ format: 'uuid', description: "The product the plan sells: that product's affiliate program covers the plan's subscriptions (docs/affiliates.md). null = none." })),
  split: Nullable(SplitBody),
};

export const CreatePlanBody = Type.Object(
  {
    name: planFields.name,
    amountCents: planFields.amountCents,
    interval: planFields.interval,
    description: Type.Optional(planFields.description),
    intervalCount: Type.Optional(planFields.intervalCount),
    trialDays: Type.Optional(planFields.trialDays),
    maxSubscribers: Type.Optional(planFields.maxSubscribers),
    paymentMethods: Type.Optional(planFields.paymentMethods),
    status: Type.Optional(planFields.status),
    dunning: Type.Optional(planFields.dunning),
    productId: Type.Optional(planFields.productId),
    split: Type.Optional(planFields.split),
  },
  { additionalProperties: false },
);

export const UpdatePlanBody = Type.Partial(Type.Object(planFields), { additionalProperties: false, minProperties: 1 });

export const PlanView = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  amountCents: Type.Integer(),
  currency: Type.Literal('BRL'),
  interval: Interval,
  intervalCount: Type.Integer(),
  trialDays: Type.Integer(),
  maxSubscribers: Nullable(Type.Integer()),
  subscriberCount: Type.Integer({ description: 'Subscriptions holding a seat (not CANCELLED or EXPIRED)' }),
  paymentMethods: Type.Array(Method),
  status: PlanStatus,
  dunning: Type.Object({ retryDays: Type.Array(Type.Integer()), finalAction: FinalAction, pixDaysBefore: Type.Integer(), boletoDaysBefore: Type.Integer(), pixAutomaticoDaysBefore: Type.Integer() }),
  publicUrl: Type.String({ description: 'Hosted subscription page' }),
  productId: Nullable(Uuid),
  split: Nullable(SplitBody),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const PlanResponse = Type.Object({ message: Type.String(), plan: PlanView });
export const ListPlansQuery = Type.Object({ ...CursorQuery, status: Type.Optional(PlanStatus) }, { additionalProperties: false });
export const PlanListResponse = Type.Object({ message: Type.String(), plans: Type.Array(PlanView), pagination: CursorPagination });

export const PublicPlanView = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  amountCents: Type.Integer(),
  currency: Type.Literal('BRL'),
  interval: Interval,
  intervalCount: Type.Integer(),
  trialDays: Type.Integer(),
  paymentMethods: Type.Array(Method),
  merchantName: Type.String(),
  available: Type.Boolean({ description: 'false when the plan is inactive or full' }),
  unavailableReason: Nullable(Type.String()),
  sandbox: Type.Boolean(),
});
export const PublicPlanResponse = Type.Object({ message: Type.String(), plan: PublicPlanView });
export const PlanIdParams = Type.Object({ planId: Uuid });

// ---------------------------------------------------------------------------------------------
// Subscriptions

const SubscriptionStatus = Type.Union(['TRIALING', 'INCOMPLETE', 'ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELLED', 'EXPIRED'].map((v) => Type.Literal(v)));
const Metadata = Type.Record(Type.String({ maxLength: 40 }), Type.Unknown(), { description: 'Your own data (at most 8 KB as JSON)' });

/** The payer's address of a boleto subscription, copied to every cycle's boleto. */
const ClientAddress = Type.Object(Address.properties, {
  additionalProperties: false,
  description:
    "BOLETO only (400 otherwise): the payer's address, copied to every cycle's boleto (a registered boleto carries it). Required where the environment's bank registers boletos (production keys): 400 naming clientAddress without it, nothing written",
});

const ClientIn = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    email: Type.String({ format: 'email', maxLength: 320 }),
    document: DocumentField,
    phone: Type.Optional(Phone),
  },
  { additionalProperties: false },
);

export const CreateSubscriptionBody = Type.Object(
  {
    planId: Uuid,
    clientId: Type.Optional(Uuid),
    client: Type.Optional(ClientIn),
    paymentMethod: MethodIn,
    card: Type.Optional(CardBody),
    cardId: Type.Optional(Type.String({ format: 'uuid', description: "Instead of card: a saved card (POST /api/v1/cards) of the subscribing client (clientId, or the client with client.document); 400 on cardId otherwise" })),
    couponCode: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    metadata: Type.Optional(Metadata),
    clientAddress: Type.Optional(ClientAddress),
  },
  { additionalProperties: false },
);

export const CheckoutSubscriptionBody = Type.Object(
  {
    planId: Uuid,
    clientName: Type.String({ minLength: 1, maxLength: 255 }),
    clientEmail: Type.String({ format: 'email', maxLength: 320 }),
    clientDocument: DocumentField,
    clientPhone: Type.Optional(Phone),
    paymentMethod: MethodIn,
    card: Type.Optional(CardBody),
    couponCode: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    affiliateCode: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: "An affiliate's tracking code (or the cofre_aff cookie's clicks): attributes the subscription when the plan sells a product with an affiliate program." })),
    clientAddress: Type.Optional(ClientAddress),
  },
  { additionalProperties: false },
);

export const CycleView = Type.Object({
  id: Uuid,
  number: Type.Integer(),
  kind: Type.Union([Type.Literal('PERIOD'), Type.Literal('PRORATION')]),
  periodStart: Timestamp,
  periodEnd: Timestamp,
  dueAt: Timestamp,
  amountCents: Type.Integer(),
  discountCents: Type.Integer(),
  status: Type.Union(['OPEN', 'PAID', 'PAST_DUE', 'VOID', 'UNCOLLECTIBLE'].map((v) => Type.Literal(v))),
  attempts: Type.Integer(),
  nextRetryAt: Nullable(Timestamp),
  failureReason: Nullable(Type.String()),
  transactionId: Nullable(Uuid),
  paidAt: Nullable(Timestamp),
});

/** The payer's address as stored (normalised). */
export const ClientAddressView = Type.Object(
  { zipCode: Type.String(), street: Type.String(), number: Type.String(), complement: Type.Optional(Type.String()), neighborhood: Type.String(), city: Type.String(), state: Type.String() },
  { description: "BOLETO: the payer's address given when subscribing (CEP as 8 digits, UF in capitals), copied to every cycle's boleto; null otherwise" },
);

export const SubscriptionView = Type.Object({
  id: Uuid,
  planId: Uuid,
  clientId: Uuid,
  client: Type.Object({ name: Type.String(), email: Type.String(), document: Type.String({ description: 'masked' }) }),
  status: SubscriptionStatus,
  paymentMethod: Method,
  card: Nullable(Type.Object({ brand: Nullable(Type.String()), last4: Nullable(Type.String()), expMonth: Nullable(Type.Integer()), expYear: Nullable(Type.Integer()) })),
  pixAutomatico: Nullable(
    Type.Object(
      {
        recurrenceId: Nullable(Type.String({ description: "The authorisation's id at the PSP (idRec); null until the first charge is issued" })),
        status: Nullable(Type.Union(['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'].map((v) => Type.Literal(v)), { description: 'CRIADA (awaiting the payer), APROVADA, REJEITADA, EXPIRADA, CANCELADA' })),
      },
      { description: 'PIX_AUTOMATICO only: the payer\'s authorisation of recurring debits' },
    ),
  ),
  currentPeriodStart: Timestamp,
  currentPeriodEnd: Timestamp,
  trialEnd: Nullable(Timestamp),
  cancelAtPeriodEnd: Type.Boolean(),
  cancelledAt: Nullable(Timestamp),
  cancelReason: Nullable(Type.String()),
  pausedAt: Nullable(Timestamp),
  resumesAt: Nullable(Timestamp),
  endedAt: Nullable(Timestamp),
  pendingPlanId: Nullable(Uuid),
  couponId: Nullable(Uuid),
  clientAddress: Nullable(ClientAddressView),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  cycles: Type.Optional(Type.Array(CycleView)),
  /** The open charge to pay (PIX code / boleto line / hosted page) of an INCOMPLETE or PAST_DUE subscription. */
  payment: Type.Optional(
    Nullable(
      Type.Object({
        transactionId: Uuid,
        status: Type.String(),
        amountCents: Type.Integer(),
        pixCode: Nullable(Type.String()),
        boletoLine: Nullable(
          Type.String({ description: "The boleto's linha digitável; null while its bank registers it (production boletos get it a few seconds after the charge is created; the subscriber's e-mail is sent once it exists)" }),
        ),
        paymentUrl: Type.String(),
      }),
    ),
  ),
});

export const SubscriptionResponse = Type.Object({ message: Type.String(), subscription: SubscriptionView });
export const ListSubscriptionsQuery = Type.Object(
  {
    ...CursorQuery,
    status: Type.Optional(SubscriptionStatus),
    planId: Type.Optional(Uuid),
    clientId: Type.Optional(Uuid),
    clientEmail: Type.Optional(Type.String({ maxLength: 320 })),
  },
  { additionalProperties: false },
);
export const SubscriptionListResponse = Type.Object({ message: Type.String(), subscriptions: Type.Array(SubscriptionView), pagination: CursorPagination });

export const CancelBody = Type.Object(
  {
    atPeriodEnd: Type.Optional(Type.Boolean({ description: 'true: stays active until the period ends (default false: now)' })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const PauseBody = Type.Object({ resumesAt: Type.Optional(Type.String({ format: 'date-time', description: 'Resumes by itself then' })) }, { additionalProperties: false });
export const EmptyBody = Type.Object({}, { additionalProperties: false });
export const PIX_AUTOMATICO_SIMULATIONS = ['APPROVE', 'REJECT', 'PAYER_CANCEL', 'INSUFFICIENT_FUNDS'] as const;
export const SimulateBody = Type.Object(
  {
    advanceDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 400 })),
    pixAutomatico: Type.Optional(
      Type.Union(
        PIX_AUTOMATICO_SIMULATIONS.map((v) => Type.Literal(v)),
        {
          description:
            'PIX_AUTOMATICO only, applied before advanceDays: the payer APPROVEs or REJECTs the authorisation, or cancels it later (PAYER_CANCEL); INSUFFICIENT_FUNDS fails the pending automatic debit (the dunning retries it)',
        },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const ChangePlanBody = Type.Object(
  { planId: Uuid, preview: Type.Optional(Type.Boolean({ description: 'true: show the amounts, change nothing' })) },
  { additionalProperties: false },
);
export const ChangePlanResponse = Type.Object({
  message: Type.String(),
  preview: Type.Boolean(),
  change: Type.Object({
    kind: Type.Union([Type.Literal('UPGRADE'), Type.Literal('DOWNGRADE')]),
    effective: Type.Union([Type.Literal('NOW'), Type.Literal('PERIOD_END')]),
    fromPlanId: Uuid,
    toPlanId: Uuid,
    prorationCents: Type.Integer({ description: 'Charged now for the rest of the period (upgrades)' }),
    nextAmountCents: Type.Integer(),
    remainingDays: Type.Integer(),
    periodDays: Type.Integer(),
  }),
  subscription: SubscriptionView,
});

export const MetricsQuery = Type.Object({ month: Type.Optional(Type.String({ pattern: '^(?!9999-12)(19\\d{2}|[2-9]\\d{3})-(0[1-9]|1[0-2])$', description: 'YYYY-MM, 1900-01 to 9999-11 (default: the current month, São Paulo)' })) }, { additionalProperties: false });

export type CreatePlanInput = Static<typeof CreatePlanBody>;
export type UpdatePlanInput = Static<typeof UpdatePlanBody>;

export const MetricsResponse = Type.Object({
  message: Type.String(),
  metrics: Type.Object({
    month: Type.String(),
    mrrCents: Type.Integer({ description: 'Monthly recurring revenue at the end of the month (intervals normalised to months)' }),
    mrr: Type.Integer({ description: 'Same as mrrCents' }),
    activeSubscribers: Type.Integer(),
    totalActive: Type.Integer({ description: 'Same as activeSubscribers' }),
    totalCancelled: Type.Integer(),
    totalPaused: Type.Integer(),
    trialing: Type.Integer(),
    pastDue: Type.Integer(),
    newSubscribers: Type.Integer(),
    cancellations: Type.Integer({ description: 'Subscriptions paying at the start of the month and cancelled in it' }),
    activeAtStart: Type.Integer(),
    churnRate: Type.Number({ description: 'cancellations / activeAtStart (0 when none), 4 decimals' }),
    mrrAtStartCents: Type.Integer(),
    revenueChurnRate: Type.Number({ description: '(churn + contraction) / MRR at the start, 4 decimals' }),
    movements: Type.Object({
      newCents: Type.Integer(),
      expansionCents: Type.Integer(),
      contractionCents: Type.Integer(),
      churnCents: Type.Integer(),
      reactivationCents: Type.Integer(),
      netCents: Type.Integer({ description: 'new + expansion + reactivation - contraction - churn = mrrCents - mrrAtStartCents' }),
    }),
  }),
});
