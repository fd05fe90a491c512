// Split partners: a merchant asks another (by its wallet) to receive shares of its sales; the partner
// accepts or declines, and either side may end it later (REVOKED). Splits pay a partner only while
// ACCEPTED (splits/rule.ts allowedRecipients); a platform's own sub-accounts need no invitation.
import type { Static } from '@sinclair/typebox';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { SplitPartner, SplitPartnerStatus } from '../../db/types.ts';
import { badRequest, notFound, validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { enforce, type RateLimiter } from '../../http/ratelimit.ts';
import { sanitizeText } from '../../http/sanitize.ts';
import { queueRendered } from '../../mail/outbox.ts';
import { splitPartnerInvitedMail } from '../../mail/merchant-templates.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import { forgetRecipients } from '../splits/rule.ts';
import { partiesOf, type Parties } from '../splits/views.ts';
import type { InvitePartnerBody, ListPartnersQuery } from './schemas.ts';

/** Invitations a merchant may send per hour (each e-mails another merchant). */
const INVITATIONS_PER_HOUR = 30;

export interface PartnerDeps {
  db: Db;
  limiter: RateLimiter;
  baseUrl: string;
}

function partnerView(p: SplitPartner, parties: Parties) {
  const party = (id: string) => parties.get(id) ?? { walletId: '', name: '' };
  return {
    id: p.id,
    merchant: party(p.user_id),
    partner: party(p.partner_id),
    status: p.status,
    message: p.message,
    createdAt: p.created_at,
    decidedAt: p.decided_at,
    updatedAt: p.updated_at,
  };
}

async function views(db: Executor, rows: SplitPartner[]) {
  const parties = await partiesOf(db, rows.flatMap((r) => [r.user_id, r.partner_id]));
  return rows.map((r) => partnerView(r, parties));
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';
const walletError = (message: string) => validation('walletId', message);

/** The merchant behind `walletId` that `me` may invite, or a 400 on walletId saying why not. */
async function inviteeOf(db: Executor, me: string, walletId: string) {
  const other = await db.selectFrom('users').select(['id', 'name', 'email']).where('wallet_id', '=', walletId.toLowerCase()).executeTakeFirst();
  if (!other) throw walletError('is not a Cofre wallet');
  if (other.id === me) throw walletError('is your own wallet');
  const linked = await db
    .selectFrom('sub_accounts')
    .select(['user_id', 'platform_id'])
    .where((eb) => eb.or([eb.and([eb('user_id', '=', other.id), eb('platform_id', '=', me)]), eb.and([eb('user_id', '=', me), eb('platform_id', '=', other.id)])]))
    .executeTakeFirst();
  if (linked) {
    const which = linked.platform_id === me ? 'is your own sub-account' : 'is your platform';
    throw walletError(`${which}: your splits may pay it already, no invitation is needed`);
  }
  return other;
}

const alreadyInvited = () => walletError('has an invitation from you already, pending or accepted: see GET /api/v1/split-partners?role=sent');

/** Invites the merchant behind `walletId` (PENDING) and e-mails it, in one transaction; the invitation's view. */
export async function invitePartner(deps: PartnerDeps, me: string, input: Static<typeof InvitePartnerBody>, actor: Actor) {
  await enforce(deps.limiter, `split-partner-invitations:${me}`, 3_600_000, INVITATIONS_PER_HOUR, 'Too many split partner invitations; try again later');
  const message = input.message === undefined ? null : sanitizeText(input.message) || null;
  try {
    const row = await inTx(deps.db, async (trx) => {
      const other = await inviteeOf(trx, me, input.walletId);
      const open = await trx.selectFrom('split_partners').select('id').where('user_id', '=', me).where('partner_id', '=', other.id).where('status', 'in', ['PENDING', 'ACCEPTED']).executeTakeFirst();
      if (open) throw alreadyInvited();
      const now = new Date();
      const p = await trx
        .insertInto('split_partners')
        .values({ id: uuidv7(now.getTime()), user_id: me, partner_id: other.id, status: 'PENDING', message, created_at: now, decided_at: null, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      const [view] = await views(trx, [p]);
      const mail = splitPartnerInvitedMail({ partnerName: other.name, merchantName: view.merchant.name, message, url: `${deps.baseUrl}/dashboard/divisoes` });
      await queueRendered(trx, { userId: other.id, livemode: false }, other.email, 'split_partner_invited', mail, p.id, now);
      await recordAudit(trx, actor, { userId: me, livemode: null, action: 'split_partner.invited', objectType: 'split_partner', objectId: p.id, after: view });
      return p;
    });
    return (await views(deps.db, [row]))[0];
  } catch (err) {
    // Two invitations racing for one pair: the partial unique index lets one through.
    if (isUniqueViolation(err)) throw alreadyInvited();
    throw err;
  }
}

/** The caller's invitations, sent, received or both, newest first. */
export async function listPartners(db: Executor, me: string, q: Static<typeof ListPartnersQuery>) {
  let base = db.selectFrom('split_partners');
  if (q.role === 'sent') base = base.where('user_id', '=', me);
  else if (q.role === 'received') base = base.where('partner_id', '=', me);
  else base = base.where((eb) => eb.or([eb('user_id', '=', me), eb('partner_id', '=', me)]));
  if (q.status) base = base.where('status', '=', q.status);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { data: await views(db, rows), meta: pageInfo(q.page, q.limit, Number(total)) };
}

/** One invitation the caller sent or received (404 otherwise), locked when `lock`. */
async function partnershipOf(db: Executor, me: string, id: string, lock = false): Promise<SplitPartner> {
  let q = db
    .selectFrom('split_partners')
    .selectAll()
    .where('id', '=', id)
    .where((eb) => eb.or([eb('user_id', '=', me), eb('partner_id', '=', me)]));
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('Split partner');
  return row;
}

export async function getPartner(db: Executor, me: string, id: string) {
  return (await views(db, [await partnershipOf(db, me, id)]))[0];
}

const ACTIONS: Record<SplitPartnerStatus, string> = { PENDING: 'split_partner.invited', ACCEPTED: 'split_partner.accepted', DECLINED: 'split_partner.declined', REVOKED: 'split_partner.revoked' };

/** Moves one invitation to `status` under its row lock, audited; `allowed` says from which states. */
async function transition(db: Db, actor: Actor, me: string, row: (trx: Trx) => Promise<SplitPartner>, status: SplitPartnerStatus, allowed: SplitPartnerStatus[]) {
  return inTx(db, async (trx) => {
    const before = await row(trx);
    if (!allowed.includes(before.status)) {
      throw badRequest('INVALID_STATE_TRANSITION', `A ${before.status} invitation cannot become ${status}`, [{ field: 'status', message: `${before.status} -> ${status} is not allowed` }]);
    }
    const now = new Date();
    const decided = status === 'ACCEPTED' || status === 'DECLINED' ? { decided_at: now } : {};
    const after = await trx.updateTable('split_partners').set({ status, ...decided, updated_at: now }).where('id', '=', before.id).returningAll().executeTakeFirstOrThrow();
    const [b, a] = await views(trx, [before, after]);
    await recordAudit(trx, actor, { userId: me, livemode: null, action: ACTIONS[status], objectType: 'split_partner', objectId: after.id, before: b, after: a });
    return { row: after, view: a };
  });
}

/** The invited partner accepts or declines a PENDING invitation; anyone else gets 404. */
export async function decidePartner(db: Db, me: string, id: string, decision: 'ACCEPTED' | 'DECLINED', actor: Actor) {
  const invitedMe = async (trx: Trx) => {
    const p = await partnershipOf(trx, me, id, true);
    if (p.partner_id !== me) throw notFound('Split partner');
    return p;
  };
  return (await transition(db, actor, me, invitedMe, decision, ['PENDING'])).view;
}

/**
 * Either side ends a PENDING or ACCEPTED partnership: REVOKED, and later sales can no longer pay that
 * wallet (at once on this process; others keep what they know of allowed recipients for
 * RECIPIENT_CACHE_MS).
 */
export async function revokePartner(db: Db, me: string, id: string, actor: Actor) {
  const { row, view } = await transition(db, actor, me, (trx) => partnershipOf(trx, me, id, true), 'REVOKED', ['PENDING', 'ACCEPTED']);
  forgetRecipients(row.user_id);
  return view;
}
