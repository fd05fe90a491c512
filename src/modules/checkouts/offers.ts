// A checkout's offers, one table for three kinds: order bumps (at most 5, ticked on the hosted page
// and paid in the same payment), and one upsell with its downsell (offered after the payment).
// The price is always the product's current price less the offer's discount.
import type { Static } from '@sinclair/typebox';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { CheckoutOffer } from '../../db/types.ts';
import { badRequest, conflict, notFound, validation, type FieldError } from '../../http/errors.ts';
import { sanitizeOptional } from '../../http/sanitize.ts';
import { owned, type Scope } from '../../http/scope.ts';
import type { BumpBody, OfferBody, OfferView, UpdateBumpBody } from './schemas.ts';

export const MAX_BUMPS = 5;
type Kind = CheckoutOffer['kind'];
export type OfferRow = CheckoutOffer & { product_name: string; product_price: number };

/** The bumps a body names, each an order bump this link's page offers, named once (400 otherwise), in page order. */
export function chosenBumps(pl: { bumps: OfferRow[] }, ids: string[] | undefined, field = 'orderBumps'): OfferRow[] {
  if (!ids?.length) return [];
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  const rows = ids.flatMap((id, i) => {
    const row = pl.bumps.find((b) => b.id === id);
    if (seen.has(id)) problems.push({ field: `${field}.${i}`, message: 'is listed more than once' });
    else if (!row) problems.push({ field: `${field}.${i}`, message: 'is not an order bump of this payment link' });
    seen.add(id);
    return row ? [row] : [];
  });
  if (problems.length) throw badRequest('VALIDATION_ERROR', 'Validation failed', problems);
  // In the page's order, whatever order they were ticked in.
  return pl.bumps.filter((b) => rows.includes(b));
}

/**
 * An order bump beside the main product, as a coupon sees it (coupons/service.ts evaluateCoupon):
 * counted in the discount only when the coupon names the bump's product.
 */
export interface OrderExtra {
  productId: string;
  cents: number;
}


export const bumpExtras = (bumps: OfferRow[]): OrderExtra[] => bumps.map((b) => ({ productId: b.product_id, cents: offerPrice(b) }));

/** What the shopper pays for an offer's product; below 1 cent when a price cut left the discount larger. */
export function offerPrice(o: Pick<OfferRow, 'product_price' | 'discount_cents' | 'discount_bp'>): number {
  if (o.discount_cents !== null) return o.product_price - o.discount_cents;
  if (o.discount_bp !== null) return o.product_price - Math.round((o.product_price * o.discount_bp) / 10000);
  return o.product_price;
}

/** What the page calls an offer: its own title, or its product's name. */
export const offerTitle = (o: Pick<OfferRow, 'title' | 'product_name'>) => o.title ?? o.product_name;

export function offerView(o: OfferRow): Static<typeof OfferView> {
  return {
    id: o.id,
    productId: o.product_id,
    title: offerTitle(o),
    description: o.description,
    discountCents: o.discount_cents,
    discountPercentage: o.discount_bp === null ? null : o.discount_bp / 100,
    position: o.position,
    priceCents: offerPrice(o),
    product: { id: o.product_id, name: o.product_name, price: o.product_price },
    createdAt: o.created_at,
    updatedAt: o.updated_at,
  };
}

/** The offers of these checkouts, bumps by position, with their products (archived ones too: the offer names them). */
export function loadOffers(db: Executor, userId: string, checkoutIds: string[], kinds: Kind[] = ['BUMP', 'UPSELL', 'DOWNSELL']): Promise<OfferRow[]> {
  if (!checkoutIds.length) return Promise.resolve([]);
  return db
    .selectFrom('checkout_offers as o')
    .innerJoin('products as p', 'p.id', 'o.product_id')
    .selectAll('o')
    .select(['p.name as product_name', 'p.price_cents as product_price'])
    .where('o.user_id', '=', userId)
    .where('o.checkout_id', 'in', checkoutIds)
    .where('o.kind', 'in', kinds)
    .orderBy('o.position')
    .orderBy('o.id')
    .execute();
}

/** The checkout's row locked for a change of its offers: 404 for another merchant's or environment's. */
export async function lockCheckout(trx: Trx, scope: Scope, id: string) {
  const row = await trx.selectFrom('checkouts').select(['id', 'payment_link_id']).where('id', '=', id).where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).forUpdate().executeTakeFirst();
  if (!row) throw notFound('Checkout');
  return row;
}

type OfferInput = Partial<Static<typeof OfferBody>>;

/** The product an offer sells: an active product of this merchant and environment, priced above the discount. */
async function checkOffer(trx: Trx, scope: Scope, next: Pick<CheckoutOffer, 'product_id' | 'discount_cents' | 'discount_bp'>) {
  if (next.discount_cents !== null && next.discount_bp !== null) throw validation('discountCents', 'give discountCents or discountPercentage, not both');
  const p = await owned(trx, 'products', scope).select(['name', 'price_cents', 'status']).where('id', '=', next.product_id).executeTakeFirst();
  if (!p) throw validation('productId', 'is not a product of this merchant and environment');
  if (p.status !== 'ACTIVE') throw validation('productId', 'is an inactive product');
  if (next.discount_cents !== null && next.discount_cents >= p.price_cents) throw validation('discountCents', `must be less than the product's price (${p.price_cents} cents)`);
}

function fieldsOf(input: OfferInput) {
  return {
    ...(input.productId !== undefined && { product_id: input.productId }),
    ...(input.title !== undefined && { title: sanitizeOptional(input.title) ?? null }),
    ...(input.description !== undefined && { description: sanitizeOptional(input.description) ?? null }),
    ...(input.discountCents !== undefined && { discount_cents: input.discountCents }),
    ...(input.discountPercentage !== undefined && { discount_bp: input.discountPercentage === null ? null : Math.round(input.discountPercentage * 100) }),
  };
}

export interface OfferDeps {
  db: Db;
  /** Told the payment link whose page changed (the page cache drops it). */
  changedLink: (linkId: string) => Promise<void>;
}

async function reload(trx: Executor, userId: string, checkoutId: string, id: string): Promise<OfferRow> {
  const [row] = (await loadOffers(trx, userId, [checkoutId])).filter((o) => o.id === id);
  return row;
}

/** Runs a change of a checkout's offers under its lock, then drops the cached page of its link. */
async function change<T>(deps: OfferDeps, scope: Scope, checkoutId: string, work: (trx: Trx) => Promise<T>): Promise<T> {
  let linkId: string | null = null;
  const out = await inTx(deps.db, async (trx) => {
    linkId = (await lockCheckout(trx, scope, checkoutId)).payment_link_id;
    return work(trx);
  });
  if (linkId) await deps.changedLink(linkId);
  return out;
}

export function addBump(deps: OfferDeps, scope: Scope, checkoutId: string, input: Static<typeof BumpBody>): Promise<OfferRow> {
  return change(deps, scope, checkoutId, async (trx) => {
    const { n, last } = await trx
      .selectFrom('checkout_offers')
      .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.max('position').as('last')])
      .where('checkout_id', '=', checkoutId)
      .where('kind', '=', 'BUMP')
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_BUMPS) throw conflict(`A checkout has at most ${MAX_BUMPS} order bumps`);
    const now = new Date();
    const row = { product_id: input.productId, title: null, description: null, discount_cents: null, discount_bp: null, ...fieldsOf(input) };
    await checkOffer(trx, scope, row);
    const id = uuidv7(now.getTime());
    const position = input.position ?? (last === null ? 0 : Number(last) + 1);
    await trx.insertInto('checkout_offers').values({ ...row, id, checkout_id: checkoutId, user_id: scope.userId, kind: 'BUMP', position, created_at: now, updated_at: now }).execute();
    return reload(trx, scope.userId, checkoutId, id);
  });
}

export function updateBump(deps: OfferDeps, scope: Scope, checkoutId: string, bumpId: string, input: Static<typeof UpdateBumpBody>): Promise<OfferRow> {
  return change(deps, scope, checkoutId, async (trx) => {
    const current = await trx.selectFrom('checkout_offers').selectAll().where('id', '=', bumpId).where('checkout_id', '=', checkoutId).where('kind', '=', 'BUMP').executeTakeFirst();
    if (!current) throw notFound('Order bump');
    const set = { ...fieldsOf(input), ...(input.position !== undefined && { position: input.position }) };
    await checkOffer(trx, scope, { ...current, ...set });
    await trx.updateTable('checkout_offers').set({ ...set, updated_at: new Date() }).where('id', '=', bumpId).execute();
    return reload(trx, scope.userId, checkoutId, bumpId);
  });
}

/** Deletes one bump, or the upsell (and its downsell with it), or the downsell. */
export function deleteOffer(deps: OfferDeps, scope: Scope, checkoutId: string, kind: Kind, bumpId?: string): Promise<void> {
  return change(deps, scope, checkoutId, async (trx) => {
    let q = trx.deleteFrom('checkout_offers').where('checkout_id', '=', checkoutId);
    q = kind === 'BUMP' ? q.where('kind', '=', 'BUMP').where('id', '=', bumpId ?? '') : kind === 'UPSELL' ? q.where('kind', 'in', ['UPSELL', 'DOWNSELL']) : q.where('kind', '=', 'DOWNSELL');
    const res = await q.executeTakeFirst();
    if (!res.numDeletedRows) throw notFound(kind === 'BUMP' ? 'Order bump' : kind === 'UPSELL' ? 'Upsell' : 'Downsell');
  });
}

/** Sets the upsell or the downsell (replacing the one there); a downsell needs an upsell. Returns it and whether it is new. */
export function setOffer(deps: OfferDeps, scope: Scope, checkoutId: string, kind: 'UPSELL' | 'DOWNSELL', input: Static<typeof OfferBody>): Promise<{ row: OfferRow; created: boolean }> {
  return change(deps, scope, checkoutId, async (trx) => {
    const present = await trx.selectFrom('checkout_offers').select(['id', 'kind']).where('checkout_id', '=', checkoutId).where('kind', 'in', ['UPSELL', 'DOWNSELL']).execute();
    if (kind === 'DOWNSELL' && !present.some((o) => o.kind === 'UPSELL')) throw notFound('Upsell');
    const row = { product_id: input.productId, title: null, description: null, discount_cents: null, discount_bp: null, ...fieldsOf(input) };
    await checkOffer(trx, scope, row);
    const now = new Date();
    const existing = present.find((o) => o.kind === kind);
    const id = existing?.id ?? uuidv7(now.getTime());
    if (existing) await trx.updateTable('checkout_offers').set({ ...row, updated_at: now }).where('id', '=', id).execute();
    else await trx.insertInto('checkout_offers').values({ ...row, id, checkout_id: checkoutId, user_id: scope.userId, kind, position: 0, created_at: now, updated_at: now }).execute();
    return { row: await reload(trx, scope.userId, checkoutId, id), created: !existing };
  });
}
