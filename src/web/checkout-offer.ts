// The upsell or downsell on a paid payment's page (modules/checkout/upsell.ts): what is offered, at
// what price, and how it is paid (the same card in one click, or a new PIX); "Sim, quero" and
// "Não, obrigado" call the offer's routes (assets/checkout.js).
import type { PageOffer } from '../modules/checkout/upsell.ts';
import { escapeHtml as e } from '../http/sanitize.ts';
import { formatBRL } from './format.ts';

const timeBR = new Intl.DateTimeFormat('pt-BR', { timeStyle: 'short', timeZone: 'America/Sao_Paulo' });

export function offerStep(o: PageOffer): string {
  const price = e(formatBRL(o.price_cents));
  const was = o.list_price_cents > o.price_cents ? ` <s class="muted">${e(formatBRL(o.list_price_cents))}</s>` : '';
  const how = o.card_last4 ? `Cobrado no mesmo cartão (final ${e(o.card_last4)}), sem digitar nada de novo.` : 'Você paga com um novo PIX.';
  return `<p id="status" class="status ok" role="status">Pagamento confirmado</p>
<div class="offer stack" aria-labelledby="offer-title">
<p class="offer-kicker">${o.kind === 'UPSELL' ? 'Oferta especial para você' : 'Que tal esta outra opção?'}</p>
<h2 id="offer-title">${e(o.title)}</h2>
${o.description ? `<p class="muted">${e(o.description)}</p>` : ''}
<p class="amount">${price}${was}</p>
<p class="muted">${how}${o.expiresAt ? ` Oferta válida até ${e(timeBR.format(o.expiresAt))}.` : ''}</p>
<p id="offer-error" class="err" role="alert"></p>
<button type="button" id="offer-accept">Sim, quero${o.card_last4 ? ` por ${price}` : ''}</button>
<button type="button" id="offer-decline" class="secondary wide">Não, obrigado</button>
</div>`;
}

export const OFFER_CSS = `.offer{margin-top:16px;padding:16px;border:2px solid #0b6e4f;border-radius:12px}.offer-kicker{font-weight:700;text-transform:uppercase;font-size:.8rem;letter-spacing:.04em;margin:0}.offer s{font-size:1rem;font-weight:400}.secondary.wide{width:100%}`;
