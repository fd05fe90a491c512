// The printable boleto: beneficiário, pagador, amount and due date, the digitable line with a copy
// button, the barcode (Interleaved 2 of 5) and the payment instructions; a print button. Phone
// first: the barcode scales to the screen and prints at the FEBRABAN size (103 x 13 mm). The copy
// and print buttons come from the hosted pages' one script (/assets/checkout.js, CSP script-src
// 'self'); without JavaScript they stay hidden and the page is complete. A hybrid boleto adds its
// Pix (QR and copia e cola) while it is payable; a bank's boleto links to the bank's own PDF. A
// boleto its bank is still registering gets a page that reloads once the status poll says it is
// issued: a meta refresh every few seconds would also re-read the page to a screen reader each time
// (axe: meta-refresh), so it is only the fallback of a browser without JavaScript (<noscript>).
import { escapeHtml } from '../http/sanitize.ts';
import { formatDigitableLine, interleaved2of5 } from '../payments/boleto.ts';
import { maskDocument } from '../payments/documents.ts';
import { CHECKOUT_SCRIPT_URL } from './assets.ts';
import { CHECKOUT_CSS, top } from './checkout-pages.ts';
import { formatBRL, formatDateBR } from './format.ts';
import { page, PAGE_CSP } from './layout.ts';

export interface BoletoPageData {
  id: string;
  displayId: string;
  product: string;
  amountCents: number;
  status: string;
  barcode: string;
  digitableLine: string;
  dueDate: string;
  /** The last São Paulo day it can be paid (the due date, or later with BOLETO_DAYS_AFTER_DUE). */
  lastDay: string;
  payerName: string;
  payerDocument: string;
  merchantName: string;
  sandbox: boolean;
  /** A hybrid boleto's Pix code (copia e cola); its QR is /boleto/{id}/qr.png. */
  pixCode: string | null;
  /** How a paid boleto was paid. */
  paidWith: 'BOLETO' | 'PIX' | null;
  /** The bank renders this boleto's PDF (/boleto/{id}.pdf). */
  bankPdf: boolean;
}

/** What the pages of a boleto without its numbers (or without a PDF) show of it. */
export interface BoletoSummary {
  id: string;
  displayId: string;
  product: string;
  amountCents: number;
  status: string;
  merchantName: string;
  sandbox: boolean;
}

/** The boleto page's Content-Security-Policy: the hosted pages' one (no inline script, not framable). */
export const BOLETO_CSP = PAGE_CSP;

/** Seconds between reloads of the page of a boleto the bank is registering, in a browser without JavaScript. */
export const ISSUING_REFRESH_SECONDS = 5;

const STATUS_PT: Record<string, string> = {
  PENDING: 'Aguardando pagamento',
  PAID: 'Pago',
  EXPIRED: 'Vencido',
  FAILED: 'Falhou',
  CANCELLED: 'Cancelado',
  REFUNDED: 'Estornado',
  PARTIALLY_REFUNDED: 'Estornado parcialmente',
};

const PAID_WITH_PT = { PIX: 'Pago com Pix', BOLETO: 'Pago com boleto' } as const;

const BOLETO_CSS = `
.fields{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:12px 0 0}
.fields dt{color:#5b6475;font-size:.9rem}.fields dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.barcode svg{display:block;width:100%;height:auto}
.instructions{margin:0;padding-left:20px}.instructions li+li{margin-top:6px}
.actions{display:flex;flex-direction:column;gap:10px}.actions .button.secondary{width:100%;padding:12px}
@media print{.barcode svg{width:103mm;height:13mm}.top{display:none}.qr{width:40mm;height:40mm}.noprint{display:none!important}}
`;

const e = escapeHtml;
const HEAD = `<link rel="icon" href="data:,">\n<style>${CHECKOUT_CSS}${BOLETO_CSS}</style>`;

/**
 * A page of one message about a boleto (not found, being registered, not issued, no PDF). `waiting`:
 * the boleto is being registered; the page polls its status and reloads once it is issued.
 */
export function boletoMessage(opts: { title: string; text: string; boleto?: BoletoSummary; waiting?: boolean; back?: boolean }): string {
  const b = opts.boleto;
  const waiting = b && opts.waiting;
  const poll = waiting
    ? `\n<script src="${e(CHECKOUT_SCRIPT_URL)}" defer></script>\n<noscript><meta http-equiv="refresh" content="${ISSUING_REFRESH_SECONDS}"></noscript>`
    : '';
  const what = b ? `<p class="muted">${e(b.product)} · pedido ${e(b.displayId)}</p><p class="amount">${e(formatBRL(b.amountCents))}</p>` : '';
  const back = b && opts.back ? `<a class="button secondary" href="/boleto/${e(b.id)}">Voltar ao boleto</a>` : '';
  const spinner = waiting ? '<span class="spinner" aria-hidden="true"></span>' : '';
  const card = `<div class="card center stack"><h1>${e(opts.title)}</h1>${what}${spinner}<p class="muted" role="status">${e(opts.text)}</p>${back}</div>`;
  return page({
    title: e(opts.title),
    head: HEAD + poll,
    body: `${b ? top(b.merchantName, b.sandbox, 'Boleto bancário') : ''}${waiting ? `<div id="app" data-page="boleto-issuing" data-tx="${e(b.id)}">${card}</div>` : card}`,
  });
}

export const boletoNotFound = () => boletoMessage({ title: 'Boleto não encontrado', text: 'Confira o endereço recebido do vendedor.' });

/** A PENDING boleto whose bank has not given its numbers yet: reloads itself until it has them. */
export function boletoIssuing(b: BoletoSummary): string {
  return boletoMessage({
    title: 'Seu boleto está sendo registrado no banco',
    text: 'Isso leva alguns segundos. Esta página se atualiza sozinha e mostra o boleto assim que o banco o registrar.',
    boleto: b,
    waiting: true,
  });
}

/** A boleto that ended before its bank gave its numbers (refused, cancelled, expired). */
export function boletoNotIssued(b: BoletoSummary): string {
  return boletoMessage({ title: 'Boleto não emitido', text: `Este boleto não foi emitido pelo banco (${STATUS_PT[b.status] ?? b.status}). Fale com ${b.merchantName} para pagar de outra forma.`, boleto: b });
}

/** The hybrid boleto's Pix: copia e cola first on a phone, the QR first with a mouse (CHECKOUT_CSS .pix). */
function pixSection(d: BoletoPageData, amount: string): string {
  if (!d.pixCode || d.status !== 'PENDING') return '';
  return `
<section class="card" aria-labelledby="pix-title">
  <h2 id="pix-title">Pague com Pix</h2>
  <div class="pix">
    <p class="muted">O mesmo boleto também pode ser pago com Pix, pelo app do seu banco: o pagamento é confirmado na hora.</p>
    <div class="pix-copy noprint"><label for="pix-code">Pix copia e cola</label><textarea id="pix-code" rows="5" readonly>${e(d.pixCode)}</textarea>
    <button type="button" data-copy="pix-code" hidden>Copiar código Pix</button></div>
    <img class="qr" src="/boleto/${e(d.id)}/qr.png" width="240" height="240" alt="QR Code Pix do boleto de ${amount}">
  </div>
</section>`;
}

export function formatBoletoDocument(d: BoletoPageData): string {
  const line = formatDigitableLine(d.digitableLine);
  const amount = e(formatBRL(d.amountCents));
  const due = e(formatDateBR(d.dueDate));
  const situation = d.status === 'PAID' && d.paidWith ? PAID_WITH_PT[d.paidWith] : (STATUS_PT[d.status] ?? d.status);
  const paid = d.status === 'PAID' ? `<p id="status" class="status ok" role="status">${e(situation)}</p>` : '';
  const pdf = d.bankPdf ? `<a class="button secondary" href="/boleto/${e(d.id)}.pdf" download>Baixar PDF do banco</a>` : '';
  return page({
    title: `Boleto ${e(d.displayId)} — ${amount}`,
    head: `${HEAD}\n<script src="${e(CHECKOUT_SCRIPT_URL)}" defer></script>`,
    body: `
<div id="app" data-page="boleto">
${top(d.merchantName, d.sandbox, 'Boleto bancário')}
<section class="card" aria-labelledby="heading">
  <h1 id="heading">Boleto bancário</h1>
  <p class="muted">${e(d.product)} · pedido ${e(d.displayId)}</p>
  <p class="amount">${amount}</p>
  ${paid}
  <dl class="fields">
    <dt>Vencimento</dt><dd>${due}</dd>
    <dt>Situação</dt><dd>${e(situation)}</dd>
    <dt>Beneficiário</dt><dd>${e(d.merchantName)}</dd>
    <dt>Pagador</dt><dd>${e(d.payerName)} (${e(maskDocument(d.payerDocument))})</dd>
    <dt>Documento</dt><dd>${e(d.displayId)}</dd>
  </dl>
</section>${pixSection(d, amount)}
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
    <li>${d.lastDay > d.dueDate ? `Vencimento em ${due}; pode ser pago até ${e(formatDateBR(d.lastDay))}, depois não será recebido.` : `Pague até ${due}. Não receber após o vencimento.`}</li>
    <li>O banco confirma o pagamento após a compensação, normalmente em até 2 dias úteis.</li>
    <li>Dúvidas sobre o pedido: fale com ${e(d.merchantName)}.</li>
  </ul>
</section>
<div class="noprint actions">
  <button type="button" data-print hidden>Imprimir ou salvar em PDF</button>
  ${pdf}
</div>
</div>`,
  });
}
