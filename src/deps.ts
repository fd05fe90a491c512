// The composition root: builds every dependency once and wires every cross-module effect here, in
// plain sight, so that no module changes behaviour because another was imported:
//   - events fan out to webhook deliveries (EventLog + webhookFanout);
//   - the ledger records balance.updated through the same event log;
//   - a payment's status changes run the payment-link sale (stock, sales count, cart recovery),
//     the coupon use, the affiliate commission (split off the sale's journal, given back on a
//     refund) and the referral rewards of a referred account's production sale (their own journals,
//     posted with the sale's, out of the platform's fee) (transactions/hooks.ts);
//   - link changes drop the hosted page cache;
//   - the connectors (payments/registry.ts) are built from the configuration, and their inbound
//     routes and sweeps reach the payment core through the ConnectorCore port built here (payment
//     outcomes, refund answers, Pix Automático mandates, chargebacks).
// buildApp (HTTP), the worker (main.ts) and the tests all start from buildDeps.
import { recordBoleto } from './modules/transactions/boleto-issued.ts';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database, Db } from './db/index.ts';
import { listeningAt } from './db/listen.ts';
import { readRouter, type ReadRouter } from './db/replica.ts';
import type { HttpApp } from './http/app-type.ts';
import { Authenticator } from './http/auth.ts';
import type { LazySchemas } from './http/lazy-schemas.ts';
import { accountKeys, type AccountKeys } from './modules/auth/account-keys.ts';
import { PageCache } from './http/page-cache.ts';
import { Cursors } from './http/pagination.ts';
import type { RateLimiter } from './http/ratelimit.ts';
import { createLogger } from './logger.ts';
import type { Lifecycle } from './modules/health/routes.ts';
import type { AdvanceDeps } from './modules/advances/service.ts';
import { ClickCounter } from './modules/affiliates/clicks.ts';
import { commissionHooks, type CommissionDeps } from './modules/affiliates/commissions.ts';
import type { AffiliateDeps } from './modules/affiliates/service.ts';
import { couponUseOnChange } from './modules/coupons/service.ts';
import { referralHooks, type ReferralDeps } from './modules/referrals/service.ts';
import { splitHooks } from './modules/splits/hooks.ts';
import { EventLog } from './modules/events/service.ts';
import { FeeSchedule } from './modules/fees/schedule.ts';
import type { KycDeps } from './modules/kyc/service.ts';
import { Ledger } from './modules/ledger/service.ts';
import type { MailDeps } from './mail/outbox.ts';
import { createMailer, type Mailer } from './mail/transport.ts';
import { subscriptionHooks } from './modules/subscriptions/payment-hook.ts';
import type { SubscriptionDeps } from './modules/subscriptions/service.ts';
import { recordLinkSale } from './modules/payment-links/sale.ts';
import type { LinkDeps } from './modules/payment-links/service.ts';
import type { ImageImporter } from './modules/branding/service.ts';
import type { CheckoutDeps } from './modules/checkouts/service.ts';
import { importImage } from './modules/media/service.ts';
import type { TransactionHooks } from './modules/transactions/hooks.ts';
import { ATTEMPT_BATCH, AttemptWriter } from './modules/transactions/attempts.ts';
import { CHANGE_BATCH, ChangeWriter, type ChangeBatchOptions } from './modules/transactions/changes.ts';
import { BATCH, CreationWriter, type BatchOptions } from './modules/transactions/creation.ts';
import type { TransactionDeps } from './modules/transactions/service.ts';
import { webhookFanout } from './modules/webhooks/enqueue.ts';
import { Webhooks } from './modules/webhooks/service.ts';
import type { WithdrawalDeps } from './modules/withdrawals/service.ts';
import { applyPayout } from './modules/withdrawals/payouts.ts';
import { applyMandate } from './modules/subscriptions/pix-automatico.ts';
import { applyChargeback, applyProviderEvents, recordRefund } from './modules/transactions/service.ts';
import { buildRegistry, type RegistryOptions } from './payments/catalogue.ts';
import type { Connector, ConnectorCore } from './payments/connector.ts';
import type { ConnectorRegistry } from './payments/registry.ts';

export interface Deps {
  config: Config;
  database: Database;
  db: Db;
  /** Reads that may be a moment stale (lists, exports, reports): `reads.for(scope)` picks the replica or the primary. */
  reads: ReadRouter;
  log: Logger;
  limiter: RateLimiter;
  /** Set by the process as it stops: readiness fails so a load balancer drains it. */
  lifecycle: Lifecycle;
  auth: Authenticator;
  /** Seal TOTP secrets and key the hash of short codes (derived from JWT_SECRET). */
  accountKeys: AccountKeys;
  cursors: Cursors;
  /** Each merchant's fees: the platform's, or an operator's overrides. */
  fees: FeeSchedule;
  events: EventLog;
  ledger: Ledger;
  /** Every connector, by rail and environment (payments/registry.ts). */
  connectors: ConnectorRegistry;
  /** Rendered payment-link pages (short-lived); link changes drop theirs at once. */
  pages: PageCache;
  /** Webhook sender and dispatcher (started by `serve` with RUN_JOBS, by `worker`, or by tests). */
  webhooks: Webhooks;
  /** Outgoing e-mail: the outbox sweep's sender (SMTP_URL, or store only). */
  mail: MailDeps;
  subscriptions: SubscriptionDeps;
  // What each module with collaborators is given (its functions take it as first argument).
  transactions: TransactionDeps;
  paymentLinks: LinkDeps;
  checkouts: CheckoutDeps;
  kyc: KycDeps;
  withdrawals: WithdrawalDeps;
  advances: AdvanceDeps;
  affiliates: AffiliateDeps;
  commissions: CommissionDeps;
  referrals: ReferralDeps;
}

export interface DepsOptions {
  limiter: RateLimiter;
  /** Where JSON logs go (tests capture them); default stdout. */
  logStream?: Parameters<typeof createLogger>[1];
  /** Requests per minute per merchant on authenticated routes; default RATE_LIMIT_PER_MINUTE. */
  perUserPerMinute?: number;
  /** Connectors beside or instead of the configured ones (tests). */
  connectors?: RegistryOptions;
  /** Hooks run by every payment status change after the built-in ones (tests inject failures). */
  extraHooks?: TransactionHooks[];
  /** A mailer instead of the configured one (tests). */
  mailer?: Mailer;
  /** How creations are batched (default: transactions/creation.ts BATCH; the benchmark compares with one per statement). */
  creationBatch?: BatchOptions;
  /** How status changes are batched (default: transactions/changes.ts CHANGE_BATCH). */
  changeBatch?: ChangeBatchOptions;
}

export function buildDeps(config: Config, given: Database, opts: DepsOptions): Deps {
  const database = config.databaseListenUrl ? listeningAt(given, config.databaseListenUrl, config.databaseSchema ?? undefined) : given;
  const { db } = database;
  const log = createLogger(config, opts.logStream);
  const connectors = buildRegistry(config, db, log, opts.connectors);
  const cursors = new Cursors(config.cursorSecret);
  const fees = new FeeSchedule(db, config.fees);
  const events = new EventLog([webhookFanout]);
  const ledger = new Ledger(events);
  const pages = new PageCache();
  const images: ImageImporter = (merchantId, url, field) => importImage({ db, config }, merchantId, url, field);
  // A checkout's change shows on its link's page: the cached page is dropped.
  const changedLink = async (linkId: string) => {
    const link = await db.selectFrom('payment_links').select('slug').where('id', '=', linkId).executeTakeFirst();
    if (link) pages.forget(link.slug);
  };
  const hooks: TransactionHooks[] = [{ beforePaid: recordLinkSale }, { afterChange: couponUseOnChange }, splitHooks(), commissionHooks(events), referralHooks(config.referrals), subscriptionHooks({ events, config }), ...(opts.extraHooks ?? [])];
  // New transactions are written in batches (group commit), as suits the database (creation.ts).
  const creations = new CreationWriter(db, events, opts.creationBatch ?? BATCH[database.kind]);
  // So are one merchant's status changes: one database transaction a batch (changes.ts).
  const changes = new ChangeWriter(db, opts.changeBatch ?? CHANGE_BATCH[database.kind]);
  const attempts = new AttemptWriter(db, ATTEMPT_BATCH[database.kind]);
  const transactions: TransactionDeps = { db, config, connectors, cursors, fees, events, ledger, hooks, log, creations, changes, attempts };
  const subscriptions = { db, config, events, cursors, transactions, log };
  const withdrawals: WithdrawalDeps = { db, fees, events, ledger, connectors, log, janitorGraceSeconds: config.janitorGraceSeconds, review: config.payouts.review, dashboardUrl: `${config.baseUrl}/dashboard` };
  // What a connector's notifications and sweeps may do to the core: apply outcomes to its own payments.
  const core = (c: Connector): ConnectorCore => ({
    db,
    log,
    baseUrl: config.baseUrl,
    applyEvents: (tx, events) => applyProviderEvents(transactions, { userId: tx.user_id, livemode: tx.livemode }, c.name, events),
    recordBoleto: (transactionId, ref, issued) => recordBoleto(transactions, c.name, transactionId, ref, issued),
    recordRefund: async (refundId, transactionId, result) => {
      await recordRefund(transactions, refundId, transactionId, result);
    },
    applyMandate: async (report) => {
      await applyMandate(subscriptions, report as Parameters<typeof applyMandate>[1]);
    },
    applyChargeback: async (report) => {
      await applyChargeback(transactions, c.name, report);
    },
    applyPayout: (reference, state) => applyPayout(withdrawals, c.name, reference, state),
  });
  connectors.attach(core);
  return {
    config,
    database,
    db,
    reads: readRouter(database, config.replica, log, config.redisUrl),
    log,
    limiter: opts.limiter,
    lifecycle: { draining: false },
    auth: new Authenticator({ db, jwtSecret: config.jwtSecret, limiter: opts.limiter, perUserPerMinute: opts.perUserPerMinute ?? config.rateLimitPerMinute }),
    accountKeys: accountKeys(config.jwtSecret),
    cursors,
    fees,
    events,
    ledger,
    connectors,
    pages,
    webhooks: new Webhooks({ db, database, config, cursors, log }),
    transactions,
    paymentLinks: { db, config, events, changed: (slug) => pages.forget(slug), images },
    checkouts: { db, images, changedLink },
    kyc: { db, events },
    withdrawals,
    advances: { db, fees, events, ledger },
    affiliates: { db, events, config, clicks: new ClickCounter(db, config.cursorSecret, log) },
    commissions: { db, events, ledger },
    referrals: { db, ledger, config: config.referrals },
    mail: { db, mailer: opts.mailer ?? createMailer(config.mail), log },
    subscriptions,
  };
}

/** The app buildApp returns (to the root and the tests): the routes' HttpApp, with the dependencies. */
export type App = HttpApp & {
  deps: Deps;
  /** The routes' schemas, compiled on first use (http/lazy-schemas.ts). */
  schemas: LazySchemas;
};
