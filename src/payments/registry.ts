// Which providers this process uses, from the configuration: the one place a provider is chosen.
import type { Config } from '../config.ts';
import type { PayoutProviders, Providers } from './provider.ts';
import { SandboxPayoutProvider, SandboxProvider } from './sandbox.ts';

/** Every provider this process uses, from the configuration (PAYMENT_PROVIDER, PAYOUT_PROVIDER). */
export function createProviders(config: Pick<Config, 'pix' | 'boleto' | 'productionProvider' | 'payouts'>): { payments: Providers; payouts: PayoutProviders } {
  const sandbox = new SandboxProvider(config);
  const payoutSandbox = new SandboxPayoutProvider(config.payouts.sandboxDelayMs);
  return {
    payments: { sandbox, production: config.productionProvider === 'sandbox' ? sandbox : null },
    payouts: { sandbox: payoutSandbox, production: config.payouts.productionProvider === 'sandbox' ? payoutSandbox : null },
  };
}
