import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.ts';

const Day = Type.String({ format: 'date', description: 'Calendar day YYYY-MM-DD (America/Sao_Paulo)' });

export const PRESETS = ['today', 'yesterday', '7d', '30d', '90d'] as const;
export type Preset = (typeof PRESETS)[number];

export const ReportQuery = Type.Object(
  {
    from: Type.Optional({ ...Day, description: 'First day of the period (with `to`), YYYY-MM-DD in America/Sao_Paulo' }),
    to: Type.Optional({ ...Day, description: 'Last day of the period, inclusive (with `from`); at most 366 days after `from`' }),
    preset: Type.Optional(
      Type.Union(
        PRESETS.map((p) => Type.Literal(p)),
        { description: 'Instead of from/to: today (the default), yesterday, or the last 7, 30 or 90 days including today' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ReportQuery = Static<typeof ReportQuery>;

const Rate = (what: string) => Nullable(Type.Number({ minimum: 0, maximum: 1, description: `${what}; null when there is nothing to divide by` }));
const Funnel = (issued: string) =>
  Type.Object({
    issued: Type.Integer({ description: issued }),
    paid: Type.Integer({ description: 'Of those, how many were paid (so far)' }),
    conversionRate: Rate('paid / issued'),
  });
const MethodSales = Type.Object({ grossCents: Type.Integer(), paidCount: Type.Integer() });

export const Totals = Type.Object({
  grossCents: Type.Integer({ description: 'Sum of what was charged (chargedCents: card interest and a late PIX fine included) for the payments that became PAID in the period (by paidAt), refunded later or not' }),
  netCents: Type.Integer({ description: 'grossCents - feeCents - refundedCents - chargebackCents + chargebackWonCents' }),
  feeCents: Type.Integer({ description: 'Fees of those payments' }),
  paidCount: Type.Integer(),
  averageTicketCents: Type.Integer({ description: 'grossCents / paidCount rounded half up; 0 when none' }),
  refundedCents: Type.Integer({ description: 'Refunds made in the period (of payments of any day), failed ones left out' }),
  refundCount: Type.Integer(),
  chargebackCents: Type.Integer({ description: 'Chargebacks opened in the period (of payments of any day), by the São Paulo day the acquirer opened them, whatever their outcome later' }),
  chargebackCount: Type.Integer(),
  chargebackWonCents: Type.Integer({ description: 'Chargebacks decided for the merchant in the period (opened any day), by the day of the decision: the debit came back' }),
  chargebackWonCount: Type.Integer(),
  card: Type.Object({
    attempted: Type.Integer({ description: 'Card payments created in the period for which a card was tried' }),
    approved: Type.Integer({ description: 'Of those, approved by the issuer (authorised or paid, even if captured, voided or refunded later)' }),
    approvalRate: Rate('approved / attempted'),
  }),
  pix: Funnel('PIX charges created in the period'),
  boleto: Funnel('Boletos created in the period'),
  byMethod: Type.Object({ PIX: MethodSales, CARD: MethodSales, BOLETO: MethodSales }),
});
export type Totals = Static<typeof Totals>;

export const SummaryResponse = Type.Object({
  message: Type.String(),
  data: Type.Object({
    from: Day,
    to: Day,
    current: Totals,
    previous: { ...Totals, description: 'The period of the same length just before (today -> yesterday)' },
  }),
});

export const TimeseriesResponse = Type.Object({
  message: Type.String(),
  data: Type.Object({
    from: Day,
    to: Day,
    days: Type.Array(
      Type.Object({
        date: Day,
        PIX: Type.Integer({ description: 'Gross paid by PIX that day (cents)' }),
        CARD: Type.Integer({ description: 'Gross paid by card that day (cents)' }),
        BOLETO: Type.Integer({ description: 'Gross paid by boleto that day (cents)' }),
        paidCount: Type.Integer(),
      }),
      { description: 'One entry per day of the period, in order, days without sales included' },
    ),
  }),
});
