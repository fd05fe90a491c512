// The audit log itself: append-only at the database (PGlite and PostgreSQL), written in the same
// commit as the change, never holding a secret, each merchant reading only its own, pages and CSV,
// and the retention sweep deleting only what is older than AUDIT_RETENTION_DAYS.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { inTx } from '../src/db/index.ts';
import { recordAudit, SYSTEM_ACTOR } from '../src/modules/audit/service.ts';
import { purgeExpiredAudit } from '../src/modules/audit/retention.ts';
import { sweeps } from '../src/jobs/runner.ts';
import { merchant, operator } from './helpers.ts';
import { A, ctx, entries, keyId, one, send, UA, useAuditApp } from './audit-kit.ts';

useAuditApp();
const DAY = 86_400_000;

async function refused(statement: ReturnType<typeof sql>) {
  await assert.rejects(statement.execute(ctx.database.db), /append-only/);
}

describe('the table is append-only', () => {
  test('a plain UPDATE, DELETE or TRUNCATE is refused by the trigger; the rows stay as written', async () => {
    const m = await merchant(ctx.app);
    const [row] = await entries(m.id, 'api_key.created');
    await refused(sql`UPDATE audit_log SET action = 'forged' WHERE id = ${row.id}`);
    await refused(sql`DELETE FROM audit_log WHERE id = ${row.id}`);
    await refused(sql`DELETE FROM audit_log`);
    await refused(sql`TRUNCATE audit_log`);
    assert.deepEqual(await entries(m.id, 'api_key.created'), [row]);
  });

  test("the sweep's setting opens DELETE only for rows older than its cutoff, never UPDATE", async () => {
    const m = await merchant(ctx.app);
    const [row] = await entries(m.id, 'api_key.created');
    // A cutoff before the row: the row is not old enough to go.
    await assert.rejects(
      inTx(ctx.database.db, async (trx) => {
        await sql`SELECT set_config('cofre.audit_retention_cutoff', ${new Date(row.occurred_at.getTime() - 1000).toISOString()}, true)`.execute(trx);
        await sql`DELETE FROM audit_log WHERE id = ${row.id}`.execute(trx);
      }),
      /append-only/,
    );
    await assert.rejects(
      inTx(ctx.database.db, async (trx) => {
        await sql`SELECT set_config('cofre.audit_retention_cutoff', ${new Date(Date.now() + DAY).toISOString()}, true)`.execute(trx);
        await sql`UPDATE audit_log SET action = 'forged' WHERE id = ${row.id}`.execute(trx);
      }),
      /append-only/,
    );
    // The setting is local to its transaction: afterwards a DELETE is refused again.
    await refused(sql`DELETE FROM audit_log WHERE id = ${row.id}`);
    assert.equal((await entries(m.id, 'api_key.created')).length, 1);
  });
});

describe('written in the same commit as the change', () => {
  test('a transaction that rolls back leaves no entry; one that commits leaves it', async () => {
    const m = await merchant(ctx.app);
    const entry = { userId: m.id, livemode: false, action: 'test.rolled_back', objectType: 'test', objectId: 'x' };
    await assert.rejects(
      inTx(ctx.database.db, async (trx) => {
        await recordAudit(trx, SYSTEM_ACTOR, entry);
        throw new Error('the change failed');
      }),
    );
    assert.equal((await entries(m.id, 'test.rolled_back')).length, 0);
    await inTx(ctx.database.db, (trx) => recordAudit(trx, SYSTEM_ACTOR, { ...entry, action: 'test.committed' }));
    assert.equal((await entries(m.id, 'test.committed')).length, 1);
  });

  test('a refused request writes nothing: validation error, unknown object, missing permission', async () => {
    const m = await merchant(ctx.app, { permissions: ['transactions:read'] });
    const before = (await entries(m.id)).length;
    assert.equal((await send('POST', '/api/credentials', { token: m.token }, { name: '', environment: 'DEVELOPMENT' })).status, 400);
    assert.equal((await send('POST', '/api/credentials', { token: m.token }, { name: 'live', environment: 'PRODUCTION' })).status, 403); // KYC not approved
    assert.equal((await send('DELETE', '/api/credentials/0190a000-0000-7000-8000-000000000000', { token: m.token })).status, 404);
    assert.equal((await send('POST', '/api/v1/webhooks/subscriptions', { key: m.devKey }, { url: 'https://example.com/h', events: ['transaction.created'] })).status, 403);
    assert.equal((await entries(m.id)).length, before);
  });
});

describe('no secret in any entry', () => {
  test('after creating and revoking keys, creating, changing, rotating and deleting a webhook: no key, hash or secret in the table', async () => {
    const m = await merchant(ctx.app);
    const made = await send('POST', '/api/credentials', { token: m.token }, { name: 'servidor', environment: 'DEVELOPMENT' });
    assert.equal(made.status, 201, made.raw);
    const sub = await send('POST', '/api/v1/webhooks/subscriptions', { key: m.devKey }, { url: 'http://localhost:9/h', events: ['transaction.created'] });
    assert.equal(sub.status, 201, sub.raw);
    const id = sub.body.subscription.id;
    const rotated = await send('POST', `/api/v1/webhooks/subscriptions/${id}/rotate-secret`, { key: m.devKey });
    const postback = await send('POST', '/api/v1/webhooks/postback-secret/rotate', { key: m.devKey });
    assert.equal((await send('PATCH', `/api/v1/webhooks/subscriptions/${id}`, { key: m.devKey }, { description: 'Loja' })).status, 200);
    assert.equal((await send('DELETE', `/api/v1/webhooks/subscriptions/${id}`, { key: m.devKey })).status, 200);
    assert.equal((await send('DELETE', `/api/credentials/${made.body.credential.id}`, { token: m.token })).status, 200);

    const keyRow = await ctx.database.db.selectFrom('api_keys').select('key_hash').where('id', '=', made.body.credential.id).executeTakeFirstOrThrow();
    const user = await ctx.database.db.selectFrom('users').select('password_hash').where('id', '=', m.id).executeTakeFirstOrThrow();
    const secrets = [made.body.key, m.devKey, keyRow.key_hash, sub.body.subscription.secret, rotated.body.subscription.secret, postback.body.secret, user.password_hash, m.password];
    const { rows } = await sql<{ t: string }>`SELECT row_to_json(a)::text AS t FROM audit_log a`.execute(ctx.database.db);
    const table = rows.map((r) => r.t).join('\n');
    for (const s of secrets) assert.ok(s && !table.includes(s), 'a secret reached the audit log');
    assert.doesNotMatch(table, /"(secret|key|keyHash|key_hash|password\w*)":/i);

    const actions = (await entries(m.id)).map((e) => e.action);
    for (const a of ['api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.secret_rotated', 'postback_secret.rotated', 'webhook.updated', 'webhook.deleted']) assert.ok(actions.includes(a), a);
  });

  test('API keys: created and revoked each write one entry with the key view, by the dashboard user', async () => {
    const m = await merchant(ctx.app);
    const made = await send('POST', '/api/credentials', { token: m.token }, { name: 'erp', environment: 'DEVELOPMENT', permissions: ['transactions:read'] });
    const id = made.body.credential.id;
    assert.equal((await send('DELETE', `/api/credentials/${id}`, { token: m.token })).status, 200);
    const created = (await entries(m.id, 'api_key.created')).find((e) => e.object_id === id)!;
    assert.equal(created.actor_type, 'USER');
    assert.equal(created.actor_id, m.id);
    assert.equal(created.user_agent, UA);
    assert.equal(created.livemode, null);
    assert.equal(created.before, null);
    assert.deepEqual(created.after?.permissions, ['transactions:read']);
    const revoked = await one(m.id, 'api_key.revoked', { type: 'USER', id: m.id });
    assert.equal(revoked.before?.revokedAt, null);
    assert.ok(revoked.after?.revokedAt);
  });

  test('webhooks through an API key: the actor is the key; before and after show the change', async () => {
    const m = await merchant(ctx.app);
    const sub = await send('POST', '/api/v1/webhooks/subscriptions', { key: m.devKey }, { url: 'http://localhost:9/a', events: ['transaction.created'] });
    const id = sub.body.subscription.id;
    assert.equal((await send('PATCH', `/api/v1/webhooks/subscriptions/${id}`, { key: m.devKey }, { url: 'http://localhost:9/b' })).status, 200);
    const actor = { type: 'API_KEY', id: await keyId(m.devKey) };
    assert.equal((await one(m.id, 'webhook.created', actor)).after?.url, 'http://localhost:9/a');
    const updated = await one(m.id, 'webhook.updated', actor);
    assert.equal(updated.before?.url, 'http://localhost:9/a');
    assert.equal(updated.after?.url, 'http://localhost:9/b');
    assert.equal(updated.livemode, false);
  });
});

describe('GET /api/v1/audit-log', () => {
  test("a merchant reads its own entries only; another's id filter gives nothing; operators read everyone's", async () => {
    const a = await merchant(ctx.app, { permissions: ['auditLog:read'] });
    const b = await merchant(ctx.app);
    const bSub = await send('POST', '/api/v1/webhooks/subscriptions', { key: b.devKey }, { url: 'http://localhost:9/b', events: ['transaction.created'] });
    const mine = await send('GET', A, { token: a.token });
    assert.equal(mine.status, 200, mine.raw);
    assert.ok(mine.body.entries.length >= 1);
    assert.ok(mine.body.entries.every((e: { userId: string }) => e.userId === a.id));
    const probe = await send('GET', `${A}?objectId=${bSub.body.subscription.id}`, { key: a.devKey });
    assert.equal(probe.status, 200, probe.raw);
    assert.deepEqual(probe.body.entries, []);
    // An API key needs auditLog:read; a dashboard-only operator route refuses merchants.
    assert.equal((await send('GET', A, { key: b.devKey })).status, 200); // every permission by default
    const narrow = await merchant(ctx.app, { permissions: ['transactions:read'] });
    assert.equal((await send('GET', A, { key: narrow.devKey })).status, 403);
    assert.equal((await send('GET', '/api/admin/audit-log', { token: a.token })).status, 403);
    const op = await operator(ctx.app);
    const all = await send('GET', `/api/admin/audit-log?userId=${b.id}&action=webhook.created`, { token: op.token });
    assert.equal(all.status, 200, all.raw);
    assert.equal(all.body.entries.length, 1);
    assert.equal(all.body.entries[0].objectId, bSub.body.subscription.id);
  });

  test('filters, cursor pages in the spec shape, environments, and no route that changes an entry', async () => {
    const m = await merchant(ctx.app, { live: true });
    for (const n of [1, 2, 3]) await send('POST', '/api/v1/webhooks/subscriptions', { key: m.devKey }, { url: `http://localhost:9/${n}`, events: ['transaction.created'] });
    await send('POST', '/api/v1/webhooks/subscriptions', { key: m.liveKey! }, { url: 'http://localhost:9/live', events: ['transaction.created'] });
    const first = await send('GET', `${A}?action=webhook.created&limit=2`, { token: m.token });
    assert.deepEqual(Object.keys(first.body.pagination).sort(), ['cursor', 'hasMore', 'limit', 'nextCursor']);
    assert.equal(first.body.entries.length, 2);
    assert.equal(first.body.pagination.hasMore, true);
    const second = await send('GET', `${A}?action=webhook.created&limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, { token: m.token });
    assert.equal(second.body.entries.length, 1);
    assert.equal(second.body.pagination.hasMore, false);
    const urls = [...first.body.entries, ...second.body.entries].map((e: { after: { url: string } }) => e.after.url);
    assert.deepEqual(urls, ['http://localhost:9/3', 'http://localhost:9/2', 'http://localhost:9/1']);
    // Production's entry is in production's list; account-level entries (the keys, the session its sign-up opened) in both.
    const live = await send('GET', A, { token: m.token, env: 'production' });
    assert.deepEqual(live.body.entries.map((e: { action: string }) => e.action).sort(), ['api_key.created', 'api_key.created', 'session.created', 'webhook.created']);
    const byActor = await send('GET', `${A}?actorType=USER`, { token: m.token });
    assert.deepEqual(byActor.body.entries.map((e: { action: string }) => e.action).sort(), ['api_key.created', 'api_key.created', 'session.created']);
    const future = await send('GET', `${A}?from=${new Date(Date.now() + DAY).toISOString()}`, { token: m.token });
    assert.deepEqual(future.body.entries, []);
    assert.equal((await send('GET', `${A}?cursor=forged.cursor`, { token: m.token })).status, 400);
    assert.equal((await send('GET', `${A}?actorType=ROBOT`, { token: m.token })).status, 400);
    const id = first.body.entries[0].id;
    for (const method of ['DELETE', 'PATCH', 'PUT']) assert.equal((await send(method, `${A}/${id}`, { token: m.token }, {})).status, 404);
  });

  test('CSV: format=csv or Accept: text/csv, with the same filters, pt-BR header', async () => {
    const m = await merchant(ctx.app);
    await send('POST', '/api/v1/webhooks/subscriptions', { key: m.devKey }, { url: 'http://localhost:9/csv', events: ['transaction.created'] });
    const res = await send('GET', `${A}?format=csv&action=webhook.created`, { token: m.token });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="cofre-auditoria-\d{4}-\d\d-\d\d\.csv"/);
    const lines = res.raw.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    assert.equal(lines[0], 'ID;Data;Conta;Ambiente;Quem;ID de quem;IP;Navegador;Ação;Objeto;ID do objeto;Antes;Depois');
    assert.equal(lines.length, 2);
    assert.match(lines[1], /;Desenvolvimento;Chave de API;/);
    assert.match(lines[1], /http:\/\/localhost:9\/csv/);
    const accept = await ctx.app.inject({ method: 'GET', url: `${A}?action=webhook.created`, headers: { authorization: `Bearer ${m.token}`, accept: 'text/csv' } });
    assert.equal(accept.body, res.raw);
  });
});

describe('retention', () => {
  test('the sweep deletes entries older than AUDIT_RETENTION_DAYS only, in bounded batches', async () => {
    const m = await merchant(ctx.app);
    const now = new Date();
    // Entries as old as the sweep will find them one day (INSERT is allowed; only changes are refused).
    const aged = (daysAgo: number, n: number) =>
      ctx.database.db
        .insertInto('audit_log')
        .values(Array.from({ length: n }, () => ({ id: randomUUID(), occurred_at: new Date(now.getTime() - daysAgo * DAY), user_id: m.id, livemode: false, actor_type: 'SYSTEM' as const, action: `test.aged_${daysAgo}`, object_type: 'test' })))
        .execute();
    await aged(1830, 3);
    await aged(1820, 1);
    const days = ctx.config.auditRetentionDays;
    assert.equal(days, 1825);
    assert.equal(await purgeExpiredAudit(ctx.database.db, now, days, 2), 2);
    assert.equal(await purgeExpiredAudit(ctx.database.db, now, days, 2), 1);
    assert.equal(await purgeExpiredAudit(ctx.database.db, now, days, 2), 0);
    assert.equal((await entries(m.id, 'test.aged_1830')).length, 0);
    assert.equal((await entries(m.id, 'test.aged_1820')).length, 1);
    assert.equal((await entries(m.id, 'api_key.created')).length, 1);
  });

  test('the job runner runs the sweep', async () => {
    const sweep = sweeps(ctx.app.deps).find((s) => s.name === 'purge-audit-log');
    assert.ok(sweep);
    const m = await merchant(ctx.app);
    await ctx.database.db.insertInto('audit_log').values({ id: randomUUID(), occurred_at: new Date(Date.now() - 1900 * DAY), user_id: m.id, livemode: null, actor_type: 'SYSTEM', action: 'test.old', object_type: 'test' }).execute();
    await sweep.run(new Date());
    assert.equal((await entries(m.id, 'test.old')).length, 0);
    assert.equal((await entries(m.id, 'api_key.created')).length, 1);
  });
});
