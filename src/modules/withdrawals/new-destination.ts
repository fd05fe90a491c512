// A production withdrawal to a Pix key or account the merchant never received a payout at is held
// for PAYOUT_NEW_DESTINATION_HOLD_HOURS and the merchant is e-mailed at once: whoever took over an
// account cannot empty the wallet before its owner hears of it and can cancel. Only a COMPLETED
// payout makes a destination known: a pending or processing one to a new key would otherwise let a
// second withdrawal to the same key through at once.
import { sql } from 'kysely';
import type { Trx } from '../../db/index.ts';
import type { Withdrawal } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { queueRendered } from '../../mail/outbox.ts';
import { withdrawalHeldMail } from '../../mail/merchant-templates.ts';
import { maskDocument } from '../../payments/documents.ts';
import type { DestinationColumns } from './destination.ts';

/** Whether a completed production payout already reached this key or account. */
export async function paidBefore(trx: Trx, scope: Scope, d: DestinationColumns): Promise<boolean> {
  let q = trx.selectFrom('withdrawals').select('id').where('user_id', '=', scope.userId).where('livemode', '=', true).where('status', '=', 'COMPLETED');
  if (d.pix_key !== null) q = q.where('pix_key', '=', d.pix_key).where('pix_key_type', '=', d.pix_key_type);
  else {
    const a = d.bank_account;
    q = q.where(sql<boolean>`bank_account->>'ispb' = ${a.ispb} AND bank_account->>'branch' = ${a.branch} AND bank_account->>'account' = ${a.account}`);
  }
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

const hide = (s: string, keepStart: number, keepEnd: number) => s.slice(0, keepStart) + '*'.repeat(Math.max(3, s.length - keepStart - keepEnd)) + s.slice(s.length - keepEnd);

/** The destination as an e-mail may name it: enough for the owner to recognise it, not to copy it. */
export function maskedDestinationText(w: Pick<Withdrawal, 'pix_key_type' | 'pix_key' | 'bank_account'>): string {
  if (w.bank_account) {
    const a = w.bank_account;
    return `conta ${hide(a.account, 0, 2)}, agência ${a.branch}, instituição ISPB ${a.ispb}`;
  }
  const key = w.pix_key ?? '';
  switch (w.pix_key_type) {
    case 'cpf':
      return `chave Pix CPF ${maskDocument(key)}`;
    case 'cnpj':
      return `chave Pix CNPJ ${maskDocument(key)}`;
    case 'email': {
      const [user, domain] = key.split('@');
      return `chave Pix e-mail ${hide(user ?? '', 1, 0)}@${domain ?? ''}`;
    }
    case 'phone':
      return `chave Pix celular ${hide(key, 3, 4)}`;
    default:
      return `chave Pix aleatória ${hide(key, 4, 4)}`;
  }
}

/** Queues the owner's alert in the withdrawal's own transaction (it exists if and only if the withdrawal does). */
export async function alertOwner(trx: Trx, scope: Scope, w: Withdrawal, dashboardUrl: string): Promise<void> {
  const user = await trx.selectFrom('users').select(['name', 'email']).where('id', '=', scope.userId).executeTakeFirstOrThrow();
  const mail = withdrawalHeldMail({
    merchantName: user.name,
    amountCents: w.amount_cents,
    destination: maskedDestinationText(w),
    sendsAt: w.hold === 'NEW_DESTINATION' ? w.hold_until : null,
    cancelUrl: `${dashboardUrl}/dinheiro/saques`,
  });
  await queueRendered(trx, scope, user.email, 'withdrawal_new_destination', mail, w.id, w.created_at);
}
