// pt-BR formatting: money R$ 1.234,56 (the hosted pages' formatter), dates dd/mm/aaaa in
// America/Sao_Paulo, and money typed by a person ("1.234,56") to cents.
import { DECLINE_PT } from '../../../../src/payments/declines.ts';
import { formatDocument, maskDocument } from '../../../../src/payments/documents.ts';
import { formatBRL } from '../../../../src/web/format.ts';

export const TZ = 'America/Sao_Paulo';

/** R$ 1.234,56 (with an ordinary space, so it reads and copies the same everywhere). */
export const brl = (cents: number | null | undefined) => (cents == null ? '—' : formatBRL(cents).replace(/\u00a0/g, ' '));

const dateFmt = new Intl.DateTimeFormat('pt-BR', { timeZone: TZ, day: '2-digit', month: '2-digit', year: 'numeric' });
const dateTimeFmt = new Intl.DateTimeFormat('pt-BR', { timeZone: TZ, day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });

/** dd/mm/aaaa of an instant (ISO text) in São Paulo; a bare YYYY-MM-DD date is taken as it is. */
export function date(iso: string | null | undefined): string {
  if (!iso) return '—';
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return iso.split('-').reverse().join('/');
  return dateFmt.format(new Date(iso));
}

/** dd/mm/aaaa hh:mm in São Paulo. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return dateTimeFmt.format(new Date(iso)).replace(',', '');
}

const secondsFmt = new Intl.DateTimeFormat('pt-BR', { timeZone: TZ, day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** dd/mm/aaaa hh:mm:ss in São Paulo: for events seconds apart (a card charge's tries). */
export function dateTimeSeconds(iso: string): string {
  return secondsFmt.format(new Date(iso)).replace(',', '');
}

/** Today's calendar date in São Paulo as YYYY-MM-DD. */
export function todaySP(now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: TZ, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  return parts;
}

/** The UTC instant of a São Paulo date (YYYY-MM-DD) and time (hh:mm); São Paulo has no daylight saving time since 2019: UTC-3. */
export function instantSP(day: string, time: string): string {
  return new Date(`${day}T${time}:00-03:00`).toISOString();
}

/** The UTC instant a São Paulo calendar day starts. */
export const dayStartSP = (day: string): string => instantSP(day, '00:00');

const partsFmt = new Intl.DateTimeFormat('en-CA', { timeZone: TZ, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** An instant as São Paulo's calendar date (YYYY-MM-DD) and time (hh:mm): what a form's date and time fields hold. */
export function partsSP(iso: string): { day: string; time: string } {
  const p = Object.fromEntries(partsFmt.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return { day: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
}

/** "1.234,56", "1234,5", "R$ 12" -> cents; null when it is not an amount. */
export function parseMoney(text: string): number | null {
  const t = text.replace(/R\$|\s/g, '');
  if (!/^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+(,\d{1,2})?$/.test(t)) return null;
  const [int, frac = ''] = t.replace(/\./g, '').split(',');
  return Number(int) * 100 + Number(frac.padEnd(2, '0'));
}

/** Cents as the text a money field starts with: 123456 -> "1.234,56". */
export function moneyInput(cents: number): string {
  return brl(cents).replace(/^R\$ /, '');
}

export const percent = (rate: number | null | undefined) =>
  rate == null ? '—' : new Intl.NumberFormat('pt-BR', { style: 'percent', maximumFractionDigits: 1 }).format(rate);

/** A CPF (000.000.000-00) or CNPJ (00.000.000/0000-00, letters allowed in the first 12) as people write it: the gateway's own formatDocument. */
export const documentText = (doc: string | null | undefined): string => (doc ? formatDocument(doc) : '—');

/**
 * A client's CPF/CNPJ as every list and page shows it: masked as webhooks carry it (***.456.789-**),
 * whatever the API answered; one already masked (a subscription's) is shown as it is. The full
 * document is in the client's data export.
 */
export const clientDocumentText = (doc: string | null | undefined): string => (!doc ? '—' : doc.includes('*') ? doc : maskDocument(doc));

/** A Brazilian phone as (11) 99999-0000 (with or without +55); anything else as it is. */
export function phoneText(phone: string | null | undefined): string {
  if (!phone) return '—';
  const d = phone.replace(/^\+?55(?=\d{10,11}$)/, '');
  if (/^\d{11}$/.test(d)) return d.replace(/^(\d{2})(\d{5})(\d{4})$/, '($1) $2-$3');
  if (/^\d{10}$/.test(d)) return d.replace(/^(\d{2})(\d{4})(\d{4})$/, '($1) $2-$3');
  return phone;
}

export const integer = (n: number) => new Intl.NumberFormat('pt-BR').format(n);

export const STATUS_LABELS: Record<string, string> = {
  PENDING: 'Pendente',
  AUTHORIZED: 'Autorizada',
  PAID: 'Paga',
  FAILED: 'Recusada',
  EXPIRED: 'Expirada',
  CANCELLED: 'Cancelada',
  REFUNDED: 'Estornada',
  PARTIALLY_REFUNDED: 'Estornada em parte',
  CHARGEBACK: 'Contestada (chargeback)',
  SUCCEEDED: 'Entregue',
  ACTIVE: 'Ativo', // products, links, coupons, webhooks: all masculine
  DISABLED: 'Desativado',
  INACTIVE: 'Inativo',
  PROCESSING: 'Processando',
  COMPLETED: 'Concluída',
  APPROVED: 'Aprovada',
  REJECTED: 'Rejeitada',
  SUBMITTED: 'Em análise',
  NOT_SUBMITTED: 'Não enviado',
};

const PIX_KEY_TYPES: Record<string, string> = { cpf: 'CPF', cnpj: 'CNPJ', email: 'e-mail', phone: 'telefone', random: 'aleatória' };
const referral = (kind: string) => (kind === 'reward' ? 'Bônus de indicação' : 'Comissão de indicação');

/** The API's ledger descriptions (English, src/modules/**) as the Extrato shows them; an unknown one as it is. */
const ENTRY_DESCRIPTIONS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^Payment (\S+) \((\w+)\)$/, (m) => `Pagamento ${m[1]} (${METHOD_LABELS[m[2]] ?? m[2]})`],
  [/^Refund of (\S+)$/, (m) => `Estorno de ${m[1]}`],
  [/^Refund of (\S+) not made: funds returned$/, (m) => `Estorno de ${m[1]} não realizado: valor devolvido ao saldo`],
  [/^Chargeback of (\S+)$/, (m) => `Chargeback de ${m[1]}`],
  [/^Chargeback of (\S+) won: funds returned$/, (m) => `Chargeback de ${m[1]} revertido: valor devolvido ao saldo`],
  [/^Card instalment (\d+) settled$/, (m) => `Parcela ${m[1]} do cartão liberada`],
  [/^Advance of (\d+) card instalment\(s\)$/, (m) => `Antecipação de ${m[1]} parcela(s) do cartão`],
  [/^Withdrawal to PIX key \((\w+)\) requested$/, (m) => `Saque para chave PIX (${PIX_KEY_TYPES[m[1]] ?? m[1]}) solicitado`],
  [/^Withdrawal paid to PIX key \((\w+)\)$/, (m) => `Saque pago na chave PIX (${PIX_KEY_TYPES[m[1]] ?? m[1]})`],
  [/^Withdrawal cancelled: funds returned$/, () => 'Saque cancelado: valor devolvido'],
  [/^Withdrawal failed \((.+)\): funds returned$/, (m) => `Saque falhou (${m[1]}): valor devolvido`],
  [/^Affiliate commission released \(transaction (\S+)\)$/, (m) => `Comissão de afiliado liberada (venda ${m[1]})`],
  [/^Referral (reward|commission) for sale (\S+)$/, (m) => `${referral(m[1])} pela venda ${m[2]}`],
  [/^Referral (reward|commission) released \(sale (\S+)\)$/, (m) => `${referral(m[1])} liberado(a) (venda ${m[2]})`],
  [/^Referral (reward|commission) (clawed back|cancelled): sale (\S+) refunded$/, (m) => `${referral(m[1])} ${m[2] === 'cancelled' ? 'cancelado(a)' : 'devolvido(a)'}: venda ${m[3]} estornada`],
];

export function entryDescription(text: string): string {
  for (const [re, say] of ENTRY_DESCRIPTIONS) {
    const m = re.exec(text);
    if (m) return say(m);
  }
  return text;
}

/** Why a payment failed (a transaction's failureReason), as the checkout tells the customer; an unknown code as it is. */
export function failureText(reason: string): string {
  const text = DECLINE_PT[reason];
  return text ? text[0].toUpperCase() + text.slice(1) : reason;
}

export const METHOD_LABELS: Record<string, string> = { PIX: 'PIX', CARD: 'Cartão', BOLETO: 'Boleto' };
