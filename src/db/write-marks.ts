// Read-your-writes across processes (db/read-router.ts): when a merchant's write is answered by one
// API process, its next list may reach another one behind the load balancer. Each write's time is
// kept in Redis (REDIS_URL) for as long as it can matter, and a process about to read the replica
// for that merchant asks for it. Without Redis the marks stay in each process.
import { Redis } from 'ioredis';

export interface WriteMarks {
  /** Records that `userId` wrote at `at` (epoch ms); kept at least `ttlMs`. */
  mark(userId: string, at: number): Promise<void>;
  /** The latest write time recorded for `userId` within its ttl, or null. */
  latest(userId: string): Promise<number | null>;
  close(): Promise<void>;
}

// Keeps the larger time: two writes answered together may reach Redis in either order.
const KEEP_MAX = "local v = redis.call('GET', KEYS[1]) if (not v) or tonumber(v) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end return 0";

export class RedisWriteMarks implements WriteMarks {
  private readonly redis: Redis;
  private readonly ttlMs: number;
  private readonly prefix: string;
  constructor(url: string, ttlMs: number, prefix = 'cofre:rw:') {
    // No offline queue: a mark or a look-up that cannot be made now fails at once (the router then reads the primary).
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    this.redis.on('error', () => {}); // surfaced through the failing command
    this.redis.defineCommand('keepMax', { numberOfKeys: 1, lua: KEEP_MAX });
    this.ttlMs = ttlMs;
    this.prefix = prefix;
  }

  async mark(userId: string, at: number): Promise<void> {
    await (this.redis as unknown as { keepMax(key: string, at: number, ttl: number): Promise<unknown> }).keepMax(this.prefix + userId, Math.ceil(at), this.ttlMs);
  }

  async latest(userId: string): Promise<number | null> {
    const v = await this.redis.get(this.prefix + userId);
    return v === null ? null : Number(v);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => {});
  }
}
