// The transactions list as a CSV file for spreadsheets in pt-BR (Excel, LibreOffice, Google
// Sheets): `;` between cells, a UTF-8 byte order mark, CRLF line ends, amounts as 1234,56 and dates
// as dd/mm/aaaa HH:MM in São Paulo. The rows come from the list's own query (its filters and order),
// page after page of EXPORT_PAGE rows by keyset, each page written before the next is read: the
// memory used does not grow with the export.
import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import type { Executor } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import { listTransactions } from './queries.ts';
import type { ExportTransactionsQuery } from './schemas.ts';
import { CSV_BOM, csvDate, csvLine, csvMoney } from '../../http/csv.ts';

export const EXPORT_PAGE = 1000;

const STATUS_PT: Record<Transaction['status'], string> = {
  PENDING: 'Pendente',
  AUTHORIZED: 'Autorizado',
  PAID: 'Pago',
  FAILED: 'Recusado',
  EXPIRED: 'Expirado',
  CANCELLED: 'Cancelado',
  REFUNDED: 'Reembolsado',
  PARTIALLY_REFUNDED: 'Reembolsado em parte',
  CHARGEBACK: 'Chargeback',
};
const METHOD_PT: Record<Transaction['payment_method'], string> = { PIX: 'PIX', CARD: 'Cartão', BOLETO: 'Boleto' };

const COLUMNS: Array<[string, (t: Transaction) => string]> = [
  ['ID', (t) => t.id],
  ['Código', (t) => t.display_id],
  ['Criada em', (t) => csvDate(t.created_at)],
  ['Paga em', (t) => csvDate(t.paid_at)],
  ['Status', (t) => STATUS_PT[t.status] ?? t.status],
  ['Método', (t) => METHOD_PT[t.payment_method] ?? t.payment_method],
  ['Produto', (t) => t.product],
  ['Cliente', (t) => t.client_name],
  ['E-mail', (t) => t.client_email],
  ['CPF/CNPJ', (t) => t.client_document],
  ['Telefone', (t) => t.client_phone ?? ''],
  ['Valor (R$)', (t) => csvMoney(t.amount_cents)],
  ['Desconto (R$)', (t) => csvMoney(t.discount_cents)],
  ['Valor cobrado (R$)', (t) => csvMoney(t.charged_cents)],
  ['Parcelas', (t) => String(t.installments)],
  ['Taxa (R$)', (t) => csvMoney(t.fee_cents)],
  ['Reembolsado (R$)', (t) => csvMoney(t.refunded_cents)],
  ['Cartão', (t) => (t.card_last4 ? `${t.card_brand ?? ''} •••• ${t.card_last4}`.trim() : '')],
  ['Motivo da recusa', (t) => t.failure_reason ?? ''],
];

export const CSV_HEADER = `${CSV_BOM}${csvLine(COLUMNS.map(([name]) => name))}`;
export const csvRow = (t: Transaction) => csvLine(COLUMNS.map(([, value]) => value(t)));

/** The CSV text, one chunk per page of rows, read from the database only as the client takes it. */
export function transactionsCsv(db: Executor, cursors: Cursors, scope: Scope, q: Static<typeof ExportTransactionsQuery>): Readable {
  const { format: _format, ...filters } = q;
  async function* chunks() {
    yield CSV_HEADER;
    let cursor: string | undefined;
    do {
      const { rows, pagination } = await listTransactions(db, cursors, scope, { ...filters, limit: EXPORT_PAGE, cursor });
      if (rows.length) yield rows.map(csvRow).join('');
      cursor = pagination.nextCursor ?? undefined;
    } while (cursor);
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
}
