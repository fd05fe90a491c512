// Subscription plans: what a merchant sells by the period. A price change applies from each
// subscriber's next period (a cycle copies the plan's amount when it is created). A plan with
// subscribers is never deleted: DELETE deactivates it (no new subscribers, existing ones go on);
// a plan nobody ever subscribed to is archived (gone from the API).
import type { Config } from '../../config.ts';
import { inTx, type Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { DunningPolicy, PlanInterval, SubscriptionMethod, SubscriptionPlan } from '../../db/types.ts';
import { notFound, validation } from '../../http/errors.ts';
import { createdAtPage, type Cursors } from '../../http/pagination.ts';
import { requiredText, sanitizeOptional } from '../../http/sanitize.ts';
import type { Scope } from '../../http/scope.ts';
import type { EventLog } from '../events/service.ts';
import { splitToSave, splitView } from '../splits/rule.ts';
import type { CreatePlanInput, DunningBody, UpdatePlanInput } from './schemas.ts';
import type { Static } from '@sinclair/typebox';

export interface PlanDeps {
  config: Config;
  events: EventLog;
  cursors: Cursors;
}

/** Pix Automático charges are sent this many days before their due date unless the plan says otherwise (the rules allow 2 to 10). */
export const PIX_AUTOMATICO_DAYS_BEFORE = 3;
export const DEFAULT_DUNNING: DunningPolicy = { retryDays: [1, 3, 5, 7], finalAction: 'CANCEL', pixDaysBefore: 3, boletoDaysBefore: 5, pixAutomaticoDaysBefore: PIX_AUTOMATICO_DAYS_BEFORE };
/** What a plan offers when it does not say: Pix Automático is offered only when the plan lists it. */
const DEFAULT_METHODS: SubscriptionMethod[] = ['CARD', 'PIX', 'BOLETO'];
const ALL_METHODS: SubscriptionMethod[] = ['CARD', 'PIX', 'BOLETO', 'PIX_AUTOMATICO'];

export const normalizeInterval = (i: string): PlanInterval => (i === 'YEARLY' ? 'ANNUAL' : (i as PlanInterval));
export const normalizeMethod = (m: string): SubscriptionMethod => (m === 'CREDIT_CARD' ? 'CARD' : (m as SubscriptionMethod));

function normalizeMethods(list: string[]): SubscriptionMethod[] {
  const out = [...new Set(list.map(normalizeMethod))];
  // In a fixed order, so that the stored list does not depend on how the request spelled it.
  return ALL_METHODS.filter((m) => out.includes(m));
}

/**
 * The API Pix periodicity of a cadence (a Pix Automático authorisation is weekly, monthly,
 * quarterly, half-yearly or yearly), or null when the cadence has none (daily, every 2 weeks...).
 */
export function pixPeriodicity(interval: PlanInterval, count: number): 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL' | null {
  const months = interval === 'MONTHLY' ? count : interval === 'QUARTERLY' ? 3 * count : interval === 'SEMIANNUAL' ? 6 * count : interval === 'ANNUAL' ? 12 * count : null;
  if (interval === 'WEEKLY') return count === 1 ? 'SEMANAL' : null;
  return months === 1 ? 'MENSAL' : months === 3 ? 'TRIMESTRAL' : months === 6 ? 'SEMESTRAL' : months === 12 ? 'ANUAL' : null;
}

/** A plan offering PIX_AUTOMATICO must bill on a cadence the Pix rules know, and without a trial (the authorisation is given with the first payment). */
function checkPixAutomatico(p: Pick<SubscriptionPlan, 'payment_methods' | 'interval' | 'interval_count' | 'trial_days'>, field: string) {
  if (!p.payment_methods.includes('PIX_AUTOMATICO')) return;
  if (!pixPeriodicity(p.interval, p.interval_count)) throw validation(field, 'PIX_AUTOMATICO needs a weekly, monthly, quarterly, half-yearly or yearly cadence (interval and intervalCount)');
  if (p.trial_days > 0) throw validation(field, 'PIX_AUTOMATICO cannot be offered with a trial: the subscriber authorises the recurring debits when paying the first charge');
}

/** A plan's dunning as shown and used: plans made before Pix Automático get its default. */
export const dunningWithDefaults = (d: DunningPolicy): Required<DunningPolicy> => ({ ...d, pixAutomaticoDaysBefore: d.pixAutomaticoDaysBefore ?? PIX_AUTOMATICO_DAYS_BEFORE });

function dunningOf(input: Static<typeof DunningBody> | undefined, base: DunningPolicy): DunningPolicy {
  const d = { ...base, ...Object.fromEntries(Object.entries(input ?? {}).filter(([, v]) => v !== undefined)) } as DunningPolicy;
  for (let i = 1; i < d.retryDays.length; i++) {
    if (d.retryDays[i] <= d.retryDays[i - 1]) throw validation('dunning.retryDays', 'must be increasing (days after the first failure)');
  }
  return d;
}

/** What the merchant's and the public view of a plan both show: its price and terms. */
function planTerms(p: SubscriptionPlan) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    amountCents: p.amount_cents,
    currency: 'BRL' as const,
    interval: p.interval,
    intervalCount: p.interval_count,
    trialDays: p.trial_days,
  };
}

export function planView(config: Config, p: SubscriptionPlan) {
  return {
    ...planTerms(p),
    maxSubscribers: p.max_subscribers,
    subscriberCount: p.subscriber_count,
    paymentMethods: p.payment_methods,
    status: p.status,
    dunning: dunningWithDefaults(p.dunning),
    publicUrl: `${config.checkoutUrl}/subscribe/${p.id}`,
    productId: p.product_id,
    split: splitView(p.split),
    createdAt: p.created_at,
    updatedAt: p.updated_at,
  };
}

/** The product a plan sells: one of the merchant's live products of the environment. */
async function planProduct(db: Executor, scope: Scope, productId: string | null): Promise<string | null> {
  if (productId === null) return null;
  const found = await db.selectFrom('products').select('id').where('id', '=', productId).where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('deleted_at', 'is', null).executeTakeFirst();
  if (!found) throw validation('productId', 'is not a product of this merchant and environment');
  return found.id;
}

export async function createPlan(deps: PlanDeps, db: Executor, scope: Scope, input: CreatePlanInput): Promise<SubscriptionPlan> {
  const now = new Date();
  const methods = normalizeMethods(input.paymentMethods ?? DEFAULT_METHODS);
  checkPixAutomatico({ payment_methods: methods, interval: normalizeInterval(input.interval), interval_count: input.intervalCount ?? 1, trial_days: input.trialDays ?? 0 }, 'paymentMethods');
  const productId = await planProduct(db, scope, input.productId ?? null);
  return inTx(db, async (trx) => {
    const split = await splitToSave(trx, scope.userId, input.split, input.amountCents);
    const plan = await trx
      .insertInto('subscription_plans')
      .values({
        id: uuidv7(now.getTime()),
        user_id: scope.userId,
        livemode: scope.livemode,
        name: requiredText(input.name, 'name'),
        description: sanitizeOptional(input.description) ?? null,
        amount_cents: input.amountCents,
        interval: normalizeInterval(input.interval),
        interval_count: input.intervalCount ?? 1,
        trial_days: input.trialDays ?? 0,
        max_subscribers: input.maxSubscribers ?? null,
        payment_methods: JSON.stringify(methods),
        dunning: JSON.stringify(dunningOf(input.dunning, DEFAULT_DUNNING)),
        status: input.status ?? 'ACTIVE',
        product_id: productId,
        split: split ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await deps.events.record(trx, scope, [{ type: 'plan.created', data: planView(deps.config, plan) }]);
    return plan;
  });
}

function ownedPlans(db: Executor, scope: Scope) {
  return db.selectFrom('subscription_plans').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('deleted_at', 'is', null);
}

export function findPlan(db: Executor, scope: Scope, id: string): Promise<SubscriptionPlan | undefined> {
  return ownedPlans(db, scope).selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getPlan(db: Executor, scope: Scope, id: string): Promise<SubscriptionPlan> {
  const plan = await findPlan(db, scope, id);
  if (!plan) throw notFound('Plan');
  return plan;
}

export async function listPlans(db: Executor, cursors: Cursors, scope: Scope, q: { limit: number; cursor?: string; orderDirection?: 'asc' | 'desc'; status?: 'ACTIVE' | 'INACTIVE' }) {
  let base = ownedPlans(db, scope).selectAll();
  if (q.status) base = base.where('status', '=', q.status);
  return createdAtPage(cursors.of('subscription-plans', scope), base, q);
}

export async function updatePlan(deps: PlanDeps, db: Executor, scope: Scope, id: string, input: UpdatePlanInput): Promise<SubscriptionPlan> {
  return inTx(db, async (trx) => {
    const current = await ownedPlans(trx, scope).selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!current) throw notFound('Plan');
    const cadenceChanges =
      (input.interval !== undefined && normalizeInterval(input.interval) !== current.interval) || (input.intervalCount !== undefined && input.intervalCount !== current.interval_count);
    if (cadenceChanges && (await trx.selectFrom('subscriptions').select('id').where('plan_id', '=', id).limit(1).executeTakeFirst())) {
      // Subscribers' billing dates are counted on the plan's cadence: it is fixed once anyone subscribed.
      throw validation(input.interval !== undefined ? 'interval' : 'intervalCount', 'cannot change once the plan has subscribers: create another plan');
    }
    if (input.maxSubscribers != null && input.maxSubscribers < current.subscriber_count) {
      throw validation('maxSubscribers', `the plan already has ${current.subscriber_count} subscribers`);
    }
    const productId = input.productId !== undefined ? await planProduct(trx, scope, input.productId) : undefined;
    const split = await splitToSave(trx, scope.userId, input.split, input.amountCents ?? current.amount_cents);
    const plan = await trx
      .updateTable('subscription_plans')
      .set({
        ...(input.name !== undefined && { name: requiredText(input.name, 'name') }),
        ...(input.description !== undefined && { description: sanitizeOptional(input.description) ?? null }),
        ...(input.amountCents !== undefined && { amount_cents: input.amountCents }),
        ...(input.interval !== undefined && { interval: normalizeInterval(input.interval) }),
        ...(input.intervalCount !== undefined && { interval_count: input.intervalCount }),
        ...(input.trialDays !== undefined && { trial_days: input.trialDays }),
        ...(input.maxSubscribers !== undefined && { max_subscribers: input.maxSubscribers }),
        ...(input.paymentMethods !== undefined && { payment_methods: JSON.stringify(normalizeMethods(input.paymentMethods)) }),
        ...(input.status !== undefined && { status: input.status }),
        ...(input.dunning !== undefined && { dunning: JSON.stringify(dunningOf(input.dunning, current.dunning)) }),
        ...(productId !== undefined && { product_id: productId }),
        ...(split !== undefined && { split }),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    checkPixAutomatico(plan, input.paymentMethods !== undefined ? 'paymentMethods' : input.trialDays !== undefined ? 'trialDays' : input.interval !== undefined ? 'interval' : 'intervalCount');
    await deps.events.record(trx, scope, [{ type: 'plan.updated', data: planView(deps.config, plan) }]);
    return plan;
  });
}

/** Deactivates a plan that has (or had) subscribers; archives one that never had any. */
export async function deletePlan(deps: PlanDeps, db: Executor, scope: Scope, id: string): Promise<{ deactivated: boolean; plan: SubscriptionPlan }> {
  return inTx(db, async (trx) => {
    const current = await ownedPlans(trx, scope).selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!current) throw notFound('Plan');
    const any = await trx.selectFrom('subscriptions').select('id').where('plan_id', '=', id).limit(1).executeTakeFirst();
    const now = new Date();
    const plan = await trx
      .updateTable('subscription_plans')
      .set(any ? { status: 'INACTIVE', updated_at: now } : { status: 'INACTIVE', deleted_at: now, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await deps.events.record(trx, scope, [{ type: 'plan.updated', data: { ...planView(deps.config, plan), deleted: !any } }]);
    return { deactivated: !!any, plan };
  });
}

export function publicPlanView(p: SubscriptionPlan, merchantName: string) {
  const full = p.max_subscribers !== null && p.subscriber_count >= p.max_subscribers;
  return {
    ...planTerms(p),
    paymentMethods: p.payment_methods,
    merchantName,
    available: p.status === 'ACTIVE' && !full,
    unavailableReason: p.status !== 'ACTIVE' ? 'INACTIVE' : full ? 'FULL' : null,
    sandbox: !p.livemode,
  };
}

/** A plan by id with its merchant's name (no scope: public), archived ones left out. */
export function findPublicPlan(db: Executor, id: string) {
  return db
    .selectFrom('subscription_plans')
    .innerJoin('users', 'users.id', 'subscription_plans.user_id')
    .selectAll('subscription_plans')
    .select('users.name as merchant_name')
    .where('subscription_plans.id', '=', id)
    .where('subscription_plans.deleted_at', 'is', null)
    .executeTakeFirst();
}
