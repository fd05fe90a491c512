import { sql, type Kysely } from 'kysely';
import { bound, dayName, makePartitions, PARTITIONED, PERIOD_MS, weekStart, type PartitionedTable } from '../partitions.ts';
import { runSql } from './run-sql.ts';

// The tables that grow with traffic become partitioned by week (src/db/partitions.ts). Each table as
// it is becomes one partition, `<table>_legacy_<day>`, covering everything before next Monday: it is
// attached, not copied (a CHECK proved first spares the attach its scan), and dropped whole by the
// retention job once its last day is old enough. Rows already past that bound (ids minted for a
// later date) move into the new table first. Indexes and foreign keys are read from the catalog,
// so any a later migration added come along.

/** Primary keys as partitioned: each must hold the partition column. */
const PRIMARY_KEYS: Record<string, string> = {
  events: 'id',
  webhook_deliveries: 'id',
  webhook_attempts: 'delivery_id, id',
  emails: 'id',
  idempotency_keys: 'user_id, livemode, key, day',
};

const q = async <T>(db: Kysely<any>, query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows;

/** The catalog's definitions of a table's indexes and foreign keys, read before anything is renamed. */
async function definitionsOf(db: Kysely<any>, table: string) {
  const indexes = await q(db, sql<{ name: string; def: string }>`
    SELECT c.relname::text AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = to_regclass(${table}) AND NOT i.indisprimary`);
  const fks = await q(db, sql<{ name: string; def: string; inbound: boolean; owner: string }>`
    SELECT conname::text AS name, pg_get_constraintdef(oid) AS def, confrelid = to_regclass(${table}) AS inbound, conrelid::regclass::text AS owner
    FROM pg_constraint WHERE contype = 'f' AND conparentid = 0 AND (conrelid = to_regclass(${table}) OR confrelid = to_regclass(${table}))`);
  return { indexes, fks };
}

/** An index definition from the catalog, made on `table` (a partitioned index when `table` is partitioned). */
const onTable = (def: string, table: string) => def.replace(/ ON (ONLY )?\S+ USING /, ` ON ${table} USING `);

export async function up(db: Kysely<any>): Promise<void> {
  const nextWeek = weekStart(Date.now()) + PERIOD_MS;
  const defs = new Map<string, Awaited<ReturnType<typeof definitionsOf>>>();
  for (const t of PARTITIONED) defs.set(t.table, await definitionsOf(db, t.table));
  // Foreign keys into these tables (webhook_attempts → webhook_deliveries) are made again on the partitioned tables.
  const inbound = [...defs.values()].flatMap((d) => d.fks.filter((f) => f.inbound));
  for (const f of inbound) await sql`ALTER TABLE ${sql.table(f.owner)} DROP CONSTRAINT ${sql.ref(f.name)}`.execute(db);
  const remade = new Set(inbound.map((f) => `${f.owner}.${f.name}`));
  for (const t of PARTITIONED) await convert(db, t, defs.get(t.table)!, nextWeek, remade);
  for (const f of inbound) await sql.raw(`ALTER TABLE ${f.owner} ADD CONSTRAINT ${f.name} ${f.def}`).execute(db);
  await makePartitions(db, new Date());
  await runSql(db, IDEMPOTENCY_FUNCTIONS);
}

async function convert(db: Kysely<any>, t: PartitionedTable, defs: Awaited<ReturnType<typeof definitionsOf>>, nextWeek: number, remade: Set<string>) {
  const legacy = `${t.table}_legacy_${dayName(nextWeek)}`;
  const hi = bound(t.kind, nextWeek);
  // A primary key without the partition column goes; attaching builds the new one on these rows.
  if (PRIMARY_KEYS[t.table] !== 'id') await sql.raw(`ALTER TABLE ${t.table} DROP CONSTRAINT ${t.table}_pkey`).execute(db);
  await sql`ALTER TABLE ${sql.table(t.table)} RENAME TO ${sql.table(legacy)}`.execute(db);
  const own = await q(db, sql<{ name: string }>`SELECT c.relname::text AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass(${legacy})`);
  for (const { name } of own) await sql`ALTER INDEX ${sql.table(name)} RENAME TO ${sql.table(`${name.slice(0, 50)}_legacy`)}`.execute(db);
  if (t.table === 'idempotency_keys') {
    // The day a key was written (UTC, the transaction's): see docs/decisions.md on idempotency keys.
    await sql`ALTER TABLE ${sql.table(legacy)} ADD COLUMN day date NOT NULL DEFAULT ((now() AT TIME ZONE 'UTC')::date)`.execute(db);
  }
  await sql`CREATE TABLE ${sql.table(t.table)} (LIKE ${sql.table(legacy)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMPRESSION) PARTITION BY RANGE (${sql.ref(t.column)})`.execute(db);
  await sql.raw(`ALTER TABLE ${t.table} ADD CONSTRAINT ${t.table}_pkey PRIMARY KEY (${PRIMARY_KEYS[t.table]})`).execute(db);
  // The expiry index served the DELETE sweep that dropping partitions replaces.
  for (const i of defs.indexes) if (i.name !== 'idempotency_keys_expiry') await sql.raw(onTable(i.def, t.table)).execute(db);
  for (const f of defs.fks) if (!f.inbound && !remade.has(`${t.table}.${f.name}`)) await sql.raw(`ALTER TABLE ${t.table} ADD CONSTRAINT ${f.name} ${f.def}`).execute(db);
  await sql`CREATE TABLE ${sql.table(`${t.table}_default`)} PARTITION OF ${sql.table(t.table)} DEFAULT`.execute(db);
  const col = sql.ref(t.column);
  await sql`WITH m AS (DELETE FROM ${sql.table(legacy)} WHERE ${col} >= ${hi} RETURNING *) INSERT INTO ${sql.table(t.table)} SELECT * FROM m`.execute(db);
  await sql`ALTER TABLE ${sql.table(legacy)} ADD CONSTRAINT legacy_bound CHECK (${col} < ${sql.lit(hi)})`.execute(db);
  await sql`ALTER TABLE ${sql.table(t.table)} ATTACH PARTITION ${sql.table(legacy)} FOR VALUES FROM (MINVALUE) TO (${sql.lit(hi)})`.execute(db);
  await sql`ALTER TABLE ${sql.table(legacy)} DROP CONSTRAINT legacy_bound`.execute(db);
}

// A key's rows may sit in different week partitions, and a partitioned table's unique index holds
// only within one: writers of a key serialize on an advisory lock of the key, then look across the
// partitions with a fresh snapshot (each statement of a volatile function takes one). The unique
// index of a week still refuses two rows of one key written by one transaction (one statement's
// batch). At most one row per key: a claim taking over an expired key deletes the old row.
const IDEMPOTENCY_FUNCTIONS = `
CREATE FUNCTION idempotency_lock(p_user uuid, p_live boolean, p_key text) RETURNS void LANGUAGE sql VOLATILE AS $$
  SELECT pg_advisory_xact_lock(hashtextextended(p_user::text || p_live::text || p_key, 40));
$$;

CREATE FUNCTION idempotency_free(p_user uuid, p_live boolean, p_key text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM idempotency_lock(p_user, p_live, p_key);
  IF EXISTS (SELECT 1 FROM idempotency_keys WHERE user_id = p_user AND livemode = p_live AND key = p_key) THEN
    RAISE unique_violation USING MESSAGE = 'the Idempotency-Key is taken', CONSTRAINT = 'idempotency_keys_pkey';
  END IF;
  RETURN true;
END $$;

CREATE FUNCTION idempotency_claim(p_user uuid, p_live boolean, p_key text, p_fingerprint text, p_at timestamptz, p_expires timestamptz, p_lease_start timestamptz)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE held record;
BEGIN
  PERFORM idempotency_lock(p_user, p_live, p_key);
  SELECT created_at, expires_at, response_status INTO held FROM idempotency_keys WHERE user_id = p_user AND livemode = p_live AND key = p_key;
  IF FOUND THEN
    IF NOT (held.expires_at < p_at OR (held.response_status IS NULL AND held.created_at < p_lease_start)) THEN
      RETURN false;
    END IF;
    DELETE FROM idempotency_keys WHERE user_id = p_user AND livemode = p_live AND key = p_key;
  END IF;
  INSERT INTO idempotency_keys (user_id, livemode, key, fingerprint, created_at, expires_at) VALUES (p_user, p_live, p_key, p_fingerprint, p_at, p_expires);
  RETURN true;
END $$;
`;

/** Back to plain tables, copying the rows (the indexes and keys as they were before `up`). */
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP FUNCTION idempotency_claim;\nDROP FUNCTION idempotency_free;\nDROP FUNCTION idempotency_lock;');
  const defs = new Map<string, Awaited<ReturnType<typeof definitionsOf>>>();
  for (const t of PARTITIONED) defs.set(t.table, await definitionsOf(db, t.table));
  const inbound = [...defs.values()].flatMap((d) => d.fks.filter((f) => f.inbound));
  for (const f of inbound) await sql`ALTER TABLE ${sql.table(f.owner)} DROP CONSTRAINT ${sql.ref(f.name)}`.execute(db);
  const remade = new Set(inbound.map((f) => `${f.owner}.${f.name}`));
  for (const t of PARTITIONED) {
    const d = defs.get(t.table)!;
    const plain = `${t.table}_plain`;
    await sql`CREATE TABLE ${sql.table(plain)} (LIKE ${sql.table(t.table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMPRESSION)`.execute(db);
    await sql`INSERT INTO ${sql.table(plain)} SELECT * FROM ${sql.table(t.table)}`.execute(db);
    await sql`DROP TABLE ${sql.table(t.table)}`.execute(db);
    await sql`ALTER TABLE ${sql.table(plain)} RENAME TO ${sql.table(t.table)}`.execute(db);
    const pk = t.table === 'idempotency_keys' ? 'user_id, livemode, key' : 'id';
    await sql.raw(`ALTER TABLE ${t.table} ADD CONSTRAINT ${t.table}_pkey PRIMARY KEY (${pk})`).execute(db);
    if (t.table === 'idempotency_keys') await runSql(db, 'ALTER TABLE idempotency_keys DROP COLUMN day;\nCREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);');
    for (const i of d.indexes) await sql.raw(onTable(i.def, t.table)).execute(db);
    for (const f of d.fks) if (!f.inbound && !remade.has(`${t.table}.${f.name}`)) await sql.raw(`ALTER TABLE ${t.table} ADD CONSTRAINT ${f.name} ${f.def}`).execute(db);
  }
  for (const f of inbound) await sql.raw(`ALTER TABLE ${f.owner} ADD CONSTRAINT ${f.name} ${f.def}`).execute(db);
}
