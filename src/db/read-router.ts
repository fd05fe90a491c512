// Which database a read that may be a little stale goes to: the streaming replica or the primary
// (docs/decisions.md, "Reads from a streaming replica"). Pure bookkeeping, fed by the probe of
// db/replica.ts; the routes ask it per request with `reads.for(req.auth)`.
import type { Db } from './index.ts';
import type { WriteMarks } from './write-marks.ts';

/** How far two machines' clocks may differ when one's write time is compared with another's probe (NTP keeps it to milliseconds). */
const CLOCK_SKEW_MS = 100;

/** What one probe saw: the primary's insert position, then the replica's replay position. */
export type ProbeSample =
  | { startedAt: number; primaryLsn: bigint; replayLsn: bigint | null }
  | { startedAt: number; error: string };

export interface ReadStatus {
  /** 'off': no replica configured; 'up': the probe reaches a standby; 'down': it does not. */
  replica: 'off' | 'up' | 'down';
  /** An upper bound of how far behind the replica is (ms), null until a probe has seen it replay. */
  stalenessMs: number | null;
  /** Whether reads that may use the replica do now (up and within the bound). */
  inUse: boolean;
  reason: string;
}

/** "0/3000060" -> its byte position. */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split('/');
  if (lo === undefined) throw new Error(`not an LSN: ${text}`);
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/**
 * The choice, per merchant. The replica is behind by at most `now - safeBefore`: safeBefore is the
 * start of the latest probe whose primary position the replica has replayed, so everything
 * committed before it is on the replica. That bound has to stay within maxLagMs; and a merchant
 * who wrote at or after safeBefore (its own write may not be there yet) reads the primary.
 */
export class ReadRouter {
  readonly primary: Db;
  readonly replica: Db | null;
  readonly maxLagMs: number;
  private readonly now: () => number;
  private up = false;
  private reason = 'no probe yet';
  private safeBefore = Number.NEGATIVE_INFINITY;
  /** Probes whose primary position the replica had not replayed when last seen, oldest first. */
  private pending: { at: number; lsn: bigint }[] = [];
  /** Each merchant's latest write through this process (monotonic ms), while it may not be on the replica. */
  private readonly writes = new Map<string, number>();

  private starter: (() => void) | undefined;
  /** Other processes' write times (Redis), when shared; and when asking for them last failed. */
  private shared: WriteMarks | undefined;
  private sharedFailedAt = Number.NEGATIVE_INFINITY;

  /** `start` begins the probe (db/replica.ts), once, when start() is first called. */
  constructor(primary: Db, replica: Db | null, maxLagMs: number, start?: () => void, now: () => number = () => performance.now()) {
    this.primary = primary;
    this.replica = replica;
    this.maxLagMs = maxLagMs;
    this.starter = start;
    this.now = now;
  }

  /** Starts probing the replica (the HTTP app does; until then every read is the primary's). */
  start(): void {
    const start = this.starter;
    this.starter = undefined;
    start?.();
  }

  /** Write times shared with the other processes (db/write-marks.ts): read-your-writes across them. */
  share(marks: WriteMarks): void {
    this.shared = marks;
  }

  /** The database for a read of this merchant's that may come from the replica. */
  for(scope: { userId: string }): Db | Promise<Db> {
    if (!this.replica || !this.up) return this.primary;
    if (this.now() - this.safeBefore > this.maxLagMs) return this.primary;
    const wrote = this.writes.get(scope.userId);
    if (wrote !== undefined && wrote >= this.safeBefore) return this.primary;
    return this.shared ? this.afterOthersWrites(scope.userId, this.safeBefore) : this.replica;
  }

  /** The replica unless another process recorded a write of the merchant the replica may not have; the primary when unsure. */
  private async afterOthersWrites(userId: string, safeBefore: number): Promise<Db> {
    if (this.now() - this.sharedFailedAt <= this.maxLagMs) return this.primary;
    try {
      const at = await this.shared!.latest(userId);
      return at !== null && at >= this.epoch(safeBefore) - CLOCK_SKEW_MS ? this.primary : this.replica!;
    } catch {
      this.sharedFailedAt = this.now();
      return this.primary;
    }
  }

  /**
   * The merchant has just written (its answer is about to go out): it reads the primary until the
   * replica has that. With shared marks, resolves once the other processes can know it too.
   */
  wrote(userId: string): Promise<void> | undefined {
    if (!this.replica) return;
    const at = this.now();
    this.writes.set(userId, at);
    return this.shared?.mark(userId, this.epoch(at)).catch(() => {
      this.sharedFailedAt = this.now(); // a mark lost: the others may not know, so nobody trusts the replica for a while
    });
  }

  private epoch(ms: number): number {
    return performance.timeOrigin + ms;
  }

  /** A read on the replica failed for want of a connection: the primary until a probe reaches it again. */
  lost(err: unknown): void {
    this.up = false;
    this.pending = [];
    this.reason = `unreachable: ${(err as Error)?.message ?? String(err)}`;
  }

  /** Takes in one probe's sample (db/replica.ts). */
  observe(sample: ProbeSample): void {
    if ('error' in sample) {
      this.lost({ message: sample.error });
      return;
    }
    if (sample.replayLsn === null) {
      this.up = false;
      this.pending = [];
      this.reason = 'the replica is not in recovery (promoted, or not a standby)';
      return;
    }
    this.up = true;
    this.reason = 'streaming';
    this.pending.push({ at: sample.startedAt, lsn: sample.primaryLsn });
    // Positions only grow, so the replayed probes are a prefix.
    let replayed = 0;
    while (replayed < this.pending.length && this.pending[replayed].lsn <= sample.replayLsn) {
      this.safeBefore = Math.max(this.safeBefore, this.pending[replayed].at);
      replayed++;
    }
    this.pending.splice(0, replayed);
    // A replica far behind: older probes are dropped (a newer one replayed moves safeBefore further).
    if (this.pending.length > 64) this.pending.splice(0, this.pending.length - 64);
    this.forget();
  }

  /** Writes that no longer decide anything: already on the replica, or older than any bound we accept. */
  private forget(): void {
    const horizon = Math.max(this.safeBefore, this.now() - this.maxLagMs);
    for (const [userId, at] of this.writes) if (at < horizon) this.writes.delete(userId);
  }

  status(): ReadStatus {
    if (!this.replica) return { replica: 'off', stalenessMs: null, inUse: false, reason: 'DATABASE_REPLICA_URL not set' };
    const staleness = Number.isFinite(this.safeBefore) ? Math.round(this.now() - this.safeBefore) : null;
    const within = staleness !== null && staleness <= this.maxLagMs;
    const reason = this.up && !within ? `replica behind by more than ${this.maxLagMs} ms` : this.reason;
    return { replica: this.up ? 'up' : 'down', stalenessMs: staleness, inUse: this.up && within, reason };
  }
}
