// The reports API (docs/dashboard.md, /api/v1/reports/summary and /timeseries): types from its
// contract, called through the same client rules until the generated schema lists the routes.
import { getUntyped } from './client.ts';

export type Preset = 'today' | 'yesterday' | '7d' | '30d' | '90d';
export interface Period {
  preset?: Preset;
  from?: string;
  to?: string;
}
export interface Totals {
  grossCents: number;
  netCents: number;
  feeCents: number;
  paidCount: number;
  averageTicketCents: number;
  refundedCents: number;
  refundCount: number;
  chargebackCents: number;
  chargebackCount: number;
  chargebackWonCents: number;
  chargebackWonCount: number;
  card: { attempted: number; approved: number; approvalRate: number | null };
  pix: { issued: number; paid: number; conversionRate: number | null };
  boleto: { issued: number; paid: number; conversionRate: number | null };
  byMethod: Record<'PIX' | 'CARD' | 'BOLETO', { grossCents: number; paidCount: number }>;
}
export interface Summary {
  from: string;
  to: string;
  current: Totals;
  previous: Totals;
}
export interface Day {
  date: string;
  PIX: number;
  CARD: number;
  BOLETO: number;
  paidCount: number;
}

function query(p: Period): Record<string, string | undefined> {
  return p.from && p.to ? { from: p.from, to: p.to } : { preset: p.preset ?? 'today' };
}

export async function summary(p: Period): Promise<Summary> {
  return (await getUntyped<{ data: Summary }>('/api/v1/reports/summary', query(p))).data;
}

export async function timeseries(p: Period): Promise<{ from: string; to: string; days: Day[] }> {
  return (await getUntyped<{ data: { from: string; to: string; days: Day[] } }>('/api/v1/reports/timeseries', query(p))).data;
}
