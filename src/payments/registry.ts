// Which providers this process uses, from the configuration: the one place a provider is chosen.
import type { Config } from '../config.ts';
import { PixApiProvider, type ProviderLog } from './pix-api/provider.ts';
import type { PayoutProviders, Providers } from './provider.ts';
import { SandboxPayoutProvider, SandboxProvider } from './sandbox.ts';

/**
 * Every provider this process uses, from the configuration (PAYMENT_PROVIDER, PIX_PROVIDER,
 * PAYOUT_PROVIDER). PIX_PROVIDER=bcb-api makes production payments go to the PSP's API Pix: PIX
 * only, card and boleto refused (503) until their providers exist.
 */
export function createProviders(config: Pick<Config, 'pix' | 'boleto' | 'productionProvider' | 'payouts' | 'pixApi'>, log?: ProviderLog): { payments: Providers; payouts: PayoutProviders } {
  const sandbox = new SandboxProvider(config);
  const payoutSandbox = new SandboxPayoutProvider(config.payouts.sandboxDelayMs);
  if (config.pixApi && !log) throw new Error('the API Pix provider needs a logger');
  const production = config.pixApi ? new PixApiProvider(config.pixApi, config.pix.key, log!) : config.productionProvider === 'sandbox' ? sandbox : null;
  return {
    payments: { sandbox, production },
    payouts: { sandbox: payoutSandbox, production: config.payouts.productionProvider === 'sandbox' ? payoutSandbox : null },
  };
}
