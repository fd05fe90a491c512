// Hosted checkout pages (pt-BR, phone first): the payment link page /pay/{slug} and the payment
// step /checkout/{transactionId}. Server-rendered HTML; one small script (/assets/checkout.js)
// adds masks, check digits, coupon, instalments, submission, status polling and copy buttons.
// Every interpolated value goes through escapeHtml; the Meta pixel id is digits only.
import { createHash } from 'node:crypto';
import type { PaymentLinkSettings, Transaction } from '../db/types.ts';
import type { CheckoutPageData } from '../modules/transactions/queries.ts';
import { escapeHtml as e } from '../http/sanitize.ts';
import { DECLINE_PT } from '../payments/declines.ts';
import type { PageBranding } from '../modules/branding/service.ts';
import type { PageOffer } from '../modules/checkout/upsell.ts';
import { boletoStep } from './checkout-boleto.ts';
import { OFFER_CSS, offerStep } from './checkout-offer.ts';
import { BRANDING_CSS, brandedFoot, brandedTop, brandingCss, bumpsSection, socialProof, type PageBump } from './checkout-branding.ts';
import { formatBRL } from './format.ts';
import { page, PAGE_CSP } from './layout.ts';

export const CHECKOUT_CSS = `
[hidden]{display:none!important}
.top{display:flex;justify-content:space-between;align-items:center;margin:4px 0 12px;font-weight:600}
.sandbox{background:#fff4d6;color:#6b4e00;border-radius:10px;padding:10px 14px;margin-bottom:16px;font-size:.9rem}
label{display:block;font-weight:600;margin:14px 0 6px;font-size:.95rem}
input,select{width:100%;padding:12px;border:1px solid #b8c0cc;border-radius:10px;font:inherit;background:#fff;color:inherit}
input[aria-invalid=true]{border-color:#b00020}
fieldset{border:0;padding:0;margin:16px 0 0}legend{font-weight:600;padding:0;margin-bottom:6px}
.row{display:flex;gap:8px}.row>*{flex:1}.row .narrow{flex:0 0 34%}
.items{list-style:none;padding:0;margin:12px 0}.items li,.total{display:flex;justify-content:space-between;gap:12px;padding:6px 0}
.items li{border-bottom:1px solid #eef0f4}.total{font-size:1.1rem;align-items:baseline;margin:0}
#discount-line{font-size:1rem;padding-top:0}#discount{white-space:nowrap}
.tabs{display:grid;grid-template-columns:repeat(auto-fit,minmax(90px,1fr));gap:8px}
.tab{position:relative;margin:0;padding:12px 8px;border:2px solid #b8c0cc;border-radius:10px;text-align:center;cursor:pointer;font-weight:600}
.tab input{position:absolute;opacity:0;width:1px;height:1px}
.tab.active{border-color:#0b6e4f;background:#e8f5ef;color:#0b6e4f}.tab:focus-within{outline:3px solid #f2a900;outline-offset:2px}
.field-error{color:#b00020;font-size:.85rem;margin:4px 0 0}
.secondary{background:#fff;color:#0b6e4f;border:2px solid #0b6e4f;padding:10px;width:auto}
.coupon-row{display:flex;gap:8px}.coupon-row input{flex:1}
#submit{margin-top:20px}button[disabled]{opacity:.6;cursor:wait}
.qr{display:block;margin:12px auto;width:240px;height:240px;image-rendering:pixelated}
textarea{width:100%;font:13px/1.4 ui-monospace,monospace;padding:10px;border:1px solid #b8c0cc;border-radius:10px;resize:none;word-break:break-all;overflow-wrap:anywhere}
.status{font-weight:700;padding:12px;border-radius:10px;background:#eef0f4;text-align:center}
.status.ok{background:#e8f5ef}.status.err{background:#fde8eb}
.stack>*+*{margin-top:10px}.center{text-align:center}
.pix{display:flex;flex-direction:column;gap:10px}.pix>*{margin:0}.pix>.qr{align-self:center}
.pix-copy{display:flex;flex-direction:column;gap:8px}.pix-copy label{margin:0}
a.button.wide{width:100%}
.or{margin-top:20px!important;padding-top:16px;border-top:1px solid #eef0f4}
.fieldset-note{margin:0 0 4px}
.spinner{display:inline-block;width:32px;height:32px;border:4px solid #d5ebe1;border-top-color:#0b6e4f;border-radius:50%;animation:spin 1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}@media (prefers-reduced-motion:reduce){.spinner{animation:none}}
@media (min-width:641px) and (pointer:fine){.pix>.qr{order:1}.pix>.pix-copy{order:2}.pix>.after{order:3}}
`;

export const METHOD_LABEL = { PIX: 'PIX', CARD: 'Cartão', BOLETO: 'Boleto' } as const;

export interface AssetRef {
  /** e.g. /assets/checkout.js?v=1a2b3c4d */
  scriptUrl: string;
}

// ---------------------------------------------------------------------------------------------
// Meta pixel: the standard snippet with a digits-only id, allowed by a CSP hash of exactly that text.

function pixelSnippet(id: string): string {
  return (
    `!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};` +
    `if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];t=b.createElement(e);t.async=!0;t.src=v;` +
    `s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window,document,'script','https://connect.facebook.net/en_US/fbevents.js');` +
    `fbq('init','${id}');fbq('track','PageView');`
  );
}

export interface Rendered {
  html: string;
  csp: string;
}

/** Page shell with the checkout CSS, the script and (only when a valid pixel id is given) the pixel. */
export function shell(opts: { title: string; body: string; assets: AssetRef; pixel: string | null; script?: boolean; css?: string }): Rendered {
  const pixel = opts.pixel && /^[0-9]{5,20}$/.test(opts.pixel) ? opts.pixel : null;
  let head = `<link rel="icon" href="data:,">\n<style>${CHECKOUT_CSS}${opts.css ?? ''}</style>`;
  let csp = PAGE_CSP;
  if (pixel) {
    const code = pixelSnippet(pixel);
    const hash = createHash('sha256').update(code).digest('base64');
    head += `\n<script>${code}</script>\n<noscript><img height="1" width="1" style="display:none" alt="" src="https://www.facebook.com/tr?id=${pixel}&amp;ev=PageView&amp;noscript=1"></noscript>`;
    csp = csp
      .replace("script-src 'self'", `script-src 'self' 'sha256-${hash}' https://connect.facebook.net`)
      .replace("img-src 'self' data:", "img-src 'self' data: https://www.facebook.com")
      .replace("connect-src 'self'", "connect-src 'self' https://www.facebook.com https://connect.facebook.net");
  }
  if (opts.script !== false) head += `\n<script src="${e(opts.assets.scriptUrl)}" defer></script>`;
  return { html: page({ title: opts.title, head, body: opts.body }), csp };
}

/** The merchant's name, and the yellow notice on every sandbox page (checkout and boleto alike). */
export function top(merchantName: string, sandbox: boolean, right = 'Pagamento seguro'): string {
  return `<div class="top"><span>${e(merchantName)}</span><span class="muted">${e(right)}</span></div>${sandboxNote(sandbox)}`;
}

export const sandboxNote = (sandbox: boolean) => (sandbox ? `<p class="sandbox" role="note"><strong>Ambiente de testes:</strong> nenhum valor real será cobrado.</p>` : '');

export function messagePage(assets: AssetRef, title: string, text: string, merchantName?: string): Rendered {
  return shell({
    title: e(title),
    assets,
    pixel: null,
    script: false,
    body: `${merchantName ? top(merchantName, false) : ''}<div class="card center"><h1>${e(title)}</h1><p class="muted">${e(text)}</p></div>`,
  });
}

// ---------------------------------------------------------------------------------------------
// /pay/{slug}

export interface PayPageData {
  slug: string;
  title: string;
  description: string | null;
  productDescription: string | null;
  products: { name: string; quantity: number; unitPriceCents: number }[];
  totalCents: number;
  settings: PaymentLinkSettings;
  merchantName: string;
  redirectUrl: string | null;
  pixelCode: string | null;
  sandbox: boolean;
  /** The environment's boleto is registered with the payer's address (payments/registry.ts needsPayerAddress). */
  needsPayerAddress: boolean;
  /** BOLETO_DUE_DAYS: when a boleto made here falls due. */
  boletoDueDays: number;
  branding: PageBranding;
  bumps: PageBump[];
  /** Paid sales so far (the social proof). */
  salesCount: number;
}

export const UNAVAILABLE_PT = {
  INACTIVE: ['Link indisponível', 'Este link de pagamento não está ativo no momento. Fale com o vendedor.'],
  EXPIRED: ['Link expirado', 'O prazo deste link de pagamento terminou. Peça um novo link ao vendedor.'],
  SOLD_OUT: ['Esgotado', 'Todas as unidades disponíveis já foram vendidas.'],
} as const;

export function field(id: string, label: string, attrs: string, hint = ''): string {
  return `<label for="${id}">${label}</label><input id="${id}" ${attrs} aria-describedby="${id}-error"><p id="${id}-error" class="field-error" hidden></p>${hint}`;
}

/**
 * The address inputs (the checkout script reads them by id): a link's delivery address, or the
 * payer's address a registered boleto carries. `note` says why it is asked.
 */
export function addressFields(legend: string, note = ''): string {
  return `<fieldset><legend>${legend}</legend>${note ? `<p class="muted fieldset-note">${note}</p>` : ''}
${field('zip', 'CEP', 'name="zipCode" inputmode="numeric" autocomplete="postal-code" maxlength="9" placeholder="00000-000" required')}
${field('street', 'Rua', 'name="street" autocomplete="address-line1" maxlength="200" required')}
<div class="row"><div class="narrow">${field('number', 'Número', 'name="number" maxlength="20" required')}</div><div>${field('complement', 'Complemento', 'name="complement" autocomplete="address-line2" maxlength="100" placeholder="opcional"')}</div></div>
${field('neighborhood', 'Bairro', 'name="neighborhood" maxlength="100" required')}
<div class="row"><div>${field('city', 'Cidade', 'name="city" autocomplete="address-level2" maxlength="100" required')}</div><div class="narrow">${field('state', 'UF', 'name="state" autocomplete="address-level1" maxlength="2" required')}</div></div>
</fieldset>`;
}

/** The card inputs of every page that takes a card (the checkout script reads them by id). */
export function cardFields(): string {
  return `${field('card-number', 'Número do cartão', 'name="cardNumber" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="0000 0000 0000 0000"')}
${field('card-name', 'Nome impresso no cartão', 'name="holderName" autocomplete="cc-name" maxlength="100"')}
<div class="row"><div>${field('card-exp', 'Validade', 'name="cardExp" inputmode="numeric" autocomplete="cc-exp" maxlength="5" placeholder="MM/AA"')}</div><div>${field('card-cvv', 'CVV', 'name="cvv" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123"')}</div></div>`;
}

export function payPage(d: PayPageData, assets: AssetRef): Rendered {
  const s = d.settings;
  const methods = (['PIX', 'CARD', 'BOLETO'] as const).filter((m) => (m === 'PIX' ? s.pixEnabled : m === 'CARD' ? s.creditCardEnabled : s.boletoEnabled));
  const first = methods[0];
  const items = d.products.length
    ? `<ul class="items">${d.products.map((p) => `<li><span>${p.quantity} × ${e(p.name)}</span><span>${e(formatBRL(p.quantity * p.unitPriceCents))}</span></li>`).join('')}</ul>`
    : '';
  const phone = field('phone', `Celular${s.requirePhone ? '' : ' <span class="muted">(opcional)</span>'}`, `name="clientPhone" type="tel" inputmode="tel" autocomplete="tel" maxlength="16" placeholder="(11) 98765-4321"${s.requirePhone ? ' required' : ''}`);
  const address = s.requireAddress ? addressFields('Endereço de entrega') : '';
  // A registered boleto carries the payer's address: asked in the boleto's panel (shown, and
  // checked, only when Boleto is picked), unless the link asks every buyer for it already.
  const boletoAddress = s.boletoEnabled && d.needsPayerAddress && !s.requireAddress ? addressFields('Endereço do pagador', 'O banco registra o boleto com o endereço de quem paga.') : '';
  const tabs = methods
    .map((m) => `<label class="tab${m === first ? ' active' : ''}"><input type="radio" name="paymentMethod" value="${m}"${m === first ? ' checked' : ''}> ${METHOD_LABEL[m]}</label>`)
    .join('');
  const cardPanel = s.creditCardEnabled
    ? `<div id="panel-CARD" class="panel"${first === 'CARD' ? '' : ' hidden'}>
${cardFields()}
<label for="installments">Parcelas</label><select id="installments" name="installments"></select>
</div>`
    : '';
  const b = d.branding;
  const body = `${brandedTop(b, d.merchantName)}${sandboxNote(d.sandbox)}
<div id="app" data-page="pay" data-slug="${e(d.slug)}" data-total="${d.totalCents}" data-max-installments="${s.maxInstallments}" data-interest-free="${s.interestFreeInstallments}" data-rate="${s.interestRate}"${d.redirectUrl ? ` data-redirect="${e(d.redirectUrl)}"` : ''}${b.buttonText ? ` data-button-text="${e(b.buttonText)}"` : ''}>
<section class="card" aria-labelledby="title">
<h1 id="title">${e(d.title)}</h1>${socialProof(b, d.salesCount)}
${d.description ? `<p class="muted">${e(d.description)}</p>` : ''}
${items}
${d.productDescription ? `<p class="muted">${e(d.productDescription)}</p>` : ''}
<p id="discount-line" class="total ok" hidden><span>Desconto <span id="discount-code"></span></span><span id="discount"></span></p>
<p class="total"><span>Total</span><strong id="total" class="amount">${e(formatBRL(d.totalCents))}</strong></p>
</section>
<form id="checkout-form" class="card" novalidate>
<h2>Seus dados</h2>
${field('name', 'Nome completo', 'name="clientName" autocomplete="name" maxlength="255" required')}
${field('email', 'E-mail', 'name="clientEmail" type="email" autocomplete="email" maxlength="255" required')}
${field('document', 'CPF ou CNPJ', 'name="clientDocument" autocomplete="off" maxlength="18" placeholder="000.000.000-00" required')}
${phone}
${address}
<fieldset><legend>Cupom de desconto <span class="muted">(opcional)</span></legend>
<div class="coupon-row"><input id="coupon" name="couponCode" aria-label="Código do cupom" autocomplete="off" maxlength="50"><button type="button" id="apply-coupon" class="secondary">Aplicar</button></div>
<p id="coupon-msg" aria-live="polite"></p></fieldset>
<fieldset><legend>Forma de pagamento</legend><div class="tabs">${tabs}</div></fieldset>
${s.pixEnabled ? `<div id="panel-PIX" class="panel"${first === 'PIX' ? '' : ' hidden'}><p class="muted">Pague na hora pelo app do seu banco: o QR Code aparece ao continuar.</p></div>` : ''}
${cardPanel}
${s.boletoEnabled ? `<div id="panel-BOLETO" class="panel"${first === 'BOLETO' ? '' : ' hidden'}><p class="muted">O boleto vence em ${d.boletoDueDays} ${d.boletoDueDays === 1 ? 'dia' : 'dias'}; a confirmação leva até 2 dias úteis após o pagamento.</p>${boletoAddress}</div>` : ''}
${bumpsSection(d.bumps)}
<p id="form-error" class="err" role="alert"></p>
<button type="submit" id="submit">${e(b.buttonText ?? `Pagar ${formatBRL(d.totalCents)}`)}</button>
</form>
<noscript><p class="card err">Ative o JavaScript do navegador para concluir o pagamento.</p></noscript>
</div>${brandedFoot(b)}`;
  return shell({ title: `${e(d.title)} — ${e(d.merchantName)}`, body, assets, pixel: d.pixelCode, css: BRANDING_CSS + brandingCss(b) });
}

// ---------------------------------------------------------------------------------------------
// /checkout/{transactionId}

/** What the page shows: the transaction as its public page reads it (findForCheckoutPage). */
export type CheckoutPageView = CheckoutPageData;

const dateTimeBR = new Intl.DateTimeFormat('pt-BR', { dateStyle: 'short', timeStyle: 'short', timeZone: 'America/Sao_Paulo' });
const percentBR = new Intl.NumberFormat('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A PIX with a due date and late-payment terms: the due date and what paying after it costs. */
function lateTerms(tx: Transaction): string {
  if (!tx.late_payment || !tx.due_date) return '';
  const { fineBp, interestMonthlyBp } = tx.late_payment;
  const costs = [fineBp ? `multa de ${percentBR.format(fineBp / 100)}%` : '', interestMonthlyBp ? `juros de ${percentBR.format(interestMonthlyBp / 100)}% ao mês` : ''].filter(Boolean);
  const due = tx.due_date.split('-').reverse().join('/');
  return `<p class="muted center">Vencimento: ${e(due)}${costs.length ? `. Após o vencimento: ${e(costs.join(' e '))}` : ''}.</p>`;
}

function confirmed(redirect: string | null): string {
  return `<p id="status" class="status ok" role="status">Pagamento confirmado</p>${redirect ? `<p class="muted center">Você será redirecionado em instantes.</p>` : '<p class="muted center">Obrigado! Você já pode fechar esta página.</p>'}`;
}

/** `branding`: the brand of the link the payment came from, if any; `offer`: the upsell now on offer. */
export function checkoutPage(v: CheckoutPageView, assets: AssetRef, offer: PageOffer | null = null, branding: PageBranding | null = null): Rendered {
  const { tx } = v;
  const amount = e(formatBRL(tx.charged_cents));
  let step = '';
  let heading = 'Pagamento';
  let issuing = false;
  if (tx.status === 'PAID' && offer) {
    heading = 'Pagamento confirmado';
    step = offerStep(offer);
  } else if (tx.status === 'PAID') {
    heading = 'Pagamento confirmado';
    step = confirmed(v.redirectUrl);
  } else if (tx.status === 'REFUNDED' || tx.status === 'PARTIALLY_REFUNDED') {
    // Heading and box tell the same story, with the amounts: a shopper refunded R$ 10,00 of
    // R$ 79,90 must not read "confirmado" above "estornado".
    // A devolução the provider has not confirmed yet is "em processamento", not "devolvido".
    const partial = tx.status === 'PARTIALLY_REFUNDED';
    const refunded = e(formatBRL(tx.refunded_cents));
    const pending = v.refundPendingCents > 0;
    const done = pending ? 'em devolução' : 'devolvidos';
    heading = pending ? 'Estorno em processamento' : partial ? 'Pagamento estornado parcialmente' : 'Pagamento estornado';
    step = partial
      ? `<p id="status" class="status" role="status">Estorno parcial: ${refunded} de ${amount} ${done}</p><p class="muted center">O restante do pagamento, ${e(formatBRL(tx.charged_cents - tx.refunded_cents))}, continua pago.</p>`
      : `<p id="status" class="status" role="status">Estorno total: ${refunded} ${done}</p>`;
    if (pending && v.refundPendingCents < tx.refunded_cents) step += `<p class="muted center">${e(formatBRL(tx.refunded_cents - v.refundPendingCents))} já devolvidos; ${e(formatBRL(v.refundPendingCents))} em processamento.</p>`;
    step += pending
      ? `<p class="muted center">A devolução está em processamento no banco. Depois de concluída, o prazo para o valor aparecer depende do seu banco.</p>`
      : `<p class="muted center">O prazo para o valor aparecer depende do seu banco ou da operadora do cartão.</p>`;
  } else if (tx.status === 'CHARGEBACK') {
    heading = 'Pagamento contestado';
    step = `<p id="status" class="status" role="status">Este pagamento foi contestado junto à operadora do cartão.</p>`;
  } else if (tx.status === 'FAILED') {
    heading = 'Pagamento não aprovado';
    step = `<p id="status" class="status err" role="status">Pagamento não aprovado: ${e(DECLINE_PT[tx.failure_reason ?? ''] ?? 'tente outra forma de pagamento')}.</p>`;
  } else if (tx.status === 'EXPIRED' || tx.status === 'CANCELLED') {
    heading = tx.status === 'EXPIRED' ? 'Pagamento expirado' : 'Pagamento cancelado';
    step = `<p id="status" class="status err" role="status">${tx.status === 'EXPIRED' ? 'O prazo para pagar terminou. Peça um novo link ao vendedor.' : 'Este pagamento foi cancelado.'}</p>`;
  } else if (tx.payment_method === 'PIX' && tx.pix_qr_code && tx.pix_txid) {
    heading = 'Pague com PIX';
    // Copy-and-paste first (in the markup too, for screen readers): on a phone the shopper pays in
    // the bank app of this same phone and cannot scan its own screen. A desktop with a mouse shows
    // the QR code first, to be scanned with the phone.
    step = `<div class="pix"><ol class="muted"><li>Abra o app do seu banco e escolha pagar com PIX.</li><li>Use o código copia e cola ou escaneie o QR Code.</li></ol>
<div class="pix-copy"><label for="pix-code">PIX copia e cola</label><textarea id="pix-code" rows="5" readonly>${e(tx.pix_qr_code)}</textarea>
<button type="button" data-copy="pix-code">Copiar código PIX</button></div>
<img class="qr" src="/pix/${e(tx.pix_txid)}/qr.png" width="240" height="240" alt="QR Code PIX de ${amount}">
<div class="after stack">${lateTerms(tx)}${tx.expires_at ? `<p class="muted center">Válido até ${e(dateTimeBR.format(tx.expires_at))}</p>` : ''}
<p id="status" class="status" role="status" aria-live="polite">Aguardando pagamento…</p></div></div>`;
  } else if (tx.payment_method === 'BOLETO') {
    ({ heading, step, issuing } = boletoStep(tx, amount));
  } else if (tx.payment_method === 'CARD' && !tx.card_last4) {
    heading = 'Pague com cartão';
    const per = tx.installment_cents ?? tx.charged_cents;
    step = `<form id="card-form" novalidate>
${field('card-number', 'Número do cartão', 'name="cardNumber" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="0000 0000 0000 0000" required')}
${field('card-name', 'Nome impresso no cartão', 'name="holderName" autocomplete="cc-name" maxlength="100" required')}
<div class="row"><div>${field('card-exp', 'Validade', 'name="cardExp" inputmode="numeric" autocomplete="cc-exp" maxlength="5" placeholder="MM/AA" required')}</div><div>${field('card-cvv', 'CVV', 'name="cvv" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123" required')}</div></div>
<p class="muted">${tx.installments}x de ${e(formatBRL(per))}</p>
<p id="form-error" class="err" role="alert"></p>
<button type="submit" id="submit">Pagar ${amount}</button>
</form>`;
  } else {
    step = `<p id="status" class="status" role="status" aria-live="polite">Processando pagamento…</p>`;
  }
  const poll = tx.status === 'PENDING' && (tx.payment_method !== 'CARD' || !!tx.card_last4);
  const head = branding ? `${brandedTop(branding, v.merchantName)}${sandboxNote(!tx.livemode)}` : top(v.merchantName, !tx.livemode);
  const body = `${head}
<div id="app" data-page="checkout" data-tx="${e(tx.id)}" data-status="${tx.status}" data-amount="${tx.charged_cents}"${poll ? ' data-poll="1"' : ''}${offer ? ` data-offer="${e(offer.id)}"` : ''}${issuing ? ' data-boleto="ISSUING"' : ''}${v.redirectUrl ? ` data-redirect="${e(v.redirectUrl)}"` : ''}>
<section class="card stack" aria-labelledby="heading">
<h1 id="heading" tabindex="-1">${heading}</h1>
<p class="muted">${e(tx.product)} · pedido ${e(tx.display_id)}</p>
<p class="amount">${amount}</p>
${step}
</section>
</div>`;
  const css = (offer ? OFFER_CSS : '') + (branding ? BRANDING_CSS + brandingCss(branding) : '');
  return shell({ title: `${heading} — ${e(v.merchantName)}`, body: body + (branding ? brandedFoot(branding) : ''), assets, pixel: v.pixelCode, css });
}
