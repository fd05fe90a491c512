// Environment -> typed, validated configuration. The one place that reads process.env.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
  boleto: { bankCode: string; defaultDueDays: number };
  /** Card instalments: plans up to interestFreeInstallments carry no interest; beyond, the Price table at monthlyInterestBp. */
  card: { interestFreeInstallments: number; monthlyInterestBp: number };
  /** How often background jobs (expiry, settlement, clean-up) run, in ms. */
  jobIntervalMs: number;
  /** Name of the payment provider used for production (live) transactions; null = none configured. */
  productionProvider: string | null;
  runJobs: boolean;
  /** Requests per minute per merchant on authenticated routes. */
  rateLimitPerMinute: number;
  /** Trust X-Forwarded-For from a proxy in front (client IPs for rate limits). */
  trustProxy: boolean;
  databasePoolSize: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    problems.push(`${name} must be a whole number between ${min} and ${max} (got "${raw}")`);
    return fallback;
  }
  const n = Number(raw);
  if (n < min || n > max) problems.push(`${name} must be between ${min} and ${max} (got ${n})`);
  return n;
}

function url(env: Env, name: string, fallback: string, problems: string[], protocols = ['http:', 'https:']): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  try {
    const u = new URL(raw);
    if (!protocols.includes(u.protocol)) throw new Error('protocol');
    return raw.replace(/\/+$/, '');
  } catch {
    problems.push(`${name} must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL (got "${raw}")`);
    return fallback;
  }
}

/** Reads the JWT secret kept in the data dir, creating it on first start (embedded mode only). */
function persistedSecret(dataDir: string): string {
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
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

  const bankCode = env.BOLETO_BANK_CODE?.trim() || '000';
  if (!/^\d{3}$/.test(bankCode)) problems.push(`BOLETO_BANK_CODE must be 3 digits (got "${bankCode}")`);

  const productionProvider = env.PAYMENT_PROVIDER?.trim() || null;
  if (productionProvider && productionProvider !== 'sandbox') {
    problems.push(`PAYMENT_PROVIDER "${productionProvider}" is not a known provider (known: sandbox)`);
  }

  const jwtTtlSeconds = int(env, 'JWT_TTL_SECONDS', 86400, 60, 30 * 86400, problems);
  const pixTtlSeconds = int(env, 'PIX_TTL_SECONDS', 86400, 60, 30 * 86400, problems);
  const rateLimitPerMinute = int(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1, 100_000_000, problems);
  const databasePoolSize = int(env, 'DATABASE_POOL_SIZE', 20, 1, 500, problems);
  const interestFreeInstallments = int(env, 'CARD_INTEREST_FREE_INSTALLMENTS', 1, 1, 12, problems);
  const monthlyInterestBp = int(env, 'CARD_MONTHLY_INTEREST_BP', 299, 0, 10000, problems);
  const jobIntervalMs = int(env, 'JOB_INTERVAL_MS', 5000, 50, 3_600_000, problems);

  if (problems.length) throw new ConfigError('Invalid configuration:\n  - ' + problems.join('\n  - '));
  if (!jwtSecret) jwtSecret = persistedSecret(dataDir);

  return {
    port,
    host,
    dataDir,
    databaseUrl,
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
    boleto: { bankCode, defaultDueDays: 3 },
    card: { interestFreeInstallments, monthlyInterestBp },
    jobIntervalMs,
    productionProvider,
    runJobs: env.RUN_JOBS !== 'false',
    rateLimitPerMinute,
    trustProxy: env.TRUST_PROXY === 'true',
    databasePoolSize,
  };
}
