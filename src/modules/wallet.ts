// The wallet's HTTP surface in one plugin: balance and withdrawals, advances, KYC, and the
// operator API that reviews them.
import type { App } from '../deps.ts';
import adminRoutes from './admin/routes.ts';
import advanceRoutes from './advances/routes.ts';
import kycRoutes from './kyc/routes.ts';
import withdrawalRoutes from './withdrawals/routes.ts';

export default async function walletRoutes(app: App) {
  await app.register(withdrawalRoutes);
  await app.register(advanceRoutes);
  await app.register(kycRoutes);
  await app.register(adminRoutes);
}
