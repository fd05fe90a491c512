// Banco Inter's API Cobrança v3 settings: the inter boleto connector. OAuth2 client credentials over
// mutual TLS with the certificate Inter issues for the application (in PEM); INTER_ACCOUNT, the
// account number Inter asks in `x-conta-corrente` when an application serves several accounts.
// `clientSecret` and `key` are secrets: never logged (the logger redacts `*.secret` and `*.key`),
// never quoted in a message.
import { pemFile, url, type Env, type OAuthMtlsConfig } from './config-read.ts';

export interface InterConfig extends OAuthMtlsConfig {
  /** x-conta-corrente, or null. */
  account: string | null;
}

export const INTER_VARS = ['INTER_API_URL', 'INTER_CLIENT_ID', 'INTER_CLIENT_SECRET', 'INTER_CERT_FILE', 'INTER_KEY_FILE'];

/**
 * The inter connector's settings, all required but the CA, the token URL and the account: read when
 * BOLETO_PROVIDER names it, or when INTER_API_URL is still set after boletos moved to another
 * connector (it keeps serving the boletos it issued). Messages name the variable, never a secret.
 */
export function interConfig(env: Env, chosen: boolean, problems: string[]): InterConfig | null {
  if (!chosen && !env.INTER_API_URL?.trim()) return null;
  const before = problems.length;
  const missing = INTER_VARS.filter((n) => !env[n]?.trim());
  if (missing.length) problems.push(`${chosen ? 'BOLETO_PROVIDER=inter' : 'INTER_API_URL (the inter connector)'} needs ${missing.join(', ')}`);
  const apiUrl = url(env, 'INTER_API_URL', '', problems, ['https:']).replace(/\/+$/, '');
  const tokenUrl = url(env, 'INTER_TOKEN_URL', apiUrl ? `${apiUrl}/oauth/v2/token` : '', problems, ['https:']);
  const cert = pemFile(env, 'INTER_CERT_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const key = pemFile(env, 'INTER_KEY_FILE', /-----BEGIN (RSA |EC )?PRIVATE KEY-----/, 'private key', problems);
  const ca = pemFile(env, 'INTER_CA_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  // Inter's header takes the number without separators or leading zeros ([1-9][0-9]*): "0001234567-8" is 12345678.
  const account = env.INTER_ACCOUNT?.replace(/[\s.-]/g, '').replace(/^0+/, '') || null;
  if (account && !/^[1-9]\d{0,19}$/.test(account)) problems.push('INTER_ACCOUNT must be the account number (digits, with or without its dash)');
  if (problems.length > before || !apiUrl || !cert || !key) return null;
  return { url: apiUrl, tokenUrl, clientId: env.INTER_CLIENT_ID!.trim(), clientSecret: env.INTER_CLIENT_SECRET!, cert, key, ca, account };
}
