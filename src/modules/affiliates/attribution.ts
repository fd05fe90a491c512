// Which affiliate a checkout's sale belongs to. The hosted page records each ?aff= click in a
// first-party cookie (code and time, no lookup: the page stays as fast as without it); the checkout
// also takes the code in its body (a click at that moment: browsers that drop cookies still
// attribute). At the checkout the clicks whose code is an approved affiliate of the product's
// program, within the program's cookieDays, compete by its rule: LAST_CLICK or FIRST_CLICK.
import type { Executor } from '../../db/index.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS } from '../../payments/calendar.ts';

export const AFF_COOKIE = 'cofre_aff';
/** Clicks kept in the cookie: the newest; a code keeps its first and its latest click. */
export const MAX_CLICKS = 12;
const CODE = /^[A-Z0-9]{1,12}-[A-Z0-9]{6}$/;

export interface Click {
  code: string;
  /** Epoch seconds. */
  at: number;
}

export const normalizeCode = (code: string) => code.trim().toUpperCase();
export const isCode = (code: string) => CODE.test(normalizeCode(code));

/** `CODE.seconds|CODE.seconds|…`, oldest first; anything malformed is dropped. */
export function parseClicks(value: string | null | undefined): Click[] {
  if (!value) return [];
  let text: string;
  try {
    text = decodeURIComponent(value);
  } catch {
    return []; // a cookie the browser or someone else mangled: no clicks, never an error
  }
  const out: Click[] = [];
  for (const part of text.split('|').slice(-MAX_CLICKS)) {
    const [code, at] = part.split('.');
    const seconds = Number(at);
    if (code && isCode(code) && Number.isSafeInteger(seconds) && seconds > 0) out.push({ code: normalizeCode(code), at: seconds });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The cookie after a click: the click appended; per code only its first and latest click stay. */
export function addClick(clicks: Click[], click: Click): Click[] {
  const all = [...clicks, click].sort((a, b) => a.at - b.at);
  const keep = new Set<Click>();
  for (const code of new Set(all.map((c) => c.code))) {
    const same = all.filter((c) => c.code === code);
    keep.add(same[0]!);
    keep.add(same[same.length - 1]!);
  }
  return all.filter((c) => keep.has(c)).slice(-MAX_CLICKS);
}

export const formatClicks = (clicks: Click[]) => encodeURIComponent(clicks.map((c) => `${c.code}.${c.at}`).join('|'));

/** The clicks a checkout weighs: the cookie's, and a code sent in its body as a click at that moment. */
export function withBodyCode(clicks: Click[], code: string | undefined, now: Date): Click[] {
  return code && isCode(code) ? [...clicks, { code: normalizeCode(code), at: Math.floor(now.getTime() / 1000) }] : clicks;
}

export interface ProgramRule {
  cookieDays: number | null;
  attribution: 'LAST_CLICK' | 'FIRST_CLICK';
}

/** The click that wins among one program's clicks: within cookieDays (null: forever), first or last. */
export function chooseClick(clicks: Click[], rule: ProgramRule, nowSeconds: number): Click | null {
  const live = clicks.filter((c) => c.at <= nowSeconds && (rule.cookieDays == null || nowSeconds - c.at <= (rule.cookieDays * DAY_MS) / 1000));
  if (!live.length) return null;
  const sorted = [...live].sort((a, b) => a.at - b.at);
  return rule.attribution === 'FIRST_CLICK' ? sorted[0]! : sorted[sorted.length - 1]!;
}

/**
 * The affiliate link a checkout of `merchant`'s payment link is attributed to. An affiliate coupon
 * applied to the order (`couponLinkId`) wins over every click when its link is an ACTIVE link of an
 * ACTIVE program of the merchant on one of the products sold; otherwise, among the clicks
 * (cookie, then the body's code as a click now) whose code is an ACTIVE link of an ACTIVE program of
 * the merchant on one of the products sold, the program's rule picks one. Anything else attributes
 * nothing (a stale or foreign code never blocks a sale).
 */
export async function attributedLink(db: Executor, merchant: Scope, productIds: string[], clicks: Click[], now = new Date(), couponLinkId: string | null = null): Promise<string | null> {
  if (couponLinkId && productIds.length) {
    const coupon = await liveLinks(db, merchant, productIds).select('l.id').where('l.id', '=', couponLinkId).executeTakeFirst();
    if (coupon) return coupon.id;
  }
  const codes = [...new Set(clicks.map((c) => c.code))];
  if (!codes.length || !productIds.length) return null;
  const links = await liveLinks(db, merchant, productIds)
    .select(['l.id', 'l.code', 'ap.id as program_id', 'ap.cookie_days', 'ap.attribution'])
    .where('l.code', 'in', codes)
    .orderBy('ap.created_at')
    .execute();
  if (!links.length) return null;
  // A cart of several products with programs: the first program's rule decides (one commission per sale).
  const program = links[0]!;
  const theirs = links.filter((l) => l.program_id === program.program_id);
  const winner = chooseClick(
    clicks.filter((c) => theirs.some((l) => l.code === c.code)),
    { cookieDays: program.cookie_days, attribution: program.attribution },
    Math.floor(now.getTime() / 1000),
  );
  return winner ? theirs.find((l) => l.code === winner.code)!.id : null;
}

/** ACTIVE links of ACTIVE, live programs of the merchant on one of these products: those that can earn on a sale. */
function liveLinks(db: Executor, merchant: Scope, productIds: string[]) {
  return db
    .selectFrom('affiliate_links as l')
    .innerJoin('affiliate_programs as ap', 'ap.id', 'l.program_id')
    .where('l.status', '=', 'ACTIVE')
    .where('ap.user_id', '=', merchant.userId)
    .where('ap.livemode', '=', merchant.livemode)
    .where('ap.status', '=', 'ACTIVE')
    .where('ap.deleted_at', 'is', null)
    .where('ap.product_id', 'in', productIds);
}
