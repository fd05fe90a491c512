// The settings that point a Cofre at a fake Cielo (the tests' kit and a rehearsal by hand use them).
import type { FakeCielo } from './types.ts';

export function cieloEnv(c: FakeCielo, timeoutMs = 800): Record<string, string> {
  return {
    CARD_PROVIDER: 'cielo',
    CIELO_API_URL: c.apiUrl,
    CIELO_QUERY_URL: c.queryUrl,
    CIELO_MERCHANT_ID: c.merchantId,
    CIELO_MERCHANT_KEY: c.merchantKey,
    CIELO_SOFT_DESCRIPTOR: 'LOJA COFRE',
    CIELO_NOTIFICATION_SECRET: c.notificationSecret,
    CIELO_CA_FILE: c.caFile,
    CIELO_TIMEOUT_MS: String(timeoutMs),
    CIELO_CHARGEBACK_URL: c.chargebacks.url,
    CIELO_CHARGEBACK_TOKEN_URL: c.chargebacks.tokenUrl,
    CIELO_CHARGEBACK_CLIENT_ID: c.chargebacks.clientId,
    CIELO_CHARGEBACK_CLIENT_SECRET: c.chargebacks.clientSecret,
    CIELO_CHARGEBACK_CERT_FILE: c.chargebacks.clientCertFile,
    CIELO_CHARGEBACK_KEY_FILE: c.chargebacks.clientKeyFile,
    CIELO_CHARGEBACK_MAIN_CUSTOMER: c.chargebacks.mainCustomer,
    CIELO_CHARGEBACK_USER_NAME: 'chargebacks@loja.example',
  };
}
