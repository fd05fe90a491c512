// Periodic background jobs. Each sweep claims rows with FOR UPDATE SKIP LOCKED, so any number of
// processes (serve, worker) can run them against one PostgreSQL without doing the same work twice.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { MailDeps } from '../mail/outbox.ts';
import type { CommissionDeps } from '../modules/affiliates/commissions.ts';
import type { ReferralDeps } from '../modules/referrals/service.ts';
import type { EngineDeps } from '../modules/subscriptions/cycles.ts';
import type { TransactionDeps } from '../modules/transactions/types.ts';
import type { WithdrawalDeps } from '../modules/withdrawals/service.ts';
import { dropExpiredPartitions, ensurePartitions } from '../db/partitions.ts';
import { sendDueEmails } from '../mail/outbox.ts';
import { advanceDue } from '../modules/subscriptions/sweep.ts';
import { dropStaleTokens } from '../modules/checkout/upsell.ts';
import { purgeClicks } from '../modules/affiliates/clicks.ts';
import { purgeExpiredAudit } from '../modules/audit/retention.ts';
import { releaseDue } from '../modules/affiliates/commissions.ts';
import { releaseUnlinkedReservations } from '../modules/coupons/service.ts';
import { releaseDueRewards } from '../modules/referrals/service.ts';
import { expireAuthorizations, expireDue, settleDue, settleUnknownCharges, settleUnknownRefunds } from '../modules/transactions/service.ts';
import { followPayouts, processPayouts } from '../modules/withdrawals/payouts.ts';

export interface Sweep {
  name: string;
  /** Processes one batch; returns how many rows it handled. */
  run(now: Date): Promise<number>;
  batch: number;
}

/** What the sweeps use of the dependencies (main.ts passes those built by deps.ts). */
export interface SweepDeps {
  db: Db;
  config: Pick<Config, 'auditRetentionDays' | 'retention'>;
  subscriptions: EngineDeps;
  mail: MailDeps;
  transactions: TransactionDeps;
  withdrawals: WithdrawalDeps;
  commissions: CommissionDeps;
  referrals: Pick<ReferralDeps, 'db' | 'ledger'>;
  /** Each connector's own sweeps. */
  connectors: { sweeps(): Sweep[] };
}

/** The background work of a process: every time-based sweep, over the dependencies of deps.ts. */
export function sweeps(deps: SweepDeps): Sweep[] {
  return [
    { name: 'subscriptions', batch: 50, run: (now) => advanceDue(deps.subscriptions, now, 50) },
    { name: 'send-emails', batch: 50, run: (now) => sendDueEmails(deps.mail, now, 50) },
    { name: 'expire-transactions', batch: 100, run: (now) => expireDue(deps.transactions, now, 100) },
    { name: 'expire-card-authorizations', batch: 50, run: (now) => expireAuthorizations(deps.transactions, now, 50) },
    { name: 'settle-receivables', batch: 100, run: (now) => settleDue(deps.transactions, now, 100) },
    // Week partitions made ahead and old weeks dropped whole (src/db/partitions.ts): no DELETE sweeps these tables.
    { name: 'partitions', batch: Infinity, run: partitionsJob(deps) },
    { name: 'release-unlinked-coupon-reservations', batch: 100, run: (now) => releaseUnlinkedReservations(deps.db, now, 100) },
    { name: 'release-affiliate-commissions', batch: 100, run: (now) => releaseDue(deps.commissions, now, 100) },
    { name: 'release-referral-rewards', batch: 100, run: (now) => releaseDueRewards(deps.referrals, now, 100) },
    { name: 'purge-affiliate-clicks', batch: Infinity, run: (now) => purgeClicks(deps.db, now) },
    { name: 'drop-stale-offer-tokens', batch: Infinity, run: (now) => dropStaleTokens(deps.db, now) },
    { name: 'purge-audit-log', batch: 1000, run: (now) => purgeExpiredAudit(deps.db, now, deps.config.auditRetentionDays, 1000) },
    { name: 'janitor', batch: 50, run: (now) => janitor(deps, now, 50) },
    // Each connector's own (reconciliation, expiry asked to the provider, webhook registration).
    ...deps.connectors.sweeps(),
  ];
}

/** The partition work, at most hourly per process (partitions are made DAYS_AHEAD days before they are needed). */
function partitionsJob(deps: Pick<SweepDeps, 'db' | 'config'>) {
  let last = -Infinity;
  return async (now: Date) => {
    if (now.getTime() - last < 3_600_000 && now.getTime() >= last) return 0;
    last = now.getTime();
    return (await ensurePartitions(deps.db, now)) + (await dropExpiredPartitions(deps.db, deps.config.retention, now));
  };
}

/** The payout job, on its own runner (PAYOUT_INTERVAL_MS): a withdrawal does not wait behind the other sweeps. */
export const payoutSweeps = (deps: Pick<SweepDeps, 'withdrawals'>): Sweep[] => [{ name: 'process-payouts', batch: 50, run: (now) => processPayouts(deps.withdrawals, now, 50) }];

/** A process's background work: the sweeps every JOB_INTERVAL_MS, the payout job every PAYOUT_INTERVAL_MS. */
export function backgroundJobs(deps: SweepDeps, intervals: { jobIntervalMs: number; payoutIntervalMs: number }, log: FastifyBaseLogger) {
  const runners = [new JobRunner(sweeps(deps), intervals.jobIntervalMs, log), new JobRunner(payoutSweeps(deps), intervals.payoutIntervalMs, log)];
  return {
    start: () => runners.forEach((r) => r.start()),
    stop: async () => {
      await Promise.all(runners.map((r) => r.stop()));
    },
  };
}

/**
 * Operations whose outcome was never recorded (a call that timed out, a process that died between
 * the provider's answer and the write), asked of their connector by our reference: card charges,
 * refunds, payouts. A full batch of any of them means more may be waiting.
 */
async function janitor(deps: Pick<SweepDeps, 'transactions' | 'withdrawals'>, now: Date, batch: number): Promise<number> {
  const counts = [await settleUnknownCharges(deps.transactions, now, batch), await settleUnknownRefunds(deps.transactions, now, batch), await followPayouts(deps.withdrawals, now, batch)];
  return Math.max(...counts);
}

export class JobRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private list: Sweep[];
  private intervalMs: number;
  private log: FastifyBaseLogger;
  constructor(list: Sweep[], intervalMs: number, log: FastifyBaseLogger) {
    this.list = list;
    this.intervalMs = intervalMs;
    this.log = log;
  }

  /** Runs every sweep until each has nothing left to do now. */
  async tick(now = new Date()): Promise<void> {
    for (const sweep of this.list) {
      try {
        // A full batch means more may be waiting: go again (bounded, so one sweep cannot starve the rest).
        for (let i = 0; i < 50 && !this.stopped; i++) {
          const n = await sweep.run(now);
          if (n < sweep.batch) break;
        }
      } catch (err) {
        this.log.error({ err, job: sweep.name }, 'job failed');
      }
    }
  }

  start() {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick().finally(() => {
        this.running = null;
        if (!this.stopped) this.timer = setTimeout(loop, this.intervalMs);
      });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
