// Checkouts: the hosted page of a payment link shaped by the merchant (settings that override the
// link's, branding, order bumps, upsell and downsell; offers.ts). A link uses at most one checkout.
import type { Static } from '@sinclair/typebox';
import { inTx, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Checkout, CheckoutSettings } from '../../db/types.ts';
import { conflict, notFound, validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { requiredText } from '../../http/sanitize.ts';
import { owned, type Scope } from '../../http/scope.ts';
import { configView, customizationView, mergeConfig, mergeCustomization, type ImageImporter, type StoredConfig, type StoredCustomization } from '../branding/service.ts';
import { splitToSave, splitView } from '../splits/rule.ts';
import { loadOffers, lockCheckout, offerView, type OfferDeps, type OfferRow } from './offers.ts';
import type { CheckoutView, CreateCheckoutBody, ListCheckoutsQuery, UpdateCheckoutBody } from './schemas.ts';

export interface CheckoutDeps extends OfferDeps {
  images: ImageImporter;
}

export const DEFAULT_CHECKOUT_SETTINGS: CheckoutSettings = {
  pixEnabled: true,
  boletoEnabled: true,
  creditCardEnabled: true,
  maxInstallments: 12,
  requirePhone: false,
  requireAddress: false,
  showOrderBumps: true,
};

export function checkoutView(c: Checkout, offers: OfferRow[]): Static<typeof CheckoutView> {
  const mine = offers.filter((o) => o.checkout_id === c.id);
  const upsell = mine.find((o) => o.kind === 'UPSELL');
  const downsell = mine.find((o) => o.kind === 'DOWNSELL');
  return {
    id: c.id,
    name: c.name,
    paymentLinkId: c.payment_link_id,
    settings: c.settings,
    customization: customizationView(c.customization as StoredCustomization),
    checkoutConfig: configView(c.checkout_config as StoredConfig | null),
    split: splitView(c.split),
    orderBumps: mine.filter((o) => o.kind === 'BUMP').map(offerView),
    upsell: upsell ? { ...offerView(upsell), downsell: downsell ? offerView(downsell) : null } : null,
    livemode: c.livemode,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
}

export async function withOffers(db: Executor, userId: string, rows: Checkout[]) {
  const offers = await loadOffers(db, userId, rows.map((c) => c.id));
  return rows.map((c) => checkoutView(c, offers));
}

/** Payment settings (a link's or a checkout's) with the fields given replaced; at least one method must stay on. */
export function mergeSettings<S extends Pick<CheckoutSettings, 'pixEnabled' | 'boletoEnabled' | 'creditCardEnabled'>>(current: S, input: Partial<S> | undefined): S {
  const next = { ...current };
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
  if (!next.pixEnabled && !next.boletoEnabled && !next.creditCardEnabled) throw validation('settings', 'at least one payment method must be enabled');
  return next;
}

/** The link a checkout shapes: one of this merchant and environment. */
async function checkLink(trx: Trx, scope: Scope, linkId: string | null | undefined) {
  if (!linkId) return;
  const link = await owned(trx, 'payment_links', scope).select('id').where('id', '=', linkId).executeTakeFirst();
  if (!link) throw validation('paymentLinkId', 'is not a payment link of this merchant and environment');
}

/** The write, with a link that already has a checkout answered as 409. */
async function oneCheckoutPerLink<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'checkouts_link') throw conflict('This payment link already uses another checkout');
    throw err;
  }
}

export async function createCheckout(deps: CheckoutDeps, scope: Scope, input: Static<typeof CreateCheckoutBody>): Promise<Static<typeof CheckoutView>> {
  const importer = { images: deps.images, merchantId: scope.userId };
  const name = requiredText(input.name, 'name');
  const settings = mergeSettings(DEFAULT_CHECKOUT_SETTINGS, input.settings);
  const customization = await mergeCustomization(null, input.customization ?? {}, importer);
  const config = input.checkoutConfig ? await mergeConfig(null, input.checkoutConfig, importer) : null;
  const now = new Date();
  const row = await oneCheckoutPerLink(() =>
    inTx(deps.db, async (trx) => {
      await checkLink(trx, scope, input.paymentLinkId);
      const split = await splitToSave(trx, scope.userId, input.split);
      return trx
        .insertInto('checkouts')
        .values({
          id: uuidv7(now.getTime()),
          user_id: scope.userId,
          livemode: scope.livemode,
          name,
          payment_link_id: input.paymentLinkId ?? null,
          settings: JSON.stringify(settings),
          customization: JSON.stringify(customization),
          checkout_config: config && JSON.stringify(config),
          split: split ?? null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    }),
  );
  if (row.payment_link_id) await deps.changedLink(row.payment_link_id);
  return checkoutView(row, []);
}

async function ownedCheckout(db: Executor, scope: Scope, id: string): Promise<Checkout> {
  const row = await db.selectFrom('checkouts').selectAll().where('id', '=', id).where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).executeTakeFirst();
  if (!row) throw notFound('Checkout');
  return row;
}

export async function getCheckout(db: Executor, scope: Scope, id: string) {
  const [view] = await withOffers(db, scope.userId, [await ownedCheckout(db, scope, id)]);
  return view;
}

export async function updateCheckout(deps: CheckoutDeps, scope: Scope, id: string, input: Static<typeof UpdateCheckoutBody>) {
  const current = await ownedCheckout(deps.db, scope, id);
  const importer = { images: deps.images, merchantId: scope.userId };
  // Images are fetched before the row is locked: a slow merchant host holds no lock.
  const customization = input.customization ? await mergeCustomization(current.customization as StoredCustomization, input.customization, importer) : undefined;
  const config = input.checkoutConfig ? await mergeConfig(current.checkout_config as StoredConfig | null, input.checkoutConfig, importer) : undefined;
  const { row, before } = await oneCheckoutPerLink(() =>
    inTx(deps.db, async (trx) => {
      const locked = await lockCheckout(trx, scope, id);
      if (input.paymentLinkId !== undefined) await checkLink(trx, scope, input.paymentLinkId);
      const settings = input.settings ? mergeSettings(current.settings, input.settings) : undefined;
      const split = await splitToSave(trx, scope.userId, input.split);
      const updated = await trx
        .updateTable('checkouts')
        .set({
          ...(input.name !== undefined && { name: requiredText(input.name, 'name') }),
          ...(input.paymentLinkId !== undefined && { payment_link_id: input.paymentLinkId }),
          ...(settings && { settings: JSON.stringify(settings) }),
          ...(customization && { customization: JSON.stringify(customization) }),
          ...(config && { checkout_config: JSON.stringify(config) }),
          ...(split !== undefined && { split }),
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row: updated, before: locked.payment_link_id };
    }),
  );
  for (const linkId of new Set([before, row.payment_link_id])) if (linkId) await deps.changedLink(linkId);
  const [view] = await withOffers(deps.db, scope.userId, [row]);
  return view;
}

export async function deleteCheckout(deps: CheckoutDeps, scope: Scope, id: string): Promise<void> {
  const linkId = await inTx(deps.db, async (trx) => {
    const { payment_link_id } = await lockCheckout(trx, scope, id);
    await trx.deleteFrom('checkouts').where('id', '=', id).execute();
    return payment_link_id;
  });
  if (linkId) await deps.changedLink(linkId);
}

export async function listCheckouts(db: Executor, scope: Scope, q: Static<typeof ListCheckoutsQuery>) {
  let base = db.selectFrom('checkouts').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.paymentLinkId) base = base.where('payment_link_id', '=', q.paymentLinkId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { checkouts: await withOffers(db, scope.userId, rows), pagination: pageInfo(q.page, q.limit, Number(total)) };
}
