// A small circuit breaker per card connector (the failover chain, modules/transactions/failover.ts):
// after `failures` answers in a row that never came (a throw: timeout, 5xx, network) it opens, and the
// chain skips that connector without calling it, so a dead acquirer costs no customer a timeout. After
// `cooldownMs` it lets one trial call through (half-open): an answer closes it, another failure opens
// it again for a cooldown. A decline is an answer. State is per process, in memory.
import type { BreakerSettings } from '../config-connectors.ts';

export type { BreakerSettings } from '../config-connectors.ts';

export const DEFAULT_BREAKER: BreakerSettings = { failures: 5, cooldownMs: 30_000 };

export type BreakerState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

export class CircuitBreaker {
  private failuresInRow = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;
  private readonly settings: BreakerSettings;
  private readonly now: () => number;

  constructor(settings: BreakerSettings, now: () => number = Date.now) {
    this.settings = settings;
    this.now = now;
  }

  state(): BreakerState {
    if (this.openedAt === null) return 'CLOSED';
    return this.now() - this.openedAt >= this.settings.cooldownMs ? 'HALF_OPEN' : 'OPEN';
  }

  /** Whether a call may go now; in half-open, only the one trial (the caller then reports how it went). */
  allows(): boolean {
    const state = this.state();
    if (state === 'CLOSED') return true;
    if (state === 'OPEN' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  /** The connector answered (approved or declined). */
  success(): void {
    this.failuresInRow = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  /** The connector did not answer. */
  failure(): void {
    this.failuresInRow += 1;
    if (this.trialInFlight || this.failuresInRow >= this.settings.failures) this.openedAt = this.now();
    this.trialInFlight = false;
  }
}
