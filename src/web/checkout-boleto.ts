// The payment step of a pending boleto on /checkout/{id}: while its bank registers it, a notice the
// page's status polling replaces (checkout.js reloads the page once the status says ISSUED); then,
// for a hybrid boleto, its Pix first (copia e cola and QR, as a PIX payment shows them: paid at once)
// and the digitable line with the link to the printable boleto.
import type { Transaction } from '../db/types.ts';
import { escapeHtml as e } from '../http/sanitize.ts';
import { formatDigitableLine } from '../payments/boleto.ts';
import { formatDateBR } from './format.ts';

export interface BoletoStep {
  heading: string;
  step: string;
  /** The bank has not given the numbers yet: the page polls until it has. */
  issuing: boolean;
}

const WAITING = `<p id="status" class="status" role="status" aria-live="polite">Aguardando pagamento…</p>`;

/** A PENDING boleto's step; `amount` is the charged amount, formatted and escaped. */
export function boletoStep(tx: Transaction, amount: string): BoletoStep {
  if (!tx.boleto_line) {
    return {
      heading: 'Gerando seu boleto',
      issuing: true,
      step: `<p class="center"><span class="spinner" aria-hidden="true"></span></p>
<p id="status" class="status" role="status" aria-live="polite">Seu boleto está sendo registrado no banco…</p>
<p class="muted center">Isso leva alguns segundos. Esta página mostra o boleto assim que o banco o registrar.</p>`,
    };
  }
  const due = tx.due_date ? `<p class="muted center">Vencimento: ${e(formatDateBR(tx.due_date))}</p>` : '';
  const line = `<label for="boleto-line">Linha digitável</label><textarea id="boleto-line" rows="2" readonly>${e(formatDigitableLine(tx.boleto_line))}</textarea>
<button type="button" data-copy="boleto-line">Copiar linha digitável</button>
<a class="button secondary wide" href="/boleto/${e(tx.id)}" target="_blank" rel="noopener">Abrir boleto para imprimir</a>
${due}`;
  if (!tx.boleto_pix) return { heading: 'Pague com boleto', issuing: false, step: `${line}\n${WAITING}` };
  // Pix first: paid at once, where the barcode takes up to two business days to be confirmed.
  return {
    heading: 'Pague com Pix ou boleto',
    issuing: false,
    step: `<div class="pix"><p class="muted">Pague na hora com o Pix deste boleto, pelo app do seu banco, ou pague o boleto até o vencimento.</p>
<div class="pix-copy"><label for="boleto-pix">Pix copia e cola</label><textarea id="boleto-pix" rows="5" readonly>${e(tx.boleto_pix)}</textarea>
<button type="button" data-copy="boleto-pix">Copiar código Pix</button></div>
<img class="qr" src="/boleto/${e(tx.id)}/qr.png" width="240" height="240" alt="QR Code Pix do boleto de ${amount}">
</div>
<h2 class="or">Ou pague o boleto</h2>
${line}
${WAITING}`,
  };
}
