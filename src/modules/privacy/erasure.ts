// Erasure of a client's personal data (LGPD art. 18): one database transaction anonymises the client
// row and every copy of its name, e-mail, document, phone and address (payments, subscriptions,
// saved cards, checkout orders, coupon uses, chargeback evidence, events, webhook deliveries, stored
// API answers, the e-mail log). Amounts, dates, ids, statuses and the ledger stay: they are the
// merchant's financial records. Idempotent: an erased client answers as it is. The client's other
// environment is another client (scope) and is left alone.
import { sql } from 'kysely';
import { inTx, type Db, type Trx } from '../../db/index.ts';
import type { Client } from '../../db/types.ts';
import { conflict, notFound } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { anonymousOf, ERASED_NAME, personalValues, scrubJson, scrubStored, scrubText, type PersonalValues } from './personal-data.ts';

/** What replaces the body of an e-mail that was sent to an erased client. */
export const ERASED_MAIL_BODY = '[Conteúdo removido: os dados pessoais do destinatário foram apagados a pedido (LGPD).]';

export async function eraseClient(db: Db, scope: Scope, id: string): Promise<Client> {
  return inTx(db, async (trx) => {
    // Archived clients too: archiving keeps the data, erasure is what removes it.
    const client = await trx.selectFrom('clients').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!client) throw notFound('Client');
    if (client.erased_at) return client;
    const live = await trx.selectFrom('subscriptions').select('id').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('client_id', '=', id).where('status', 'not in', ['CANCELLED', 'EXPIRED']).limit(1).executeTakeFirst();
    if (live) throw conflict(`The client has a subscription still billing (${live.id}): cancel its subscriptions first, then erase the client`);
    const values = await personalValues(trx, scope, client);
    await anonymiseCopies(trx, scope, client, values);
    await scrubLogs(trx, scope, values);
    const anon = anonymousOf(id);
    const now = new Date();
    return trx.updateTable('clients').set({ ...anon, erased_at: now, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });
}

/** The structured copies: columns set to the anonymous values, free JSON and text scrubbed. */
async function anonymiseCopies(trx: Trx, scope: Scope, client: Client, values: PersonalValues): Promise<void> {
  const anon = anonymousOf(client.id);
  const copy = { client_name: anon.name, client_email: anon.email, client_document: anon.document, client_phone: null };
  const mine = { user_id: scope.userId, livemode: scope.livemode, client_id: client.id };
  const txs = await trx.selectFrom('transactions').select(['id', 'metadata', 'tracking_params']).where('user_id', '=', mine.user_id).where('livemode', '=', mine.livemode).where('client_id', '=', client.id).execute();
  for (const t of txs) {
    await trx
      .updateTable('transactions')
      .set({ ...copy, address: null, metadata: JSON.stringify(scrubJson(t.metadata, values)), tracking_params: JSON.stringify(scrubJson(t.tracking_params, values)) })
      .where('id', '=', t.id)
      .execute();
  }
  const subs = await trx.selectFrom('subscriptions').select(['id', 'metadata']).where('user_id', '=', mine.user_id).where('livemode', '=', mine.livemode).where('client_id', '=', client.id).execute();
  for (const s of subs) await trx.updateTable('subscriptions').set({ ...copy, client_address: null, metadata: JSON.stringify(scrubJson(s.metadata, values)) }).where('id', '=', s.id).execute();
  await trx.updateTable('saved_cards').set({ holder_name: ERASED_NAME }).where('user_id', '=', mine.user_id).where('livemode', '=', mine.livemode).where('client_id', '=', client.id).execute();
  const txIds = txs.map((t) => t.id);
  const { documents } = values;
  await trx
    .updateTable('cart_abandonments')
    .set({ client_name: anon.name, client_email: anon.email, client_document: anon.document, client_phone: null })
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where((eb) => eb.or([eb('client_email', 'in', values.emails), ...(documents.length ? [eb('client_document', 'in', documents)] : []), ...(txIds.length ? [eb('transaction_id', 'in', txIds)] : [])]))
    .execute();
  await trx
    .updateTable('coupon_redemptions')
    .set({ email: anon.email, document: anon.document })
    .where('user_id', '=', scope.userId)
    .where('coupon_id', 'in', (eb) => eb.selectFrom('coupons').select('id').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode))
    .where((eb) => eb.or([eb('email', 'in', values.emails), ...(documents.length ? [eb('document', 'in', documents)] : [])]))
    .execute();
  if (txIds.length === 0) return;
  const evidence = await trx.selectFrom('chargebacks').select(['id', 'evidence_text']).where('transaction_id', 'in', txIds).where('evidence_text', 'is not', null).execute();
  for (const c of evidence) await trx.updateTable('chargebacks').set({ evidence_text: scrubText(c.evidence_text!, values) }).where('id', '=', c.id).execute();
}

type Kind = 'json' | 'stored' | 'text';

/**
 * Rows of `table` in the scope whose `columns` hold one of the client's identifiers, each column
 * rewritten without its personal values (`override` replaces a column's value outright).
 */
async function rewriteMatching(trx: Trx, scope: Scope, table: string, key: string, columns: [string, Kind][], values: PersonalValues, override?: (row: Record<string, unknown>) => Record<string, unknown>) {
  const hits = values.needles.flatMap((n) => columns.map(([c]) => sql`strpos(${sql.ref(c)}::text, ${n}) > 0`));
  const select = sql.join([sql`${sql.ref(key)} AS row_key`, ...columns.map(([c]) => sql.ref(c))]);
  const { rows } = await sql<Record<string, unknown>>`SELECT ${select} FROM ${sql.table(table)} WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND (${sql.join(hits, sql` OR `)})`.execute(trx);
  for (const row of rows) {
    const set: Record<string, unknown> = {};
    for (const [c, kind] of columns) {
      const v = row[c];
      if (v === null || v === undefined) continue;
      set[c] = kind === 'json' ? JSON.stringify(scrubJson(typeof v === 'string' ? JSON.parse(v) : v, values)) : kind === 'stored' ? scrubStored(String(v), values) : scrubText(String(v), values);
    }
    Object.assign(set, override?.(row));
    const assignments = sql.join(Object.entries(set).map(([c, v]) => (columns.find(([n]) => n === c)?.[1] === 'json' ? sql`${sql.ref(c)} = ${v}::jsonb` : sql`${sql.ref(c)} = ${v}`)));
    await sql`UPDATE ${sql.table(table)} SET ${assignments} WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND ${sql.ref(key)} = ${row.row_key}`.execute(trx);
  }
}

/** What was logged about the client: events, webhook deliveries, stored API answers, e-mails. */
async function scrubLogs(trx: Trx, scope: Scope, values: PersonalValues): Promise<void> {
  await rewriteMatching(trx, scope, 'events', 'id', [['data', 'json']], values);
  await rewriteMatching(trx, scope, 'webhook_deliveries', 'id', [['body', 'stored']], values);
  await rewriteMatching(trx, scope, 'idempotency_keys', 'key', [['response_body', 'stored']], values);
  const anon = values.replacements.find(([from]) => values.emails.includes(from))?.[1] ?? null;
  await rewriteMatching(trx, scope, 'emails', 'id', [['to_address', 'text'], ['subject', 'text'], ['text_body', 'text'], ['html_body', 'text']], values, (row) =>
    values.emails.includes(String(row.to_address)) ? { to_address: anon, text_body: ERASED_MAIL_BODY, html_body: `<p>${ERASED_MAIL_BODY}</p>` } : {},
  );
}
