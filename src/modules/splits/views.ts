// What a split's parties see of a share: the sale (its id, product, method, amount) and who sold
// and who received it, never the shopper: neither side learns the buyer's document from a share.
import type { Executor } from '../../db/index.ts';
import type { TransactionSplit } from '../../db/types.ts';

/** A share with the sale's own columns it shows. */
export type ShareRow = TransactionSplit & { display_id: string; product: string; payment_method: string; installments: number; charged_cents: number };

export type Parties = Map<string, { walletId: string; name: string }>;

/**
 * partiesOf through a cache of the process (wallets never change; a renamed merchant shows its new
 * name within a minute): the events of a paid sale name its parties without a read of their own.
 */
export function partiesCache(ttlMs = 60_000, max = 10_000) {
  const known = new Map<string, { party: { walletId: string; name: string }; at: number }>();
  return async (db: Executor, ids: string[]): Promise<Parties> => {
    const now = Date.now();
    const missing = ids.filter((id) => (known.get(id)?.at ?? 0) <= now - ttlMs);
    if (missing.length) {
      if (known.size > max) known.clear();
      for (const [id, party] of await partiesOf(db, missing)) known.set(id, { party, at: now });
    }
    return new Map(ids.flatMap((id) => (known.has(id) ? [[id, known.get(id)!.party] as const] : [])));
  };
}

/** The wallet and name of these merchants, by id. */
export async function partiesOf(db: Executor, ids: string[]): Promise<Parties> {
  const unique = [...new Set(ids)];
  const rows = unique.length ? await db.selectFrom('users').select(['id', 'wallet_id', 'name']).where('id', 'in', unique).execute() : [];
  return new Map(rows.map((u) => [u.id, { walletId: u.wallet_id, name: u.name }]));
}

export function shareView(s: ShareRow, parties: Parties) {
  const party = (id: string) => parties.get(id) ?? { walletId: '', name: '' };
  return {
    id: s.id,
    transactionId: s.transaction_id,
    displayId: s.display_id,
    product: s.product,
    paymentMethod: s.payment_method,
    installments: s.installments,
    seller: party(s.user_id),
    recipient: party(s.recipient_id),
    saleCents: s.charged_cents,
    amountCents: s.amount_cents,
    feeCents: s.fee_cents,
    reversedCents: s.reversed_cents,
    status: s.status,
    account: s.account,
    basis: s.basis,
    fixedCents: s.fixed_cents,
    percentageBp: s.percentage_bp,
    chargeFees: s.charge_fees,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}
