// Affiliate links (issue 14): an account joins a program and gets a tracking code with one promotion
// URL per payment link of the product; the program's owner approves, refuses or blocks it. See
// docs/affiliates.md.
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { inTx, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { AffiliateLink, AffiliateLinkStatus, AffiliateProgram } from '../../db/types.ts';
import { badRequest, notFound, validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import type { ListLinksQuery } from './schemas.ts';
import { affiliateCode, getProgram, type AffiliateDeps } from './service.ts';

export interface LinkRow extends AffiliateLink {
  product_id: string;
  product_name: string;
  /** The program is ACTIVE and not deleted. */
  program_active: boolean;
}

/** The promotion URLs of a product: one per active payment link that sells it. */
async function productUrls(db: Executor, checkoutUrl: string, ownerId: string, livemode: boolean, productIds: string[], code: (productId: string) => string) {
  if (!productIds.length) return new Map<string, { paymentLinkId: string; slug: string; url: string }[]>();
  const rows = await db
    .selectFrom('payment_link_products as lp')
    .innerJoin('payment_links as pl', 'pl.id', 'lp.link_id')
    .select(['lp.product_id', 'pl.id', 'pl.slug'])
    .where('lp.product_id', 'in', productIds)
    .where('pl.user_id', '=', ownerId)
    .where('pl.livemode', '=', livemode)
    .where('pl.status', '=', 'ACTIVE')
    .where('pl.deleted_at', 'is', null)
    .orderBy('pl.created_at')
    .execute();
  const out = new Map<string, { paymentLinkId: string; slug: string; url: string }[]>();
  const base = checkoutUrl.replace(/\/+$/, '');
  for (const r of rows) {
    const list = out.get(r.product_id) ?? [];
    if (!list.some((x) => x.paymentLinkId === r.id)) list.push({ paymentLinkId: r.id, slug: r.slug, url: `${base}/pay/${encodeURIComponent(r.slug)}?aff=${encodeURIComponent(code(r.product_id))}` });
    out.set(r.product_id, list);
  }
  return out;
}

/** A program still open (`ap`): ACTIVE and not deleted; a closed one attributes no sale. */
const PROGRAM_OPEN = sql<boolean>`ap.status = 'ACTIVE' AND ap.deleted_at IS NULL`;

function linkQuery(db: Executor) {
  return db
    .selectFrom('affiliate_links as l')
    .innerJoin('affiliate_programs as ap', 'ap.id', 'l.program_id')
    .innerJoin('products as p', 'p.id', 'ap.product_id')
    .selectAll('l')
    .select(['ap.product_id', 'ap.user_id as owner_id', 'p.name as product_name', PROGRAM_OPEN.as('program_active')]);
}

/** Links with their promotion URLs (one query for the URLs of the whole page). */
async function linkViews(deps: AffiliateDeps, rows: (LinkRow & { owner_id: string })[]) {
  const byOwner = new Map<string, (LinkRow & { owner_id: string })[]>();
  for (const r of rows) byOwner.set(`${r.owner_id}|${r.livemode}`, [...(byOwner.get(`${r.owner_id}|${r.livemode}`) ?? []), r]);
  const urls = new Map<string, { paymentLinkId: string; slug: string; url: string }[]>();
  for (const group of byOwner.values()) {
    const codes = new Map(group.map((r) => [r.product_id, r.code]));
    const found = await productUrls(deps.db, deps.config.checkoutUrl, group[0]!.owner_id, group[0]!.livemode, [...codes.keys()], (pid) => codes.get(pid)!);
    for (const [pid, list] of found) urls.set(`${group[0]!.owner_id}|${pid}`, list);
  }
  return rows.map((r) => ({
    id: r.id,
    programId: r.program_id,
    product: { id: r.product_id, name: r.product_name },
    code: r.code,
    status: r.status,
    programActive: r.program_active,
    // Only an approved affiliate of a program still open gets URLs that attribute sales.
    urls: r.status === 'ACTIVE' && r.program_active ? (urls.get(`${r.owner_id}|${r.product_id}`) ?? []) : [],
    clicks: r.clicks,
    conversions: r.conversions,
    approvedAt: r.approved_at,
    createdAt: r.created_at,
  }));
}

function affiliateEvent(link: AffiliateLink, program: AffiliateProgram) {
  return { linkId: link.id, programId: program.id, productId: program.product_id, affiliateId: link.user_id, code: link.code, status: link.status };
}

/**
 * Joins a program: an existing link of this account is answered as it is (idempotent, whatever its
 * status); otherwise a new one, ACTIVE at once or PENDING when the program approves by hand.
 */
export async function joinProgram(deps: AffiliateDeps, scope: Scope, programId: string) {
  const { db, events } = deps;
  const result = await inTx(db, async (trx) => {
    const program = await trx
      .selectFrom('affiliate_programs')
      .selectAll()
      .where('id', '=', programId)
      .where('livemode', '=', scope.livemode)
      .where('deleted_at', 'is', null)
      .forShare()
      .executeTakeFirst();
    if (!program) throw notFound('Affiliate program');
    if (program.user_id === scope.userId) throw validation('programId', 'you cannot join your own program');
    const existing = await trx.selectFrom('affiliate_links').select('id').where('program_id', '=', program.id).where('user_id', '=', scope.userId).executeTakeFirst();
    if (existing) return { id: existing.id, created: false };
    if (program.status !== 'ACTIVE') throw validation('programId', 'the program is not accepting affiliates');
    const user = await trx.selectFrom('users').select('name').where('id', '=', scope.userId).executeTakeFirstOrThrow();
    const now = new Date();
    const status: AffiliateLinkStatus = program.approval === 'AUTO' ? 'ACTIVE' : 'PENDING';
    const link = await insertLink(trx, {
      id: uuidv7(),
      program_id: program.id,
      user_id: scope.userId,
      livemode: scope.livemode,
      code: '',
      status,
      approved_at: status === 'ACTIVE' ? now : null,
      created_at: now,
      updated_at: now,
    }, user.name);
    if (!link) {
      // The same account joined at the same moment: the unique (program, user) kept one.
      const other = await trx.selectFrom('affiliate_links').select('id').where('program_id', '=', program.id).where('user_id', '=', scope.userId).executeTakeFirstOrThrow();
      return { id: other.id, created: false };
    }
    const data = affiliateEvent(link, program);
    const types = status === 'ACTIVE' ? (['affiliate.joined', 'affiliate.approved'] as const) : (['affiliate.joined'] as const);
    // Both sides hear of it: the program's owner and the affiliate.
    for (const owner of [{ userId: program.user_id, livemode: program.livemode }, scope]) {
      await events.record(trx, owner, types.map((type) => ({ type, data })));
    }
    return { id: link.id, created: true };
  });
  return { created: result.created, link: await getLink(deps, scope, result.id) };
}

/**
 * Inserts the link with a fresh code, retrying on a code clash (a savepoint keeps the transaction
 * usable); null when the account already has a link to the program.
 */
async function insertLink(trx: Trx, row: Omit<AffiliateLink, 'clicks' | 'conversions'>, accountName: string): Promise<AffiliateLink | null> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const code = affiliateCode(accountName);
    const inserted = await trx
      .insertInto('affiliate_links')
      .values({ ...row, code })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return inserted;
    const same = await trx.selectFrom('affiliate_links').select('id').where('program_id', '=', row.program_id).where('user_id', '=', row.user_id).executeTakeFirst();
    if (same) return null;
  }
  throw new Error('affiliates: no free tracking code after 8 attempts');
}

export async function getLink(deps: AffiliateDeps, scope: Scope, id: string) {
  const row = await linkQuery(deps.db).where('l.id', '=', id).where('l.user_id', '=', scope.userId).where('l.livemode', '=', scope.livemode).executeTakeFirst();
  if (!row) throw notFound('Affiliate link');
  return (await linkViews(deps, [row]))[0]!;
}

/** The caller's links as an affiliate, newest first. */
export async function listLinks(deps: AffiliateDeps, scope: Scope, q: Static<typeof ListLinksQuery>) {
  let base = linkQuery(deps.db).where('l.user_id', '=', scope.userId).where('l.livemode', '=', scope.livemode);
  if (q.status) base = base.where('l.status', '=', q.status);
  const [{ total }, rows] = await Promise.all([
    deps.db
      .selectFrom('affiliate_links')
      .where('user_id', '=', scope.userId)
      .where('livemode', '=', scope.livemode)
      .$if(!!q.status, (qb) => qb.where('status', '=', q.status!))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
    base.orderBy('l.created_at', 'desc').orderBy('l.id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: await linkViews(deps, rows), meta: pageInfo(q.page, q.limit, Number(total)) };
}

function programAffiliateView(r: AffiliateLink & { affiliate_name: string }) {
  return {
    id: r.id,
    affiliate: { id: r.user_id, name: r.affiliate_name },
    code: r.code,
    status: r.status,
    clicks: r.clicks,
    conversions: r.conversions,
    approvedAt: r.approved_at,
    createdAt: r.created_at,
  };
}

/** The affiliates of one of the caller's programs. */
export async function listProgramAffiliates(db: Executor, scope: Scope, programId: string, q: Static<typeof ListLinksQuery>) {
  await getProgram(db, scope, programId);
  let base = db.selectFrom('affiliate_links as l').innerJoin('users as u', 'u.id', 'l.user_id').where('l.program_id', '=', programId);
  if (q.status) base = base.where('l.status', '=', q.status);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll('l').select('u.name as affiliate_name').orderBy('l.created_at', 'desc').orderBy('l.id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: rows.map(programAffiliateView), meta: pageInfo(q.page, q.limit, Number(total)) };
}

export type LinkDecision = 'approve' | 'refuse' | 'block';

/** approve: PENDING or BLOCKED -> ACTIVE; refuse: PENDING -> REFUSED; block: PENDING or ACTIVE -> BLOCKED. */
const DECISIONS: Record<LinkDecision, { from: AffiliateLinkStatus[]; to: AffiliateLinkStatus }> = {
  approve: { from: ['PENDING', 'BLOCKED'], to: 'ACTIVE' },
  refuse: { from: ['PENDING'], to: 'REFUSED' },
  block: { from: ['PENDING', 'ACTIVE'], to: 'BLOCKED' },
};

/** The program's owner decides on an affiliate. */
export async function decideLink(deps: AffiliateDeps, scope: Scope, programId: string, linkId: string, decision: LinkDecision) {
  return inTx(deps.db, async (trx) => {
    const program = await getProgram(trx, scope, programId);
    const link = await trx.selectFrom('affiliate_links').selectAll().where('id', '=', linkId).where('program_id', '=', program.id).forUpdate().executeTakeFirst();
    if (!link) throw notFound('Affiliate link');
    const rule = DECISIONS[decision];
    if (!rule.from.includes(link.status)) {
      throw badRequest('INVALID_STATE_TRANSITION', `Cannot ${decision} a ${link.status} affiliate`, [{ field: 'status', message: `${link.status} -> ${rule.to} is not allowed` }]);
    }
    const now = new Date();
    const updated = await trx
      .updateTable('affiliate_links')
      .set({ status: rule.to, updated_at: now, ...(rule.to === 'ACTIVE' && { approved_at: now }) })
      .where('id', '=', link.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (rule.to === 'ACTIVE') {
      const data = affiliateEvent(updated, program);
      for (const owner of [scope, { userId: link.user_id, livemode: link.livemode }]) await deps.events.record(trx, owner, [{ type: 'affiliate.approved', data }]);
    }
    const name = await trx.selectFrom('users').select('name').where('id', '=', link.user_id).executeTakeFirstOrThrow();
    return programAffiliateView({ ...updated, affiliate_name: name.name });
  });
}

/** The caller's totals as an affiliate: its links, and its commissions (earned = not cancelled). */
export async function affiliateStats(db: Executor, scope: Scope) {
  const [links, commissions] = await Promise.all([
    db
      .selectFrom('affiliate_links as l')
      .innerJoin('affiliate_programs as ap', 'ap.id', 'l.program_id')
      .where('l.user_id', '=', scope.userId)
      .where('l.livemode', '=', scope.livemode)
      .select([
        sql<number>`count(*)::int`.as('total'),
        sql<number>`(count(*) FILTER (WHERE l.status = 'ACTIVE' AND ${PROGRAM_OPEN}))::int`.as('active'),
        sql<number>`coalesce(sum(l.clicks), 0)::int`.as('clicks'),
        sql<number>`coalesce(sum(l.conversions), 0)::int`.as('conversions'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('affiliate_commissions')
      .where('user_id', '=', scope.userId)
      .where('livemode', '=', scope.livemode)
      .select([
        sql<number>`coalesce(sum(amount_cents) FILTER (WHERE status <> 'CANCELLED'), 0)::bigint`.as('earned'),
        sql<number>`coalesce(sum(amount_cents) FILTER (WHERE status = 'PENDING'), 0)::bigint`.as('pending'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return {
    totalLinks: Number(links.total),
    activeLinks: Number(links.active),
    totalClicks: Number(links.clicks),
    totalConversions: Number(links.conversions),
    totalEarnedCents: Number(commissions.earned),
    pendingCents: Number(commissions.pending),
  };
}
