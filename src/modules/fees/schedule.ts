// Fees per merchant: the platform's (FEE_* settings) with an operator's overrides for one merchant
// (negotiated rates), kept in users.fees. Read on every payment, withdrawal and advance through a
// small per-process cache: an operator's change applies at once on the instance that made it and
// within FEES_CACHE_MS on the others. A fee is fixed on each object when it is created.
import { Type, type Static } from '@sinclair/typebox';
import type { Fees } from '../../config.ts';
import { inTx, type Db, type Executor } from '../../db/index.ts';
import { SharedReads } from '../../db/shared-reads.ts';
import { notFound } from '../../http/errors.ts';
import { recordAudit, type Actor } from '../audit/service.ts';

const FEES_CACHE_MS = 30_000;
const Bp = (description: string) => Type.Integer({ minimum: 0, maximum: 10_000, description });
const Cents = (description: string) => Type.Integer({ minimum: 0, maximum: 100_000, description });

/** Every fee, as the platform's settings name them (the bounds of FEE_*). */
const FeeFields = {
  pixPercentBp: Bp('PIX: basis points of the amount (99 = 0.99%)'),
  boletoFixedCents: Cents('Boleto: cents per payment'),
  cardPercentBp: Bp('Card: basis points of the amount charged'),
  cardFixedCents: Cents('Card: cents per payment, on top of the percentage'),
  withdrawalCents: Cents('Withdrawal: cents per withdrawal'),
  advanceMonthlyBp: Bp('Advance: basis points per month anticipated'),
};
export const FeesView = Type.Object(FeeFields);
/** An operator's overrides: the fields given replace the platform's; `{}` goes back to them. */
export const FeeOverrides = Type.Partial(Type.Object(FeeFields), { additionalProperties: false });
type Overrides = Static<typeof FeeOverrides>;

export class FeeSchedule {
  private cache = new Map<string, { fees: Fees; until: number }>();
  /** Reads under way (by merchant), shared by the requests that missed the cache meanwhile; a change of fees here ends their sharing. */
  private reading = new SharedReads<Fees>();
  private db: Db;
  private defaults: Fees;
  constructor(db: Db, defaults: Fees) {
    this.db = db;
    this.defaults = defaults;
  }

  /**
   * The fees that apply to this merchant now (read through `via` inside a database transaction).
   * Requests that miss together (every FEES_CACHE_MS, under load, all of a merchant's requests at
   * that moment) share one read, as API keys do (http/auth.ts).
   */
  of(userId: string, via: Executor = this.db): Promise<Fees> {
    const hit = this.cache.get(userId);
    if (hit && hit.until > Date.now()) return Promise.resolve(hit.fees);
    return via === this.db ? this.reading.run(userId, (current) => this.read(userId, via, current)) : this.read(userId, via, this.reading.watch());
  }

  private async read(userId: string, via: Executor, current: () => boolean): Promise<Fees> {
    const started = Date.now();
    const fees = { ...this.defaults, ...(await this.overrides(via, userId)) };
    // A change made here while the row was being read may have been missed by it: do not cache.
    if (!current()) return fees;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(userId, { fees, until: started + FEES_CACHE_MS });
    return fees;
  }

  /** The merchant's overrides and the fees they make. */
  async describe(userId: string): Promise<{ fees: Fees; overrides: Overrides }> {
    const overrides = await this.overrides(this.db, userId);
    return { fees: { ...this.defaults, ...overrides }, overrides };
  }

  /** Replaces the merchant's overrides (`{}`: the platform's fees again), with its audit entry. */
  async set(userId: string, overrides: Overrides, actor: Actor): Promise<{ fees: Fees; overrides: Overrides }> {
    const stored = Object.keys(overrides).length ? JSON.stringify(overrides) : null;
    await inTx(this.db, async (trx) => {
      const row = await trx.selectFrom('users').select('fees').where('id', '=', userId).forUpdate().executeTakeFirst();
      if (!row) throw notFound('Merchant');
      await trx.updateTable('users').set({ fees: stored, updated_at: new Date() }).where('id', '=', userId).execute();
      const entry = { userId, livemode: null, objectType: 'merchant_fees', objectId: userId };
      await recordAudit(trx, actor, { ...entry, action: 'fees.updated', before: { overrides: row.fees ?? {} }, after: { overrides } });
    });
    this.reading.changed();
    this.cache.delete(userId);
    return { fees: { ...this.defaults, ...overrides }, overrides };
  }

  private async overrides(db: Executor, userId: string): Promise<Overrides> {
    const row = await db.selectFrom('users').select('fees').where('id', '=', userId).executeTakeFirst();
    if (!row) throw notFound('Merchant');
    return (row.fees ?? {}) as Overrides;
  }
}
