// What the subscription screens share: the API's types, the labels of intervals, methods and
// reasons in pt-BR, and the merchant's plans.
import { api, ok } from '../../api/client.ts';
import type { Json, JsonBody } from '../../api/json.ts';

export type Plan = Json<'getPlanV1'>['plan'];
export type Subscription = Json<'getSubscriptionV1'>['subscription'];
export type Metrics = Json<'getSubscriptionMetricsV1'>['metrics'];
export type Interval = Plan['interval'];
export type PlanBody = JsonBody<'createPlanV1'>;

export const INTERVALS: [Interval, string, string, string][] = [
  // value, option, "por …" (one), "a cada N …" (many)
  ['DAILY', 'Diária', 'dia', 'dias'],
  ['WEEKLY', 'Semanal', 'semana', 'semanas'],
  ['MONTHLY', 'Mensal', 'mês', 'meses'],
  ['QUARTERLY', 'Trimestral', 'trimestre', 'trimestres'],
  ['SEMIANNUAL', 'Semestral', 'semestre', 'semestres'],
  ['ANNUAL', 'Anual', 'ano', 'anos'],
];

/** "por mês", "a cada 2 meses". */
export function every(interval: Interval, count: number): string {
  const [, , one, many] = INTERVALS.find((i) => i[0] === interval)!;
  return count === 1 ? `por ${one}` : `a cada ${count} ${many}`;
}

export const METHODS: [string, string][] = [
  ['CARD', 'Cartão de crédito'],
  ['PIX', 'PIX'],
  ['BOLETO', 'Boleto'],
  ['PIX_AUTOMATICO', 'Pix Automático'],
];
export const methodLabel = (m: string) => METHODS.find((x) => x[0] === m)?.[1] ?? m;

export const FINAL_ACTIONS: [string, string][] = [
  ['CANCEL', 'Cancelar a assinatura'],
  ['PAUSE', 'Pausar a assinatura'],
  ['PAST_DUE', 'Deixar em atraso'],
];

/** Why a subscription ended or a charge failed: the API's codes in pt-BR (a merchant's own reason as typed). */
const REASONS: Record<string, string> = {
  PIX_AUTOMATICO_REJECTED: 'o pagador recusou a autorização do Pix Automático',
  PIX_AUTOMATICO_EXPIRED: 'a autorização do Pix Automático expirou sem resposta',
  PIX_AUTOMATICO_CANCELLED_BY_PAYER: 'o pagador cancelou o Pix Automático',
  PIX_AUTOMATICO_CANCELLED_BY_PAYER_BANK: 'o banco do pagador cancelou o Pix Automático',
  PIX_AUTOMATICO_CANCELLED_BY_PSP: 'o provedor cancelou o Pix Automático',
  INSUFFICIENT_FUNDS: 'saldo insuficiente',
};
export const reasonLabel = (r: string) => REASONS[r] ?? r;

/** Every plan of the merchant (the list is paged by the API). */
export async function allPlans(): Promise<Plan[]> {
  const out: Plan[] = [];
  let cursor: string | undefined;
  do {
    const r = await ok(api.GET('/api/v1/subscriptions/plans', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } }));
    out.push(...r.plans);
    cursor = r.pagination.nextCursor ?? undefined;
  } while (cursor);
  return out;
}
