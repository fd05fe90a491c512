// Page-style and cursor-style (keyset) pagination helpers.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors.ts';

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

/**
 * Opaque, tamper-evident cursors: base64url(JSON) + "." + truncated HMAC-SHA256.
 * A cursor that was altered, made for another order, or not made by us is a 400 INVALID_CURSOR.
 */
export class Cursors {
  private secret: string;
  constructor(secret: string) {
    this.secret = secret;
  }

  private mac(body: string) {
    return createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 22);
  }

  encode(state: CursorState): string {
    const body = Buffer.from(JSON.stringify([state.order, state.value, state.id])).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  decode(cursor: string, order: string): CursorState {
    const invalid = () => badRequest('INVALID_CURSOR', 'Invalid cursor', [{ field: 'cursor', message: 'is not a cursor returned by this list' }]);
    const [body, mac] = cursor.split('.');
    if (!body || !mac) throw invalid();
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(parsed) || parsed.length !== 3) throw invalid();
    const [o, value, id] = parsed as [unknown, unknown, unknown];
    if (o !== order) throw badRequest('INVALID_CURSOR', 'Cursor belongs to another ordering', [{ field: 'cursor', message: `was made for ${String(o)}, not ${order}` }]);
    if ((typeof value !== 'string' && typeof value !== 'number') || typeof id !== 'string') throw invalid();
    return { order, value, id };
  }
}
