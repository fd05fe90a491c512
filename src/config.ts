// Environment -> typed, validated configuration. The one place that reads process.env.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { efiConfig, type EfiConfig } from './config-efi.ts';
import { interConfig, type InterConfig } from './config-inter.ts';
import { retentionConfig, type Retention } from './config-retention.ts';
import { replicaConfig, type ReplicaConfig } from './config-replica.ts';
import { cardBreakerConfig, cieloConfig, connectorChoice, eredeConfig, int, pixApiConfig, url, type BreakerSettings, type CieloConfig, type ConnectorChoice, type EredeConfig, type Env, type PixApiConfig } from './config-connectors.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Fees {
  pixPercentBp: number; // basis points of the amount (99 = 0.99%)
  boletoFixedCents: number;
  cardPercentBp: number;
  cardFixedCents: number;
  withdrawalCents: number;
  advanceMonthlyBp: number; // per month anticipated
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** DATABASE_LISTEN_URL: PostgreSQL itself, for the LISTEN connections when DATABASE_URL goes through a pooler; null = DATABASE_URL. */
  databaseListenUrl: string | null;
  redisUrl: string | null;
  baseUrl: string;
  checkoutUrl: string;
  jwtSecret: string;
  jwtTtlSeconds: number;
  logLevel: LogLevel;
  /** Key used to sign opaque pagination cursors (derived from the JWT secret). */
  cursorSecret: string;
  fees: Fees;
  pix: { key: string; merchantName: string; merchantCity: string; ttlSeconds: number };
  /** BOLETO_DUE_DAYS: the due date when a boleto names none; BOLETO_DAYS_AFTER_DUE: how long it stays payable after it. */
  boleto: { bankCode: string; defaultDueDays: number; daysAfterDue: number; reconcileMinutes: number };
  /** Card instalments: plans up to interestFreeInstallments carry no interest; beyond, the Price table at monthlyInterestBp. */
  card: { interestFreeInstallments: number; monthlyInterestBp: number; authorizationTtlDays: number };
  /** How often background jobs (expiry, settlement, clean-up) run, in ms. */
  jobIntervalMs: number;
  /** Production connectors per rail, by name, in order (the first takes new payments; an empty rail answers 503). */
  connectors: ConnectorChoice;
  /** The card failover chain's circuit breaker per connector (CARD_BREAKER_FAILURES, CARD_BREAKER_COOLDOWN_SECONDS). */
  cardBreaker: BreakerSettings;
  /** An operation whose outcome is unknown this long (a call that never answered) is asked about by the janitor. */
  janitorGraceSeconds: number;
  /** AUDIT_RETENTION_DAYS: audit log entries older than this are deleted by the job runner (default 1825, 5 years). */
  auditRetentionDays: number;
  /** How long the day-partitioned history is kept (src/db/partitions.ts): whole days are dropped after. */
  retention: Retention;
  runJobs: boolean;
  /** SHUTDOWN_DRAIN_MS: on SIGTERM, /ready fails this long before the listener closes; SHUTDOWN_TIMEOUT_MS bounds the whole stop. */
  shutdown: { drainMs: number; timeoutMs: number };
  /** Requests per minute per merchant on authenticated routes. */
  rateLimitPerMinute: number;
  /** Trust X-Forwarded-For from a proxy in front (client IPs for rate limits). */
  trustProxy: boolean;
  checkoutLimits: CheckoutLimits;
  authLimits: AuthLimits;
  databasePoolSize: number;
  /** PostgreSQL schema (search_path) to use; null = the server's default. Only with DATABASE_URL. */
  databaseSchema: string | null;
  /** DATABASE_REPLICA_URL and its bounds (config-replica.ts); null = every read on the primary. */
  replica: ReplicaConfig | null;
  webhooks: WebhookConfig;
  payouts: PayoutConfig;
  /** The production PIX provider speaking the Banco Central's API Pix (PIX_PROVIDER=bcb-api); null = not configured. */
  pixApi: PixApiConfig | null;
  /** The production card connector speaking Cielo's E-commerce API 3.0 (CARD_PROVIDER=cielo); null = not configured. */
  cielo: CieloConfig | null;
  /** e.Rede's settings (CARD_PROVIDER=erede, or EREDE_API_URL set); null: not configured. */
  erede: EredeConfig | null;
  /** Efí's Pix send (PAYOUT_PROVIDER=efi, or EFI_API_URL set); null: not configured. */
  efi: EfiConfig | null;
  /** Banco Inter's API Cobrança v3 (BOLETO_PROVIDER=inter, or INTER_API_URL set); null: not configured. */
  inter: InterConfig | null;
  mail: MailConfig;
  referrals: ReferralConfig;
}

/** The platform's referral program (modules/referrals): production money only. */
export interface ReferralConfig {
  /** Type 1: what the referrer earns once the referred account's paid sales reach salesThresholdCents; 0 = none. */
  fixedRewardCents: number;
  salesThresholdCents: number;
  /** Type 2: the referrer's share of the platform's fee on each of the referred account's sales, in basis points; 0 = none. */
  commissionBp: number;
  /** ... on sales paid within this many months of the referred account's registration. */
  commissionMonths: number;
  /** Days after the sale before a reward is released (later still for a card sale: its settlement). */
  guaranteeDays: number;
  /** The sign-up page an invite link points to (`?ref=CODE`). */
  signupUrl: string;
}

/** Outgoing e-mail (src/mail/). */
export interface MailConfig {
  /** smtp:// or smtps:// URL of the server that sends; null = messages are only stored (GET /api/v1/emails). */
  smtpUrl: string | null;
  /** The From header of every message. */
  from: string;
}

export interface CheckoutLimits {
  /** Checkouts and card steps per IP per minute, any environment. */
  perIpPerMinute: number;
  /** Production card charges per IP per hour. */
  cardAttemptsPerIpPerHour: number;
  /** Declined production cards per IP, and per device, per hour; then card payments stop for them. */
  cardDeclinesPerHour: number;
  /** UPSELL_OFFER_MINUTES: how long an upsell stays on offer after its payment (a downsell after the upsell's decline). */
  upsellMinutes: number;
}

/** Limits on the public account routes (see modules/auth/service.ts). */
export interface AuthLimits {
  /** Login attempts per IP per hour, across e-mails (password spraying). */
  loginAttemptsPerIpPerHour: number;
  /** Account registrations per IP per hour. */
  registrationsPerIpPerHour: number;
}

/** Production withdrawals held for an operator's approval (modules/withdrawals/review.ts). */
export interface ReviewRules {
  /** A withdrawal above this many cents waits for approval; 0: none does. */
  aboveCents: number;
  /** Cents a merchant may withdraw a day without approval; null: no limit. */
  dailyLimitCents: number | null;
  /** PAYOUT_NEW_DESTINATION_HOLD_HOURS: a withdrawal to a destination never paid out to waits this long (merchant e-mailed); 0: off. */
  newDestinationHours: number;
}

export interface PayoutConfig {
  /** How long a sandbox payout takes before it completes (or fails, for the magic keys). */
  sandboxDelayMs: number;
  /** PAYOUT_INTERVAL_MS: how often the payout job looks for withdrawals to send (its own runner, so a withdrawal waits at most about this long). */
  intervalMs: number;
  /** PAYOUT_REVIEW_ABOVE_CENTS (default 500000; 0: none) and PAYOUT_DAILY_LIMIT_CENTS (default: none): production withdrawals held for an operator. */
  review: ReviewRules;
}

export interface WebhookConfig {
  /** A delivery succeeds on a 2xx answer within this many ms (DNS, connect, TLS and headers included). */
  timeoutMs: number;
  /** Retries after the first try, as cumulative offsets: retry i is due at first try + sum of the first i entries. */
  retryScheduleMs: number[];
  /** A subscription with no successful delivery for this long while failing is disabled. */
  disableAfterMs: number;
  /** Skip the SSRF guard (loopback, private, link-local, metadata targets allowed): development and tests only. */
  allowPrivateTargets: boolean;
  /** Extra trusted CA certificate (PEM text) for delivery targets, from WEBHOOK_CA_FILE; null = system roots only. */
  ca: string | null;
  /** Deliveries in flight at once per process. */
  concurrency: number;
  /** How long a claimed delivery stays locked to its worker; must exceed timeoutMs. */
  lockMs: number;
  /** Safety poll for due retries (wake-ups on new events come from LISTEN/NOTIFY). */
  pollMs: number;
}

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export type { CieloConfig, ConnectorChoice, EredeConfig, PixApiConfig } from './config-connectors.ts';
export type { EfiConfig } from './config-efi.ts';
export type { InterConfig } from './config-inter.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function persistedSecret(dataDir: string): string {
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length < 32) throw new ConfigError(`${file} holds no usable secret (under 32 characters): delete it to generate a new one, or set JWT_SECRET`);
    return kept;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/**
 * Builds the configuration from an environment. Every problem is collected and reported at once,
 * so an operator fixes a bad deployment in one go.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const port = int(env, 'PORT', 3000, 0, 65535, problems);
  const host = env.HOST?.trim() || '0.0.0.0';
  const dataDir = resolve(env.DATA_DIR?.trim() || './data');
  const databaseUrl = env.DATABASE_URL ? url(env, 'DATABASE_URL', '', problems, ['postgres:', 'postgresql:']) : null;
  const databaseListenUrl = env.DATABASE_LISTEN_URL ? url(env, 'DATABASE_LISTEN_URL', '', problems, ['postgres:', 'postgresql:']) : null;
  if (databaseListenUrl && !databaseUrl) problems.push('DATABASE_LISTEN_URL needs DATABASE_URL (it is where LISTEN goes when DATABASE_URL is a pooler)');
  const redisUrl = env.REDIS_URL ? url(env, 'REDIS_URL', '', problems, ['redis:', 'rediss:']) : null;
  const baseUrl = url(env, 'BASE_URL', `http://localhost:${port}`, problems);
  const checkoutUrl = url(env, 'CHECKOUT_URL', baseUrl, problems);
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);

  let jwtSecret = env.JWT_SECRET ?? '';
  if (jwtSecret && jwtSecret.length < 32) problems.push('JWT_SECRET must be at least 32 characters long');
  if (!jwtSecret && databaseUrl) problems.push('JWT_SECRET is required when DATABASE_URL is set (every instance must share it)');

  const fees: Fees = {
    pixPercentBp: int(env, 'FEE_PIX_BP', 99, 0, 10000, problems),
    boletoFixedCents: int(env, 'FEE_BOLETO_CENTS', 349, 0, 100000, problems),
    cardPercentBp: int(env, 'FEE_CARD_BP', 399, 0, 10000, problems),
    cardFixedCents: int(env, 'FEE_CARD_FIXED_CENTS', 39, 0, 100000, problems),
    withdrawalCents: int(env, 'FEE_WITHDRAWAL_CENTS', 350, 0, 100000, problems),
    advanceMonthlyBp: int(env, 'FEE_ADVANCE_MONTHLY_BP', 299, 0, 10000, problems),
  };
  const smtpUrl = smtpConfig(env, problems);
  const mailFrom = env.MAIL_FROM?.trim() || 'Cofre <nao-responda@cofre.local>';
  if (/[\r\n]/.test(mailFrom) || !/@/.test(mailFrom)) problems.push(`MAIL_FROM must be one address, e.g. "Loja <nao-responda@loja.com.br>" (got "${mailFrom}")`);

  const bankCode = env.BOLETO_BANK_CODE?.trim() || '000';
  if (!/^\d{3}$/.test(bankCode)) problems.push(`BOLETO_BANK_CODE must be 3 digits (got "${bankCode}")`);
  const boleto = { bankCode, defaultDueDays: int(env, 'BOLETO_DUE_DAYS', 3, 1, 60, problems), daysAfterDue: int(env, 'BOLETO_DAYS_AFTER_DUE', 0, 0, 60, problems), reconcileMinutes: int(env, 'BOLETO_RECONCILE_MINUTES', 60, 1, 1440, problems) };


  const jwtTtlSeconds = int(env, 'JWT_TTL_SECONDS', 86400, 60, 30 * 86400, problems);
  const pixTtlSeconds = int(env, 'PIX_TTL_SECONDS', 86400, 60, 30 * 86400, problems);
  const rateLimitPerMinute = int(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1, 100_000_000, problems);
  const databasePoolSize = int(env, 'DATABASE_POOL_SIZE', 20, 1, 500, problems);
  const interestFreeInstallments = int(env, 'CARD_INTEREST_FREE_INSTALLMENTS', 1, 1, 12, problems);
  const monthlyInterestBp = int(env, 'CARD_MONTHLY_INTEREST_BP', 299, 0, 10000, problems);
  const authorizationTtlDays = int(env, 'CARD_AUTHORIZATION_TTL_DAYS', 7, 1, 30, problems);
  const jobIntervalMs = int(env, 'JOB_INTERVAL_MS', 5000, 50, 3_600_000, problems);
  const shutdown = { drainMs: int(env, 'SHUTDOWN_DRAIN_MS', 0, 0, 120_000, problems), timeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 1000, 600_000, problems) };
  if (shutdown.drainMs >= shutdown.timeoutMs) problems.push(`SHUTDOWN_DRAIN_MS (${shutdown.drainMs}) must be below SHUTDOWN_TIMEOUT_MS (${shutdown.timeoutMs})`);
  const checkoutLimits: CheckoutLimits = {
    perIpPerMinute: int(env, 'CHECKOUT_PER_IP_PER_MINUTE', 30, 1, 100_000_000, problems),
    cardAttemptsPerIpPerHour: int(env, 'CARD_ATTEMPTS_PER_IP_PER_HOUR', 10, 1, 100_000_000, problems),
    cardDeclinesPerHour: int(env, 'CARD_DECLINES_PER_HOUR', 5, 1, 100_000_000, problems),
    upsellMinutes: int(env, 'UPSELL_OFFER_MINUTES', 15, 1, 1440, problems),
  };
  const authLimits: AuthLimits = {
    loginAttemptsPerIpPerHour: int(env, 'LOGIN_ATTEMPTS_PER_IP_PER_HOUR', 100, 1, 100_000_000, problems),
    registrationsPerIpPerHour: int(env, 'REGISTRATIONS_PER_IP_PER_HOUR', 10, 1, 100_000_000, problems),
  };

  const databaseSchema = env.DATABASE_SCHEMA?.trim() || null;
  if (databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) problems.push(`DATABASE_SCHEMA must be a lowercase SQL identifier (got "${databaseSchema}")`);
  if (databaseSchema && !databaseUrl) problems.push('DATABASE_SCHEMA needs DATABASE_URL (the embedded database has no schemas to choose)');
  const replica = replicaConfig(env, databaseUrl, problems);
  const webhooks = webhookConfig(env, problems);
  const referrals: ReferralConfig = {
    fixedRewardCents: int(env, 'REFERRAL_FIXED_REWARD_CENTS', 5000, 0, 100_000_000, problems),
    salesThresholdCents: int(env, 'REFERRAL_SALES_THRESHOLD_CENTS', 100_000, 1, 1_000_000_000, problems),
    commissionBp: int(env, 'REFERRAL_COMMISSION_BP', 1000, 0, 10000, problems),
    commissionMonths: int(env, 'REFERRAL_COMMISSION_MONTHS', 12, 1, 120, problems),
    guaranteeDays: int(env, 'REFERRAL_GUARANTEE_DAYS', 7, 0, 365, problems),
    signupUrl: url(env, 'REFERRAL_SIGNUP_URL', `${baseUrl}/cadastro`, problems),
  };
  const payouts = payoutConfig(env, problems);
  const connectors = connectorChoice(env, problems);
  const pixApi = pixApiConfig(env, connectors.PIX.includes('bcb-api'), problems);
  const cielo = cieloConfig(env, connectors.CARD.includes('cielo'), problems);
  const cardBreaker = cardBreakerConfig(env, problems);
  const erede = eredeConfig(env, connectors.CARD.includes('erede'), problems);
  const efi = efiConfig(env, connectors.PAYOUT.includes('efi'), problems);
  const inter = interConfig(env, connectors.BOLETO.includes('inter'), problems);
  const janitorGraceSeconds = int(env, 'JANITOR_GRACE_SECONDS', 60, 1, 86_400, problems);
  const auditRetentionDays = int(env, 'AUDIT_RETENTION_DAYS', 1825, 1, 36_500, problems);
  const retention = retentionConfig(env, problems);
  // A sale e.Rede was still deciding must not be settled by the janitor: its call (a sale, a lookup, one retry) ends first.
  if (erede && erede.timeoutMs * 3 >= janitorGraceSeconds * 1000) problems.push(`JANITOR_GRACE_SECONDS (${janitorGraceSeconds}) must exceed three e.Rede calls (3 × EREDE_TIMEOUT_MS = ${(erede.timeoutMs * 3) / 1000} s)`);

  if (problems.length) throw new ConfigError('Invalid configuration:\n  - ' + problems.join('\n  - '));
  if (!jwtSecret) jwtSecret = persistedSecret(dataDir);

  return {
    port,
    host,
    dataDir,
    databaseUrl,
    databaseListenUrl,
    redisUrl,
    baseUrl,
    checkoutUrl,
    jwtSecret,
    jwtTtlSeconds,
    logLevel,
    cursorSecret: jwtSecret + ':cursor',
    fees,
    pix: {
      key: env.PIX_KEY?.trim() || 'pix@cofre.com.br',
      merchantName: env.PIX_MERCHANT_NAME?.trim() || 'COFRE PAGAMENTOS',
      merchantCity: env.PIX_MERCHANT_CITY?.trim() || 'SAO PAULO',
      ttlSeconds: pixTtlSeconds,
    },
    boleto,
    card: { interestFreeInstallments, monthlyInterestBp, authorizationTtlDays },
    jobIntervalMs,
    connectors,
    cardBreaker,
    janitorGraceSeconds,
    auditRetentionDays,
    retention,
    runJobs: env.RUN_JOBS !== 'false',
    shutdown,
    rateLimitPerMinute,
    trustProxy: env.TRUST_PROXY === 'true',
    checkoutLimits,
    authLimits,
    databasePoolSize,
    databaseSchema,
    replica,
    webhooks,
    payouts,
    pixApi,
    cielo,
    erede,
    efi,
    inter,
    mail: { smtpUrl, from: mailFrom },
    referrals,
  };
}

/** SMTP_URL, checked without echoing it: it usually carries the server's password. */
function smtpConfig(env: Env, problems: string[]): string | null {
  const raw = env.SMTP_URL?.trim();
  if (!raw) return null;
  try {
    const u = new URL(raw);
    if ((u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname) return raw;
  } catch {
    /* reported below */
  }
  problems.push('SMTP_URL must be an smtp:// or smtps:// URL with a host, e.g. smtps://user:password@smtp.example.com:465 (value not shown: it may hold a password)');
  return null;
}

function payoutConfig(env: Env, problems: string[]): PayoutConfig {
  const limit = env.PAYOUT_DAILY_LIMIT_CENTS?.trim() ? int(env, 'PAYOUT_DAILY_LIMIT_CENTS', 0, 100, 1_000_000_000_000, problems) : null;
  return {
    sandboxDelayMs: int(env, 'SANDBOX_PAYOUT_DELAY_MS', 2000, 0, 600_000, problems),
    intervalMs: int(env, 'PAYOUT_INTERVAL_MS', 1000, 50, 3_600_000, problems),
    review: {
      aboveCents: int(env, 'PAYOUT_REVIEW_ABOVE_CENTS', 500_000, 0, 1_000_000_000_000, problems),
      dailyLimitCents: limit,
      newDestinationHours: int(env, 'PAYOUT_NEW_DESTINATION_HOLD_HOURS', 24, 0, 720, problems),
    },
  };
}

function webhookConfig(env: Env, problems: string[]): WebhookConfig {
  const timeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000, problems);
  let retryScheduleMs = DEFAULT_RETRY_SCHEDULE_MS;
  const rawSchedule = env.WEBHOOK_RETRY_SCHEDULE_MS?.trim();
  if (rawSchedule) {
    const parts = rawSchedule.split(',').map((p) => p.trim());
    if (parts.length > 20 || parts.some((p) => !/^\d{1,10}$/.test(p) || Number(p) < 1)) {
      problems.push(`WEBHOOK_RETRY_SCHEDULE_MS must be a comma-separated list of 1 to 20 positive whole numbers of ms (got "${rawSchedule}")`);
    } else retryScheduleMs = parts.map(Number);
  }
  const disableAfterMs = int(env, 'WEBHOOK_DISABLE_AFTER_MS', 5 * 86_400_000, 1000, 365 * 86_400_000, problems);
  const allowRaw = env.WEBHOOK_ALLOW_PRIVATE_TARGETS?.trim();
  if (allowRaw && allowRaw !== 'true' && allowRaw !== 'false') problems.push(`WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false (got "${allowRaw}")`);
  let ca: string | null = null;
  const caFile = env.WEBHOOK_CA_FILE?.trim();
  if (caFile) {
    try {
      ca = readFileSync(caFile, 'utf8');
      if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
        problems.push(`WEBHOOK_CA_FILE must be a PEM certificate file (no "BEGIN CERTIFICATE" in ${caFile})`);
        ca = null;
      }
    } catch (err) {
      problems.push(`WEBHOOK_CA_FILE cannot be read (${caFile}): ${(err as Error).message}`);
    }
  }
  const concurrency = int(env, 'WEBHOOK_CONCURRENCY', 50, 1, 1000, problems);
  const lockMs = int(env, 'WEBHOOK_LOCK_MS', Math.max(60_000, timeoutMs + 30_000), 1000, 3_600_000, problems);
  if (lockMs < timeoutMs + 1000) problems.push(`WEBHOOK_LOCK_MS (${lockMs}) must be at least WEBHOOK_TIMEOUT_MS + 1000 (${timeoutMs + 1000}): a lock must outlive the attempt it guards`);
  const pollMs = int(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000, problems);
  return { timeoutMs, retryScheduleMs, disableAfterMs, allowPrivateTargets: allowRaw === 'true', ca, concurrency, lockMs, pollMs };
}
