// Fixed-window counters behind one small interface: in memory for a single instance,
// Redis when REDIS_URL is set so every API instance shares the same limits.
import { Redis } from 'ioredis';
import { tooManyRequests } from './errors.ts';

export interface Hit {
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimiter {
  /** Counts one hit on key within a window of windowMs; returns the count so far. */
  hit(key: string, windowMs: number): Promise<Hit>;
  /** Current count without adding a hit. */
  peek(key: string): Promise<Hit>;
  /** Takes back one hit counted in the current window (never below zero); nothing once it reset. */
  release(key: string): Promise<void>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryLimiter implements RateLimiter {
  private windows = new Map<string, { count: number; resetAt: number }>();
  private sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }, 60_000).unref();

  async hit(key: string, windowMs: number): Promise<Hit> {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetMs: w.resetAt - now };
  }

  async peek(key: string): Promise<Hit> {
    const now = Date.now();
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) return { count: 0, resetMs: 0 };
    return { count: w.count, resetMs: w.resetAt - now };
  }

  async release(key: string) {
    const w = this.windows.get(key);
    if (w && w.resetAt > Date.now() && w.count > 0) w.count--;
  }

  async reset(key: string) {
    this.windows.delete(key);
  }

  async close() {
    clearInterval(this.sweep);
  }
}

export class RedisLimiter implements RateLimiter {
  private redis: Redis;
  private prefix: string;
  constructor(url: string, prefix = 'cofre:rl:') {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.on('error', () => {}); // surfaced through the failing command
    this.prefix = prefix;
  }

  async hit(key: string, windowMs: number): Promise<Hit> {
    const k = this.prefix + key;
    const res = await this.redis.multi().incr(k).pexpire(k, windowMs, 'NX').pttl(k).exec();
    if (!res) throw new Error('rate limiter transaction aborted');
    const count = Number(res[0][1]);
    const ttl = Number(res[2][1]);
    return { count, resetMs: ttl > 0 ? ttl : windowMs };
  }

  async peek(key: string): Promise<Hit> {
    const k = this.prefix + key;
    const res = await this.redis.multi().get(k).pttl(k).exec();
    if (!res) throw new Error('rate limiter transaction aborted');
    const count = Number(res[0][1] ?? 0);
    const ttl = Number(res[1][1]);
    return { count, resetMs: Math.max(ttl, 0) };
  }

  async release(key: string) {
    // One round trip, atomic: DECR only a live counter above zero (an expired one stays gone).
    await this.redis.eval("local v = redis.call('GET', KEYS[1]) if v and tonumber(v) > 0 then redis.call('DECR', KEYS[1]) end return 0", 1, this.prefix + key);
  }

  async reset(key: string) {
    await this.redis.del(this.prefix + key);
  }

  async close() {
    await this.redis.quit().catch(() => {});
  }
}

export function createLimiter(redisUrl: string | null, prefix?: string): RateLimiter {
  return redisUrl ? new RedisLimiter(redisUrl, prefix) : new MemoryLimiter();
}

/** Counts one hit on `key`; past `max` in the window, 429 with `message` (Retry-After, RateLimit-*). */
export async function enforce(limiter: RateLimiter, key: string, windowMs: number, max: number, message: string): Promise<Hit> {
  const hit = await limiter.hit(key, windowMs);
  if (hit.count > max) throw tooManyRequests(message, hit.resetMs, max);
  return hit;
}
