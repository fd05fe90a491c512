// Efí's (formerly Gerencianet) Pix-send settings: the efi payout connector. OAuth2 client credentials
// over mutual TLS with the certificate Efí issues for the application (in PEM), the platform's own
// Pix key that pays (EFI_PAYING_KEY: Efí requires a webhook on it) and the secret Efí's notifications
// carry as `?hmac=` (Efí cannot send a header of ours). `clientSecret`, `key` and `webhookSecret` are
// secrets: never logged (the logger redacts `*.secret` and `*.key`), never quoted in a message.
import { pemFile, url, type Env, type OAuthMtlsConfig } from './config-read.ts';

/** The url: https://pix.api.efipay.com.br (homologation: https://pix-h.api.efipay.com.br); tokenUrl by default {origin}/oauth/token. */
export interface EfiConfig extends OAuthMtlsConfig {
  /** The platform's Pix key at Efí that pays (pagador.chave) and whose webhook tells of each send. */
  payingKey: string;
  /** What Efí's notifications must carry as `?hmac=` (registered in the webhook URL). */
  webhookSecret: string;
}

export const EFI_VARS = ['EFI_API_URL', 'EFI_CLIENT_ID', 'EFI_CLIENT_SECRET', 'EFI_CERT_FILE', 'EFI_KEY_FILE', 'EFI_PAYING_KEY', 'EFI_WEBHOOK_SECRET'];

/**
 * The efi connector's settings, all required but the CA and the token URL: read when PAYOUT_PROVIDER
 * names it, or when EFI_API_URL is still set after payouts moved to another connector (it keeps
 * following the payouts it sent). Messages name the variable, never a secret's value.
 */
export function efiConfig(env: Env, chosen: boolean, problems: string[]): EfiConfig | null {
  if (!chosen && !env.EFI_API_URL?.trim()) return null;
  const before = problems.length;
  const missing = EFI_VARS.filter((n) => !env[n]?.trim());
  if (missing.length) problems.push(`${chosen ? 'PAYOUT_PROVIDER=efi' : 'EFI_API_URL (the efi connector)'} needs ${missing.join(', ')}`);
  const apiUrl = url(env, 'EFI_API_URL', '', problems, ['https:']);
  const tokenUrl = url(env, 'EFI_TOKEN_URL', apiUrl ? `${new URL(apiUrl).origin}/oauth/token` : '', problems, ['https:']);
  const cert = pemFile(env, 'EFI_CERT_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const key = pemFile(env, 'EFI_KEY_FILE', /-----BEGIN (RSA |EC )?PRIVATE KEY-----/, 'private key', problems);
  const ca = pemFile(env, 'EFI_CA_FILE', /-----BEGIN CERTIFICATE-----/, 'certificate', problems);
  const payingKey = env.EFI_PAYING_KEY?.trim() ?? '';
  // Efí: pagador.chave, a DICT key of at most 77 characters.
  if (payingKey.length > 77) problems.push('EFI_PAYING_KEY must be a Pix key of at most 77 characters');
  const webhookSecret = env.EFI_WEBHOOK_SECRET?.trim() ?? '';
  // It travels in the URL Efí calls: letters, digits, - and _ need no encoding.
  if (webhookSecret && !/^[A-Za-z0-9_-]{16,128}$/.test(webhookSecret)) problems.push('EFI_WEBHOOK_SECRET must be 16 to 128 letters, digits, - or _ (value not shown)');
  if (problems.length > before || !apiUrl || !cert || !key) return null;
  return { url: apiUrl, tokenUrl, clientId: env.EFI_CLIENT_ID!.trim(), clientSecret: env.EFI_CLIENT_SECRET!, cert, key, ca, payingKey, webhookSecret };
}
