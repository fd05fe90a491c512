// What the affiliate screens share: the API's types, the options' labels in pt-BR, percentages in
// basis points, and why a commission or reward was cancelled.
import type { Json, JsonBody } from '../../api/json.ts';
import { brl, percent } from '../../lib/format.ts';

export type Program = Json<'getAffiliateProgram'>['data'];
export type ProgramBody = JsonBody<'createAffiliateProgram'>;
export type Product = { id: string; name: string; price: number };

export const ATTRIBUTIONS: [string, string][] = [
  ['LAST_CLICK', 'Último clique'],
  ['FIRST_CLICK', 'Primeiro clique'],
];
export const APPROVALS: [string, string][] = [
  ['AUTO', 'Automática: entram na hora'],
  ['MANUAL', 'Manual: eu aprovo cada afiliado'],
];

/** "40" or "12,5" (percent) -> basis points; null when it is not a percentage. */
export function basisPoints(text: string): number | null {
  const t = text.trim().replace('%', '').trim();
  if (!/^\d{1,3}(,\d{1,2})?$/.test(t)) return null;
  return Math.round(Number(t.replace(',', '.')) * 100);
}
export const percentOfBp = (bp: number) => percent(bp / 10000);

export function commissionText(type: string, value: number): string {
  return type === 'PERCENTAGE' ? `${percentOfBp(value)} do valor pago` : `${brl(value)} por venda`;
}

/** Why a commission or a reward was cancelled, in pt-BR. */
export const REASONS: Record<string, string> = {
  REFUNDED: 'venda estornada',
  REFUNDED_AFTER_RELEASE: 'venda estornada depois da liberação (valor devolvido)',
  SELF_PURCHASE: 'compra feita por você mesmo',
};
