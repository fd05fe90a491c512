// CSV files for pt-BR spreadsheets (Excel, LibreOffice, Google Sheets): `;` between cells, CRLF
// line ends, dates as dd/mm/aaaa HH:MM in São Paulo, amounts as 1234,56; the file starts with a
// UTF-8 byte order mark (CSV_BOM) so Excel reads the accents.

export const CSV_BOM = '\uFEFF';

const dateTime = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** dd/mm/aaaa HH:MM in São Paulo; empty for no date. */
export const csvDate = (d: Date | string | null) => (d === null ? '' : dateTime.format(new Date(d)).replace(', ', ' '));
/** Cents as 1234,56 (no thousands separator: spreadsheets read it as a number). */
export const csvMoney = (cents: number | string) => {
  const n = Number(cents);
  const abs = Math.abs(n);
  return `${n < 0 ? '-' : ''}${Math.floor(abs / 100)},${String(abs % 100).padStart(2, '0')}`;
};

/**
 * One cell: a text a spreadsheet would run as a formula (starting with = + - @, or a tab or carriage
 * return before one) gets a leading apostrophe; a cell with `;`, a quote or a line break is quoted.
 */
export function csvCell(value: string): string {
  let v = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  if (/[;"\r\n]/.test(v)) v = `"${v.replace(/"/g, '""')}"`;
  return v;
}

/** One line of cells, CRLF-terminated. */
export const csvLine = (cells: string[]) => `${cells.map(csvCell).join(';')}\r\n`;
