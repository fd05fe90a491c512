// The configuration of the rails: which connector serves each one in production, and the settings
// of the connectors that need them (the API Pix's). Read by loadConfig (config.ts), which re-exports
// these types (and the small parsers of config-read.ts every setting shares).
import { cieloChargebackConfig, type CieloChargebackConfig } from './config-cielo-chargeback.ts';
import { int, pemFile, url, type Env, type OAuthMtlsConfig } from './config-read.ts';

export { int, pemFile, url, type Env } from './config-read.ts';

/** A PSP's API Pix (its url: e.g. https://psp.example/v2). */
export interface PixApiConfig extends OAuthMtlsConfig {
  /**
   * PIX_API_RECEIVER_ACCOUNT: the receiving account at the PSP (Pix Automático charges name it).
   * null: Pix Automático is not offered in production (and its scopes are not asked for).
   */
  receiverAccount: { tipoConta: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO'; agencia: string; conta: string } | null;
}

/**
 * PIX_PROVIDER, CARD_PROVIDER (an ordered list), BOLETO_PROVIDER, PAYOUT_PROVIDER: each optional;
 * PAYMENT_PROVIDER=sandbox puts the payment rails not named on the sandbox. Pix Automático follows PIX.
 * PAYOUT empty: production withdrawals wait for an operator (/api/admin/withdrawals).
 */
export interface ConnectorChoice {
  PIX: string[];
  CARD: string[];
  BOLETO: string[];
  PAYOUT: string[];
}

/** The connectors this gateway has, per rail (checked again by the registry, which builds them). */
const KNOWN_CONNECTORS: Record<keyof ConnectorChoice, string[]> = { PIX: ['bcb-api', 'sandbox'], CARD: ['cielo', 'erede', 'sandbox'], BOLETO: ['inter', 'sandbox'], PAYOUT: ['efi', 'sandbox'] };


/**
 * The production connectors of each rail. PAYMENT_PROVIDER keeps its meaning (sandbox: the payment
 * rails on the sandbox, for rehearsals); a rail's own variable wins over it.
 */
export function connectorChoice(env: Env, problems: string[]): ConnectorChoice {
  const all = env.PAYMENT_PROVIDER?.trim() || null;
  if (all && all !== 'sandbox') problems.push(`PAYMENT_PROVIDER "${all}" is not a known provider (known: sandbox)`);
  const rail = (name: string, key: keyof ConnectorChoice, many: boolean, fallback: string | null): string[] => {
    const raw = env[name]?.trim();
    if (!raw) return fallback ? [fallback] : [];
    const names = raw.split(',').map((n) => n.trim());
    if (!many && names.length > 1) problems.push(`${name} takes one provider (got "${raw}")`);
    if (new Set(names).size !== names.length) problems.push(`${name} names a provider twice (got "${raw}")`);
    const what = key === 'PAYOUT' ? 'payout' : key;
    for (const n of names) if (!KNOWN_CONNECTORS[key].includes(n)) problems.push(`${name} "${n}" is not a known ${what} provider (known: ${KNOWN_CONNECTORS[key].join(', ')})`);
    return names;
  };
  const fallback = all === 'sandbox' ? 'sandbox' : null;
  return { PIX: rail('PIX_PROVIDER', 'PIX', false, fallback), CARD: rail('CARD_PROVIDER', 'CARD', true, fallback), BOLETO: rail('BOLETO_PROVIDER', 'BOLETO', false, fallback), PAYOUT: rail('PAYOUT_PROVIDER', 'PAYOUT', false, null) };
}

/**
 * The API Pix connector's settings (bcb-api), all required but the CA and the token URL: read when
 * PIX_PROVIDER names it, or when PIX_API_URL is still set after PIX moved to another connector (it
 * keeps serving the payments it made: refunds, confirmations, reconciliation). Messages name the
 * variable, never its value when it is a secret (client secret, key).
 */
export function pixApiConfig(env: Env, chosen: boolean, problems: string[]): PixApiConfig | null {
  if (!chosen && !env.PIX_API_URL?.trim()) return null;
  const before = problems.length;
  const missing = ['PIX_API_URL', 'PIX_API_CLIENT_ID', 'PIX_API_CLIENT_SECRET', 'PIX_API_CERT_FILE', 'PIX_API_KEY_FILE', 'PIX_KEY'].filter((n) => !env[n]?.trim());
  if (missing.length) problems.push(`${chosen ? 'PIX_PROVIDER=bcb-api' : 'PIX_API_URL (the bcb-api connector)'} needs ${missing.join(', ')}`);
  const apiUrl = url(env, 'PIX_API_URL', '', problems, ['https:']);
  const tokenUrl = url(env, 'PIX_API_TOKEN_URL', apiUrl ? `${new URL(apiUrl).origin}/oauth/token` : '', problems, ['https:']);
  const cert = pemFile(env, 'PIX_API_CERT_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const key = pemFile(env, 'PIX_API_KEY_FILE', /-----BEGIN (RSA |EC )?PRIVATE KEY-----/, 'private key', problems);
  const ca = pemFile(env, 'PIX_API_CA_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const pixKey = env.PIX_KEY?.trim() ?? '';
  if (pixKey.length > 77) problems.push('PIX_KEY must be at most 77 characters (a DICT key)');
  const receiverAccount = receiverAccountOf(env.PIX_API_RECEIVER_ACCOUNT?.trim() ?? '', problems);
  if (problems.length > before || !apiUrl || !cert || !key) return null;
  return { url: apiUrl, tokenUrl, clientId: env.PIX_API_CLIENT_ID!.trim(), clientSecret: env.PIX_API_CLIENT_SECRET!, cert, key, ca, receiverAccount };
}

/** PIX_API_RECEIVER_ACCOUNT=TYPE:BRANCH:ACCOUNT (e.g. CORRENTE:0001:1234567), or empty (no Pix Automático). */
function receiverAccountOf(raw: string, problems: string[]): PixApiConfig['receiverAccount'] {
  if (!raw) return null;
  const m = /^(CORRENTE|POUPANCA|PAGAMENTO):(\d{1,4})?:(\d{1,20})$/.exec(raw);
  if (!m) {
    problems.push(`PIX_API_RECEIVER_ACCOUNT must be TYPE:BRANCH:ACCOUNT, TYPE one of CORRENTE, POUPANCA, PAGAMENTO, branch up to 4 digits (may be empty), account up to 20 digits (got "${raw}")`);
    return null;
  }
  return { tipoConta: m[1] as 'CORRENTE', agencia: m[2] ?? '', conta: m[3] };
}

/**
 * Cielo's E-commerce API 3.0 (the cielo card connector). `merchantKey` and `notificationSecret` are
 * secrets: never logged (the logger redacts `*.key` and `*.secret`, and no message quotes them).
 */
export interface CieloConfig {
  /** Transactional base URL (sales, capture, void, card tokens), without a trailing slash. */
  apiUrl: string;
  /** Query base URL (GET sales), without a trailing slash. */
  queryUrl: string;
  merchantId: string;
  merchantKey: string;
  /** The name on the shopper's card statement (Payment.SoftDescriptor): at most 13 characters. */
  softDescriptor: string;
  /** The value Cielo sends in the X-Notification-Secret header of its Notification Post. */
  notificationSecret: string;
  /** PEM text of an extra CA to trust (CIELO_CA_FILE: a rehearsal against a local fake); null: the system's. */
  ca: string | null;
  /** One call's limit (connect, TLS, answer). */
  timeoutMs: number;
  /** Cielo's Chargeback API (CIELO_CHARGEBACK_*, config-cielo-chargeback.ts); null: chargebacks are answered on Cielo's site. */
  chargeback: CieloChargebackConfig | null;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The cielo connector's settings: read when CARD_PROVIDER names it, or when CIELO_API_URL is still
 * set after cards moved to another connector (it keeps serving the payments it made). Messages name
 * the variable, never a secret's value.
 */
export function cieloConfig(env: Env, chosen: boolean, problems: string[]): CieloConfig | null {
  if (!chosen && !env.CIELO_API_URL?.trim()) return null;
  const before = problems.length;
  const names = ['CIELO_API_URL', 'CIELO_QUERY_URL', 'CIELO_MERCHANT_ID', 'CIELO_MERCHANT_KEY', 'CIELO_SOFT_DESCRIPTOR', 'CIELO_NOTIFICATION_SECRET'];
  const missing = names.filter((n) => !env[n]?.trim());
  if (missing.length) problems.push(`${chosen ? 'CARD_PROVIDER=cielo' : 'CIELO_API_URL (the cielo connector)'} needs ${missing.join(', ')}`);
  const apiUrl = url(env, 'CIELO_API_URL', '', problems, ['https:']);
  const queryUrl = url(env, 'CIELO_QUERY_URL', '', problems, ['https:']);
  const merchantId = env.CIELO_MERCHANT_ID?.trim() ?? '';
  if (merchantId && !GUID.test(merchantId)) problems.push(`CIELO_MERCHANT_ID must be the GUID Cielo gave (got "${merchantId}")`);
  const merchantKey = env.CIELO_MERCHANT_KEY?.trim() ?? '';
  if (merchantKey && !/^[A-Za-z0-9]{1,40}$/.test(merchantKey)) problems.push('CIELO_MERCHANT_KEY must be the key Cielo gave: letters and digits, at most 40 (value not shown)');
  const softDescriptor = env.CIELO_SOFT_DESCRIPTOR?.trim() ?? '';
  // Cielo: Payment.SoftDescriptor, text of at most 13, no special characters.
  if (softDescriptor && !/^[A-Za-z0-9 ]{1,13}$/.test(softDescriptor)) problems.push(`CIELO_SOFT_DESCRIPTOR must be at most 13 letters, digits or spaces, without accents (got "${softDescriptor}", ${softDescriptor.length} characters)`);
  const notificationSecret = env.CIELO_NOTIFICATION_SECRET?.trim() ?? '';
  if (notificationSecret && notificationSecret.length < 16) problems.push('CIELO_NOTIFICATION_SECRET must be at least 16 characters (value not shown)');
  const ca = pemFile(env, 'CIELO_CA_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const timeoutMs = int(env, 'CIELO_TIMEOUT_MS', 15_000, 100, 120_000, problems);
  const chargeback = cieloChargebackConfig(env, problems);
  if (problems.length > before || !apiUrl || !queryUrl) return null;
  return { apiUrl, queryUrl, merchantId, merchantKey, softDescriptor, notificationSecret, ca, timeoutMs, chargeback };
}

/** The card failover chain's circuit breaker, per connector (payments/breaker.ts). */
export interface BreakerSettings {
  /** Consecutive unanswered calls that open the circuit (CARD_BREAKER_FAILURES). */
  failures: number;
  /** How long it stays open before one trial call (CARD_BREAKER_COOLDOWN_SECONDS, in ms here). */
  cooldownMs: number;
}

/** CARD_BREAKER_FAILURES unanswered card calls in a row open a connector's circuit for CARD_BREAKER_COOLDOWN_SECONDS (payments/breaker.ts). */
export function cardBreakerConfig(env: Env, problems: string[]): BreakerSettings {
  return { failures: int(env, 'CARD_BREAKER_FAILURES', 5, 1, 1000, problems), cooldownMs: int(env, 'CARD_BREAKER_COOLDOWN_SECONDS', 30, 1, 86_400, problems) * 1000 };
}

/**
 * e.Rede (Rede's card API, OAuth2 since 2026): the PV is the client id, the integration key the
 * secret (never logged nor quoted in a message). `url` is the API's base without the version
 * (https://api.userede.com.br/erede in production); `softDescriptor` the text on the card statement.
 */
export interface EredeConfig {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  softDescriptor: string | null;
  /** PEM text of an extra CA to trust (EREDE_CA_FILE), as PIX_API_CA_FILE for the API Pix. */
  ca: string | null;
  timeoutMs: number;
  /**
   * The host of e.Rede's token service (EREDE_TOKEN_SERVICE_URL, before /token-service/oauth/v2),
   * once Rede enabled card tokenisation for the PV; null: no saved cards nor card subscriptions.
   */
  tokenServiceUrl: string | null;
}

/** e.Rede's settings: read when CARD_PROVIDER names erede, or when EREDE_API_URL is still set (it serves the sales it made). */
export function eredeConfig(env: Env, chosen: boolean, problems: string[]): EredeConfig | null {
  if (!chosen && !env.EREDE_API_URL?.trim()) return null;
  const before = problems.length;
  const missing = ['EREDE_API_URL', 'EREDE_TOKEN_URL', 'EREDE_CLIENT_ID', 'EREDE_CLIENT_SECRET'].filter((n) => !env[n]?.trim());
  if (missing.length) problems.push(`${chosen ? 'CARD_PROVIDER=erede' : 'EREDE_API_URL (the erede connector)'} needs ${missing.join(', ')}`);
  const apiUrl = url(env, 'EREDE_API_URL', '', problems, ['https:']);
  const tokenUrl = url(env, 'EREDE_TOKEN_URL', '', problems, ['https:']);
  const clientId = env.EREDE_CLIENT_ID?.trim() ?? '';
  // e.Rede refuses a PV written with leading zeros (invalid_client).
  if (clientId && !/^[1-9]\d{0,14}$/.test(clientId)) problems.push('EREDE_CLIENT_ID must be the PV (filiação): digits, without leading zeros');
  const softDescriptor = env.EREDE_SOFT_DESCRIPTOR?.trim() || null;
  if (softDescriptor && !/^[A-Za-z0-9 ]{1,18}$/.test(softDescriptor)) problems.push(`EREDE_SOFT_DESCRIPTOR must be at most 18 letters, digits or spaces (got "${softDescriptor}")`);
  const ca = pemFile(env, 'EREDE_CA_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const timeoutMs = int(env, 'EREDE_TIMEOUT_MS', 15_000, 500, 120_000, problems);
  const tokenServiceUrl = env.EREDE_TOKEN_SERVICE_URL?.trim() ? url(env, 'EREDE_TOKEN_SERVICE_URL', '', problems, ['https:']) : null;
  if (problems.length > before || !apiUrl || !tokenUrl) return null;
  return { url: apiUrl, tokenUrl, clientId, clientSecret: env.EREDE_CLIENT_SECRET!, softDescriptor, ca, timeoutMs, tokenServiceUrl: tokenServiceUrl || null };
}
