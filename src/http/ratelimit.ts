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

/**
 * Counters in Redis, shared by every instance. While Redis cannot answer (restarting, unreachable)
 * each instance counts in its own memory instead: the limits hold per process for that while, and
 * an outage of Redis is not an outage of the API (every request would otherwise fail).
 */
export class RedisLimiter implements RateLimiter {
  private redis: Redis;
  private prefix: string;
  private local = new MemoryLimiter();
  private connected = false;
  constructor(url: string, prefix = 'cofre:rl:') {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.on('error', () => {}); // surfaced through the failing command
    this.redis.once('ready', () => (this.connected = true));
    this.prefix = prefix;
  }

  /** `shared()`, or the same count in this process's memory while Redis is not connected or fails. */
  private async either<T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    // Lost after it was up: no request waits on the reconnections (at start, the first connection is waited for).
    if (this.connected && this.redis.status !== 'ready') return local();
    try {
      return await shared();
    } catch {
      return local();
    }
  }

  hit(key: string, windowMs: number): Promise<Hit> {
    const k = this.prefix + key;
    return this.either(
      async () => {
        const res = await this.redis.multi().incr(k).pexpire(k, windowMs, 'NX').pttl(k).exec();
        if (!res || res.some(([err]) => err)) throw new Error('rate limiter transaction failed');
        const ttl = Number(res[2][1]);
        return { count: Number(res[0][1]), resetMs: ttl > 0 ? ttl : windowMs };
      },
      () => this.local.hit(key, windowMs),
    );
  }

  peek(key: string): Promise<Hit> {
    const k = this.prefix + key;
    return this.either(
      async () => {
        const res = await this.redis.multi().get(k).pttl(k).exec();
        if (!res || res.some(([err]) => err)) throw new Error('rate limiter transaction failed');
        return { count: Number(res[0][1] ?? 0), resetMs: Math.max(Number(res[1][1]), 0) };
      },
      () => this.local.peek(key),
    );
  }

  release(key: string): Promise<void> {
    // One round trip, atomic: DECR only a live counter above zero (an expired one stays gone).
    const script = "local v = redis.call('GET', KEYS[1]) if v and tonumber(v) > 0 then redis.call('DECR', KEYS[1]) end return 0";
    return this.either(
      async () => void (await this.redis.eval(script, 1, this.prefix + key)),
      () => this.local.release(key),
    );
  }

  reset(key: string): Promise<void> {
    return this.either(
      async () => void (await this.redis.del(this.prefix + key)),
      () => this.local.reset(key),
    );
  }

  async close() {
    await this.local.close();
    // QUIT waits for a connection: while Redis is away, just drop the reconnection attempts.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => {});
    else this.redis.disconnect();
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
