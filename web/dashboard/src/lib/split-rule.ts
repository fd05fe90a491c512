// A split rule (the `split` of a sale, a payment link, a checkout or a plan: docs/splits.md) as a
// form holds it — one row per recipient, text as typed — and as the API takes it; its words in pt-BR.
import type { JsonBody } from '../api/json.ts';
import { centsOf, fieldError } from '../components/MoneyField.tsx';
import { bp, feeInput, parseBp } from './fees.ts';
import { brl, moneyInput } from './format.ts';

export type SplitRule = NonNullable<JsonBody<'createPaymentLink'>['split']>;
type Recipient = SplitRule[number];

/** The API's limit (src/payments/splits.ts). */
export const MAX_RECIPIENTS = 10;

export interface SplitRow {
  walletId: string;
  kind: 'percent' | 'fixed';
  /** "20", "12,5" (percent) or "15,00" (reais), as typed. */
  value: string;
  basis: 'NET' | 'GROSS';
  /** Only with GROSS: the share bears its part of the gateway fee. */
  chargeFees: boolean;
}

export const emptyRow = (): SplitRow => ({ walletId: '', kind: 'percent', value: '', basis: 'NET', chargeFees: false });

/** The rows of a saved rule (none when there is no split). */
export function rowsOf(rule: SplitRule | null | undefined): SplitRow[] {
  return (rule ?? []).map((r) => ({
    walletId: r.walletId,
    kind: r.fixedCents != null ? 'fixed' : 'percent',
    value: r.fixedCents != null ? moneyInput(r.fixedCents) : feeInput('bp', r.percentageBp ?? 0),
    basis: r.basis ?? 'NET',
    chargeFees: !!r.chargeFees,
  }));
}

/** The percentages typed so far, in basis points (what cannot be read yet counts nothing). */
export function percentSum(rows: SplitRow[]): number {
  return rows.reduce((n, r) => n + (r.kind === 'percent' ? (parseBp(r.value) ?? 0) : 0), 0);
}

export const sumMessage = (sumBp: number) => `Os percentuais somam ${bp(sumBp)}: o máximo é 100%.`;

/** The field of a row's value: the API names the percentage and the fixed amount apart. */
export const valueField = (r: SplitRow, i: number) => `split.${i}.${r.kind === 'percent' ? 'percentageBp' : 'fixedCents'}`;

function recipientOf(r: SplitRow, i: number): Recipient {
  if (!r.walletId.trim()) throw fieldError(`split.${i}.walletId`, 'Informe o ID da carteira do recebedor, ou remova este recebedor.');
  let share: Pick<Recipient, 'percentageBp' | 'fixedCents'>;
  if (r.kind === 'percent') {
    const v = parseBp(r.value);
    if (!v) throw fieldError(valueField(r, i), 'Informe o percentual, como 20 ou 12,5.');
    share = { percentageBp: v };
  } else share = { fixedCents: centsOf(r.value, valueField(r, i)) };
  return { walletId: r.walletId.trim(), ...share, basis: r.basis, ...(r.basis === 'GROSS' && { chargeFees: r.chargeFees }) };
}

/** The rule the rows make (null: no split), or throws the field error a person can fix before sending. */
export function splitOf(rows: SplitRow[]): SplitRule | null {
  if (!rows.length) return null;
  const rule = rows.map(recipientOf);
  const sum = percentSum(rows);
  if (sum > 10_000) throw fieldError('split', sumMessage(sum));
  return rule;
}

/** Every field of the rows, for the API's errors to sit beside them. */
export function splitFields(rows: SplitRow[]): string[] {
  return ['split', ...rows.flatMap((_, i) => [`split.${i}`, `split.${i}.walletId`, `split.${i}.percentageBp`, `split.${i}.fixedCents`, `split.${i}.basis`, `split.${i}.chargeFees`])];
}

/** "20% do líquido", "R$ 15,00 fixo", "10% do bruto, paga a taxa proporcional". */
export function ruleText(s: { fixedCents?: number | null; percentageBp?: number | null; basis?: 'NET' | 'GROSS'; chargeFees?: boolean }): string {
  const what = s.fixedCents != null ? `${brl(s.fixedCents)} fixo` : `${bp(s.percentageBp ?? 0)} do ${s.basis === 'GROSS' ? 'bruto' : 'líquido'}`;
  return s.chargeFees ? `${what}, paga a taxa proporcional` : what;
}

/** A saved rule in a line: "Divisão com 2 recebedores: 20% do líquido + R$ 15,00 fixo". */
export function splitText(rule: SplitRule | null | undefined): string {
  if (!rule?.length) return '';
  return `Divisão com ${rule.length} recebedor${rule.length > 1 ? 'es' : ''}: ${rule.map(ruleText).join(' + ')}`;
}
