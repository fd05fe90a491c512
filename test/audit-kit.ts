// What the audit log tests share: the app, requests that say who they come from (a user agent), and
// the entries as the table holds them.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { AuditLogRow } from '../src/db/types.ts';
import { hashKey } from '../src/http/auth.ts';
import { call, startApp, type Res, type TestContext } from './helpers.ts';

export const UA = 'AuditTest/1.0 (Chromium)';
export const A = '/api/v1/audit-log';

export let ctx: TestContext;
export function useAuditApp() {
  before(async () => {
    ctx = await startApp({ env: { PAYMENT_PROVIDER: 'sandbox', SANDBOX_PAYOUT_DELAY_MS: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  after(() => ctx.close());
}

/** Credentials: an API key, or a dashboard token (development unless env says otherwise). */
export type Who = { key: string } | { token: string; env?: 'development' | 'production' };

export function send(method: string, url: string, who: Who, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = { 'user-agent': UA };
  if ('token' in who && who.env) headers['x-environment'] = who.env;
  return call(ctx.app, method, url, { ...('key' in who ? { key: who.key } : { token: who.token }), body, headers });
}

/** The entries of `userId` (with `action`, when given), oldest first, straight from the table. */
export async function entries(userId: string, action?: string): Promise<AuditLogRow[]> {
  let q = ctx.database.db.selectFrom('audit_log').selectAll().where('user_id', '=', userId);
  if (action) q = q.where('action', '=', action);
  return q.orderBy('occurred_at').orderBy('id').execute();
}

/** Exactly one entry of `action` for `userId`: returned after checking who and from where. */
export async function one(userId: string, action: string, actor: { type: string; id: string | null }): Promise<AuditLogRow> {
  const rows = await entries(userId, action);
  assert.equal(rows.length, 1, `${action}: ${JSON.stringify(rows)}`);
  const [e] = rows;
  assert.equal(e.actor_type, actor.type);
  assert.equal(e.actor_id, actor.id);
  assert.equal(e.ip, '127.0.0.1');
  assert.equal(e.user_agent, UA);
  return e;
}

/** The id of the API key `key`. */
export async function keyId(key: string): Promise<string> {
  return (await ctx.database.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(key)).executeTakeFirstOrThrow()).id;
}
