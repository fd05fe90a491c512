// The printable boleto: beneficiário, pagador, amount and due date, the digitable line with a copy
// button, the barcode (Interleaved 2 of 5) and the payment instructions; a print button. Phone
// first: the barcode scales to the screen and prints at the FEBRABAN size (103 x 13 mm). The copy
// and print buttons come from the hosted pages' one script (/assets/checkout.js, CSP script-src
// 'self'); without JavaScript they stay hidden and the page is complete.
import { escapeHtml } from '../http/sanitize.ts';
import { formatDigitableLine, interleaved2of5 } from '../payments/boleto.ts';
import { maskDocument } from '../payments/documents.ts';
import { CHECKOUT_SCRIPT_URL } from './assets.ts';
import { CHECKOUT_CSS, top } from './checkout-pages.ts';
import { formatBRL, formatDateBR } from './format.ts';
import { page, PAGE_CSP } from './layout.ts';

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

/** The boleto page's Content-Security-Policy: the hosted pages' one (no inline script, not framable). */
export const BOLETO_CSP = PAGE_CSP;

const STATUS_PT: Record<string, string> = {
  PENDING: 'Aguardando pagamento',
  PAID: 'Pago',
  EXPIRED: 'Vencido',
  FAILED: 'Falhou',
  CANCELLED: 'Cancelado',
  REFUNDED: 'Estornado',
  PARTIALLY_REFUNDED: 'Estornado parcialmente',
};

const BOLETO_CSS = `
.fields{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:12px 0 0}
.fields dt{color:#5b6475;font-size:.9rem}.fields dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.barcode svg{display:block;width:100%;height:auto}
.instructions{margin:0;padding-left:20px}.instructions li+li{margin-top:6px}
@media print{.barcode svg{width:103mm;height:13mm}.top{display:none}}
`;

export function formatBoletoDocument(d: BoletoPageData | null): string {
  const head = `<link rel="icon" href="data:,">\n<style>${CHECKOUT_CSS}${BOLETO_CSS}</style>`;
  if (!d) {
    return page({ title: 'Boleto não encontrado', head, body: `<div class="card center"><h1>Boleto não encontrado</h1><p class="muted">Confira o endereço recebido do vendedor.</p></div>` });
  }
  const e = escapeHtml;
  const line = formatDigitableLine(d.digitableLine);
  const amount = e(formatBRL(d.amountCents));
  const due = e(formatDateBR(d.dueDate));
  return page({
    title: `Boleto ${e(d.displayId)} — ${amount}`,
    head: `${head}\n<script src="${e(CHECKOUT_SCRIPT_URL)}" defer></script>`,
    body: `
<div id="app" data-page="boleto">
${top(d.merchantName, d.sandbox, 'Boleto bancário')}
<section class="card" aria-labelledby="heading">
  <h1 id="heading">Boleto bancário</h1>
  <p class="muted">${e(d.product)} · pedido ${e(d.displayId)}</p>
  <p class="amount">${amount}</p>
  <dl class="fields">
    <dt>Vencimento</dt><dd>${due}</dd>
    <dt>Situação</dt><dd>${e(STATUS_PT[d.status] ?? d.status)}</dd>
    <dt>Beneficiário</dt><dd>${e(d.merchantName)}</dd>
    <dt>Pagador</dt><dd>${e(d.payerName)} (${e(maskDocument(d.payerDocument))})</dd>
    <dt>Documento</dt><dd>${e(d.displayId)}</dd>
  </dl>
</section>
<section class="card stack" aria-labelledby="linha-title">
  <h2 id="linha-title">Linha digitável</h2>
  <p class="mono" id="linha">${e(line)}</p>
  <button type="button" class="noprint" data-copy="linha" hidden>Copiar linha digitável</button>
  <div class="barcode" role="img" aria-label="Código de barras do boleto">${interleaved2of5(d.barcode, { narrow: 1, height: 60 })}</div>
</section>
<section class="card" aria-labelledby="instr-title">
  <h2 id="instr-title">Instruções</h2>
  <ul class="instructions">
    <li>Pague no app ou no internet banking do seu banco (opção “pagar boleto”: escaneie o código de barras ou cole a linha digitável), em casas lotéricas ou em agências bancárias.</li>
    <li>Pague até ${due}. Não receber após o vencimento.</li>
    <li>O banco confirma o pagamento após a compensação, normalmente em até 2 dias úteis.</li>
    <li>Dúvidas sobre o pedido: fale com ${e(d.merchantName)}.</li>
  </ul>
</section>
<div class="noprint">
  <button type="button" data-print hidden>Imprimir ou salvar em PDF</button>
</div>
</div>`,
  });
}
