// LISTEN connections and poolers: where a process listens (DATABASE_LISTEN_URL when DATABASE_URL
// goes through PgBouncer in transaction mode) and the start-up check that its notifications arrive.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { ConfigError } from '../config.ts';
import type { DB } from './types.ts';

/**
 * Whether `client` reaches PostgreSQL through a connection pooler. A pooler (PgBouncer, in any pool
 * mode) answers the client's start-up itself, with a cancel key of its own making, so the process
 * id the client was given is not that of the backend running its statements; a plain TCP proxy
 * (HAProxy, a container's port mapping) passes PostgreSQL's own through.
 */
export async function pooledConnection(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return (client as unknown as { processID: number | null }).processID !== rows[0].pid;
}

/** How long a LISTEN connection waits at start for its own test notification (listenPostgres). */
const LISTEN_PROBE_MS = 5000;

/**
 * LISTEN on its own connection to `url` (DATABASE_LISTEN_URL, else DATABASE_URL). Before it is
 * trusted, a notification is sent through the pool and must arrive on it: through a pooler in
 * transaction mode (PgBouncer) LISTEN is accepted but its notifications go to whichever client
 * holds that server connection next, or nowhere; that refuses the start (a ConfigError).
 */
export async function listenPostgres(url: string, options: string | undefined, db: Kysely<DB>, channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url, options });
  await client.connect();
  client.on('error', () => {});
  const probe = `cofre_listen_probe_${randomBytes(6).toString('hex')}`;
  try {
    const heard = new Promise<void>((resolve) => client.on('notification', (m) => m.channel === probe && resolve()));
    await client.query(`LISTEN ${probe}`);
    await sql`SELECT pg_notify(${probe}, '')`.execute(db);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, LISTEN_PROBE_MS, false)));
    const arrived = await Promise.race([heard.then(() => true), late]);
    clearTimeout(timer);
    if (!arrived) throw new ConfigError(`LISTEN at ${address(url)} did not receive a notification sent through DATABASE_URL within ${LISTEN_PROBE_MS} ms: a pooler in transaction mode (PgBouncer) cannot carry LISTEN. Set DATABASE_LISTEN_URL to PostgreSQL itself (docs/operations.md).`);
    await client.query(`UNLISTEN ${probe}`);
    client.on('notification', (m) => m.channel === channel && onNotify(m.payload ?? ''));
    await client.query(`LISTEN ${channel}`);
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
  return async () => {
    await client.end().catch(() => {});
  };
}

/** `database` with its LISTEN connections opened at `url` (DATABASE_LISTEN_URL) rather than the pool's address. */
export function listeningAt<T extends { kind: string; db: Kysely<DB>; listen: (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>> }>(database: T, url: string, schema?: string): T {
  if (database.kind !== 'postgres') return database;
  const options = schema ? `-c search_path=${schema}` : undefined;
  return { ...database, listen: (channel: string, onNotify: (payload: string) => void) => listenPostgres(url, options, database.db, channel, onNotify) };
}

/** host:port/database of a postgres:// URL, never its password. */
export function address(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || 5432}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return 'the DATABASE_URL address'; // an unparsable URL keeps the generic wording
  }
}

