// The creation statement: every row of a batch of new transactions written by ONE statement, with
// what a creation does for each (the client upsert, the transaction, its transaction.created event
// and fan-out, the payment link's use count, the Idempotency-Key with its response, a production
// card charge's first try). Its text
// depends only on the batch's shape, so it is prepared once per shape (see Shape). creation.ts runs it.
import { CompiledQuery, sql } from 'kysely';
import { prepared, type Db } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Transaction } from '../../db/types.ts';
import { keyExpiry, type RequestKey } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import { CLIENT_UPSERT_CONFLICT, normalizeEmail } from '../clients/service.ts';
import type { EventLog } from '../events/service.ts';
import { eventData } from './view.ts';

/**
 * The Idempotency-Key of a request and its response (`status`, the body rendered from the row as
 * stored), written by the creation statement itself: the work and its stored response commit
 * together.
 */
export interface KeyAttachment {
  key: RequestKey;
  status: number;
  render: (row: Transaction) => string;
  /** The row is answered too (a card charged after its creation: the stored response is provisional). */
  withRow?: boolean;
}

export interface Creation {
  /** The row to store (buildDraft); its display id is drawn here. */
  draft: Transaction;
  attach: KeyAttachment | null;
  /** The id of the charge's first try, recorded PENDING at the draft's connector (a production card charge, attempts.ts). */
  attempt?: string;
}

/**
 * What the statement did for one creation: stored it (the row, or with a key the response text, and
 * the row when asked for), or found its key taken.
 */
export type Written = { row: Transaction; attached?: undefined } | { attached: string; row?: Transaction } | { taken: true };

/** The columns of a creation the statement takes as they are, with their SQL types. */
const COLUMNS = [
  ['id', 'uuid'], ['display_id', 'text'], ['product', 'text'], ['amount_cents', 'bigint'],
  ['charged_cents', 'bigint'], ['fee_cents', 'bigint'], ['status', 'text'], ['payment_method', 'text'],
  ['client_id', 'uuid'], ['client_name', 'text'], ['client_email', 'text'], ['client_document', 'text'],
  ['client_phone', 'text'], ['installments', 'integer'], ['installment_cents', 'bigint'], ['card_brand', 'text'],
  ['card_last4', 'text'], ['pix_txid', 'text'], ['pix_qr_code', 'text'], ['boleto_barcode', 'text'],
  ['boleto_line', 'text'], ['boleto_pix', 'text'], ['due_date', 'date'], ['late_payment', 'jsonb'],
  ['expires_at', 'timestamptz'], ['metadata', 'jsonb'], ['tracking_params', 'jsonb'], ['postback_url', 'text'],
  ['provider', 'text'], ['payment_link_id', 'uuid'], ['coupon_id', 'uuid'], ['discount_cents', 'bigint'],
  ['affiliate_link_id', 'uuid'], ['address', 'jsonb'], ['items', 'jsonb'], ['split', 'jsonb'],
  ['parent_transaction_id', 'uuid'], ['subscription_id', 'uuid'], ['subscription_cycle_id', 'uuid'], ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const satisfies readonly (readonly [keyof Transaction, string])[];

/** The value of a column as the statement's array takes it (jsonb as its text). */
function columnValue(r: Transaction, column: (typeof COLUMNS)[number][0]): unknown {
  if (column === 'metadata' || column === 'tracking_params') return JSON.stringify(r[column]);
  if (column === 'address' || column === 'late_payment' || column === 'items' || column === 'split') return r[column] === null ? null : JSON.stringify(r[column]);
  // The client as the upsert stores it (see upsertClientSql).
  if (column === 'client_email') return normalizeEmail(r.client_email);
  return r[column];
}

/**
 * A column's values as PostgreSQL's array literal text (`{"a","b",NULL}`), sent as one string. The
 * drivers would build the same text from a JS array, element by element with two escaping passes
 * and their own date formatting: on the creation path that was a sixth of the gateway's CPU per
 * creation (a batch sends 47 arrays). Every string is quoted (so "", "NULL" and text with commas or
 * braces stay themselves), with only backslash and double quote escaped; dates as ISO 8601 (UTC).
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const out = values.map((v) => {
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'string') return `"${/["\\]/.test(v) ? v.replace(/["\\]/g, '\\$&') : v}"`;
    if (typeof v === 'number' || typeof v === 'bigint') return String(v);
    if (typeof v === 'boolean') return v ? 't' : 'f';
    if (v instanceof Date) return `"${v.toISOString()}"`;
    throw new TypeError(`no array literal for a ${typeof v}`);
  });
  return `{${out.join(',')}}`;
}

/**
 * JSON texts (the event's data, the stored response) as one text, split by the statement with
 * string_to_array: separated by U+0001, NULL as U+0002. JSON has no raw control characters (they are
 * escaped inside its strings), so neither mark can occur in a value, and nothing needs escaping: in
 * an array literal every quote of the JSON took a backslash, which the gateway added with a regular
 * expression and PostgreSQL's array_in took out again, character by character (both showed in the
 * benchmark's profiles).
 */
export function jsonTexts(values: readonly (string | null)[]): string {
  for (const v of values) if (v !== null && (v.includes('\x01') || v.includes('\x02'))) throw new Error('not a JSON text: it holds a control character');
  return values.map((v) => v ?? '\x02').join('\x01');
}

/** A row the creation statement answers: per creation (`n`), its client, or the stored row of a creation without a key. */
export type CreatedRow = Transaction & { n: number; written_client_id: string | null; phone_json: string | null; fanout: unknown };

/** A parameter of the creation statement that is worked out for each batch (see Shape). */
class Slot {
  readonly name: string;
  readonly value: (rows: readonly StatementRow[]) => unknown;
  constructor(name: string, value: (rows: readonly StatementRow[]) => unknown) {
    this.name = name;
    this.value = value;
  }
}

/** A creation as the statement takes it: the draft, its key, and what is rendered before the statement. */
interface StatementRow {
  draft: Transaction;
  event_id: string;
  event_data: string;
  at: string;
  idem_key: string | null;
  fingerprint: string | null;
  key_status: number | null;
  key_body: string | null;
  phone_mark: string;
  key_created_at: Date | null;
  key_expires_at: Date | null;
  attempt_id: string | null;
}
type Extra = Exclude<keyof StatementRow, 'draft'>;

/** The extras of a row beside its columns, with their SQL types; 'json': a JSON text, sent with its neighbours' by jsonTexts. */
const EXTRAS: [Extra, string][] = [
  ['event_id', 'uuid'],
  ['event_data', 'json'],
  ['at', 'text'],
  ['idem_key', 'text'],
  ['fingerprint', 'text'],
  ['key_status', 'integer'],
  ['key_body', 'json'],
  ['phone_mark', 'text'],
  ['key_created_at', 'timestamptz'],
  ['key_expires_at', 'timestamptz'],
  ['attempt_id', 'uuid'],
];

const SLOTS = {
  columns: COLUMNS.map(([column, type]) => [new Slot(column, (rows) => arrayLiteral(rows.map((r) => columnValue(r.draft, column)))), type] as const),
  extras: EXTRAS.map(
    ([name, type]) =>
      [new Slot(name, (rows) => (type === 'json' ? jsonTexts(rows.map((r) => r[name] as string | null)) : arrayLiteral(rows.map((r) => r[name])))), type] as const,
  ),
  n: new Slot('n', (rows) => arrayLiteral(rows.map((_, i) => i + 1))),
  userId: new Slot('userId', (rows) => rows[0].draft.user_id),
  livemode: new Slot('livemode', (rows) => rows[0].draft.livemode),
};

/**
 * The statement's text for one shape of batch, compiled once, and its parameters: a Slot where a
 * batch's value goes (worked out per batch, once per slot), any other a constant of the text. The
 * text depends only on the shape, never on the number of rows: a prepared statement on PostgreSQL
 * (see prepared()). Building and compiling the text anew for every batch cost the gateway as much
 * as working out the values.
 */
interface Shape {
  sql: string;
  parameters: readonly unknown[];
}
const shapes = new WeakMap<EventLog, Map<string, Shape>>();

/** What a batch's statement text depends on. */
interface ShapeOf {
  /** Every row has an Idempotency-Key (the API's creations): rows answer their client, not the stored row. */
  keyed: boolean;
  /** Some row is a payment link's sale: the statement counts the link's uses. */
  linked: boolean;
  /** Some row has a postback URL: the event fan-out includes it. */
  postbackUrls: boolean;
  /** Two rows share a client (a document): the client upsert takes one row per client. */
  sharedClients: boolean;
  /** Some row is a production card charge: the statement records its first try. */
  attempted: boolean;
}

function shapeOf(db: Db, events: EventLog, flags: ShapeOf): Shape {
  const id = `${flags.keyed}:${flags.linked}:${flags.postbackUrls}:${flags.sharedClients}:${flags.attempted}`;
  let byId = shapes.get(events);
  if (!byId) shapes.set(events, (byId = new Map()));
  let shape = byId.get(id);
  if (!shape) {
    const query = statementText(events, flags).compile(db);
    shape = { sql: prepared('tx_create', query.sql), parameters: query.parameters };
    byId.set(id, shape);
  }
  return shape;
}

/**
 * The creation statement for creations of one merchant and environment, their display ids drawn
 * (exported for the benchmark's SQL floor): `compile(db)` gives the query to run, `written(rows)`
 * what it did for each creation, from the rows it answered (one per creation written).
 */
export function creationStatement(events: EventLog, creations: Creation[]) {
  const rows: StatementRow[] = creations.map(({ draft, attach, attempt }) => {
    const phoneMark = uuidv7();
    const key = attach?.key ?? null;
    return {
      draft,
      event_id: uuidv7(draft.created_at.getTime()),
      event_data: JSON.stringify(eventData(draft)),
      at: draft.created_at.toISOString(),
      idem_key: key?.key ?? null,
      fingerprint: key?.fingerprint ?? null,
      key_status: attach?.status ?? null,
      key_body: attach ? attach.render({ ...draft, client_phone: phoneMark }) : null,
      phone_mark: `"${phoneMark}"`,
      key_created_at: key?.createdAt ?? null,
      key_expires_at: key ? keyExpiry(key) : null,
      attempt_id: attempt ?? null,
    };
  });
  // With a key on every row (the API's creations), each row answers only its client: the response
  // is the text rendered here, with the client's id and phone put in place of their marks, exactly
  // as the statement stores it. The transaction's 60-odd columns are not sent back at all.
  const flags: ShapeOf = {
    keyed: creations.every((c) => c.attach !== null && !c.attach.withRow),
    // Only a batch with a payment link's sale counts the link's uses (the API's creations have none).
    linked: creations.some((c) => c.draft.payment_link_id !== null),
    postbackUrls: creations.some((c) => c.draft.postback_url !== null),
    sharedClients: new Set(creations.map((c) => c.draft.client_document)).size < creations.length,
    attempted: creations.some((c) => c.attempt),
  };
  return {
    compile(db: Db): CompiledQuery<CreatedRow> {
      const shape = shapeOf(db, events, flags);
      const values = new Map<Slot, unknown>();
      const parameters = shape.parameters.map((p) => {
        if (!(p instanceof Slot)) return p;
        if (!values.has(p)) values.set(p, p.value(rows));
        return values.get(p);
      });
      return CompiledQuery.raw(shape.sql, parameters) as CompiledQuery<CreatedRow>;
    },
    /** What the statement did for each creation, in their order, from the rows it answered. */
    written(answered: readonly CreatedRow[]): Written[] {
      const out: Written[] = rows.map(() => ({ taken: true }));
      for (const r of answered) {
        const row = rows[r.n - 1];
        if (row.key_body === null) {
          out[r.n - 1] = { row: omitAnswer(r) };
          continue;
        }
        // Replacers as functions: a replacement string would read "$&" and the like in a phone.
        const attached = row.key_body.replaceAll(row.draft.client_id, () => r.written_client_id!).replaceAll(row.phone_mark, () => r.phone_json!);
        out[r.n - 1] = r.id === null ? { attached } : { attached, row: omitAnswer(r) };
      }
      return out;
    },
  };
}

function omitAnswer({ n: _, written_client_id: __, phone_json: ___, fanout: ____, ...row }: CreatedRow): Transaction {
  return row;
}

/**
 * The text of the creation statement (see creationStatement): each creation comes in as one element
 * of an array per column (unnest), so the text is the same for 1 or 200 creations.
 *
 * - `fresh`: the rows whose Idempotency-Key is not stored (or that have none). `stored` looks each
 *   key up by the primary key (LATERAL ... LIMIT 1: one index probe per row, never a scan of the
 *   merchant's keys); `fresh` filters with NOT IN, whose estimate (about half the rows, where a
 *   join's anti-filter says 1) keeps the joins below hash joins, not nested loops over the batch. A
 *   row whose key is stored writes nothing at all and comes back without a client (`taken`). The
 *   key cannot gate the rest by ON CONFLICT ... RETURNING: its stored response needs the client's
 *   id, which the client upsert gives, and the upsert must not run for a request that is not
 *   written. A key stored meanwhile by another process makes the key INSERT fail, so the statement
 *   as a whole (the batch is then written row by row, and that row finds its key stored): within a
 *   week by the partition's primary key, across weeks by idempotency_free (the key's lock, then a look
 *   across the week partitions: migration 048).
 * - `c`: one client upsert per document (two rows of a batch for the same client would make
 *   ON CONFLICT DO UPDATE affect a row twice, which PostgreSQL refuses). It is as if the rows ran
 *   one after the other, those without a phone last: the client keeps the last row's name and
 *   e-mail and the last phone given (`last_phone`); each transaction keeps its own name and e-mail,
 *   and its phone, else the client's. A batch whose rows are all of different clients (the usual
 *   case) upserts its rows as they are: the window, the two sorts and the DISTINCT ON are a text of
 *   their own (`sharedClients`), which a lone creation never pays for.
 * - `fc`: each fresh row with its client's id and the phone it keeps, worked out once: the
 *   transaction, its event, its key and the answer all read them here.
 * - The event's data and the stored response are rendered in JS before the statement; the two
 *   values only the upsert knows (the client's id and stored phone) are put in by the statement, in
 *   place of marks: the row's own `client_id` (a fresh random UUID, found nowhere else) and a fresh
 *   random phone. The answer carries the two values, and the gateway puts them in its own copy of
 *   the response the same way (creationStatement's `written`).
 */
/** A production card charge's first try, PENDING at the transaction's connector (attempts.ts). */
const TRIES = sql`
    tries AS (
      INSERT INTO card_attempts (id, transaction_id, connector, outcome, created_at, updated_at)
      SELECT f.attempt_id, f.id, f.provider, 'PENDING', f.created_at, f.created_at FROM fc f WHERE f.attempt_id IS NOT NULL
    ),`;

function statementText(events: EventLog, { keyed, linked, postbackUrls, sharedClients, attempted }: ShapeOf) {
  const scope = { userId: SLOTS.userId, livemode: SLOTS.livemode } as unknown as Scope;
  const u = sql`${SLOTS.userId}::uuid`;
  const l = sql`${SLOTS.livemode}::boolean`;
  // Set-returning functions in the select list run in lockstep, one row per element (ProjectSet);
  // unnest() in FROM would be ROWS FROM(...), which stores each array's elements in a tuplestore of
  // its own first: for 57 arrays that was 0.1 ms of every statement before its first row.
  const elements = [
    ...SLOTS.columns.map(([slot, type]) => sql`unnest(${slot}::${sql.raw(type)}[]) AS ${sql.raw(slot.name)}`),
    ...SLOTS.extras.filter(([slot]) => attempted || slot.name !== 'attempt_id').map(([slot, type]) =>
      type === 'json'
        ? sql`unnest(string_to_array(${slot}::text, chr(1), chr(2))) AS ${sql.raw(slot.name)}`
        : sql`unnest(${slot}::${sql.raw(type)}[]) AS ${sql.raw(slot.name)}`,
    ),
    // Not generate_series(1, $n): on a parameter the planner guesses 1,000 rows, and the generic
    // plan then looked so dear that PostgreSQL planned every execution anew.
    sql`unnest(${SLOTS.n}::int[]) AS n`,
  ];
  const taken = COLUMNS.filter(([c]) => c !== 'client_id' && c !== 'client_phone').map(([c]) => c);
  const phoneJson = sql`COALESCE(to_json(f.phone)::text, 'null')`;
  const ev = events.writes(
    scope,
    { postbackUrls, postbackLookups: false },
    sql`SELECT f.event_id, ${u}, 'transaction.created'::text, replace(f.event_data, f.client_id::text, f.cid::text), f.created_at, f.at, f.postback_url, NULL::uuid FROM fc f`,
  );
  return sql`
    WITH i AS (SELECT ${sql.join(elements)}),
    stored AS (
      SELECT k.key FROM i
      JOIN LATERAL (SELECT key FROM idempotency_keys WHERE user_id = ${u} AND livemode = ${l} AND key = i.idem_key LIMIT 1) k ON true
    ),
    fresh AS (SELECT * FROM i WHERE i.idem_key IS NULL OR i.idem_key NOT IN (SELECT key FROM stored)),
    c AS (
      INSERT INTO clients (id, user_id, livemode, name, email, document, phone, created_at, updated_at)
      ${
        sharedClients
          ? sql`SELECT DISTINCT ON (f.client_document) f.client_id, ${u}, ${l}, f.client_name, f.client_email, f.client_document, f.last_phone, f.created_at, f.created_at
      FROM (
        SELECT fresh.*, last_value(client_phone) OVER (PARTITION BY client_document ORDER BY client_phone IS NOT NULL, n
          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last_phone
        FROM fresh
      ) f
      ORDER BY f.client_document, f.client_phone IS NULL DESC, f.n DESC`
          : sql`SELECT f.client_id, ${u}, ${l}, f.client_name, f.client_email, f.client_document, f.client_phone, f.created_at, f.created_at FROM fresh f`
      }
      ${CLIENT_UPSERT_CONFLICT}
      RETURNING id, document, phone
    ),
    fc AS (SELECT fresh.*, c.id AS cid, COALESCE(fresh.client_phone, c.phone) AS phone FROM fresh JOIN c ON c.document = fresh.client_document),
    t AS (
      INSERT INTO transactions (user_id, livemode, client_id, client_phone, ${sql.raw(taken.join(', '))})
      SELECT ${u}, ${l}, f.cid, f.phone, ${sql.raw(taken.map((c) => `f.${c}`).join(', '))}
      FROM fc f
      ${keyed ? sql`` : sql`RETURNING *`}
    ),
    ${ev.ctes},${
      linked
        ? sql`
    link_use AS (
      UPDATE payment_links SET times_used = times_used + used.n
      FROM (SELECT payment_link_id, count(*) AS n FROM fc WHERE payment_link_id IS NOT NULL GROUP BY payment_link_id) used
      WHERE payment_links.user_id = ${u} AND payment_links.id = used.payment_link_id
    ),`
        : sql``
    }${attempted ? TRIES : sql``}
    k AS (
      INSERT INTO idempotency_keys (user_id, livemode, key, fingerprint, response_status, response_body, created_at, expires_at)
      SELECT ${u}, ${l}, f.idem_key, f.fingerprint, f.key_status,
        replace(replace(f.key_body, f.client_id::text, f.cid::text), f.phone_mark, ${phoneJson}), f.key_created_at, f.key_expires_at
      FROM fc f WHERE f.idem_key IS NOT NULL AND idempotency_free(${u}, ${l}, f.idem_key)
    )
    SELECT f.n, f.cid AS written_client_id, ${phoneJson} AS phone_json, ${keyed ? sql`NULL::uuid AS id` : sql`r.*`}, ${ev.result} AS fanout
    FROM fc f ${keyed ? sql`` : sql`LEFT JOIN t r ON r.id = f.id`}`;
}
