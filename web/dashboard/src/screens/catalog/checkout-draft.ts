// A checkout as its form holds it (text as typed) and the body the form sends: every field of the API
// (src/modules/checkouts/schemas.ts, src/modules/branding/schemas.ts). Empty colours, images and texts
// are sent as null (the default); the preview reads the same draft.
import type { JsonBody } from '../../api/json.ts';
import type { paths } from '../../api/schema.d.ts';
import { rowsOf, splitOf, type SplitRow } from '../../lib/split-rule.ts';
import type { Asked, Method } from './link-draft.ts';

export type Checkout = paths['/api/v1/checkouts/{id}']['get']['responses'][200]['content']['application/json']['checkout'];
export type Offer = Checkout['orderBumps'][number];
type Body = JsonBody<'createCheckout'>;
type Theme = Checkout['checkoutConfig']['theme'];

export const BANNER_LAYOUTS: [Theme['bannerLayout'], string][] = [['contained', 'Na coluna'], ['full', 'De ponta a ponta'], ['compact', 'Faixa baixa'], ['none', 'Sem banner']];
export const FONTS: [Theme['fontFamily'], string][] = [['default', 'Padrão (sem serifa)'], ['serif', 'Com serifa'], ['mono', 'Monoespaçada']];
export const RADII: [Theme['borderRadius'], string][] = [['default', 'Padrão'], ['square', 'Retos'], ['rounded', 'Arredondados']];
export const SCHEMES: [Theme['colorScheme'], string][] = [['light', 'Claro'], ['dark', 'Escuro'], ['system', 'Como o aparelho do cliente']];
export type Shown = 'showHeader' | 'showPoweredBy' | 'showSocialProof' | 'showOrderBumps';
export const SHOWN_OPTIONS: [Shown, string][] = [
  ['showHeader', 'Logo ou nome da loja no topo'],
  ['showOrderBumps', 'Order bumps (ofertas para marcar)'],
  ['showSocialProof', 'Quantas pessoas já compraram'],
  ['showPoweredBy', '“Pagamento processado por Cofre” no rodapé'],
];

export interface CheckoutDraft {
  name: string;
  paymentLinkId: string;
  methods: Method[];
  asked: Asked[];
  maxInstallments: string;
  shown: Shown[];
  primaryColor: string;
  logoUrl: string;
  backgroundUrl: string;
  bannerUrl: string;
  buttonText: string;
  bannerLayout: Theme['bannerLayout'];
  fontFamily: Theme['fontFamily'];
  borderRadius: Theme['borderRadius'];
  colorScheme: Theme['colorScheme'];
  termsUrl: string;
  /** None: the link's split (if any) applies. */
  split: SplitRow[];
}

export function draftOf(c?: Checkout): CheckoutDraft {
  const s = c?.settings;
  const cfg = c?.checkoutConfig;
  const flags = { showHeader: cfg?.showHeader ?? true, showPoweredBy: cfg?.showPoweredBy ?? true, showSocialProof: cfg?.showSocialProof ?? false, showOrderBumps: s?.showOrderBumps ?? true };
  return {
    name: c?.name ?? '',
    paymentLinkId: c?.paymentLinkId ?? '',
    methods: (['pixEnabled', 'boletoEnabled', 'creditCardEnabled'] as Method[]).filter((m) => s?.[m] ?? true),
    asked: (['requirePhone', 'requireAddress'] as Asked[]).filter((a) => s?.[a] ?? false),
    maxInstallments: String(s?.maxInstallments ?? 12),
    shown: (Object.keys(flags) as Shown[]).filter((k) => flags[k]),
    primaryColor: cfg?.theme.primaryColor ?? c?.customization.primaryColor ?? '',
    logoUrl: c?.customization.logoUrl ?? cfg?.theme.logoUrl ?? '',
    backgroundUrl: c?.customization.backgroundUrl ?? '',
    bannerUrl: cfg?.theme.bannerUrl ?? '',
    buttonText: cfg?.theme.buttonText ?? '',
    bannerLayout: cfg?.theme.bannerLayout ?? 'contained',
    fontFamily: cfg?.theme.fontFamily ?? 'default',
    borderRadius: cfg?.theme.borderRadius ?? 'default',
    colorScheme: cfg?.theme.colorScheme ?? 'light',
    termsUrl: cfg?.termsUrl ?? '',
    split: rowsOf(c?.split),
  };
}

const orNull = (v: string) => v.trim() || null;

/** The body: the colour in the checkout's own brand (checkoutConfig), the logo and background in its customization. */
export function checkoutBody(d: CheckoutDraft): Body {
  const has = (m: string) => (d.methods as string[]).includes(m) || (d.asked as string[]).includes(m);
  const shown = (k: Shown) => d.shown.includes(k);
  return {
    name: d.name,
    paymentLinkId: d.paymentLinkId || null,
    settings: {
      pixEnabled: has('pixEnabled'),
      boletoEnabled: has('boletoEnabled'),
      creditCardEnabled: has('creditCardEnabled'),
      maxInstallments: Number(d.maxInstallments),
      requirePhone: has('requirePhone'),
      requireAddress: has('requireAddress'),
      showOrderBumps: shown('showOrderBumps'),
    },
    customization: { logoUrl: orNull(d.logoUrl), backgroundUrl: orNull(d.backgroundUrl) },
    checkoutConfig: {
      theme: { primaryColor: orNull(d.primaryColor), buttonText: orNull(d.buttonText), bannerUrl: orNull(d.bannerUrl), bannerLayout: d.bannerLayout, fontFamily: d.fontFamily, borderRadius: d.borderRadius, colorScheme: d.colorScheme },
      showHeader: shown('showHeader'),
      showPoweredBy: shown('showPoweredBy'),
      showSocialProof: shown('showSocialProof'),
      showTermsFooter: !!d.termsUrl.trim(),
      termsUrl: orNull(d.termsUrl),
    },
    split: splitOf(d.split),
  };
}

/** What the form shows, for the API's errors to sit beside each field. */
export const CHECKOUT_FIELDS = [
  'name', 'paymentLinkId', 'settings', 'settings.maxInstallments',
  'checkoutConfig.theme.primaryColor', 'customization.logoUrl', 'customization.backgroundUrl', 'checkoutConfig.theme.bannerUrl', 'checkoutConfig.theme.buttonText', 'checkoutConfig.termsUrl',
];
