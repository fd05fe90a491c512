// The hosted page as the draft would draw it, on a phone-sized frame: the colour, font, corners,
// scheme, header, banner, a bump box and the pay button follow the form as the merchant types. The
// dashboard loads no image from the merchant's host (its CSP): the logo and banner are shown as
// placeholders where they will be (the page serves its own copies, fetched when saved).
import type { CheckoutDraft } from './checkout-draft.ts';

const FONTS = { default: 'system-ui, sans-serif', serif: 'Georgia, "Times New Roman", serif', mono: 'ui-monospace, monospace' } as const;
const RADII = { square: ['2px', '2px'], default: ['12px', '10px'], rounded: ['20px', '999px'] } as const;
const HEX = /^#[0-9a-fA-F]{6}$/;

export function CheckoutPreview({ d, title, priceText }: { d: CheckoutDraft; title: string; priceText: string }) {
  const primary = HEX.test(d.primaryColor) ? d.primaryColor : '#0b6e4f';
  const dark = d.colorScheme === 'dark';
  const [box, control] = RADII[d.borderRadius];
  const card = { background: dark ? '#1f2937' : '#fff', borderRadius: box, padding: '12px', marginBottom: '10px' };
  const shown = (k: CheckoutDraft['shown'][number]) => d.shown.includes(k);
  return (
    <figure class="checkout-preview" aria-label="Prévia da página de pagamento">
      <div class="preview-phone" style={{ fontFamily: FONTS[d.fontFamily], background: dark ? '#111827' : '#f4f6fa', color: dark ? '#e5e7eb' : '#1d2433' }}>
        {shown('showHeader') && <div class="preview-top">{d.logoUrl.trim() ? <span class="preview-img">logo</span> : <strong>Sua loja</strong>}</div>}
        {d.bannerUrl.trim() && d.bannerLayout !== 'none' && <div class={`preview-img preview-banner preview-banner-${d.bannerLayout}`}>banner</div>}
        <div style={card}>
          <strong>{title}</strong>
          {shown('showSocialProof') && <p class="preview-small">12 pessoas já compraram</p>}
          <p class="preview-total">{priceText}</p>
        </div>
        {shown('showOrderBumps') && (
          <div style={{ ...card, border: `2px solid ${primary}` }}>
            <span class="preview-small">☑ Aproveite também: order bump</span>
          </div>
        )}
        <div class="preview-button" style={{ background: primary, borderRadius: control }}>
          {d.buttonText.trim() || 'Pagar'}
        </div>
        {(shown('showPoweredBy') || d.termsUrl.trim()) && <p class="preview-small preview-foot">{[d.termsUrl.trim() ? 'Termos de compra' : '', shown('showPoweredBy') ? 'Processado por Cofre' : ''].filter(Boolean).join(' · ')}</p>}
      </div>
      <figcaption class="muted">Prévia: a página real usa sua logo e seu banner, guardados pelo Cofre ao salvar.</figcaption>
    </figure>
  );
}
