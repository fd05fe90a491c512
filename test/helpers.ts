// Boots the real app on the embedded database (default) or real PostgreSQL (TEST_DATABASE_URL),
// each test file in its own in-memory PGlite or its own PostgreSQL schema.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PGliteDialect } from 'kysely';
import { Writable } from 'node:stream';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { buildDeps, type App, type DepsOptions } from '../src/deps.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { connect, migrate, type Database } from '../src/db/index.ts';
import { MemoryLimiter, createLimiter, type RateLimiter } from '../src/http/ratelimit.ts';
import type { Permission } from '../src/http/auth.ts';
import { generateCpf } from '../src/payments/documents.ts';
import { createUser } from '../src/modules/auth/service.ts';
import { base32Decode, totp } from '../src/modules/auth/totp.ts';
import { specBody } from './envelope.ts';

export const PG_URL = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || null;
export const onPostgres = !!PG_URL;
export const REDIS_URL = process.env.TEST_REDIS_URL || process.env.REDIS_URL || null;

export interface TestContext {
  app: App;
  database: Database;
  config: Config;
  limiter: RateLimiter;
  logs: string[];
  schema: string | null;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  perUserPerMinute?: number;
  /** Dependencies to replace (providers, extra transaction hooks). */
  deps?: Partial<Pick<DepsOptions, 'connectors' | 'extraHooks'>>;
  /** Use Redis for limits when REDIS_URL is set (default: memory, so files do not share counters). */
  redis?: boolean;
}

/**
 * A test file's database holds a few megabytes: 16 MB of shared buffers instead of PostgreSQL's 128
 * leaves each file's PGlite about 0.3 s of CPU and 100 MB of memory less to set up.
 */
const PGLITE_SETTINGS = { shared_buffers: '16MB' };

/** The template's bytes as a Blob that hands PGlite (which reads it whole) the file read, not a copy made chunk by chunk. */
class BytesBlob extends Blob {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    super([]);
    this.#bytes = bytes;
  }
  override get size(): number {
    return this.#bytes.byteLength;
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes.buffer.slice(this.#bytes.byteOffset, this.#bytes.byteOffset + this.#bytes.byteLength) as ArrayBuffer);
  }
}

export async function openDatabase(): Promise<{ database: Database; schema: string | null }> {
  const schema = PG_URL ? `t_${randomBytes(6).toString('hex')}` : null;
  const loadDataDir = PG_URL ? undefined : await pgliteTemplate();
  const database = await connect({ url: PG_URL, dataDir: null, schema: schema ?? undefined, poolSize: 30, pglite: { loadDataDir, settings: PGLITE_SETTINGS } });
  await migrate(database.db, schema ?? undefined); // a no-op on the template, unless it is stale
  return { database, schema };
}

/** A name for what the migrations make on this PGlite: the hash of their files and of PGlite's version. */
export function migrationsKey(): string {
  const dir = fileURLToPath(new URL('../src/db/migrations/', import.meta.url));
  const hash = createHash('sha256').update(readFileSync(new URL('../node_modules/@electric-sql/pglite/package.json', import.meta.url)));
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)));
  return hash.digest('hex').slice(0, 16);
}

/**
 * An embedded database with every migration applied, dumped once per set of migrations into the
 * system's temporary directory and loaded by each test file: a fresh PGlite spends seconds in
 * initdb, loading the dump a fraction of that. The file's name is the hash of the migrations and of
 * PGlite's version, so a changed migration builds a new one (test/migrate.test.ts still migrates
 * from nothing). Test files racing to build it each write their own and rename it into place.
 */
async function pgliteTemplate(): Promise<Blob> {
  const file = join(tmpdir(), `cofre-pglite-template-${migrationsKey()}.tar`);
  if (existsSync(file)) return new BytesBlob(readFileSync(file));
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create();
  const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
  await migrate(db);
  const dump = await pglite.dumpDataDir('none');
  await db.destroy();
  const part = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(part, Buffer.from(await dump.arrayBuffer()));
  renameSync(part, file);
  return dump;
}

export async function dropSchema(schema: string | null) {
  if (!schema || !PG_URL) return;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

/** The configuration every test app starts from, with `env` on top. */
export function appConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    LOG_LEVEL: 'info',
    BASE_URL: 'http://localhost:3000',
    // Every test request comes from one address: the public checkout's limits are out of the way
    // unless a test sets them (test/checkout-limits.test.ts).
    CHECKOUT_PER_IP_PER_MINUTE: '1000000',
    CARD_ATTEMPTS_PER_IP_PER_HOUR: '1000000',
    CARD_DECLINES_PER_HOUR: '1000000',
    // Likewise the per-IP account limits (test/sessions.test.ts sets them).
    REGISTRATIONS_PER_IP_PER_HOUR: '1000000',
    LOGIN_ATTEMPTS_PER_IP_PER_HOUR: '1000000',
    ...env,
  });
}

/**
 * The real app (the composition root, then the HTTP surface) over a database: what startApp builds,
 * and what a test needs for a second instance sharing one database.
 */
export async function appOver(config: Config, database: Database, opts: Omit<DepsOptions, 'perUserPerMinute'> & { perUserPerMinute?: number }): Promise<App> {
  const app = await buildApp(buildDeps(config, database, { perUserPerMinute: 1_000_000, ...opts }));
  await app.ready();
  return app;
}

/** A second instance over the test's database (another process, as far as pools, sweeps and providers go), logging nothing. */
export function secondInstance(ctx: TestContext): Promise<App> {
  return appOver(ctx.config, ctx.database, { limiter: new MemoryLimiter(), logStream: new Writable({ write: (_c, _e, cb) => cb() }) });
}

export async function startApp(opts: StartOptions = {}): Promise<TestContext> {
  const config = appConfig(opts.env);
  const { database, schema } = await openDatabase();
  const limiter = opts.redis && REDIS_URL ? createLimiter(REDIS_URL, `cofre:test:${randomBytes(4).toString('hex')}:`) : new MemoryLimiter();
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = await appOver(config, database, { limiter, logStream, ...(opts.perUserPerMinute ? { perUserPerMinute: opts.perUserPerMinute } : {}), ...opts.deps });
  return {
    app,
    database,
    config,
    limiter,
    logs,
    schema,
    async close() {
      await app.close();
      await limiter.close();
      await database.close();
      await dropSchema(schema);
    },
  };
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
}

/** Sends a request through the real HTTP pipeline (inject: no socket). */
export async function call<T = any>(
  app: App,
  method: string,
  url: string,
  opts: { body?: unknown; headers?: Record<string, string>; key?: string; token?: string; raw?: string } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['api-key'] = opts.key;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.inject({ method: method as any, url, headers, payload });
  let body: any = res.body;
  try {
    body = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    /* not JSON: keep text */
  }
  // The spec's body: the origin-compatible envelope is checked and taken off (see envelope.ts).
  return { status: res.statusCode, body: specBody(url, res.statusCode, body) as T, headers: res.headers as any, raw: res.body };
}

let counter = 0;
export function uniqueEmail(prefix = 'merchant') {
  return `${prefix}.${Date.now()}.${++counter}.${randomBytes(3).toString('hex')}@example.com`;
}

export interface Merchant {
  id: string;
  email: string;
  password: string;
  token: string;
  devKey: string;
  liveKey?: string;
}

/** Registers a merchant and creates a development key with every permission. */
export async function merchant(app: App, opts: { permissions?: Permission[]; live?: boolean } = {}): Promise<Merchant> {
  const email = uniqueEmail();
  const password = 'correct horse battery';
  const reg = await call(app, 'POST', '/api/auth/register', { body: { name: 'Loja Teste', email, password } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.raw}`);
  const token = reg.body.token;
  const dev = await call(app, 'POST', '/api/credentials', { token, body: { name: 'dev', environment: 'DEVELOPMENT', permissions: opts.permissions } });
  if (dev.status !== 201) throw new Error(`credential failed: ${dev.status} ${dev.raw}`);
  const m: Merchant = { id: reg.body.user.id, email, password, token, devKey: dev.body.key };
  if (opts.live) {
    await approveKyc(app, m.id); // production keys need approved KYC
    const live = await call(app, 'POST', '/api/credentials', { token, body: { name: 'live', environment: 'PRODUCTION' }, headers: { 'x-second-factor': await emailedCode(app, token, m.id) } });
    if (live.status !== 201) throw new Error(`live credential failed: ${live.status} ${live.raw}`);
    m.liveKey = live.body.key;
  }
  return m;
}

/**
 * Marks the merchant's KYC APPROVED straight in the database (what an operator's review would
 * leave), for tests whose subject is not KYC itself. test/kyc.test.ts covers the real flow.
 */
export async function approveKyc(app: App, userId: string): Promise<void> {
  const now = new Date();
  const already = await app.deps.db.selectFrom('kyc_submissions').select('id').where('user_id', '=', userId).where('status', '=', 'APPROVED').executeTakeFirst();
  if (already) return;
  await app.deps.db
    .insertInto('kyc_submissions')
    .values({
      id: randomUUID(),
      user_id: userId,
      status: 'APPROVED',
      person_type: 'PF',
      legal_name: 'Loja Teste',
      document: cpf(),
      birth_date: '1990-01-01',
      address: JSON.stringify({ street: 'Rua A', number: '1', district: 'Centro', city: 'São Paulo', state: 'SP', zipCode: '01001000' }),
      review_reason: 'approved by test helper',
      reviewed_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/**
 * An operator (role ADMIN, as `cli admin create` makes one) and its dashboard token, with two-factor
 * authentication on (operators cannot act without it): `secret` makes its codes.
 */
export async function operator(app: App, name = 'Operator'): Promise<{ id: string; token: string; email: string; password: string; secret: string }> {
  const email = uniqueEmail('operator');
  const password = 'operator password';
  const user = await createUser(app.deps.db, { name, email, password, role: 'ADMIN' });
  const res = await call(app, 'POST', '/api/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`operator login failed: ${res.status} ${res.raw}`);
  const { secret } = await enrolMfa(app, res.body.token);
  return { id: user.id, token: res.body.token, email, password, secret };
}

/** The current TOTP code of a base32 secret (at `ms`, default now). */
export const totpCode = (secret: string, ms = Date.now()) => totp(base32Decode(secret), ms);

/**
 * Turns two-factor authentication on for the token's account through the API: its secret and
 * recovery codes. The confirming code is the previous step's (accepted within the ±1 step window),
 * so the current step stays free for the test's own first code.
 */
export async function enrolMfa(app: App, token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const start = await call(app, 'POST', '/api/auth/mfa/enrol', { token });
  if (start.status !== 201) throw new Error(`enrol failed: ${start.status} ${start.raw}`);
  // Near the end of a step the previous step's code may be two steps old when the server checks it
  // (a loaded machine): start from a fresh step.
  const intoStep = Date.now() % 30_000;
  if (intoStep > 25_000) await new Promise((r) => setTimeout(r, 30_000 - intoStep + 50));
  const confirm = await call(app, 'POST', '/api/auth/mfa/confirm', { token, body: { code: totpCode(start.body.secret, Date.now() - 30_000) } });
  if (confirm.status !== 200) throw new Error(`confirm failed: ${confirm.status} ${confirm.raw}`);
  return { secret: start.body.secret, recoveryCodes: confirm.body.recoveryCodes };
}

/** Asks for an e-mailed second-factor code (an account without TOTP) and reads it from the outbox. */
export async function emailedCode(app: App, token: string, userId: string): Promise<string> {
  const sent = await call(app, 'POST', '/api/auth/second-factor', { token });
  if (sent.status !== 202) throw new Error(`second factor failed: ${sent.status} ${sent.raw}`);
  return lastEmailedCode(app, userId);
}

/** The code of the last second-factor e-mail to `userId`, as its owner reads it in the mailbox. */
export async function lastEmailedCode(app: App, userId: string): Promise<string> {
  const mail = await app.deps.db.selectFrom('emails').select('text_body').where('user_id', '=', userId).where('template', '=', 'second_factor_code').orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
  return /\b(\d{6})\b/.exec(mail.text_body)![1];
}

/** A valid CPF from a seeded generator (deterministic per call order). */
let seed = 1;
export function cpf(): string {
  return generateCpf(() => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  });
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...env });
}

/**
 * A loopback TCP port free at the moment of asking (a server to be started on it right after), drawn
 * below the kernel's ephemeral range: one from that range may become an outgoing connection's local
 * port (this suite opens thousands) before the server listens on it, which then fails EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let i = 0; below > 11_000 && i < 50; i++) {
    const port = 10_000 + Math.floor(Math.random() * (below - 10_000));
    if (await listensOn(port)) return port;
  }
  return listensOn(0) as Promise<number>;
}

/** Listens on `port` (0: any) and closes: the port it got, or false when taken. */
export function listensOn(port: number): Promise<number | false> {
  return new Promise((resolve) => {
    const s = createNetServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as AddressInfo).port;
      s.close(() => resolve(got));
    });
  });
}

/** The lowest port the kernel hands to outgoing connections (Linux; 32768 elsewhere, the common default). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}
