// A payment link as its form holds it (text as typed, the expiry as a São Paulo date and time) and
// the body the form sends: every setting of the API (src/modules/payment-links/schemas.ts), so what
// the form shows is what the API keeps. Also the line of settings the list shows under each link.
import type { JsonBody } from '../../api/json.ts';
import type { paths } from '../../api/schema.d.ts';
import { intOf } from '../../components/ListParts.tsx';
import { centsOf, fieldError } from '../../components/MoneyField.tsx';
import { feeInput, parseBp } from '../../lib/fees.ts';
import { dateTime, instantSP, moneyInput, partsSP } from '../../lib/format.ts';
import { rowsOf, splitOf, splitText, type SplitRow } from '../../lib/split-rule.ts';

export type PaymentLink = paths['/api/v1/payment-links/{id}']['get']['responses'][200]['content']['application/json']['paymentLink'];
export type LinkBody = JsonBody<'createPaymentLink'>;
type Settings = PaymentLink['settings'];

export type Method = 'pixEnabled' | 'boletoEnabled' | 'creditCardEnabled';
export type Asked = 'requirePhone' | 'requireAddress';
export const METHOD_OPTIONS: [Method, string][] = [
  ['pixEnabled', 'PIX'],
  ['boletoEnabled', 'Boleto'],
  ['creditCardEnabled', 'Cartão de crédito'],
];
export const ASKED_OPTIONS: [Asked, string][] = [
  ['requirePhone', 'Celular'],
  ['requireAddress', 'Endereço de entrega'],
];

export interface LinkItem {
  productId: string;
  quantity: string;
}

export interface LinkDraft {
  title: string;
  /** Empty: the price is the products' sum. */
  amount: string;
  description: string;
  productDescription: string;
  status: 'ACTIVE' | 'INACTIVE';
  methods: Method[];
  maxInstallments: string;
  /** Empty on a new link: the platform's default (the API applies it). */
  interestFree: string;
  interestRate: string;
  asked: Asked[];
  stockEnabled: boolean;
  stockQuantity: string;
  /** YYYY-MM-DD and hh:mm in São Paulo; both empty: the link never expires. */
  expiresDay: string;
  expiresTime: string;
  redirectUrl: string;
  metaPixelCode: string;
  products: LinkItem[];
  /** Who else receives a share of each sale (none: all of it stays with the merchant). */
  split: SplitRow[];
}

/** The form of a link (or of a new one: every method, 12x, the platform's interest, nothing asked). */
export function draftOf(link?: PaymentLink): LinkDraft {
  const s = link?.settings;
  const expires = link?.expiresAt ? partsSP(link.expiresAt) : { day: '', time: '' };
  return {
    title: link?.title ?? '',
    amount: link?.amount != null ? moneyInput(link.amount) : '',
    description: link?.description ?? '',
    productDescription: link?.productDescription ?? '',
    status: link?.status ?? 'ACTIVE',
    methods: s ? METHOD_OPTIONS.map(([m]) => m).filter((m) => s[m]) : METHOD_OPTIONS.map(([m]) => m),
    maxInstallments: String(s?.maxInstallments ?? 12),
    // 0 and 1 mean the same to the API (only 1x is interest free): the form offers 1.
    interestFree: s ? String(Math.max(1, s.interestFreeInstallments)) : '',
    interestRate: s ? feeInput('bp', Math.round(s.interestRate * 100)) : '',
    asked: s ? ASKED_OPTIONS.map(([a]) => a).filter((a) => s[a]) : [],
    stockEnabled: link?.stockEnabled ?? false,
    stockQuantity: link?.stockQuantity != null ? String(link.stockQuantity) : '',
    expiresDay: expires.day,
    expiresTime: expires.time,
    redirectUrl: link?.redirectUrl ?? '',
    metaPixelCode: link?.metaPixelCode ?? '',
    products: link?.products.map((p) => ({ productId: p.productId, quantity: String(p.quantity) })) ?? [],
    split: rowsOf(link?.split),
  };
}

function settingsOf(d: LinkDraft): NonNullable<LinkBody['settings']> {
  const rate = d.interestRate.trim();
  const bp = rate ? parseBp(rate) : null;
  if (rate && bp === null) throw fieldError('settings.interestRate', 'Informe a taxa ao mês em %, como 2,99.');
  return {
    pixEnabled: d.methods.includes('pixEnabled'),
    boletoEnabled: d.methods.includes('boletoEnabled'),
    creditCardEnabled: d.methods.includes('creditCardEnabled'),
    maxInstallments: Number(d.maxInstallments),
    ...(!!d.interestFree && { interestFreeInstallments: Number(d.interestFree) }),
    ...(bp !== null && { interestRate: bp / 100 }),
    requirePhone: d.asked.includes('requirePhone'),
    requireAddress: d.asked.includes('requireAddress'),
  };
}

function productsOf(d: LinkDraft): { productId: string; quantity: number }[] {
  return d.products.map((p, i) => {
    if (!p.productId) throw fieldError(`products.${i}.productId`, 'Escolha um produto ou remova esta linha.');
    const quantity = intOf(p.quantity, `products.${i}.quantity`);
    if (quantity === null) throw fieldError(`products.${i}.quantity`, 'Informe a quantidade.');
    return { productId: p.productId, quantity };
  });
}

/** The expiry as the API takes it; a date without a time expires at 23:59. */
function expiryOf(d: LinkDraft): string | null {
  const time = d.expiresTime.trim();
  if (!d.expiresDay) {
    if (time) throw fieldError('expiresAt', 'Informe a data, ou apague a hora.');
    return null;
  }
  if (time && !/^([01]\d|2[0-3]):[0-5]\d$/.test(time)) throw fieldError('expiresTime', 'Use a hora como 18:30.');
  return instantSP(d.expiresDay, time || '23:59');
}

/**
 * The body of a creation or an edit (throws the field errors a person can fix before sending).
 * The pricing pair is restated every time, as the API's PATCH requires: the amount when typed, the
 * products always ([] with an amount: none). On an edit an unchanged expiry is left out, so a link
 * whose date has passed can still be edited.
 */
export function linkBody(d: LinkDraft, link?: PaymentLink): LinkBody {
  const products = productsOf(d);
  const amount = d.amount.trim();
  if (!amount && !products.length) throw fieldError('amountCents', 'Informe o valor, ou escolha abaixo os produtos do link.');
  const expiresAt = expiryOf(d);
  const before = draftOf(link);
  const expiryChanged = !link || d.expiresDay !== before.expiresDay || d.expiresTime !== before.expiresTime;
  return {
    title: d.title,
    description: d.description.trim() || null,
    productDescription: d.productDescription.trim() || null,
    ...(!!amount && { amountCents: centsOf(amount, 'amountCents') }),
    products,
    settings: settingsOf(d),
    stockEnabled: d.stockEnabled,
    stockQuantity: d.stockEnabled ? intOf(d.stockQuantity, 'stockQuantity') : null,
    ...(expiryChanged && { expiresAt }),
    redirectUrl: d.redirectUrl.trim() || null,
    metaPixelCode: d.metaPixelCode.trim() || null,
    split: splitOf(d.split),
  };
}

const list = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} e ${items[items.length - 1]}`);

/** "PIX, boleto e cartão em até 6x (3x sem juros)". */
export function methodsText(s: Settings): string {
  const free = Math.max(1, s.interestFreeInstallments);
  const card = s.maxInstallments === 1 ? 'cartão à vista' : `cartão em até ${s.maxInstallments}x${free > 1 ? ` (${Math.min(free, s.maxInstallments)}x sem juros)` : ''}`;
  return list([s.pixEnabled && 'PIX', s.boletoEnabled && 'boleto', s.creditCardEnabled && card].filter((x): x is string => !!x)).replace(/^./, (c) => c.toUpperCase());
}

/** The settings under a link in the list, one phrase each. */
export function linkFacts(l: PaymentLink, now = new Date()): string[] {
  const asked = ASKED_OPTIONS.filter(([a]) => l.settings[a]).map(([, label]) => label.toLowerCase());
  return [
    methodsText(l.settings),
    l.products.length ? `Produtos: ${l.products.map((p) => `${p.quantity} × ${p.name}`).join(', ')}` : '',
    l.stockEnabled ? `Estoque: ${l.stockQuantity ?? 0}` : '',
    l.expiresAt ? `${new Date(l.expiresAt) > now ? 'Expira em' : 'Expirou em'} ${dateTime(l.expiresAt)}` : '',
    asked.length ? `Pede ${list(asked)}` : '',
    l.redirectUrl ? `Depois do pagamento: ${l.redirectUrl}` : '',
    l.metaPixelCode ? `Meta Pixel ${l.metaPixelCode}` : '',
    splitText(l.split),
  ].filter(Boolean);
}
