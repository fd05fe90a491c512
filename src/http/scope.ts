import type { SelectQueryBuilder, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Executor } from '../db/index.ts';
import type { DB } from '../db/types.ts';

/** The tenant a request acts for: one merchant, one environment. Every merchant query filters by both. */
export interface Scope {
  userId: string;
  livemode: boolean;
}

/** Escapes LIKE wildcards in user search text. */
export const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => '\\' + c)}%`;

// biome-ignore lint/complexity/noBannedTypes: Kysely's own type for a query that selects nothing yet
type NothingSelected = {};

/** Merchant-owned tables whose rows are archived (deleted_at) rather than deleted. */
export type ArchivableTable = 'products' | 'clients' | 'coupons' | 'payment_links' | 'webhook_subscriptions';

/**
 * Rows of `table` this scope owns (merchant and environment), archived ones left out unless
 * `archived`: the filter every read of those tables starts with (another merchant's or
 * environment's row is then a 404).
 */
export function owned<T extends ArchivableTable>(db: Executor, table: T, scope: Scope, { archived = false } = {}): SelectQueryBuilder<DB, T, NothingSelected> {
  const q = db.selectFrom(table as ArchivableTable).where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  return (archived ? q : q.where('deleted_at', 'is', null)) as unknown as SelectQueryBuilder<DB, T, NothingSelected>;
}

/**
 * An UPDATE of one row of `table` this scope owns (merchant, environment, id), archived rows left
 * out: no row matched means another merchant's, another environment's, an archived or an unknown id.
 */
export function ownedUpdate<T extends ArchivableTable>(db: Executor, table: T, scope: Scope, id: string): UpdateQueryBuilder<DB, T, T, UpdateResult> {
  const q = db
    .updateTable(table as ArchivableTable)
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('id', '=', id)
    .where('deleted_at', 'is', null);
  return q as unknown as UpdateQueryBuilder<DB, T, T, UpdateResult>;
}
