// The fees a merchant pays, as the API names them (GET /api/v1/fees, the operator's
// /api/admin/merchants/{id}/fees): percentages in basis points, fixed fees in cents.
import type { paths } from '../api/schema.d.ts';
import { brl, moneyInput, parseMoney } from './format.ts';

export type Fees = paths['/api/v1/fees']['get']['responses'][200]['content']['application/json']['fees'];
export type FeeField = keyof Fees;
type Unit = 'bp' | 'cents';

/** Every fee: its field, its label in a form, its unit. */
export const FEE_FIELDS: [FeeField, string, Unit][] = [
  ['pixPercentBp', 'PIX (% por venda)', 'bp'],
  ['boletoFixedCents', 'Boleto (R$ por boleto pago)', 'cents'],
  ['cardPercentBp', 'Cartão (% por venda)', 'bp'],
  ['cardFixedCents', 'Cartão (R$ por venda, além da %)', 'cents'],
  ['withdrawalCents', 'Saque (R$ por saque)', 'cents'],
  ['advanceMonthlyBp', 'Antecipação (% ao mês antecipado)', 'bp'],
];

const percentNumber = (bp: number) => (bp / 100).toLocaleString('pt-BR', { maximumFractionDigits: 2 });

/** 99 -> "0,99%". */
export const bp = (v: number) => `${percentNumber(v)}%`;

/** A fee as text: "0,99%" or "R$ 3,49". */
export const feeText = (unit: Unit, v: number) => (unit === 'bp' ? bp(v) : brl(v));

/** A fee as a form field starts with: "0,99" or "3,49". */
export const feeInput = (unit: Unit, v: number) => (unit === 'bp' ? percentNumber(v) : moneyInput(v));

/** "0,99", "0,99%", "2" -> basis points; null when it is not a percentage with at most 2 decimals. */
export function parseBp(text: string): number | null {
  const m = /^(\d{1,3})(?:,(\d{1,2}))?%?$/.exec(text.replace(/\s/g, ''));
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
}

/** A fee typed in a form, in the API's unit; null when it is not one. */
export const parseFee = (unit: Unit, text: string) => (unit === 'bp' ? parseBp(text) : parseMoney(text));
