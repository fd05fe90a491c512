// Payment links, coupons, the public checkout API and the hosted checkout pages, registered as one.
import type { App } from '../../deps.ts';
import checkoutPageRoutes from '../../web/checkout-routes.ts';
import { PageCache } from '../../web/page-cache.ts';
import couponRoutes from '../coupons/routes.ts';
import paymentLinkRoutes from '../payment-links/routes.ts';
import checkoutRoutes from './routes.ts';

export default async function checkoutModule(app: App) {
  // Rendered link pages (short-lived); link changes made through the API drop their page at once.
  const pages = new PageCache();
  await app.register(paymentLinkRoutes, { pages });
  await app.register(couponRoutes);
  await app.register(checkoutRoutes);
  await app.register(checkoutPageRoutes, { pages });
}
