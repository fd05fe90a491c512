// Who a split may pay, checked when a rule is saved (a link, a checkout, a plan) or a sale names one:
// the merchant's own sub-accounts, its platform (when it is a sub-account) and the partners that
// accepted its invitation, never its own wallet nor one that did not agree. The recipients'
// merchants are resolved once, onto the sale.
import type { Executor } from '../../db/index.ts';
import { SharedReads } from '../../db/shared-reads.ts';
import type { SplitRule, TransactionSplitRule } from '../../db/types.ts';
import { badRequest, validation } from '../../http/errors.ts';
import { ruleProblem } from '../../payments/splits.ts';
import { assertRuleFits } from '../transactions/draft.ts';

/**
 * Recipients found allowed, kept by the process for RECIPIENT_CACHE_MS so that a sale's split costs
 * no read of its own: a partnership ended or a sub-account moved stops new splits at once on the
 * process that made the change (forgetRecipients) and within that time on the others. Refusals are
 * never kept: a partner that just accepted can be paid at once.
 */
export const RECIPIENT_CACHE_MS = 10_000;
const allowed = new Map<string, { userId: string; at: number }>();

/** Forgets what the cache knows of a merchant's recipients (a partnership or a sub-account changed). */
export function forgetRecipients(merchantId: string): void {
  sharedReads.changed();
  for (const key of allowed.keys()) if (key.startsWith(`${merchantId}:`)) allowed.delete(key);
}

/** Reads under way, shared by the sales that missed the cache meanwhile; forgetRecipients ends their sharing. */
const sharedReads = new SharedReads<Map<string, string>>();

/** The merchants behind these wallets that `merchantId` may pay shares to (see above), by wallet id. */
export async function allowedRecipients(db: Executor, merchantId: string, walletIds: string[]): Promise<Map<string, string>> {
  const now = Date.now();
  const out = new Map<string, string>();
  const missing = walletIds.filter((w) => {
    const hit = allowed.get(`${merchantId}:${w}`);
    if (hit && hit.at > now - RECIPIENT_CACHE_MS) out.set(w, hit.userId);
    return !out.has(w);
  });
  if (!missing.length) return out;
  // Outside a transaction, the requests that miss together (every RECIPIENT_CACHE_MS, under load)
  // share one read of the same wallets.
  const read = (current: () => boolean) => readAllowed(db, merchantId, missing, now, current);
  const found = db.isTransaction ? await read(sharedReads.watch()) : await sharedReads.run(`${merchantId}:${[...missing].sort().join(',')}`, read);
  for (const [w, id] of found) out.set(w, id);
  return out;
}

/** The allowed among `wallets`, read and kept (refusals are not). */
async function readAllowed(db: Executor, merchantId: string, wallets: string[], now: number, current: () => boolean): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('users as u')
    .select(['u.id', 'u.wallet_id'])
    .where('u.wallet_id', 'in', wallets)
    .where('u.id', '<>', merchantId)
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('sub_accounts as s').select('s.user_id').whereRef('s.user_id', '=', 'u.id').where('s.platform_id', '=', merchantId)),
        // A sub-account's own platform: a marketplace's commission on its sellers' sales.
        eb.exists(eb.selectFrom('sub_accounts as s').select('s.user_id').whereRef('s.platform_id', '=', 'u.id').where('s.user_id', '=', merchantId)),
        eb.exists(eb.selectFrom('split_partners as p').select('p.id').whereRef('p.partner_id', '=', 'u.id').where('p.user_id', '=', merchantId).where('p.status', '=', 'ACCEPTED')),
      ]),
    )
    .execute();
  if (allowed.size > 100_000) allowed.clear();
  if (current()) for (const r of rows) allowed.set(`${merchantId}:${r.wallet_id}`, { userId: r.id, at: now });
  return new Map(rows.map((r) => [r.wallet_id, r.id]));
}

/**
 * A rule checked and its recipients resolved. `strict` (a rule being saved, or sent with a sale):
 * a wallet that may not receive is a 400 on its field. Not strict (a stored rule applied to a sale):
 * it is left out and its share stays with the seller (a partner that left since the rule was saved).
 */
export async function resolveSplit(db: Executor, merchantId: string, rule: SplitRule | null | undefined, strict: boolean, field = 'split'): Promise<TransactionSplitRule | null> {
  if (!rule?.length) return null;
  const problem = ruleProblem(rule);
  if (problem) throw validation(problem.field.replace(/^split/, field), problem.message);
  const wallets = rule.map((r) => r.walletId.toLowerCase());
  const allowed = await allowedRecipients(db, merchantId, wallets);
  const out: TransactionSplitRule = [];
  for (const [i, r] of rule.entries()) {
    const userId = allowed.get(wallets[i]);
    if (userId) out.push({ ...r, walletId: wallets[i], userId });
    else if (strict) {
      throw badRequest('SPLIT_RECIPIENT_NOT_ALLOWED', 'A split may only pay your sub-accounts, your platform, and partners who accepted your invitation', [
        { field: `${field}.${i}.walletId`, message: 'is not your sub-account, your platform, nor a partner who accepted (POST /api/v1/split-partners)' },
      ]);
    }
  }
  return out.length ? out : null;
}

/**
 * A split rule given to save on a link, a checkout or a plan, checked (its recipients allowed now,
 * its shares within `totalCents` when the price is known) and as its column stores it:
 * undefined = not given (unchanged), null = cleared (`null` or `[]`).
 */
export async function splitToSave(db: Executor, merchantId: string, rule: SplitRule | null | undefined, totalCents?: number | null): Promise<string | null | undefined> {
  if (rule === undefined) return undefined;
  if (rule === null || !rule.length) return null;
  const resolved = await resolveSplit(db, merchantId, rule, true);
  if (totalCents) assertRuleFits(rule, { chargedCents: totalCents, feeCents: 0 });
  return JSON.stringify(resolved!.map(({ userId: _, ...r }) => r));
}

/** A stored rule as the API shows it (null: no split). */
export const splitView = (rule: SplitRule | null): SplitRule | null => (rule?.length ? rule : null);
