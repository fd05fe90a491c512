// Branding of the hosted checkout (`checkoutConfig` on payment links and checkouts, a checkout's
// `customization`): checked and stored here, merged for the page by `pageBranding`. Images are
// imported through Cofre (modules/media) when saved, so the page only loads its own host.
import type { Static } from '@sinclair/typebox';
import { validation } from '../../http/errors.ts';
import { sanitizeText } from '../../http/sanitize.ts';
import type { CheckoutConfigBody, CheckoutConfigView, CustomizationBody, CustomizationView } from './schemas.ts';

type ConfigView = Static<typeof CheckoutConfigView>;
type Customization = Static<typeof CustomizationView>;

/** Imports the image at `url` for a merchant (modules/media importImage): the path Cofre serves it at; a 400 on `field` when refused. */
export type ImageImporter = (merchantId: string, url: string, field: string) => Promise<{ url: string }>;

/** What is stored: the view, plus where Cofre serves each image (by the view's URL field). */
export type StoredConfig = ConfigView & { served?: Record<string, string> };
export type StoredCustomization = Customization & { served?: Record<string, string> };

export const DEFAULT_CONFIG: ConfigView = {
  theme: { primaryColor: null, logoUrl: null, buttonText: null, bannerUrl: null, bannerLayout: 'contained', fontFamily: 'default', borderRadius: 'default', colorScheme: 'light' },
  showHeader: true,
  showPoweredBy: true,
  showSocialProof: false,
  showTermsFooter: false,
  termsUrl: null,
};

/** The pages' own button colour (layout.ts). */
export const DEFAULT_PRIMARY = '#0b6e4f';
const MIN_CONTRAST = 4.5;

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG contrast ratio of two #rrggbb colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Buttons carry white text on the primary colour: refused when it cannot be read. */
function checkPrimary(color: string | null | undefined, field: string) {
  if (!color) return;
  const ratio = contrastRatio(color, '#ffffff');
  if (ratio < MIN_CONTRAST) {
    throw validation(field, `white button text on ${color} has a contrast of ${ratio.toFixed(2)}:1; at least ${MIN_CONTRAST}:1 is needed to be read (choose a darker colour)`);
  }
}

/** Imports the images whose URL changed; keeps where the unchanged ones are served. */
async function serveImages(
  next: Record<string, unknown>,
  before: { served?: Record<string, string> } & Record<string, unknown>,
  fields: readonly string[],
  prefix: string,
  importer: { images: ImageImporter; merchantId: string },
): Promise<Record<string, string>> {
  const served: Record<string, string> = {};
  for (const f of fields) {
    const url = next[f];
    if (typeof url !== 'string') continue;
    const kept = before[f] === url ? before.served?.[f] : undefined;
    served[f] = kept ?? (await importer.images(importer.merchantId, url, `${prefix}${f}`)).url;
  }
  return served;
}

export async function mergeConfig(
  current: StoredConfig | null,
  input: Static<typeof CheckoutConfigBody>,
  importer: { images: ImageImporter; merchantId: string },
  field = 'checkoutConfig',
): Promise<StoredConfig> {
  const base = current ?? { ...DEFAULT_CONFIG, served: {} };
  const theme: Record<string, unknown> = { ...base.theme };
  for (const [k, v] of Object.entries(input.theme ?? {})) if (v !== undefined) theme[k] = v ?? DEFAULT_CONFIG.theme[k as keyof ConfigView['theme']];
  if (typeof theme.buttonText === 'string') theme.buttonText = sanitizeText(theme.buttonText).trim() || null;
  const next: Record<string, unknown> = { ...base, theme };
  for (const k of ['showHeader', 'showPoweredBy', 'showSocialProof', 'showTermsFooter', 'termsUrl'] as const) {
    const v = input[k];
    if (v !== undefined) next[k] = v ?? DEFAULT_CONFIG[k];
  }
  checkPrimary(theme.primaryColor as string | null, `${field}.theme.primaryColor`);
  if (next.showTermsFooter && !next.termsUrl) throw validation(`${field}.termsUrl`, 'is required when showTermsFooter is true');
  const served = await serveImages(theme, { ...base.theme, served: base.served }, ['logoUrl', 'bannerUrl'], `${field}.theme.`, importer);
  return { ...(next as ConfigView), served };
}

export async function mergeCustomization(
  current: StoredCustomization | null,
  input: Static<typeof CustomizationBody>,
  importer: { images: ImageImporter; merchantId: string },
): Promise<StoredCustomization> {
  const base: StoredCustomization = current ?? { primaryColor: null, logoUrl: null, backgroundUrl: null, served: {} };
  const next: Customization = { primaryColor: base.primaryColor, logoUrl: base.logoUrl, backgroundUrl: base.backgroundUrl };
  for (const [k, v] of Object.entries(input)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
  checkPrimary(next.primaryColor, 'customization.primaryColor');
  const served = await serveImages(next, base, ['logoUrl', 'backgroundUrl'], 'customization.', importer);
  return { ...next, served };
}

/** The view without where images are served (an internal detail). */
export function configView(stored: StoredConfig | null): ConfigView {
  if (!stored) return DEFAULT_CONFIG;
  const { served: _served, ...view } = stored;
  return view;
}

export function customizationView(stored: StoredCustomization | null): Customization {
  return { primaryColor: stored?.primaryColor ?? null, logoUrl: stored?.logoUrl ?? null, backgroundUrl: stored?.backgroundUrl ?? null };
}

/** What the hosted page draws. */
export interface PageBranding {
  primaryColor: string;
  logo: string | null;
  banner: string | null;
  background: string | null;
  buttonText: string | null;
  bannerLayout: ConfigView['theme']['bannerLayout'];
  fontFamily: ConfigView['theme']['fontFamily'];
  borderRadius: ConfigView['theme']['borderRadius'];
  colorScheme: ConfigView['theme']['colorScheme'];
  showHeader: boolean;
  showPoweredBy: boolean;
  showSocialProof: boolean;
  termsUrl: string | null;
}

/** Where Cofre serves the image a stored branding names at `k` (null when it names none). */
const image = (c: { served?: Record<string, string> } | null, url: string | null | undefined, k: string): string | null => (c && url ? (c.served?.[k] ?? null) : null);

/**
 * A link's page: its checkout's checkoutConfig, when it has one, replaces the link's; the empty
 * colour, images and button text of that config fall back to the checkout's customization, then
 * to the link's own.
 */
export function pageBranding(link: StoredConfig | null, checkout?: { customization: StoredCustomization | null; config: StoredConfig | null }): PageBranding {
  const own = checkout?.config ?? null;
  const top = own ?? link ?? DEFAULT_CONFIG;
  const custom = checkout?.customization ?? null;
  const first = <T>(...values: (T | null | undefined)[]): T | null => values.find((v) => v != null) ?? null;
  return {
    primaryColor: first(own?.theme.primaryColor, custom?.primaryColor, link?.theme.primaryColor) ?? DEFAULT_PRIMARY,
    logo: first(image(own, own?.theme.logoUrl, 'logoUrl'), image(custom, custom?.logoUrl, 'logoUrl'), image(link, link?.theme.logoUrl, 'logoUrl')),
    banner: first(image(own, own?.theme.bannerUrl, 'bannerUrl'), image(link, link?.theme.bannerUrl, 'bannerUrl')),
    background: image(custom, custom?.backgroundUrl, 'backgroundUrl'),
    buttonText: first(own?.theme.buttonText, link?.theme.buttonText),
    bannerLayout: top.theme.bannerLayout,
    fontFamily: top.theme.fontFamily,
    borderRadius: top.theme.borderRadius,
    colorScheme: top.theme.colorScheme,
    showHeader: top.showHeader,
    showPoweredBy: top.showPoweredBy,
    showSocialProof: top.showSocialProof,
    termsUrl: top.showTermsFooter ? top.termsUrl : null,
  };
}
