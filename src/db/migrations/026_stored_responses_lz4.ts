import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Stored responses compress with LZ4 where the server has it (issue 17). A PIX creation's stored
// response is about 2.2 KB of JSON, over the 2 KB at which PostgreSQL compresses a row, and its
// default compressor (pglz) was 5-6% of PostgreSQL's CPU per creation in the benchmark's profile.
// LZ4 costs a fraction of that for about the same size on this text. Only the newly written values
// change (ALTER ... SET COMPRESSION rewrites nothing); both read the same. PGlite is built without
// LZ4, so the embedded database keeps pglz.
const HAS_LZ4 = `EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`;

export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, `DO $$ BEGIN IF ${HAS_LZ4} THEN ALTER TABLE idempotency_keys ALTER COLUMN response_body SET COMPRESSION lz4; END IF; END $$;`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `ALTER TABLE idempotency_keys ALTER COLUMN response_body SET COMPRESSION default;`);
}
