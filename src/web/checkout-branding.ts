// The merchant's brand on the payment link page (modules/branding pageBranding): colours, font,
// corners and colour scheme as CSS after the page's own; logo, banner and background served by Cofre
// (/media/..., so the strict CSP stays); the header, the foot (terms, "processado por Cofre") and
// the social proof; and the order bumps the shopper can tick.
import type { PageBranding } from '../modules/branding/service.ts';
import { escapeHtml as e } from '../http/sanitize.ts';
import { formatBRL } from './format.ts';

export interface PageBump {
  id: string;
  title: string;
  description: string | null;
  priceCents: number;
  originalPriceCents: number;
}

const FONTS = { default: '', serif: 'Georgia,"Times New Roman",serif', mono: 'ui-monospace,SFMono-Regular,Menlo,monospace' } as const;
const RADII = { square: ['2px', '2px'], default: ['', ''], rounded: ['20px', '999px'] } as const;

const DARK = `body{color:#e5e7eb;background-color:#111827}.card{background:#1f2937;box-shadow:none}
.muted{color:#aab2c0}input,select,textarea{background:#111827;color:#e5e7eb;border-color:#4b5563}
.items li{border-color:#374151}.status{background:#374151}.status.ok{background:#064e3b}.status.err{background:#4c1d1d}
.ok{color:#6ee7b7}.err,.field-error{color:#fca5a5}.tab{border-color:#4b5563}.bump{border-color:#4b5563}`;

/** CSS for the brand, after the page's own rules (values are checked formats: #rrggbb, our /media paths). */
export function brandingCss(b: PageBranding): string {
  const p = b.primaryColor;
  let css = `button,.button{background:${p}}.secondary{background:#fff;color:${p};border-color:${p}}.tab.active{border-color:${p};background:${p};color:#fff}.bump.on{border-color:${p}}.bump input{accent-color:${p}}.offer{border-color:${p}}`;
  if (FONTS[b.fontFamily]) css += `body,input,select,button{font-family:${FONTS[b.fontFamily]}}`;
  const [box, control] = RADII[b.borderRadius];
  if (box) css += `.card,.banner,.bump{border-radius:${box}}input,select,.tab,textarea{border-radius:${box}}button,.button{border-radius:${control}}`;
  if (b.background) css += `body{background-image:url("${b.background}");background-size:cover;background-attachment:fixed;background-position:center}`;
  if (b.colorScheme === 'dark') css += DARK;
  if (b.colorScheme === 'system') css += `@media (prefers-color-scheme:dark){${DARK}}`;
  return css;
}

/** The page's top: the logo (or the merchant's name) unless the header is hidden, then the banner. */
export function brandedTop(b: PageBranding, merchantName: string): string {
  const who = b.logo ? `<img class="logo" src="${e(b.logo)}" alt="${e(merchantName)}" height="40">` : `<span>${e(merchantName)}</span>`;
  const header = b.showHeader ? `<div class="top">${who}<span class="muted">Pagamento seguro</span></div>` : '';
  const banner = b.banner && b.bannerLayout !== 'none' ? `<img class="banner banner-${b.bannerLayout}" src="${e(b.banner)}" alt="">` : '';
  return header + banner;
}

export function brandedFoot(b: PageBranding): string {
  const parts = [
    b.termsUrl ? `<a href="${e(b.termsUrl)}" target="_blank" rel="noopener noreferrer">Termos de compra</a>` : '',
    b.showPoweredBy ? 'Pagamento processado com segurança por Cofre' : '',
  ].filter(Boolean);
  return parts.length ? `<footer class="foot muted">${parts.join(' · ')}</footer>` : '';
}

export function socialProof(b: PageBranding, salesCount: number): string {
  if (!b.showSocialProof || salesCount < 1) return '';
  const n = new Intl.NumberFormat('pt-BR').format(salesCount);
  return `<p class="proof">${salesCount === 1 ? '1 pessoa já comprou' : `${n} pessoas já compraram`}</p>`;
}

/** Each bump a box to tick: its price (and the price before its discount), paid with the order. */
export function bumpsSection(bumps: PageBump[]): string {
  if (!bumps.length) return '';
  const boxes = bumps
    .map((b) => {
      const was = b.originalPriceCents > b.priceCents ? ` <s class="muted">${e(formatBRL(b.originalPriceCents))}</s>` : '';
      return `<label class="bump"><input type="checkbox" name="orderBump" value="${e(b.id)}" data-price="${b.priceCents}">
<span><strong>${e(b.title)}</strong>${b.description ? `<span class="muted bump-desc">${e(b.description)}</span>` : ''}
<span class="bump-price">Adicionar por ${e(formatBRL(b.priceCents))}${was}</span></span></label>`;
    })
    .join('');
  return `<fieldset class="bumps"><legend>Aproveite também</legend>${boxes}</fieldset>`;
}

/** Rules for the parts above, in the page's stylesheet. */
export const BRANDING_CSS = `
.logo{max-height:40px;max-width:60%;object-fit:contain}
.banner{display:block;width:100%;object-fit:cover;border-radius:12px;margin:0 0 16px}
.banner-full{border-radius:0;margin:-16px -16px 16px;width:calc(100% + 32px);max-width:none;max-height:260px}
.banner-contained{max-height:220px}.banner-compact{max-height:96px}
.bump{display:flex;gap:12px;align-items:flex-start;margin:8px 0 0;padding:12px;border:2px dashed #b8c0cc;border-radius:10px;font-weight:400;cursor:pointer}
.bump input{width:22px;height:22px;flex:0 0 22px;margin:2px 0 0}.bump.on{border-style:solid}
.bump-desc,.bump-price{display:block}.bump-price{font-weight:600;margin-top:2px}
.proof{font-weight:600;margin:8px 0 0}
.foot{text-align:center;margin:8px 0 24px}.foot a{color:inherit}
`;
