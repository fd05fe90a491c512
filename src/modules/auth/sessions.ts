// A merchant's dashboard sessions: listed with where they were opened (device, address) and when last
// used, and ended one by one or all but the current one. A token is checked against its session row
// on every request (http/auth.ts), so an ended session is refused at once on every instance.
import type { Executor } from '../../db/index.ts';
import { notFound } from '../../http/errors.ts';

const BROWSERS: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Chrome · Windows" from a User-Agent; what is not recognised is left out. */
export function deviceOf(userAgent: string | null): string {
  if (!userAgent) return 'Desconhecido';
  const browser = BROWSERS.find(([re]) => re.test(userAgent))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  const parts = [browser, system].filter(Boolean);
  return parts.length ? parts.join(' · ') : userAgent.slice(0, 60);
}

/** The live sessions (not ended, not expired), most recently used first; the current one marked. */
export async function listSessions(db: Executor, userId: string, currentId: string | null, now = new Date()) {
  const rows = await db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('last_used_at', 'desc')
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    current: r.id === currentId,
    device: deviceOf(r.user_agent),
    userAgent: r.user_agent,
    ip: r.ip,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at ?? r.created_at,
    expiresAt: r.expires_at,
  }));
}

/** Ends one of the user's live sessions; 404 for another user's, an unknown or an ended one. */
export async function revokeSession(db: Executor, userId: string, id: string, now = new Date()): Promise<void> {
  const done = await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  if (!done) throw notFound('Session');
}

/** Ends every live session of the user but `keepId` (none kept when null); returns how many. */
export async function revokeSessions(db: Executor, userId: string, keepId: string | null, now = new Date()): Promise<number> {
  let q = db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (keepId) q = q.where('id', '!=', keepId);
  const rows = await q.returning('id').execute();
  return rows.length;
}
