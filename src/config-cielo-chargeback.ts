// Cielo's Chargeback API (the cielo connector's chargebacks): its own OAuth2 client credentials over
// mutual TLS with a certificate Cielo signs, on hosts apart from the E-commerce API's. All of the
// CIELO_CHARGEBACK_* settings or none: without them Cielo's chargebacks are handled on Cielo's site
// and no chargeback route is mounted. Manual: https://developercielo.github.io/manual/api-chargeback-2-0
// `clientSecret` and `key` are secrets: never logged, never quoted in a message.
import { pemFile, url as readUrl, type Env, type OAuthMtlsConfig } from './config-read.ts';

/**
 * url: up to the service (…/cielo-chargeback-sys-external; paths add /chargeback/v1/…); tokenUrl:
 * …/cielo-security-sys-web/oauth/v2/MulesoftPRD/protocol/openid-connect/token; cert and key: the
 * mTLS certificate Cielo signed (no extra CA).
 */
export interface CieloChargebackConfig extends Omit<OAuthMtlsConfig, 'ca'> {
  /** The head office's establishment number (EC da matriz): cases are looked up under it (hierarchyType 4). */
  mainCustomer: string;
  /** userName of an accept or a refusal: the e-mail of who answers for the store (at most 256). */
  userName: string;
}

export const CIELO_CHARGEBACK_VARS = ['CIELO_CHARGEBACK_URL', 'CIELO_CHARGEBACK_TOKEN_URL', 'CIELO_CHARGEBACK_CLIENT_ID', 'CIELO_CHARGEBACK_CLIENT_SECRET', 'CIELO_CHARGEBACK_CERT_FILE', 'CIELO_CHARGEBACK_KEY_FILE', 'CIELO_CHARGEBACK_MAIN_CUSTOMER', 'CIELO_CHARGEBACK_USER_NAME'];

/** The settings, null when none is set; a partial or malformed set is a start problem. */
export function cieloChargebackConfig(env: Env, problems: string[]): CieloChargebackConfig | null {
  const set = CIELO_CHARGEBACK_VARS.filter((n) => env[n]?.trim());
  if (!set.length) return null;
  const before = problems.length;
  const missing = CIELO_CHARGEBACK_VARS.filter((n) => !env[n]?.trim());
  if (missing.length) problems.push(`Cielo's chargebacks (CIELO_CHARGEBACK_*) need all of their settings; missing ${missing.join(', ')}`);
  const url = readUrl(env, 'CIELO_CHARGEBACK_URL', '', problems, ['https:']);
  const tokenUrl = readUrl(env, 'CIELO_CHARGEBACK_TOKEN_URL', '', problems, ['https:']);
  const cert = pemFile(env, 'CIELO_CHARGEBACK_CERT_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const key = pemFile(env, 'CIELO_CHARGEBACK_KEY_FILE', /-----BEGIN (RSA |EC )?PRIVATE KEY-----/, 'private key', problems);
  const mainCustomer = env.CIELO_CHARGEBACK_MAIN_CUSTOMER?.trim() ?? '';
  // Cielo: mainCustomer, the head office's establishment number, numeric, at most 10.
  if (mainCustomer && !/^\d{1,10}$/.test(mainCustomer)) problems.push(`CIELO_CHARGEBACK_MAIN_CUSTOMER must be the head office's establishment number (EC): up to 10 digits (got "${mainCustomer}")`);
  const userName = env.CIELO_CHARGEBACK_USER_NAME?.trim() ?? '';
  if (userName && (userName.length > 256 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(userName))) problems.push(`CIELO_CHARGEBACK_USER_NAME must be the e-mail of who answers chargebacks, at most 256 characters (got "${userName}")`);
  if (problems.length > before || !url || !tokenUrl || !cert || !key) return null;
  return { url, tokenUrl, clientId: env.CIELO_CHARGEBACK_CLIENT_ID!.trim(), clientSecret: env.CIELO_CHARGEBACK_CLIENT_SECRET!, cert, key, mainCustomer, userName };
}
