// K3: what a cache miss of the hosted link page costs on the server (issue 37): the link read
// (findBySlug: link, products, checkout, bumps, merchant), the page rendered (web/checkout-routes.ts
// linkPage) and compressed (brotli and gzip, as the page cache stores it), timed in this process on
// the run's PostgreSQL, for a plain link and for one with a checkout's brand and two order bumps, in
// alternating slices (the host's drift falls on both alike). Target: the branded page p50 <= 5 ms.
import { connect } from '../src/db/index.ts';
import { PageCache } from '../src/http/page-cache.ts';
import { findBySlug } from '../src/modules/payment-links/public.ts';
import { ASSETS, linkPage } from '../src/web/checkout-routes.ts';
import { spread } from './stats.ts';

export const RENDER_TARGET_P50_MS = 5;

export interface RenderResult {
  plain: { p50: number; p99: number; max: number; bytes: number };
  branded: { p50: number; p99: number; max: number; bytes: number };
  samples: number;
}

async function post(url: string, key: string, path: string, body: unknown) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, any>;
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A link with a checkout's brand (colours, font, corners, texts, social proof, terms) and two bumps. */
async function brandedLink(url: string, key: string): Promise<string> {
  const link = (await post(url, key, '/api/v1/payment-links', { title: 'Curso de Pão Caseiro', description: 'Fermentação natural em casa', amountCents: 19700 })).paymentLink;
  const checkout = (
    await post(url, key, '/api/v1/checkouts', {
      name: 'Página do curso',
      paymentLinkId: link.id,
      customization: { primaryColor: '#5b21b6' },
      checkoutConfig: { theme: { buttonText: 'Quero meu acesso', fontFamily: 'serif', borderRadius: 'rounded', colorScheme: 'system' }, showSocialProof: true, showTermsFooter: true, termsUrl: 'https://padaria.example/termos' },
    })
  ).checkout;
  for (const [name, price] of [['E-book 50 receitas', 2990], ['Aula ao vivo', 5000]] as const) {
    const p = (await post(url, key, '/api/v1/products', { name, price })).product;
    await post(url, key, `/api/v1/checkouts/${checkout.id}/order-bumps`, { productId: p.id, discountCents: 500, description: 'Receitas testadas, em PDF' });
  }
  return link.slug;
}

export async function renderScenario(opts: { url: string; apiKey: string; databaseUrl: string; schema: string; slices?: number; perSlice?: number }): Promise<RenderResult> {
  const plainSlug = (await post(opts.url, opts.apiKey, '/api/v1/payment-links', { title: 'Curso de Pão Caseiro', description: 'Fermentação natural em casa', amountCents: 19700 })).paymentLink.slug;
  const brandedSlug = await brandedLink(opts.url, opts.apiKey);
  const database = await connect({ url: opts.databaseUrl, schema: opts.schema, poolSize: 1 });
  const cache = new PageCache();
  const times = { plain: [] as number[], branded: [] as number[] };
  const bytes = { plain: 0, branded: 0 };
  const once = async (kind: 'plain' | 'branded') => {
    const started = performance.now();
    const pl = await findBySlug(database.db, kind === 'plain' ? plainSlug : brandedSlug);
    if (!pl) throw new Error(`${kind} link not found`);
    const { html, csp } = linkPage(pl, { needsPayerAddress: false, boletoDueDays: 3 }, ASSETS);
    const page = cache.put(kind, { status: 200, csp, html, cookie: true });
    times[kind].push(performance.now() - started);
    bytes[kind] = page.br.length;
  };
  try {
    for (let i = 0; i < 50; i++) await Promise.all([once('plain'), once('branded')]);
    times.plain.length = times.branded.length = 0;
    const slices = opts.slices ?? 10;
    const perSlice = opts.perSlice ?? 200;
    for (let s = 0; s < slices; s++) for (const kind of s % 2 ? (['branded', 'plain'] as const) : (['plain', 'branded'] as const)) for (let i = 0; i < perSlice; i++) await once(kind);
  } finally {
    await database.close();
  }
  return { plain: { ...spread(times.plain), bytes: bytes.plain }, branded: { ...spread(times.branded), bytes: bytes.branded }, samples: times.plain.length };
}
