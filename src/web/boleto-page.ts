// The printable boleto: digitable line, barcode (Interleaved 2 of 5) and the payment details.
import { escapeHtml } from '../http/sanitize.ts';
import { formatDigitableLine, interleaved2of5 } from '../payments/boleto.ts';
import { maskDocument } from '../payments/documents.ts';
import { formatBRL, formatDateBR } from './format.ts';
import { page } from './layout.ts';

export interface BoletoPageData {
  displayId: string;
  product: string;
  amountCents: number;
  status: string;
  barcode: string;
  digitableLine: string;
  dueDate: string;
  payerName: string;
  payerDocument: string;
  merchantName: string;
  sandbox: boolean;
}

const STATUS_PT: Record<string, string> = {
  PENDING: 'Aguardando pagamento',
  PAID: 'Pago',
  EXPIRED: 'Vencido',
  FAILED: 'Falhou',
  CANCELLED: 'Cancelado',
  REFUNDED: 'Estornado',
  PARTIALLY_REFUNDED: 'Estornado parcialmente',
};

export function formatBoletoDocument(d: BoletoPageData | null): string {
  if (!d) {
    return page({ title: 'Boleto não encontrado', body: `<div class="card"><h1>Boleto não encontrado</h1><p class="muted">Confira o endereço recebido do vendedor.</p></div>` });
  }
  const e = escapeHtml;
  const line = formatDigitableLine(d.digitableLine);
  return page({
    title: `Boleto ${e(d.displayId)} — ${e(formatBRL(d.amountCents))}`,
    body: `
<div class="card">
  ${d.sandbox ? '<p class="err"><strong>Ambiente de testes:</strong> este boleto não tem valor real.</p>' : ''}
  <h1>Boleto bancário</h1>
  <p class="muted">${e(d.merchantName)} · pedido ${e(d.displayId)}</p>
  <p class="amount">${e(formatBRL(d.amountCents))}</p>
  <p>Vencimento: <strong>${e(formatDateBR(d.dueDate))}</strong> · Situação: <strong>${e(STATUS_PT[d.status] ?? d.status)}</strong></p>
  <p>Pagador: ${e(d.payerName)} (${e(maskDocument(d.payerDocument))})</p>
  <p>Referente a: ${e(d.product)}</p>
</div>
<div class="card">
  <h2>Linha digitável</h2>
  <p class="mono" id="linha">${e(line)}</p>
  <div role="img" aria-label="Código de barras do boleto">${interleaved2of5(d.barcode, { narrow: 1, height: 60 })}</div>
  <p class="muted mono">${e(d.barcode)}</p>
</div>
<p class="noprint muted">Use o botão de impressão do navegador para imprimir ou salvar em PDF.</p>`,
  });
}
