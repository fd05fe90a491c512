// Sub-accounts: a platform (a merchant) creates full merchant accounts for its sellers, edits their
// profile, invites them to the dashboard, reads their sales, balance and KYC. It never moves their
// money: there is no operation here that would (docs/accounts.md).
import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { badRequest, forbidden, notFound, validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { enforce, type RateLimiter } from '../../http/ratelimit.ts';
import { requiredText } from '../../http/sanitize.ts';
import type { Scope } from '../../http/scope.ts';
import { queueEmail } from '../../mail/outbox.ts';
import { inferPixKeyType, validatePixKey } from '../../payments/pix-keys.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import { createUser, getUser } from '../auth/service.ts';
import { issueResetLink } from '../auth/sign-in.ts';
import { normalizeDocument } from '../clients/service.ts';
import { createCredential, credentialView } from '../credentials/service.ts';
import { normalizeAddress } from '../transactions/draft.ts';
import type { CreateAccountBody, ListAccountsQuery, UpdateAccountBody } from './schemas.ts';
import { accountView, profileView, subAccountRows, type SubAccountRow } from './views.ts';

/** How long an invitation's link to set the password works. */
export const INVITATION_DAYS = 7;
/** Invitations one account may be sent per hour (each is an e-mail to the seller). */
const INVITATIONS_PER_HOUR = 5;

export interface AccountDeps {
  db: Db;
  limiter: RateLimiter;
  baseUrl: string;
}

/** A Pix key as stored (its type told by its form), or a 400 on `pixKey`. */
function checkPixKey(raw: string): string {
  const type = inferPixKeyType(raw);
  if (!type) throw validation('pixKey', 'is not a Pix key: a CPF, a CNPJ, an e-mail, a mobile number as +55DD9XXXXXXXX or a random key');
  const key = validatePixKey(type, raw);
  if (!key.ok) {
    if (type === 'cpf' || type === 'cnpj') throw badRequest('INVALID_DOCUMENT', 'Invalid CPF or CNPJ', [{ field: 'pixKey', message: key.reason }]);
    throw validation('pixKey', key.reason);
  }
  return key.normalized;
}

const normalizePhone = (phone: string) => phone.replace(/[\s()-]/g, '');

/** The caller's own sub-account `id`, locked when `lock`; 404 for any other id (another platform's, a merchant, unknown). */
export async function subAccountOf(db: Executor, platformId: string, id: string, lock = false): Promise<SubAccountRow> {
  let q = subAccountRows(db, platformId).where('s.user_id', '=', id);
  if (lock) q = q.forUpdate('s');
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('Account');
  return row;
}

/** The invitation e-mail: a link to set the password, valid INVITATION_DAYS, in the caller's transaction. */
async function sendInvitation(trx: Trx, baseUrl: string, account: { id: string; name: string; email: string }, platformName: string, now: Date): Promise<void> {
  const setPasswordUrl = await issueResetLink(trx, baseUrl, account.id, INVITATION_DAYS * 24 * 60, now);
  const message = { kind: 'account_invitation' as const, name: account.name, platformName, setPasswordUrl, days: INVITATION_DAYS };
  await queueEmail(trx, { userId: account.id, livemode: false }, account.email, message, null, now);
}

/** The request checked and normalised before anything is written (400s, 403s). */
async function checkCreation(db: Executor, platform: Scope, input: Static<typeof CreateAccountBody>) {
  if (await db.selectFrom('sub_accounts').select('user_id').where('user_id', '=', platform.userId).executeTakeFirst()) {
    throw forbidden('A sub-account cannot create accounts: its platform does');
  }
  const document = normalizeDocument(input.document, 'document');
  const address = normalizeAddress(input.address, 'address');
  const pixKey = input.pixKey === undefined ? null : checkPixKey(input.pixKey);
  if (input.createApiKey && platform.livemode) {
    throw forbidden(
      "A production API key needs the account's KYC approved, which a new account cannot have: create it without createApiKey (or in development), submit its KYC (POST /api/v1/accounts/{id}/kyc), and once approved the account creates its production keys",
    );
  }
  return { document, address, pixKey, phone: normalizePhone(input.phone) };
}

/**
 * Creates a seller's account for the platform in one transaction: the user (a random password nobody
 * knows), its profile, its API key when asked (shown once, in the request's environment), the
 * invitation e-mail and the audit entry. 400 EMAIL_ALREADY_REGISTERED as registration.
 */
export async function createAccount(deps: AccountDeps, platform: Scope, input: Static<typeof CreateAccountBody>, actor: Actor) {
  const checked = await checkCreation(deps.db, platform, input);
  const owner = await getUser(deps.db, platform.userId);
  const created = await inTx(deps.db, async (trx) => {
    const now = new Date();
    const user = await createUser(trx, { name: input.name, email: input.email, password: randomBytes(32).toString('base64url') });
    await trx
      .insertInto('sub_accounts')
      .values({ user_id: user.id, platform_id: owner.id, document: checked.document, phone: checked.phone, address: JSON.stringify(checked.address), pix_key: checked.pixKey, created_at: now, updated_at: now })
      .execute();
    const apiKey = input.createApiKey
      ? await createCredential(trx, user.id, { name: `Created by ${owner.name}`.slice(0, 100), environment: platform.livemode ? 'PRODUCTION' : 'DEVELOPMENT' }, actor)
      : null;
    await sendInvitation(trx, deps.baseUrl, user, owner.name, now);
    const row = await subAccountOf(trx, owner.id, user.id);
    await recordAudit(trx, actor, { userId: owner.id, livemode: null, action: 'account.created', objectType: 'account', objectId: user.id, after: profileView(row) });
    return { row, apiKey };
  });
  const account = await accountView(deps.db, created.row, platform.livemode);
  return { account, apiKey: created.apiKey && { credential: credentialView(created.apiKey.credential), key: created.apiKey.key } };
}

/** The platform's sub-accounts, newest first, in the request's environment (their balances). */
export async function listAccounts(db: Executor, platform: Scope, q: Static<typeof ListAccountsQuery>) {
  const base = db.selectFrom('sub_accounts').where('platform_id', '=', platform.userId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    subAccountRows(db, platform.userId)
      .orderBy('s.created_at', 'desc')
      .orderBy('s.user_id', 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute(),
  ]);
  return { accounts: await Promise.all(rows.map((r) => accountView(db, r, platform.livemode))), pagination: pageInfo(q.page, q.limit, Number(total)) };
}

export async function getAccount(db: Executor, platform: Scope, id: string) {
  return accountView(db, await subAccountOf(db, platform.userId, id), platform.livemode);
}

/** Changes a sub-account's profile (name, phone, address, Pix key), audited with its view before and after. */
export async function updateAccount(db: Db, platform: Scope, id: string, input: Static<typeof UpdateAccountBody>, actor: Actor) {
  const name = input.name === undefined ? undefined : requiredText(input.name, 'name');
  const changes = {
    ...(input.phone !== undefined ? { phone: normalizePhone(input.phone) } : {}),
    ...(input.address !== undefined ? { address: JSON.stringify(normalizeAddress(input.address, 'address')) } : {}),
    ...(input.pixKey !== undefined ? { pix_key: input.pixKey === null ? null : checkPixKey(input.pixKey) } : {}),
  };
  const row = await inTx(db, async (trx) => {
    const before = await subAccountOf(trx, platform.userId, id, true);
    const now = new Date();
    if (name !== undefined) await trx.updateTable('users').set({ name, updated_at: now }).where('id', '=', id).execute();
    await trx.updateTable('sub_accounts').set({ ...changes, updated_at: now }).where('user_id', '=', id).execute();
    const after = await subAccountOf(trx, platform.userId, id);
    await recordAudit(trx, actor, { userId: platform.userId, livemode: null, action: 'account.updated', objectType: 'account', objectId: id, before: profileView(before), after: profileView(after) });
    return after;
  });
  return accountView(db, row, platform.livemode);
}

/**
 * E-mails the invitation again (a new link; earlier ones keep working until they expire) while the
 * seller has not set a password: 400 INVALID_STATE_TRANSITION once it has. At most
 * INVITATIONS_PER_HOUR per account (429).
 */
export async function resendInvitation(deps: AccountDeps, platform: Scope, id: string): Promise<void> {
  await inTx(deps.db, async (trx) => {
    const row = await subAccountOf(trx, platform.userId, id, true);
    if (row.login_enabled_at) {
      throw badRequest('INVALID_STATE_TRANSITION', 'The account has set its password already', [
        { field: 'loginEnabled', message: 'true: the seller logs in with its password (or asks for a reset link at the login page)' },
      ]);
    }
    await enforce(deps.limiter, `account-invitation:${id}`, 3_600_000, INVITATIONS_PER_HOUR, 'Too many invitations sent to this account; try again later');
    const owner = await getUser(trx, platform.userId);
    await sendInvitation(trx, deps.baseUrl, { id: row.user_id, name: row.name, email: row.email }, owner.name, new Date());
  });
}
