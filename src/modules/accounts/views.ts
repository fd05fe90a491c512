// What a platform reads of its sub-accounts: the profile with the account's user, its KYC status,
// whether it can log in, and its balance in the request's environment.
import type { Executor } from '../../db/index.ts';
import { inferPixKeyType } from '../../payments/pix-keys.ts';
import { kycStatus } from '../kyc/service.ts';
import { getBalance } from '../ledger/service.ts';

/** The sub-accounts of `platformId`, each with its user's name, e-mail and wallet. */
export function subAccountRows(db: Executor, platformId: string) {
  return db
    .selectFrom('sub_accounts as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('s')
    .select(['u.name', 'u.email', 'u.wallet_id'])
    .where('s.platform_id', '=', platformId);
}

export type SubAccountRow = NonNullable<Awaited<ReturnType<ReturnType<typeof subAccountRows>['executeTakeFirst']>>>;

/** The address as the API shows it: the fields in a fixed order, complement only when given. */
function addressView(a: Record<string, string>) {
  return {
    street: a.street,
    number: a.number,
    ...(a.complement ? { complement: a.complement } : {}),
    neighborhood: a.neighborhood,
    city: a.city,
    state: a.state,
    zipCode: a.zipCode,
  };
}

/**
 * The profile: what the platform gave and may change, and the account's identity. The audit log's
 * view of an account (with the Pix key's type, so a CPF or CNPJ key is written masked).
 */
export function profileView(r: SubAccountRow) {
  return {
    id: r.user_id,
    walletId: r.wallet_id,
    name: r.name,
    email: r.email,
    document: r.document,
    phone: r.phone,
    address: addressView(r.address),
    pixKey: r.pix_key,
    ...(r.pix_key ? { pixKeyType: inferPixKeyType(r.pix_key) } : {}),
    loginEnabled: r.login_enabled_at !== null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The API's view of a sub-account: its profile, KYC status and balance in `livemode`. */
export async function accountView(db: Executor, r: SubAccountRow, livemode: boolean) {
  const [status, balance] = await Promise.all([kycStatus(db, r.user_id), getBalance(db, { userId: r.user_id, livemode })]);
  const { pixKeyType: _, ...profile } = profileView(r);
  return { ...profile, kycStatus: status, balance };
}
