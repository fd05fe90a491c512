// Hosted subscription pages (pt-BR, phone first, the look of /pay): the plan's page
// /subscribe/{planId} and the subscriber's self-service /subscription/{id}?t=<signed link>, which
// right after subscribing (&assinado=1) opens with the confirmation: what was subscribed, the
// amount, the next charge and, for PIX and boleto, the first charge to pay now.
// Server-rendered; the checkout script (/assets/checkout.js) adds masks, checks and submission.
// Every interpolated value goes through escapeHtml.
import type { SubscriptionMethod } from '../db/types.ts';
import { escapeHtml as e } from '../http/sanitize.ts';
import { cadenceLabel, type Cadence } from '../modules/subscriptions/calendar.ts';
import { addressFields, cardFields, field, METHOD_LABEL, shell, top, type AssetRef, type Rendered } from './checkout-pages.ts';
import { formatBRL, formatDateBR } from './format.ts';

/** Method names as the subscriber reads them (Pix Automático besides the checkout's). */
const SUB_METHOD_LABEL: Record<SubscriptionMethod, string> = { ...METHOD_LABEL, PIX_AUTOMATICO: 'Pix Automático' };

const dateBR = (d: Date | string) => new Date(new Date(d).getTime() - 3 * 3600_000).toISOString().slice(0, 10).split('-').reverse().join('/');

export interface SubscribePageData {
  planId: string;
  name: string;
  description: string | null;
  amountCents: number;
  cadence: Cadence;
  trialDays: number;
  methods: SubscriptionMethod[];
  merchantName: string;
  sandbox: boolean;
  /** The plan's environment registers boletos with the payer's address (payments/registry.ts needsPayerAddress). */
  needsPayerAddress: boolean;
}

export function subscribePage(d: SubscribePageData, assets: AssetRef): Rendered {
  const first = d.methods[0];
  const per = cadenceLabel(d.cadence);
  const tabs = d.methods
    .map((m) => `<label class="tab${m === first ? ' active' : ''}"><input type="radio" name="paymentMethod" value="${m}"${m === first ? ' checked' : ''}> ${SUB_METHOD_LABEL[m]}</label>`)
    .join('');
  // Asked in the boleto's panel only (shown, checked and sent only when Boleto is picked).
  const address = d.needsPayerAddress ? addressFields('Endereço do pagador', 'O banco registra cada boleto com o endereço de quem paga.') : '';
  const trial = d.trialDays > 0 ? `<p class="status ok">${d.trialDays} ${d.trialDays === 1 ? 'dia' : 'dias'} grátis. A primeira cobrança é feita ao fim do teste.</p>` : '';
  const body = `${top(d.merchantName, d.sandbox)}
<div id="app" data-page="subscribe" data-plan="${e(d.planId)}">
<section class="card" aria-labelledby="title">
<h1 id="title">${e(d.name)}</h1>
${d.description ? `<p class="muted">${e(d.description)}</p>` : ''}
<p class="total"><span>${e(per[0].toUpperCase() + per.slice(1))}</span><strong class="amount">${e(formatBRL(d.amountCents))}</strong></p>
${trial}
</section>
<form id="checkout-form" class="card" novalidate>
<h2>Seus dados</h2>
${field('name', 'Nome completo', 'name="clientName" autocomplete="name" maxlength="255" required')}
${field('email', 'E-mail', 'name="clientEmail" type="email" autocomplete="email" maxlength="255" required')}
${field('document', 'CPF ou CNPJ', 'name="clientDocument" autocomplete="off" maxlength="18" placeholder="000.000.000-00" required')}
${field('phone', 'Celular <span class="muted">(opcional)</span>', 'name="clientPhone" type="tel" inputmode="tel" autocomplete="tel" maxlength="16" placeholder="(11) 98765-4321"')}
${field('coupon', 'Cupom de desconto <span class="muted">(opcional)</span>', 'name="couponCode" autocomplete="off" maxlength="50"')}
<fieldset><legend>Forma de pagamento</legend><div class="tabs">${tabs}</div></fieldset>
${d.methods.includes('CARD') ? `<div id="panel-CARD" class="panel"${first === 'CARD' ? '' : ' hidden'}>${cardFields()}<p class="muted">O cartão fica guardado com segurança pelo processador para as próximas cobranças.</p></div>` : ''}
${d.methods.includes('PIX') ? `<div id="panel-PIX" class="panel"${first === 'PIX' ? '' : ' hidden'}><p class="muted">A cada período você recebe por e-mail um PIX para pagar, alguns dias antes do vencimento.</p></div>` : ''}
${d.methods.includes('PIX_AUTOMATICO') ? `<div id="panel-PIX_AUTOMATICO" class="panel"${first === 'PIX_AUTOMATICO' ? '' : ' hidden'}><p class="muted">Você paga o primeiro PIX agora e, no mesmo QR Code, autoriza no app do seu banco os débitos das próximas cobranças. Cancele quando quiser, pelo seu banco ou aqui.</p></div>` : ''}
${d.methods.includes('BOLETO') ? `<div id="panel-BOLETO" class="panel"${first === 'BOLETO' ? '' : ' hidden'}><p class="muted">A cada período você recebe o boleto por e-mail, alguns dias antes do vencimento.</p>${address}</div>` : ''}
<p id="form-error" class="err" role="alert"></p>
<button type="submit" id="submit">${d.trialDays > 0 ? 'Começar teste grátis' : `Assinar por ${e(formatBRL(d.amountCents))}`}</button>
</form>
<noscript><p class="card err">Ative o JavaScript do navegador para assinar.</p></noscript>
</div>`;
  return shell({ title: `${e(d.name)} — ${e(d.merchantName)}`, body, assets, pixel: null });
}

export interface SelfServiceData {
  id: string;
  token: string;
  merchantName: string;
  planName: string;
  amountCents: number;
  cadence: Cadence;
  status: string;
  paymentMethod: SubscriptionMethod;
  card: { brand: string | null; last4: string | null } | null;
  trialEnd: Date | null;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  endedAt: Date | null;
  payment: { paymentUrl: string; amountCents: number } | null;
  history: { date: Date; amountCents: number; status: string }[];
  sandbox: boolean;
  /** Right after subscribing (?assinado=1): the page opens with the confirmation. */
  confirmation: Confirmation | null;
}

/** The first charge a PIX or boleto subscriber pays by hand (Pix Automático's first is a PIX too). */
export interface FirstCharge {
  transactionId: string;
  method: 'PIX' | 'BOLETO';
  amountCents: number;
  paymentUrl: string;
  pixCode: string | null;
  /** The PIX's QR image (same origin). */
  qrUrl: string | null;
  /** Null while the bank registers the boleto. */
  boletoLine: string | null;
  /** A PIX: until when it can be paid. */
  expiresAt: Date | null;
  /** A boleto: its due date (YYYY-MM-DD). */
  dueDate: string | null;
}

export interface Confirmation {
  /** The first charge to pay now, or null (a card charged or in trial, a trial). */
  firstCharge: FirstCharge | null;
  /** What was charged already (a card's first payment), or null. */
  paidCents: number | null;
}

const dateTimeBR = new Intl.DateTimeFormat('pt-BR', { dateStyle: 'short', timeStyle: 'short', timeZone: 'America/Sao_Paulo' });

/** How the charges after the first one are paid, by method. */
const NEXT_CHARGES: Record<SubscriptionMethod, string> = {
  CARD: 'As próximas cobranças são feitas no mesmo cartão.',
  PIX: 'A cada cobrança, o PIX chega ao seu e-mail alguns dias antes do vencimento.',
  BOLETO: 'A cada cobrança, o boleto chega ao seu e-mail alguns dias antes do vencimento.',
  PIX_AUTOMATICO: 'As próximas cobranças são debitadas pelo Pix Automático que você autorizar no app do seu banco.',
};

/** What to pay now to start the subscription: the PIX (code, QR) or the boleto (its line), and its page. */
function payFirst(c: FirstCharge, automatic: boolean): string {
  const amount = e(formatBRL(c.amountCents));
  if (c.method === 'BOLETO') {
    const line = c.boletoLine
      ? `<div class="pix-copy"><label for="boleto-line">Linha digitável</label><textarea id="boleto-line" rows="3" readonly>${e(c.boletoLine)}</textarea><button type="button" data-copy="boleto-line" hidden>Copiar linha digitável</button></div>`
      : '<p class="muted">O banco está registrando o boleto: em instantes ele aparece na página do boleto e no seu e-mail.</p>';
    return `<h2>Para ativar, pague o boleto de ${amount}${c.dueDate ? ` até ${formatDateBR(c.dueDate)}` : ''}</h2>
${line}<a class="button wide secondary" href="${e(c.paymentUrl)}">Abrir o boleto</a>`;
  }
  return `<h2>Para ativar, pague agora o PIX de ${amount}</h2>
${c.expiresAt ? `<p class="muted">Válido até ${e(dateTimeBR.format(c.expiresAt).replace(', ', ' às '))}.${automatic ? '' : ' Abra o app do seu banco e use o código copia e cola ou o QR Code.'}</p>` : ''}
${automatic ? '<p class="muted">No mesmo QR Code, o app do seu banco pede a autorização do Pix Automático para as próximas cobranças.</p>' : ''}
<div class="pix-copy"><label for="pix-code">PIX copia e cola</label><textarea id="pix-code" rows="4" readonly>${e(c.pixCode ?? '')}</textarea><button type="button" data-copy="pix-code" hidden>Copiar código PIX</button></div>
${c.qrUrl ? `<img class="qr" src="${e(c.qrUrl)}" width="240" height="240" alt="QR Code PIX de ${amount}">` : ''}
<a class="button wide secondary" href="${e(c.paymentUrl)}">Abrir a página de pagamento</a>`;
}

/** The confirmation a subscriber sees after subscribing: what, how much, when the next charge is, and what to pay now. */
function confirmationCard(d: SelfServiceData, c: Confirmation, statusLine: string, method: string): string {
  const per = `${formatBRL(d.amountCents)} ${cadenceLabel(d.cadence)}`;
  const first = c.firstCharge;
  const heading = first ? 'Falta só o primeiro pagamento' : 'Assinatura confirmada';
  const rows: [string, string][] = [
    ['Plano', e(d.planName)],
    ['Valor', e(per)],
    ['Forma de pagamento', method],
    ...(c.paidCents !== null ? [['Já pago', e(formatBRL(c.paidCents))] as [string, string]] : []),
    ...(d.status === 'TRIALING' ? [['Teste grátis até', dateBR(d.trialEnd ?? d.currentPeriodEnd)] as [string, string]] : []),
    [d.status === 'TRIALING' ? 'Primeira cobrança' : 'Próxima cobrança', dateBR(d.currentPeriodEnd)],
  ];
  // While the first charge waits, the heading says so: no status line under it.
  return `<section class="card stack" aria-labelledby="title" id="confirmation">
<h1 id="title" tabindex="-1">${heading}</h1>
${first ? '' : statusLine}
<p>Você assinou <strong>${e(d.planName)}</strong> de ${e(d.merchantName)}: <strong>${e(per)}</strong>.</p>
<ul class="items">${rows.map(([k, v]) => `<li><span>${k}</span><strong>${v}</strong></li>`).join('')}</ul>
<p class="muted">${NEXT_CHARGES[d.paymentMethod]}</p>
${first ? payFirst(first, d.paymentMethod === 'PIX_AUTOMATICO') : ''}
${first ? '<p id="pay-status" class="muted center" aria-live="polite">Aguardando o pagamento: esta página se atualiza quando ele for confirmado.</p>' : ''}
<p class="muted">Enviamos estes dados para o seu e-mail. Nesta página você também acompanha as cobranças${d.paymentMethod === 'CARD' ? ', troca o cartão' : ''} e cancela quando quiser.</p>
</section>`;
}

const STATUS_PT: Record<string, [string, string]> = {
  TRIALING: ['Em período de teste', 'ok'],
  INCOMPLETE: ['Aguardando o primeiro pagamento', ''],
  ACTIVE: ['Ativa', 'ok'],
  PAST_DUE: ['Pagamento pendente', 'err'],
  PAUSED: ['Pausada', ''],
  CANCELLED: ['Cancelada', ''],
  EXPIRED: ['Expirada', ''],
};
const CYCLE_PT: Record<string, string> = { OPEN: 'Em aberto', PAID: 'Pago', PAST_DUE: 'Não pago', VOID: 'Cancelado', UNCOLLECTIBLE: 'Não pago' };

export function selfServicePage(d: SelfServiceData, assets: AssetRef): Rendered {
  const [label, tone] = STATUS_PT[d.status] ?? [d.status, ''];
  const live = !['CANCELLED', 'EXPIRED'].includes(d.status);
  let next = '';
  if (d.status === 'TRIALING') next = `Teste grátis até ${dateBR(d.trialEnd ?? d.currentPeriodEnd)}; depois, ${formatBRL(d.amountCents)} ${e(cadenceLabel(d.cadence))}.`;
  else if (d.cancelAtPeriodEnd) next = `Sua assinatura termina em ${dateBR(d.currentPeriodEnd)}; nenhuma nova cobrança será feita.`;
  else if (d.status === 'PAST_DUE') next = `A última cobrança não foi paga. ${d.paymentMethod === 'CARD' ? 'Atualize o cartão abaixo para regularizar.' : d.paymentMethod === 'PIX_AUTOMATICO' ? 'Um novo débito será tentado nos próximos dias: mantenha saldo na conta.' : 'Pague a cobrança em aberto para regularizar.'}`;
  else if (d.status === 'ACTIVE') next = `Próxima cobrança: ${formatBRL(d.amountCents)} em ${dateBR(d.currentPeriodEnd)}.`;
  else if (d.endedAt) next = `Encerrada em ${dateBR(d.endedAt)}.`;
  const method = d.paymentMethod === 'CARD' && d.card ? `Cartão ${e(d.card.brand ?? '')} final ${e(d.card.last4 ?? '')}` : SUB_METHOD_LABEL[d.paymentMethod];
  const confirming = d.confirmation;
  // The confirmation's first charge shows how to pay it: no second box for it.
  const pay =
    d.payment && !confirming?.firstCharge
      ? `<section class="card"><h2>Pagamento em aberto</h2><p>${formatBRL(d.payment.amountCents)}</p><a class="button" href="${e(d.payment.paymentUrl)}">Pagar agora</a></section>`
      : '';
  const history = d.history.length
    ? `<ul class="items">${d.history.map((h) => `<li><span>${dateBR(h.date)}</span><span>${formatBRL(h.amountCents)} · ${e(CYCLE_PT[h.status] ?? h.status)}</span></li>`).join('')}</ul>`
    : '<p class="muted">Nenhuma cobrança ainda.</p>';
  const cardForm =
    live && d.paymentMethod === 'CARD'
      ? `<form id="card-form" class="card" novalidate><h2 id="cartao">Atualizar cartão</h2>${cardFields()}<p id="card-error" class="err" role="alert"></p><button type="submit" id="card-submit">Salvar cartão</button></form>`
      : '';
  const actions = live
    ? `<section class="card stack"><h2>Gerenciar</h2>
${d.status === 'ACTIVE' || d.status === 'PAST_DUE' ? '<button type="button" id="pause" class="secondary" style="width:100%">Pausar assinatura</button>' : ''}
${d.cancelAtPeriodEnd ? '' : `<form id="cancel-form" novalidate><label for="reason">Motivo do cancelamento <span class="muted">(opcional)</span></label>
<select id="reason" name="reason"><option value="">Prefiro não dizer</option><option>Ficou caro</option><option>Não uso mais</option><option>Vou trocar por outro serviço</option><option>Problemas com o serviço</option></select>
<button type="submit" id="cancel" class="secondary" style="width:100%;margin-top:10px">Cancelar assinatura</button></form>`}
<p id="action-msg" aria-live="polite"></p></section>`
    : '';
  const statusLine = `<p class="status ${tone}">${e(label)}</p>`;
  const summary = confirming
    ? confirmationCard(d, confirming, statusLine, method)
    : `<section class="card" aria-labelledby="title">
<h1 id="title">${e(d.planName)}</h1>
${statusLine}
${next ? `<p>${next}</p>` : ''}
<p class="muted">Forma de pagamento: ${method}</p>
</section>`;
  // The first charge pending on the confirmation: the page reloads once it is paid (checkout.js).
  const firstCharge = confirming?.firstCharge;
  const waiting = firstCharge ? ` data-pay-tx="${e(firstCharge.transactionId)}"${firstCharge.method === 'BOLETO' && !firstCharge.boletoLine ? ' data-boleto="ISSUING"' : ''}` : '';
  const body = `${top(d.merchantName, d.sandbox)}
<div id="app" data-page="subscription" data-id="${e(d.id)}" data-token="${e(d.token)}"${waiting}>
${summary}
${pay}
${cardForm}
<section class="card"><h2>Histórico</h2>${history}</section>
${actions}
<noscript><p class="card err">Ative o JavaScript do navegador para alterar a assinatura.</p></noscript>
</div>`;
  return shell({ title: `Minha assinatura — ${e(d.merchantName)}`, body, assets, pixel: null });
}
