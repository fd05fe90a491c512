// The settings that point a Cofre at a fake Efí (the tests and a rehearsal by hand use them).
import type { FakeEfi } from './types.ts';

export const EFI_TEST_WEBHOOK_SECRET = 'efi-webhook-secret-0123456789';

export function efiEnv(e: FakeEfi, webhookSecret = EFI_TEST_WEBHOOK_SECRET): Record<string, string> {
  return {
    PAYOUT_PROVIDER: 'efi',
    EFI_API_URL: e.apiUrl,
    EFI_CLIENT_ID: e.clientId,
    EFI_CLIENT_SECRET: e.clientSecret,
    EFI_CERT_FILE: e.clientCertFile,
    EFI_KEY_FILE: e.clientKeyFile,
    EFI_CA_FILE: e.caFile,
    EFI_PAYING_KEY: e.payingKey,
    EFI_WEBHOOK_SECRET: webhookSecret,
  };
}
