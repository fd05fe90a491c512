// What a split's parties see of a share: the sale (its id, product, method, amount) and who sold
// and who received it, never the shopper: neither side learns the buyer's document from a share.
import type { Executor } from '../../db/index.ts';
import type { TransactionSplit } from '../../db/types.ts';

/** A share with the sale's own columns it shows. */
export type ShareRow = TransactionSplit & { display_id: string; product: string; payment_method: string; installments: number; charged_cents: number };

export type Parties = Map<string, { walletId: string; name: string }>;

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
