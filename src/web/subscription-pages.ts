// Hosted subscription pages (pt-BR, phone first, the look of /pay): the plan's page
// /subscribe/{planId} and the subscriber's self-service /subscription/{id}?t=<signed link>.
// Server-rendered; the checkout script (/assets/checkout.js) adds masks, checks and submission.
// Every interpolated value goes through escapeHtml.
import type { SubscriptionMethod } from '../db/types.ts';
import { escapeHtml as e } from '../http/sanitize.ts';
import { cadenceLabel, type Cadence } from '../modules/subscriptions/calendar.ts';
import { addressFields, cardFields, field, METHOD_LABEL, shell, top, type AssetRef, type Rendered } from './checkout-pages.ts';
import { formatBRL } from './format.ts';

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
  const pay = d.payment
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
  const body = `${top(d.merchantName, d.sandbox)}
<div id="app" data-page="subscription" data-id="${e(d.id)}" data-token="${e(d.token)}">
<section class="card" aria-labelledby="title">
<h1 id="title">${e(d.planName)}</h1>
<p class="status ${tone}">${e(label)}</p>
${next ? `<p>${next}</p>` : ''}
<p class="muted">Forma de pagamento: ${method}</p>
</section>
${pay}
${cardForm}
<section class="card"><h2>Histórico</h2>${history}</section>
${actions}
<noscript><p class="card err">Ative o JavaScript do navegador para alterar a assinatura.</p></noscript>
</div>`;
  return shell({ title: `Minha assinatura — ${e(d.merchantName)}`, body, assets, pixel: null });
}
