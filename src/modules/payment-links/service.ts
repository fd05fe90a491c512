// Payment links: a hosted checkout page at {checkout_url}/pay/{slug} that sells a fixed amount or a
// set of the merchant's products. Events payment_link.created / payment_link.updated are recorded in
// the same database transaction as the change.
import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Config } from '../../config.ts';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { PaymentLink, PaymentLinkProduct, PaymentLinkSettings } from '../../db/types.ts';
import { badRequest, notFound, validation, type FieldError } from '../../http/errors.ts';
import { createdAtPage, type Cursors } from '../../http/pagination.ts';
import { requiredText, sanitizeOptional } from '../../http/sanitize.ts';
import { owned, ownedUpdate, type Scope } from '../../http/scope.ts';
import { configView, mergeConfig, type ImageImporter, type StoredConfig } from '../branding/service.ts';
import { mergeSettings } from '../checkouts/service.ts';
import type { EventLog } from '../events/service.ts';
import { splitToSave, splitView } from '../splits/rule.ts';
import type { CreateLinkBody, ListLinksQuery, PaymentLinkView, UpdateLinkBody } from './schemas.ts';

type CreateInput = Static<typeof CreateLinkBody>;
type UpdateInput = Static<typeof UpdateLinkBody>;

export interface LinkWithProducts {
  link: PaymentLink;
  products: PaymentLinkProduct[];
}

/** What payment links need besides the database (built by deps.ts). */
export interface LinkDeps {
  db: Db;
  config: Config;
  events: EventLog;
  /** Told the slug of every link changed or archived (the hosted page cache drops its page). */
  changed: (slug: string) => void;
  /** Brings the branding's images to Cofre (modules/media). */
  images: ImageImporter;
}

export function defaultSettings(config: Config): PaymentLinkSettings {
  return {
    pixEnabled: true,
    boletoEnabled: true,
    creditCardEnabled: true,
    maxInstallments: 12,
    interestFreeInstallments: config.card.interestFreeInstallments,
    interestRate: config.card.monthlyInterestBp / 100,
    requirePhone: false,
    requireAddress: false,
  };
}

/** What the customer pays before coupons and card interest. */
export function linkTotal(link: Pick<PaymentLink, 'amount_cents'>, products: Pick<PaymentLinkProduct, 'quantity' | 'unit_price_cents'>[]): number {
  if (link.amount_cents !== null) return link.amount_cents;
  return products.reduce((sum, p) => sum + p.quantity * p.unit_price_cents, 0);
}

export function linkUrl(config: Pick<Config, 'checkoutUrl'>, slug: string) {
  return `${config.checkoutUrl}/pay/${slug}`;
}

export function linkView(config: Config, { link, products }: LinkWithProducts): Static<typeof PaymentLinkView> {
  return {
    id: link.id,
    slug: link.slug,
    url: linkUrl(config, link.slug),
    title: link.title,
    description: link.description,
    productDescription: link.product_description,
    amount: link.amount_cents,
    totalCents: linkTotal(link, products),
    currency: link.currency,
    status: link.status,
    expiresAt: link.expires_at,
    redirectUrl: link.redirect_url,
    settings: link.settings,
    products: products.map((p) => ({ productId: p.product_id, name: p.name, quantity: p.quantity, unitPriceCents: p.unit_price_cents })),
    stockEnabled: link.stock_enabled,
    stockQuantity: link.stock_quantity,
    metaPixelCode: link.meta_pixel_code,
    checkoutConfig: configView(link.checkout_config as StoredConfig | null),
    split: splitView(link.split),
    salesCount: link.sales_count,
    timesUsed: link.times_used,
    livemode: link.livemode,
    createdAt: link.created_at,
    updatedAt: link.updated_at,
  };
}

/** Event payload: the merchant view with dates as strings. */
function eventData(config: Config, lp: LinkWithProducts): Record<string, unknown> {
  return JSON.parse(JSON.stringify(linkView(config, lp)));
}

const SLUG_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** "Curso de Violão — Turma 3" -> "curso-de-violao-turma-3-k7m2qx": readable, and not guessable. */
export function makeSlug(title: string): string {
  const base = title
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  const bytes = randomBytes(6);
  let suffix = '';
  for (const b of bytes) suffix += SLUG_ALPHABET[b % SLUG_ALPHABET.length];
  return base ? `${base}-${suffix}` : `link-${suffix}`;
}

function checkStock(stockEnabled: boolean, stockQuantity: number | null) {
  if (stockEnabled && stockQuantity === null) throw validation('stockQuantity', 'is required when stockEnabled is true');
}

function checkExpiry(expiresAt: string | null | undefined, now: Date) {
  if (expiresAt && new Date(expiresAt).getTime() <= now.getTime()) throw validation('expiresAt', 'must be in the future');
}

/**
 * Loads the products of a link body: each must be an active product of this merchant and
 * environment, listed once. Returns the rows to store, with the name and price copied.
 */
async function resolveProducts(trx: Trx, scope: Scope, linkId: string, items: { productId: string; quantity: number }[]) {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  items.forEach((it, i) => {
    if (seen.has(it.productId)) problems.push({ field: `products.${i}.productId`, message: 'is listed more than once' });
    seen.add(it.productId);
  });
  if (problems.length) throw badRequest('VALIDATION_ERROR', 'Validation failed', problems);
  const found = await owned(trx, 'products', scope)
    .select(['id', 'name', 'price_cents', 'status'])
    .where('id', 'in', [...seen])
    .execute();
  const byId = new Map(found.map((p) => [p.id, p]));
  const rows = items.map((it, i) => {
    const p = byId.get(it.productId);
    if (!p) problems.push({ field: `products.${i}.productId`, message: 'is not a product of this merchant and environment' });
    else if (p.status !== 'ACTIVE') problems.push({ field: `products.${i}.productId`, message: 'is an inactive product' });
    return { user_id: scope.userId, link_id: linkId, product_id: it.productId, position: i, name: p?.name ?? '', quantity: it.quantity, unit_price_cents: p?.price_cents ?? 0 };
  });
  if (problems.length) throw badRequest('VALIDATION_ERROR', 'Validation failed', problems);
  const total = rows.reduce((s, r) => s + r.quantity * r.unit_price_cents, 0);
  if (total > 100000000) throw validation('products', 'the sum of price x quantity must be at most 100000000 cents');
  return rows;
}

async function loadProducts(db: Executor, userId: string, linkId: string): Promise<PaymentLinkProduct[]> {
  return db.selectFrom('payment_link_products').selectAll().where('user_id', '=', userId).where('link_id', '=', linkId).orderBy('position').execute();
}

/**
 * The pricing of a create or update body: its products, or undefined for a fixed price alone.
 * `products: []` beside amountCents means "no products" (a fixed price), as leaving it out does.
 */
function pricedProducts(input: Pick<CreateInput, 'amountCents' | 'products'>, missing: string): CreateInput['products'] {
  const products = input.products?.length ? input.products : undefined;
  if (input.amountCents !== undefined || products) return products;
  if (input.products) throw validation('products', 'is empty: list at least one product, or send amountCents');
  throw badRequest('VALIDATION_ERROR', 'Validation failed', [{ field: 'amountCents', message: missing }]);
}

export async function createLink(deps: LinkDeps, scope: Scope, input: CreateInput): Promise<LinkWithProducts> {
  const { config } = deps;
  const products = pricedProducts(input, 'amountCents or products is required');
  const now = new Date();
  const title = requiredText(input.title, 'title');
  const settings = mergeSettings(defaultSettings(config), input.settings);
  const stockEnabled = input.stockEnabled ?? false;
  const stockQuantity = input.stockQuantity ?? null;
  checkStock(stockEnabled, stockQuantity);
  checkExpiry(input.expiresAt, now);
  const checkoutConfig = input.checkoutConfig ? await mergeConfig(null, input.checkoutConfig, { images: deps.images, merchantId: scope.userId }) : null;
  const id = uuidv7(now.getTime());
  return inTx(deps.db, async (trx) => {
    const productRows = products ? await resolveProducts(trx, scope, id, products) : [];
    const split = await splitToSave(trx, scope.userId, input.split, linkTotal({ amount_cents: input.amountCents ?? null }, productRows));
    const values = {
      id,
      user_id: scope.userId,
      livemode: scope.livemode,
      title,
      description: sanitizeOptional(input.description) ?? null,
      product_description: sanitizeOptional(input.productDescription) ?? null,
      amount_cents: input.amountCents ?? null,
      currency: 'BRL',
      status: input.status ?? 'ACTIVE',
      expires_at: input.expiresAt ? new Date(input.expiresAt) : null,
      redirect_url: input.redirectUrl ?? null,
      settings: JSON.stringify(settings),
      stock_enabled: stockEnabled,
      stock_quantity: stockQuantity,
      meta_pixel_code: input.metaPixelCode ?? null,
      checkout_config: checkoutConfig && JSON.stringify(checkoutConfig),
      split: split ?? null,
      created_at: now,
      updated_at: now,
    };
    let link: PaymentLink | undefined;
    // The random suffix makes a clash unlikely; draw again if it happens (the slug is unique globally).
    for (let attempt = 0; attempt < 5 && !link; attempt++) {
      link = await trx
        .insertInto('payment_links')
        .values({ ...values, slug: makeSlug(title) })
        .onConflict((oc) => oc.column('slug').doNothing())
        .returningAll()
        .executeTakeFirst();
    }
    if (!link) throw new Error('could not allocate a payment link slug');
    if (productRows.length) await trx.insertInto('payment_link_products').values(productRows).execute();
    const result = { link, products: await loadProducts(trx, scope.userId, id) };
    await deps.events.record(trx, scope, [{ type: 'payment_link.created', data: eventData(config, result) }]);
    return result;
  });
}

function findLink(db: Executor, scope: Scope, id: string) {
  return owned(db, 'payment_links', scope)
    .selectAll()
    .where('id', '=', id);
}

export async function getLink(db: Executor, scope: Scope, id: string): Promise<LinkWithProducts> {
  return withProducts(db, scope, await findLink(db, scope, id).executeTakeFirst());
}

/** A link of this merchant and environment by its slug, as getLink gives it; 404 otherwise. */
export async function getLinkBySlug(db: Executor, scope: Scope, slug: string): Promise<LinkWithProducts> {
  return withProducts(db, scope, await owned(db, 'payment_links', scope).selectAll().where('slug', '=', slug.toLowerCase()).executeTakeFirst());
}

async function withProducts(db: Executor, scope: Scope, link: PaymentLink | undefined): Promise<LinkWithProducts> {
  if (!link) throw notFound('Payment link');
  return { link, products: await loadProducts(db, scope.userId, link.id) };
}

/** A link of this merchant and environment (for transactions' paymentLinkId), or null. */
export async function findOwnLink(db: Executor, scope: Scope, id: string): Promise<PaymentLink | null> {
  return (await findLink(db, scope, id).executeTakeFirst()) ?? null;
}

/** The link's branding with an update applied; its images fetched before any row is locked (a slow host holds no lock). */
async function linkConfig(deps: LinkDeps, scope: Scope, id: string, input: NonNullable<UpdateInput['checkoutConfig']>): Promise<StoredConfig> {
  const current = await findLink(deps.db, scope, id).select('checkout_config').executeTakeFirst();
  if (!current) throw notFound('Payment link');
  return mergeConfig(current.checkout_config as StoredConfig | null, input, { images: deps.images, merchantId: scope.userId });
}

export async function updateLink(deps: LinkDeps, scope: Scope, id: string, input: UpdateInput): Promise<LinkWithProducts> {
  // Rule 1 of UpdatePaymentLinkRequest: every PATCH restates the pricing.
  const products = pricedProducts(input, 'amountCents or products (or both) must be supplied in every update');
  const now = new Date();
  const checkoutConfig = input.checkoutConfig ? await linkConfig(deps, scope, id, input.checkoutConfig) : undefined;
  const result = await inTx(deps.db, async (trx) => {
    const current = await findLink(trx, scope, id).forUpdate().executeTakeFirst();
    if (!current) throw notFound('Payment link');
    const settings = mergeSettings(current.settings, input.settings);
    const stockEnabled = input.stockEnabled ?? current.stock_enabled;
    const stockQuantity = input.stockQuantity !== undefined ? input.stockQuantity : current.stock_quantity;
    checkStock(stockEnabled, stockQuantity);
    checkExpiry(input.expiresAt, now);
    const productRows = products ? await resolveProducts(trx, scope, id, products) : [];
    const split = await splitToSave(trx, scope.userId, input.split, linkTotal({ amount_cents: input.amountCents ?? null }, productRows));
    const link = await ownedUpdate(trx, 'payment_links', scope, id)
      .set({
        ...(input.title !== undefined && { title: requiredText(input.title, 'title') }),
        ...(input.description !== undefined && { description: sanitizeOptional(input.description) ?? null }),
        ...(input.productDescription !== undefined && { product_description: sanitizeOptional(input.productDescription) ?? null }),
        amount_cents: input.amountCents ?? null,
        ...(input.status !== undefined && { status: input.status }),
        ...(input.expiresAt !== undefined && { expires_at: input.expiresAt ? new Date(input.expiresAt) : null }),
        ...(input.redirectUrl !== undefined && { redirect_url: input.redirectUrl }),
        ...(input.metaPixelCode !== undefined && { meta_pixel_code: input.metaPixelCode }),
        ...(checkoutConfig && { checkout_config: JSON.stringify(checkoutConfig) }),
        ...(split !== undefined && { split }),
        settings: JSON.stringify(settings),
        stock_enabled: stockEnabled,
        stock_quantity: stockQuantity,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx.deleteFrom('payment_link_products').where('user_id', '=', scope.userId).where('link_id', '=', id).execute();
    if (productRows.length) await trx.insertInto('payment_link_products').values(productRows).execute();
    const result = { link, products: await loadProducts(trx, scope.userId, id) };
    await deps.events.record(trx, scope, [{ type: 'payment_link.updated', data: eventData(deps.config, result) }]);
    return result;
  });
  deps.changed(result.link.slug);
  return result;
}

/** Archives the link: its page answers 404 from now on; transactions keep their reference. */
export async function deleteLink(deps: LinkDeps, scope: Scope, id: string): Promise<void> {
  const slug = await inTx(deps.db, async (trx) => {
    const now = new Date();
    const link = await ownedUpdate(trx, 'payment_links', scope, id)
      .set({ deleted_at: now, status: 'INACTIVE', updated_at: now })
      .returningAll()
      .executeTakeFirst();
    if (!link) throw notFound('Payment link');
    const data = { ...eventData(deps.config, { link, products: await loadProducts(trx, scope.userId, id) }), deleted: true };
    await deps.events.record(trx, scope, [{ type: 'payment_link.updated', data }]);
    return link.slug;
  });
  deps.changed(slug);
}

export async function listLinks(db: Executor, cursors: Cursors, scope: Scope, q: Static<typeof ListLinksQuery>) {
  let query = owned(db, 'payment_links', scope).selectAll();
  if (q.status) query = query.where('status', '=', q.status);
  const { rows, pagination } = await createdAtPage(cursors.of('payment-links', scope), query, q);
  const products = rows.length
    ? await db.selectFrom('payment_link_products').selectAll().where('user_id', '=', scope.userId).where('link_id', 'in', rows.map((l) => l.id)).orderBy('position').execute()
    : [];
  return { rows: rows.map((link) => ({ link, products: products.filter((p) => p.link_id === link.id) })), pagination };
}
