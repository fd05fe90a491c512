// The webhook dispatcher: claims due deliveries and sends them with bounded concurrency.
//
// Wake-ups: LISTEN cofre_webhooks (NOTIFY is sent by the enqueueing transaction and delivered on
// its commit, on PostgreSQL and PGlite alike), a local timer for the retries this process scheduled,
// an immediate re-claim while batches come back full or a slot frees under backlog, and a slow
// safety poll (WEBHOOK_POLL_MS) for everything else (retries scheduled by other processes, a lost
// LISTEN connection). Any number of dispatchers share the table: claims use FOR UPDATE SKIP LOCKED
// and a lease (locked_until) that outlives the attempt's deadline, so a delivery is never attempted
// by two workers at once, and one whose worker died is claimed again when its lease runs out.
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, type WebhookConfig } from '../../config.ts';
import type { Database, Db } from '../../db/index.ts';
import { attempt, claimDue, recordOutcomes, type ClaimedDelivery, type Outcome, type RecordedAttempt } from './deliveries.ts';
import { NOTIFY_CHANNEL } from './enqueue.ts';
import type { WebhookSender } from './sender.ts';

const MAX_BATCH = 100;

interface Pending {
  outcome: Outcome;
  resolve: (r: RecordedAttempt | null) => void;
  reject: (err: unknown) => void;
}

/**
 * Outcomes that finish in the same turn of the event loop are written together, in one statement
 * and one commit (setImmediate: no added delay when idle, natural batches under load).
 */
class OutcomeBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private flushing = new Set<Promise<void>>();
  private write: (outcomes: Outcome[]) => Promise<(RecordedAttempt | null)[]>;
  constructor(write: (outcomes: Outcome[]) => Promise<(RecordedAttempt | null)[]>) {
    this.write = write;
  }

  add(outcome: Outcome): Promise<RecordedAttempt | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ outcome, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush() {
    this.scheduled = false;
    const batch = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (!batch.length) return;
    const p = this.writeWithRetry(batch.map((b) => b.outcome)).then(
      (results) => batch.forEach((b, i) => b.resolve(results[i])),
      (err) => batch.forEach((b) => b.reject(err)),
    );
    this.flushing.add(p);
    void p.finally(() => this.flushing.delete(p));
  }

  /** One retry (a deadlock between two batches touching the same subscriptions, a dropped connection): the statement is all or nothing. */
  private async writeWithRetry(outcomes: Outcome[]) {
    try {
      return await this.write(outcomes);
    } catch {
      return this.write(outcomes);
    }
  }

  async drain() {
    while (this.queue.length || this.flushing.size) {
      if (this.queue.length) this.flush();
      await Promise.allSettled([...this.flushing]);
    }
  }
}

export interface DispatcherOptions {
  db: Db;
  /** For LISTEN; without it the dispatcher polls only. */
  database?: Pick<Database, 'listen'>;
  config: WebhookConfig;
  sender: WebhookSender;
  log: FastifyBaseLogger;
}

export class WebhookDispatcher {
  private opts: DispatcherOptions;
  private running = false;
  private loop: Promise<void> | null = null;
  private inflight = new Set<Promise<void>>();
  private wakeUp: (() => void) | null = null;
  /** A wake-up arrived since the last claim started. */
  private woken = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryAt = Infinity;
  private unlisten: (() => Promise<void>) | null = null;
  private slotWaiter: (() => void) | null = null;
  /** Counters since start (bench, tests, logs). */
  readonly stats = { claimed: 0, succeeded: 0, failed: 0, fenced: 0 };
  private batcher: OutcomeBatcher;

  constructor(opts: DispatcherOptions) {
    this.opts = opts;
    this.batcher = new OutcomeBatcher((outcomes) => recordOutcomes(opts.db, opts.config, outcomes));
  }

  get isRunning() {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.opts.database) {
      try {
        this.unlisten = await this.opts.database.listen(NOTIFY_CHANNEL, () => this.wake());
      } catch (err) {
        if (err instanceof ConfigError) throw err; // LISTEN through a pooler that cannot carry it: refuse to start
        this.opts.log.warn({ err }, 'webhooks: LISTEN failed; falling back to polling');
      }
    }
    this.loop = this.run();
  }

  /** Asks for a claim now (new work may be due). Cheap and coalescing: call it freely. */
  wake() {
    this.woken = true;
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
    if (this.slotWaiter && this.inflight.size < this.opts.config.concurrency) {
      const s = this.slotWaiter;
      this.slotWaiter = null;
      s();
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async run() {
    const { config, log } = this.opts;
    // Under backlog, claim again once a quarter of the slots are free (not one claim per freed slot).
    const refill = Math.max(1, Math.ceil(config.concurrency / 4));
    while (this.running) {
      const free = config.concurrency - this.inflight.size;
      // Full, or nearly full with nothing new announced: wait for slots to free up. A wake-up
      // (a committed event) is served as soon as there is any free slot, for latency.
      if (free === 0 || (free < refill && !this.woken)) {
        await this.slotFreed();
        continue;
      }
      this.woken = false;
      const want = Math.min(free, MAX_BATCH);
      let batch: ClaimedDelivery[] = [];
      try {
        batch = await claimDue(this.opts.db, want, config.lockMs);
      } catch (err) {
        if (!this.running) break;
        log.error({ err }, 'webhooks: claim failed');
        await this.sleep(config.pollMs);
        continue;
      }
      this.stats.claimed += batch.length;
      for (const d of batch) this.launch(d);
      if (batch.length === want) continue; // a full batch: more may be due
      if (!this.running) break;
      await this.sleep(config.pollMs);
    }
  }

  private slotFreed(): Promise<void> {
    return new Promise((resolve) => {
      this.slotWaiter = resolve;
    });
  }

  private launch(d: ClaimedDelivery) {
    const { db, config, sender, log } = this.opts;
    const p: Promise<void> = attempt({ db, config, sender, record: (o) => this.batcher.add(o) }, d, 'scheduled')
      .then((recorded) => {
        if (!recorded) {
          this.stats.fenced++;
          log.warn({ deliveryId: d.id, attempt: d.attempts }, 'webhooks: lease lost before the outcome was recorded; the delivery will be attempted again');
          return;
        }
        if (recorded.delivery.status === 'SUCCEEDED') this.stats.succeeded++;
        else this.stats.failed++;
        if (recorded.subscriptionStatus === 'DISABLED') log.warn({ subscriptionId: d.subscription_id }, 'webhooks: subscription disabled');
        if (recorded.delivery.status === 'PENDING') this.scheduleRetryWake(recorded.delivery.next_attempt_at);
      })
      .catch((err) => {
        // The lease runs out and another claim retries it: at least once, never lost.
        log.error({ err, deliveryId: d.id }, 'webhooks: attempt failed unexpectedly');
      })
      .finally(() => {
        this.inflight.delete(p);
        const w = this.slotWaiter;
        if (w && this.opts.config.concurrency - this.inflight.size >= Math.max(1, Math.ceil(this.opts.config.concurrency / 4))) {
          this.slotWaiter = null;
          w();
        }
      });
    this.inflight.add(p);
  }

  /** Wakes at the earliest retry this process scheduled (others' retries come with the poll). */
  private scheduleRetryWake(at: Date) {
    const t = at.getTime();
    if (!this.running || t >= this.retryAt) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryAt = t;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retryAt = Infinity;
      this.wake();
    }, Math.max(0, t - Date.now()) + 5);
  }

  /** Stops claiming, lets attempts in flight finish (each is bounded by WEBHOOK_TIMEOUT_MS), stops listening. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.wake();
    const w = this.slotWaiter;
    this.slotWaiter = null;
    w?.();
    await this.loop;
    await Promise.allSettled([...this.inflight]);
    await this.batcher.drain();
    if (this.unlisten) await this.unlisten().catch(() => {});
    this.unlisten = null;
  }
}
