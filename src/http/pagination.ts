// Page-style and cursor-style (keyset) pagination helpers.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SelectQueryBuilder } from 'kysely';
import { badRequest } from './errors.ts';
import type { Scope } from './scope.ts';

export interface PageInfo {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export function pageInfo(page: number, limit: number, total: number): PageInfo {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

/** What a keyset cursor remembers: the sort value and id of the last row, and the order it belongs to. */
export interface CursorState {
  order: string; // e.g. "createdAt:desc"; a cursor is refused under another order
  value: string | number;
  id: string;
}

/** 400 INVALID_CURSOR: the cursor was not made by this list for this caller (or not by us at all). */
const invalidCursor = () => badRequest('INVALID_CURSOR', 'Invalid cursor', [{ field: 'querystring.cursor', message: 'is not a cursor returned by this list' }]);

/**
 * Opaque, tamper-evident cursors: base64url(JSON) + "." + truncated HMAC-SHA256. Each list of each
 * tenant signs its own (`of`): a cursor that was altered, made by another list or for another
 * merchant or environment, or for another order, is a 400 INVALID_CURSOR.
 */
export class Cursors {
  private secret: string;
  constructor(secret: string) {
    this.secret = secret;
  }

  /** The cursors of one list (its name, e.g. "transactions") as one tenant reads it. */
  of(list: string, scope: Scope): ListCursors {
    return new ListCursors(this.secret, `${list}\n${scope.userId}\n${scope.livemode}\n`);
  }
}

export class ListCursors {
  private readonly secret: string;
  /** The list and tenant, signed with every cursor's body (not carried in it). */
  private readonly context: string;
  constructor(secret: string, context: string) {
    this.secret = secret;
    this.context = context;
  }

  private mac(body: string) {
    return createHmac('sha256', this.secret).update(this.context).update(body).digest('base64url').slice(0, 22);
  }

  encode(state: CursorState): string {
    const body = Buffer.from(JSON.stringify([state.order, state.value, state.id])).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  decode(cursor: string, order: string): CursorState {
    const [body, mac] = cursor.split('.');
    if (!body || !mac) throw invalidCursor();
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidCursor();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    if (!Array.isArray(parsed) || parsed.length !== 3) throw invalidCursor();
    const [o, value, id] = parsed as [unknown, unknown, unknown];
    if (o !== order) throw badRequest('INVALID_CURSOR', 'Cursor belongs to another ordering', [{ field: 'querystring.cursor', message: `was made for ${String(o)}, not ${order}` }]);
    if ((typeof value !== 'string' && typeof value !== 'number') || typeof id !== 'string') throw invalidCursor();
    return { order, value, id };
  }
}

export interface CursorPageInfo {
  limit: number;
  cursor: string | null;
  hasMore: boolean;
  nextCursor: string | null;
}

export interface KeysetOptions<R> {
  /** Name of the ordering as the API shows it (e.g. createdAt): cursors are bound to it and the direction. */
  by: string;
  /** SQL column sorted on, with the id as tie-breaker. */
  column: string;
  idColumn?: string;
  direction: 'asc' | 'desc';
  limit: number;
  cursor?: string;
  /** The sort value of a row; a Date is carried in the cursor as ISO 8601. */
  value: (row: R) => Date | string | number;
  timestamp?: boolean;
}

/**
 * One page of a keyset (seek) list ordered by (column, id): `base` is the tenant-filtered query.
 * Fetches one row more than asked to know whether another page follows.
 */
export async function keysetPage<R extends { id: string }>(
  cursors: ListCursors,
  base: SelectQueryBuilder<any, any, R>,
  o: KeysetOptions<R>,
): Promise<{ rows: R[]; pagination: CursorPageInfo }> {
  const order = `${o.by}:${o.direction}`;
  const idColumn = o.idColumn ?? 'id';
  let query = base;
  if (o.cursor) {
    const c = cursors.decode(o.cursor, order);
    let value: unknown = c.value;
    if (o.timestamp) {
      value = new Date(String(c.value));
      if (Number.isNaN((value as Date).getTime())) throw invalidCursor();
    }
    query = query.where((eb) => eb(eb.refTuple(o.column as any, idColumn as any), o.direction === 'desc' ? '<' : '>', eb.tuple(value as any, c.id)));
  }
  const rows = (await query.orderBy(o.column as any, o.direction).orderBy(idColumn as any, o.direction).limit(o.limit + 1).execute()) as R[];
  const hasMore = rows.length > o.limit;
  const page = hasMore ? rows.slice(0, o.limit) : rows;
  const last = page[page.length - 1];
  let nextCursor: string | null = null;
  if (hasMore && last) {
    const v = o.value(last);
    nextCursor = cursors.encode({ order, value: v instanceof Date ? v.toISOString() : v, id: last.id });
  }
  return { rows: page, pagination: { limit: o.limit, cursor: o.cursor ?? null, hasMore, nextCursor } };
}

/** What a cursor list's query string gives (CursorQuery in schemas.ts). */
export interface CursorPageQuery {
  limit: number;
  cursor?: string;
  orderDirection?: 'asc' | 'desc';
}

/**
 * The usual cursor list: ordered by creation time (newest first unless the query says asc), with
 * the id as tie-breaker. `column`/`idColumn` name them when the query joins tables.
 */
export function createdAtPage<R extends { id: string; created_at: Date }>(
  cursors: ListCursors,
  base: SelectQueryBuilder<any, any, R>,
  q: CursorPageQuery,
  columns: { column?: string; idColumn?: string } = {},
): Promise<{ rows: R[]; pagination: CursorPageInfo }> {
  return keysetPage(cursors, base, {
    by: 'createdAt',
    column: columns.column ?? 'created_at',
    idColumn: columns.idColumn,
    direction: q.orderDirection ?? 'desc',
    limit: q.limit,
    cursor: q.cursor,
    value: (r) => r.created_at,
    timestamp: true,
  });
}
