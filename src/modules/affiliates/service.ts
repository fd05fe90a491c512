// Affiliate programs (issue 14): a merchant opens a program on one of its products; other merchant
// accounts of the same environment find it in the marketplace, join it and get a tracking code
// (NAME-XXXXXX) with one promotion URL per payment link of the product (links.ts). See
// docs/affiliates.md.
import { randomInt } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { inTx, type Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { AffiliateProgram, AffiliateProgramsTable } from '../../db/types.ts';
import { badRequest, notFound, validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { sanitizeOptional } from '../../http/sanitize.ts';
import { likePattern, type Scope } from '../../http/scope.ts';
import type { Config } from '../../config.ts';
import type { EventLog } from '../events/service.ts';
import type { ClickCounter } from './clicks.ts';
import type { CreateProgramBody, ListProgramsQuery, MarketplaceQuery, UpdateProgramBody } from './schemas.ts';

export interface AffiliateDeps {
  db: Executor;
  events: EventLog;
  /** Clicks on promotion URLs, written in batches. */
  clicks: ClickCounter;
  /** checkoutUrl (CHECKOUT_URL): where the hosted payment pages, and so promotion URLs, live. */
  config: Pick<Config, 'checkoutUrl'>;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/**
 * What one sale pays the affiliate: basis points of the amount paid, rounded down (a fraction of a
 * cent is the merchant's), or the fixed value; never more than the amount paid.
 */
export function commissionCents(type: 'PERCENTAGE' | 'FIXED', value: number, paidCents: number): number {
  const raw = type === 'PERCENTAGE' ? Math.floor((paidCents * value) / 10_000) : value;
  return Math.max(0, Math.min(raw, paidCents));
}

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
/** R$ 1.234,56 with a plain space (Intl puts a no-break space after the symbol). */
export const formatBRL = (cents: number) => brl.format(cents / 100).replace(/\s/g, ' ');

export function programView(p: AffiliateProgram) {
  return {
    id: p.id,
    productId: p.product_id,
    description: p.description,
    rules: p.rules,
    affiliatePage: p.affiliate_page,
    salesPage: p.sales_page,
    cookieDays: p.cookie_days,
    attribution: p.attribution,
    extendedCommission: p.extended_commission,
    extendedCommissionMonths: p.extended_months,
    commissionOnOrderBumps: p.commission_on_bumps,
    commissionType: p.commission_type,
    commissionValue: p.commission_value,
    approval: p.approval,
    guaranteeDays: p.guarantee_days,
    status: p.status,
    createdAt: p.created_at,
    updatedAt: p.updated_at,
  };
}

type Terms = Pick<AffiliateProgramsTable, 'commission_type' | 'commission_value' | 'extended_commission' | 'extended_months'>;

/** The rules that span fields, checked on the merged state of a creation or an update. */
function checkTerms(t: Terms, priceCents: number) {
  if (t.commission_type === 'PERCENTAGE' && t.commission_value > 10_000) {
    throw validation('commissionValue', 'a PERCENTAGE commission is in basis points: at most 10000 (100%)');
  }
  if (t.commission_type === 'FIXED' && t.commission_value > priceCents) {
    throw validation('commissionValue', `a FIXED commission cannot exceed the product price (${priceCents} cents)`);
  }
  if (!t.extended_commission && t.extended_months != null) {
    throw validation('extendedCommissionMonths', 'applies only with extendedCommission: true');
  }
}

/** The merchant's own live (not archived) product, locked against a concurrent price change. */
async function ownProduct(db: Executor, scope: Scope, productId: string) {
  const product = await db
    .selectFrom('products')
    .select(['id', 'price_cents'])
    .where('id', '=', productId)
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!product) throw validation('productId', 'no such product');
  return product;
}

const programExists = () =>
  badRequest('AFFILIATE_PROGRAM_EXISTS', 'This product already has an affiliate program', [{ field: 'productId', message: 'one program per product: change the existing one' }]);

export async function createProgram(db: Executor, scope: Scope, input: Static<typeof CreateProgramBody>): Promise<AffiliateProgram> {
  const product = await ownProduct(db, scope, input.productId);
  const terms: Terms = {
    commission_type: input.commissionType,
    commission_value: input.commissionValue,
    extended_commission: input.extendedCommission ?? false,
    extended_months: input.extendedCommissionMonths ?? null,
  };
  checkTerms(terms, product.price_cents);
  const now = new Date();
  try {
    return await db
      .insertInto('affiliate_programs')
      .values({
        id: uuidv7(),
        user_id: scope.userId,
        livemode: scope.livemode,
        product_id: product.id,
        description: sanitizeOptional(input.description) ?? null,
        rules: sanitizeOptional(input.rules) ?? null,
        affiliate_page: input.affiliatePage ?? null,
        sales_page: input.salesPage ?? null,
        cookie_days: input.cookieDays === undefined ? 30 : input.cookieDays,
        attribution: input.attribution ?? 'LAST_CLICK',
        commission_on_bumps: input.commissionOnOrderBumps ?? false,
        ...terms,
        approval: input.approval ?? 'AUTO',
        guarantee_days: input.guaranteeDays ?? 7,
        status: input.status ?? 'ACTIVE',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    // Two creations for one product at once: the partial unique index lets exactly one through.
    if (isUniqueViolation(err)) throw programExists();
    throw err;
  }
}

function ownedPrograms(db: Executor, scope: Scope) {
  return db.selectFrom('affiliate_programs').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('deleted_at', 'is', null);
}

export async function getProgram(db: Executor, scope: Scope, id: string): Promise<AffiliateProgram> {
  const p = await ownedPrograms(db, scope).selectAll().where('id', '=', id).executeTakeFirst();
  if (!p) throw notFound('Affiliate program');
  return p;
}

export async function listPrograms(db: Executor, scope: Scope, q: Static<typeof ListProgramsQuery>) {
  let base = ownedPrograms(db, scope);
  if (q.status) base = base.where('status', '=', q.status);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: rows, meta: pageInfo(q.page, q.limit, Number(total)) };
}

/** Changes the program's terms; commissions already created keep the terms of their sale. */
export async function updateProgram(db: Executor, scope: Scope, id: string, input: Static<typeof UpdateProgramBody>): Promise<AffiliateProgram> {
  return inTx(db, async (trx) => {
    const current = await ownedPrograms(trx, scope).selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!current) throw notFound('Affiliate program');
    const extended = input.extendedCommission ?? current.extended_commission;
    const terms: Terms = {
      commission_type: input.commissionType ?? current.commission_type,
      commission_value: input.commissionValue ?? current.commission_value,
      extended_commission: extended,
      // Turning extended commission off drops its cap with it.
      extended_months: input.extendedCommissionMonths !== undefined ? input.extendedCommissionMonths : extended ? current.extended_months : null,
    };
    const product = await trx.selectFrom('products').select('price_cents').where('id', '=', current.product_id).executeTakeFirstOrThrow();
    checkTerms(terms, product.price_cents);
    return trx
      .updateTable('affiliate_programs')
      .set({
        ...(input.description !== undefined && { description: sanitizeOptional(input.description) ?? null }),
        ...(input.rules !== undefined && { rules: sanitizeOptional(input.rules) ?? null }),
        ...(input.affiliatePage !== undefined && { affiliate_page: input.affiliatePage }),
        ...(input.salesPage !== undefined && { sales_page: input.salesPage }),
        ...(input.cookieDays !== undefined && { cookie_days: input.cookieDays }),
        ...(input.attribution !== undefined && { attribution: input.attribution }),
        ...(input.approval !== undefined && { approval: input.approval }),
        ...(input.guaranteeDays !== undefined && { guarantee_days: input.guaranteeDays }),
        ...(input.status !== undefined && { status: input.status }),
        ...(input.commissionOnOrderBumps !== undefined && { commission_on_bumps: input.commissionOnOrderBumps }),
        ...terms,
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * Archives the program: it leaves the marketplace and attributes no further sale; commissions
 * already created run their course. The product may get a new program afterwards.
 */
export async function deleteProgram(db: Executor, scope: Scope, id: string): Promise<void> {
  const now = new Date();
  const res = await db
    .updateTable('affiliate_programs')
    .set({ deleted_at: now, status: 'INACTIVE', updated_at: now })
    .where('id', '=', id)
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!res.numUpdatedRows) throw notFound('Affiliate program');
}

/** A share, 4 decimal places; 0 of nothing. */
const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);

/** Active programs of the caller's environment that it can join (not its own), with their product. */
export async function marketplace(db: Executor, scope: Scope, q: Static<typeof MarketplaceQuery>) {
  let base = db
    .selectFrom('affiliate_programs as ap')
    .innerJoin('products as p', 'p.id', 'ap.product_id')
    .where('ap.livemode', '=', scope.livemode)
    .where('ap.status', '=', 'ACTIVE')
    .where('ap.deleted_at', 'is', null)
    .where('p.status', '=', 'ACTIVE')
    .where('p.deleted_at', 'is', null)
    .where('ap.user_id', '<>', scope.userId);
  if (q.search) {
    const pattern = likePattern(q.search);
    base = base.where((eb) => eb.or([eb('p.name', 'ilike', pattern), eb('ap.description', 'ilike', pattern)]));
  }
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .selectAll('ap')
      .select(['p.name as product_name', 'p.price_cents as product_price', 'p.image_url as product_image'])
      .select((eb) => [
        eb.selectFrom('affiliate_links as l').whereRef('l.program_id', '=', 'ap.id').where('l.status', '=', 'ACTIVE').select(sql<number>`count(*)::int`.as('n')).as('affiliate_count'),
        eb.selectFrom('affiliate_links as l').whereRef('l.program_id', '=', 'ap.id').select(sql<number>`coalesce(sum(l.clicks), 0)::int`.as('n')).as('clicks'),
        eb.selectFrom('affiliate_links as l').whereRef('l.program_id', '=', 'ap.id').select(sql<number>`coalesce(sum(l.conversions), 0)::int`.as('n')).as('conversions'),
        eb
          .selectFrom('affiliate_commissions as c')
          .whereRef('c.program_id', '=', 'ap.id')
          .where((w) => w.or([w('c.reason', 'is', null), w('c.reason', '<>', 'SELF_PURCHASE')]))
          .select(sql<number>`count(*)::int`.as('n'))
          .as('sales'),
        eb
          .selectFrom('affiliate_commissions as c')
          .whereRef('c.program_id', '=', 'ap.id')
          .where('c.reason', 'in', ['REFUNDED', 'REFUNDED_AFTER_RELEASE'])
          .select(sql<number>`count(*)::int`.as('n'))
          .as('refunds'),
      ])
      .orderBy('ap.created_at', 'desc')
      .orderBy('ap.id', 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute(),
  ]);
  return {
    data: rows.map((r) => {
      const perSaleCents = commissionCents(r.commission_type, r.commission_value, r.product_price);
      return {
        programId: r.id,
        product: { id: r.product_id, name: r.product_name, price: r.product_price, imageUrl: r.product_image },
        description: r.description,
        rules: r.rules,
        affiliatePage: r.affiliate_page,
        salesPage: r.sales_page,
        commission: { type: r.commission_type, value: r.commission_value, perSaleCents, perSale: formatBRL(perSaleCents) },
        cookieDays: r.cookie_days,
        attribution: r.attribution,
        extendedCommission: r.extended_commission,
        approval: r.approval,
        guaranteeDays: r.guarantee_days,
        affiliateCount: Number(r.affiliate_count ?? 0),
        // A sale attributed by the affiliate's code at checkout has no click: the rate stops at 1.
        conversionRate: Math.min(1, rate(Number(r.conversions ?? 0), Number(r.clicks ?? 0))),
        refundRate: rate(Number(r.refunds ?? 0), Number(r.sales ?? 0)),
        createdAt: r.created_at,
      };
    }),
    meta: pageInfo(q.page, q.limit, Number(total)),
  };
}

// No 0/O or 1/I: codes are read aloud and typed from videos.
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** NAME-XXXXXX: the account name's first word in capitals without accents (at most 12), then 6 random characters. */
export function affiliateCode(accountName: string, random: (n: number) => number = randomInt): string {
  const word = accountName
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .find((w) => w.length > 0);
  const name = (word ?? 'AFILIADO').slice(0, 12);
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += CODE_ALPHABET[random(CODE_ALPHABET.length)];
  return `${name}-${suffix}`;
}
