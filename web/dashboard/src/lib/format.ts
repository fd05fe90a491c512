// pt-BR formatting: money R$ 1.234,56 (the hosted pages' formatter), dates dd/mm/aaaa in
// America/Sao_Paulo, and money typed by a person ("1.234,56") to cents.
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

/** Today's calendar date in São Paulo as YYYY-MM-DD. */
export function todaySP(now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: TZ, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  return parts;
}

/** The UTC instant a São Paulo calendar day starts (São Paulo has no daylight saving time since 2019: UTC-3). */
export function dayStartSP(day: string): string {
  return new Date(`${day}T00:00:00-03:00`).toISOString();
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
  SUCCEEDED: 'Entregue',
  ACTIVE: 'Ativa',
  DISABLED: 'Desativada',
  INACTIVE: 'Inativa',
  PROCESSING: 'Processando',
  COMPLETED: 'Concluída',
  APPROVED: 'Aprovada',
  REJECTED: 'Rejeitada',
  SUBMITTED: 'Em análise',
  NOT_SUBMITTED: 'Não enviado',
};

export const METHOD_LABELS: Record<string, string> = { PIX: 'PIX', CARD: 'Cartão', BOLETO: 'Boleto' };
