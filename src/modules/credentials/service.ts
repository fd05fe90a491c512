// API keys: 32 random bytes shown once, stored as SHA-256; the prefix shows the environment.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { inTx, type Db, type Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { ApiKey } from '../../db/types.ts';
import { hashKey, PERMISSIONS, REVOKED_CHANNEL, type Authenticator, type Permission } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import { requireApprovedKyc } from '../kyc/service.ts';

export function credentialView(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    environment: k.livemode ? ('PRODUCTION' as const) : ('DEVELOPMENT' as const),
    permissions: k.permissions,
    prefix: k.prefix,
    createdAt: k.created_at,
    revokedAt: k.revoked_at,
  };
}

/** Audit entries of API keys: account-level (no environment), the key's view (never its value or hash). */
const keyEntry = (k: ApiKey, action: string, before: ApiKey | null) => ({
  userId: k.user_id,
  livemode: null,
  action,
  objectType: 'api_key',
  objectId: k.id,
  before: before && credentialView(before),
  after: credentialView(k),
});

export async function createCredential(
  db: Executor,
  userId: string,
  input: { name: string; environment: 'DEVELOPMENT' | 'PRODUCTION'; permissions?: Permission[] },
  actor: Actor,
): Promise<{ credential: ApiKey; key: string }> {
  const livemode = input.environment === 'PRODUCTION';
  // Real money needs a verified merchant (403 otherwise).
  if (livemode) await requireApprovedKyc(db, userId, 'A production API key');
  const key = `cofre_${livemode ? 'live' : 'test'}_${randomBytes(32).toString('base64url')}`;
  // Keep the order of the catalogue, drop duplicates.
  const permissions = input.permissions ? PERMISSIONS.filter((p) => input.permissions!.includes(p)) : [...PERMISSIONS];
  const credential = await inTx(db, async (trx) => {
    const k = await trx
    .insertInto('api_keys')
    .values({
      id: uuidv7(),
      user_id: userId,
      name: input.name.trim(),
      livemode,
      permissions: JSON.stringify(permissions),
      prefix: key.slice(0, 16),
      key_hash: hashKey(key),
      created_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
    await recordAudit(trx, actor, keyEntry(k, 'api_key.created', null));
    return k;
  });
  return { credential, key };
}

export function listCredentials(db: Executor, userId: string) {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function revokeCredential(db: Db, auth: Authenticator, userId: string, id: string, actor: Actor): Promise<void> {
  const keyHash = await inTx(db, async (trx) => {
    const before = await trx.selectFrom('api_keys').selectAll().where('id', '=', id).where('user_id', '=', userId).where('revoked_at', 'is', null).forUpdate().executeTakeFirst();
    if (!before) throw notFound('Credential');
    // The revocation is announced to every instance on commit (they drop their cached copy at once).
    const { rows } = await sql<ApiKey>`
      WITH r AS (UPDATE api_keys SET revoked_at = ${new Date()} WHERE id = ${id} RETURNING *)
      SELECT r.*, pg_notify(${REVOKED_CHANNEL}, key_hash) FROM r`.execute(trx);
    await recordAudit(trx, actor, keyEntry(rows[0], 'api_key.revoked', before));
    return before.key_hash;
  });
  auth.forget(keyHash);
}
