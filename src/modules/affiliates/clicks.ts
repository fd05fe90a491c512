// Clicks on promotion URLs, counted off the page's path: the hosted page only notes the click in
// memory; a flush a second later writes the batch in one statement, counting a link's click once per
// visitor IP and hour (a keyed hash of the IP, never the IP itself).
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import type { Logger } from 'pino';

const HOUR_MS = 3_600_000;
const FLUSH_MS = 1000;
/** Clicks held between flushes at most (a flood is not allowed to grow memory). */
const MAX_PENDING = 10_000;
/** Visitor addresses whose keyed hash is remembered (the HMAC was most of a click's cost). */
const MAX_HASHES = 10_000;

export class ClickCounter {
  private pending = new Map<string, { code: string; ipHash: string; hour: Date }>();
  private hashes = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private db: Executor;
  private secret: string;
  private log: Logger;
  constructor(db: Executor, secret: string, log: Logger) {
    this.db = db;
    this.secret = secret;
    this.log = log;
  }

  /** Notes a click; returns at once. */
  add(code: string, ip: string, now = new Date()): void {
    const ipHash = this.ipHash(ip);
    const hour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
    const key = `${code}|${ipHash}|${hour.getTime()}`;
    if (this.pending.size >= MAX_PENDING && !this.pending.has(key)) return;
    this.pending.set(key, { code, ipHash, hour });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  private ipHash(ip: string): string {
    let hash = this.hashes.get(ip);
    if (hash === undefined) {
      if (this.hashes.size >= MAX_HASHES) this.hashes.clear();
      hash = createHmac('sha256', this.secret).update(ip).digest('base64url').slice(0, 22);
      this.hashes.set(ip, hash);
    }
    return hash;
  }

  /** Writes the clicks noted so far (also on shutdown). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.pending.values()];
    this.pending.clear();
    if (!batch.length) return this.flushing;
    this.flushing = this.flushing.then(() => this.write(batch)).catch((err) => this.log.error({ err, clicks: batch.length }, 'affiliate clicks not recorded'));
    return this.flushing;
  }

  private async write(batch: { code: string; ipHash: string; hour: Date }[]) {
    const values = sql.join(batch.map((c) => sql`(${c.code}::text, ${c.ipHash}::text, ${c.hour}::timestamptz)`));
    await sql`
      WITH v (code, ip_hash, hour) AS (VALUES ${values}),
      ins AS (
        INSERT INTO affiliate_clicks (link_id, ip_hash, hour)
        SELECT l.id, v.ip_hash, v.hour FROM v JOIN affiliate_links l ON l.code = v.code
        ON CONFLICT DO NOTHING
        RETURNING link_id
      )
      UPDATE affiliate_links SET clicks = clicks + c.n
      FROM (SELECT link_id, count(*)::int AS n FROM ins GROUP BY link_id) c
      WHERE affiliate_links.id = c.link_id`.execute(this.db);
  }
}

/** Drops counted clicks of past hours (they only serve the once-per-hour rule); returns how many. */
export async function purgeClicks(db: Executor, now: Date): Promise<number> {
  const res = await db.deleteFrom('affiliate_clicks').where('hour', '<', new Date(now.getTime() - HOUR_MS)).executeTakeFirst();
  return Number(res.numDeletedRows);
}
