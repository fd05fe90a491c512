// Idempotency-Key on every authenticated POST: the first response (status and body) is
// stored for 24 h per merchant, environment and key, and replayed for a retry with the same body.
//
// Ways to hold a key:
// - claimed: the preHandler claims the key (a row without a response) before the handler runs, a
//   retry meanwhile gets 409, and onSend stores the response (or frees the key after a 5xx);
// - held: a claimed request whose work has begun something that must not be done twice (a card
//   transaction recorded before its charge) stores a provisional response with holdKey(); from then
//   on a 5xx never frees the key, and onSend stores the final response over the provisional one
//   (a card charged with its creation's inline key stores it with the outcome: storeAnswer);
// - answered within the work: a request whose work commits in one transaction (a refund, a
//   withdrawal, a sandbox confirmation, a subscription) stores its answer in that transaction
//   (answerWithin), so a retry after a crash replays it rather than taking the key over;
// - inline (route config `idempotency: { inline }`, for a request whose work is ONE statement):
//   nothing is written before the handler; the statement doing the work also inserts the key with
//   its response (transactions/creation.ts), so the work and its stored response commit together.
//   A retry racing it waits for it (in this process: until its batch is written; in another: on
//   the key's unique index) and then gets the replay. If the key is already stored, nothing of the
//   request is written (KeyTaken) and it falls back to a claim, which replays, refuses, or claims an
//   expired key the usual way (runIdempotent). So does a request refused before its
//   statement (a 4xx): its key may be stored already (a retry of a request that succeeded before
//   the link it names sold out must still get the first response), else the claim takes it and the
//   refusal is stored as a claimed request's would be.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CompiledQuery } from 'kysely';
import { deferred } from '../db/deferred.ts';
import { prepared, type Db, type Executor, type Trx } from '../db/index.ts';
import { AppError, badRequest, conflict, validation } from './errors.ts';

const TTL_MS = 24 * 3600_000;
/**
 * How long a claim without a response holds its key. A request answers in well under this (a card
 * charge holds its key with a provisional response before it calls the provider, see `held`), so a
 * claim this old belongs to a process that died mid-request: a retry takes the key over instead of
 * being told 409 for the rest of the day.
 */
export const CLAIM_LEASE_MS = 60_000;

// Fixed statements, built once (no query building on every request), and named prepared
// statements on PostgreSQL (see prepared()). The claim (idempotency_claim, migration 048) takes a
// free key, one whose 24 h are over ($5 is now), or one claimed without a response before $7 (its
// lease ran out), under the key's lock: the table is partitioned by week, and a unique index holds
// only within a week (docs/decisions.md, "History partitioned by week").
const CLAIM = prepared('idem_claim', 'SELECT idempotency_claim($1, $2, $3, $4, $5, $6, $7) AS claimed');
const STORED = prepared('idem_stored', 'SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE user_id = $1 AND livemode = $2 AND key = $3');
const HELD = prepared('idem_held', 'SELECT 1 FROM idempotency_keys WHERE user_id = $1 AND livemode = $2 AND key = $3 AND expires_at >= $4');
const RESPOND = prepared('idem_respond', 'UPDATE idempotency_keys SET response_status = $4, response_body = $5 WHERE user_id = $1 AND livemode = $2 AND key = $3');
// A batch's answers (storeAnswer): each row found by its primary key, as RESPOND finds one.
const RESPOND_ALL = prepared(
  'idem_respond_all',
  `UPDATE idempotency_keys k SET response_status = r.status, response_body = r.body
   FROM json_to_recordset($1::json) AS r (user_id uuid, livemode boolean, key text, status integer, body text)
   WHERE k.user_id = r.user_id AND k.livemode = r.livemode AND k.key = r.key`,
);
// Only a key without a stored answer: one stored by the work's own transaction (answerWithin) or held stays.
const FREE = prepared('idem_free', 'DELETE FROM idempotency_keys WHERE user_id = $1 AND livemode = $2 AND key = $3 AND response_status IS NULL');

/** The key a request holds: `inline` until its statement stores it, `claimed` once claimed, `held` with a provisional response, `settled` when nothing is left to store. */
export interface RequestKey {
  userId: string;
  livemode: boolean;
  key: string;
  fingerprint: string;
  createdAt: Date;
  state: 'inline' | 'claimed' | 'held' | 'settled';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `{ inline }`: the handler stores the response in its own statement when `inline(body)` is true
     * (see above). `'off'`: the header is ignored, for routes whose response carries a secret shown
     * once (an API key, a signing secret): it is never stored, so never replayed.
     */
    idempotency?: { inline: (body: any) => boolean } | 'off';
  }
  interface FastifyRequest {
    idempotency: RequestKey | null;
    /**
     * What the Idempotency-Key fingerprint is taken of when it is not the body as validated: set
     * where the body was filled in from stored data (a `clientId` resolved to the client's fields),
     * so that a retry still matches after that data changed.
     */
    fingerprintBody?: unknown;
  }
}

/** JSON with sorted keys, so the same body in another key order has the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function fingerprint(req: FastifyRequest): string {
  return createHash('sha256').update(`${req.method} ${req.url}\n${canonical(req.fingerprintBody ?? req.body ?? null)}`).digest('hex');
}

/** When a key taken now stops holding its response (24 h). */
export const keyExpiry = (k: RequestKey) => new Date(k.createdAt.getTime() + TTL_MS);

/**
 * An inline key found taken by the statement that was to store it (already stored, or taken by
 * another request of the same batch): nothing of that request was written; it falls back to a claim.
 */
export class KeyTaken extends Error {
  constructor() {
    super('the Idempotency-Key is taken');
  }
}

/** The work failed because its key is taken: nothing of it was written. */
const keyTaken = (err: unknown) => {
  if (err instanceof KeyTaken) return true;
  const e = err as { code?: string; constraint?: string };
  // The primary key of a week's partition (idempotency_keys_p<monday>_pkey) or idempotency_free's refusal.
  return e.code === '23505' && /^idempotency_keys_\w*pkey$/.test(e.constraint ?? '');
};

/** Sends a JSON text as it is (a stored response, or one rendered before its statement ran). */
export function sendJsonText(reply: FastifyReply, status: number, text: string) {
  return reply.code(status).type('application/json; charset=utf-8').serializer((x: unknown) => x as string).send(text);
}

export function installIdempotency(app: FastifyInstance, db: Db) {
  app.decorateRequest('idempotency', null);

  // Callback-style hooks (here and below): an async hook costs every request a promise and a turn of
  // the microtask queue even when it has nothing to do, and an async onSend hook leaves the reply
  // unsent when the handler returns it, so Fastify waits for the response's end through stream
  // listeners (Reply.then): see docs/decisions.md, "Garbage collection and V8 flags".
  app.addHook('preHandler', (req, reply, done) => {
    // Any authenticated POST: an API key's or a dashboard token's (a withdrawal from the dashboard
    // moves money as surely as one from the API). The token's environment is its X-Environment.
    const mode = req.routeOptions.config.idempotency;
    if (req.method !== 'POST' || !req.auth || mode === 'off') return done();
    const header = req.headers['idempotency-key'];
    if (header === undefined) return done();
    const key = String(header);
    if (!key.length || key.length > 255) return done(validation('Idempotency-Key', 'must be 1 to 255 characters'));
    const { userId, livemode } = req.auth;
    req.idempotency = { userId, livemode, key, fingerprint: fingerprint(req), createdAt: new Date(), state: 'inline' };
    if (mode?.inline(req.body)) return done();
    // Claimed: on to the handler. Else the stored response is being sent: done() is not called, so
    // Fastify goes no further (it may still be writing, e.g. compressed, when this settles).
    claimKey(db, req, reply).then((claimed) => claimed && done(), done);
  });

  // Registered before compression, so the payload here is still the JSON text.
  app.addHook('onSend', (req, reply, payload, done) => {
    const k = req.idempotency;
    if (k?.state !== 'claimed' && k?.state !== 'held') return done(null, payload);
    const { userId, livemode, key } = k;
    // A 5xx of a claimed request whose work stored no answer means nothing was done: the key is
    // freed so the client can retry with it. A key holding an answer keeps it: something was done.
    const query = reply.statusCode < 500 ? CompiledQuery.raw(RESPOND, [userId, livemode, key, reply.statusCode, String(payload)]) : CompiledQuery.raw(FREE, [userId, livemode, key]);
    db.executeQuery(query).then(() => done(null, payload), done);
  });
}

/**
 * Claims the request's key before its work. True: claimed, go on. False: the stored response was
 * replayed (the reply is sent). Throws 409 while another request holds the key, 400
 * IDEMPOTENCY_KEY_REUSED for a key used with another body or path.
 */
async function claimKey(db: Db, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const k = req.idempotency!;
  const { userId, livemode, key } = k;
  const leaseStart = new Date(k.createdAt.getTime() - CLAIM_LEASE_MS);
  const {
    rows: [{ claimed }],
  } = await db.executeQuery<{ claimed: boolean }>(CompiledQuery.raw(CLAIM, [userId, livemode, key, k.fingerprint, k.createdAt, keyExpiry(k), leaseStart]));
  if (claimed) {
    k.state = 'claimed';
    return true;
  }
  k.state = 'settled';
  const {
    rows: [stored],
  } = await db.executeQuery<{ fingerprint: string; response_status: number | null; response_body: string | null }>(CompiledQuery.raw(STORED, [userId, livemode, key]));
  if (!stored) throw conflict('A request with this Idempotency-Key is in progress; retry shortly');
  if (stored.fingerprint !== k.fingerprint) {
    throw badRequest('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request', [
      { field: 'Idempotency-Key', message: 'was used with another body or path' },
    ]);
  }
  if (stored.response_status === null) throw conflict('A request with this Idempotency-Key is in progress; retry shortly');
  sendJsonText(reply.header('Idempotent-Replayed', 'true'), stored.response_status, stored.response_body ?? '');
  return false;
}

/**
 * Stores a provisional response under the request's claimed key (see `held` above): a retry from now
 * on replays it, and a failure of the request no longer frees the key. No-op without a claimed key.
 */
export async function holdKey(db: Db, req: FastifyRequest, status: number, text: string): Promise<void> {
  const k = req.idempotency;
  if (k?.state !== 'claimed') return;
  await db.executeQuery(CompiledQuery.raw(RESPOND, [k.userId, k.livemode, k.key, status, text]));
  k.state = 'held';
}

/** An answer stored with its work: the key's row, the status and the response text. */
interface StoredAnswer {
  user_id: string;
  livemode: boolean;
  key: string;
  status: number;
  body: string;
}

/**
 * Stores `text` as the answer of `k` in the work's transaction `trx`. In a batch of status changes
 * (db/deferred.ts) it is written at the batch's end, with the other changes' answers, by one statement.
 */
export async function storeAnswer(trx: Executor, k: Pick<RequestKey, 'userId' | 'livemode' | 'key'>, status: number, text: string): Promise<void> {
  const later = deferred<StoredAnswer>(trx, 'idempotency_answers', 2, writeAnswers);
  if (later) later.push({ user_id: k.userId, livemode: k.livemode, key: k.key, status, body: text });
  else await trx.executeQuery(CompiledQuery.raw(RESPOND, [k.userId, k.livemode, k.key, status, text]));
}

async function writeAnswers(trx: Trx, answers: StoredAnswer[]): Promise<void> {
  await trx.executeQuery(CompiledQuery.raw(RESPOND_ALL, [JSON.stringify(answers)]));
}

/** Stores a request's answer rendered from its work's result, in the work's transaction (answerWithin). */
export type Answer<T> = (trx: Executor, result: T) => Promise<void>;

/**
 * For a request holding a claimed key: a function that stores the answer rendered from the work's
 * result inside the work's own transaction, so the work and its stored answer commit together. A
 * process that dies after that commit leaves the answer for the retry to replay; it never takes the
 * key over to do the work again. onSend stores the final answer over it. Undefined without a claimed key.
 */
export function answerWithin<T>(req: FastifyRequest, reply: FastifyReply, status: number, render: (result: T, trx: Executor) => unknown): Answer<T> | undefined {
  const k = req.idempotency;
  if (k?.state !== 'claimed' && k?.state !== 'held') return undefined;
  return async (trx, result) => {
    const text = reply.code(status).serialize(await render(result, trx)) as string;
    await storeAnswer(trx, k, status, text);
    k.state = 'held';
  };
}

/** Whether the scope holds `key` unexpired (answered or in flight): a request under it is not run again. */
export async function keyStored(db: Db, scope: { userId: string; livemode: boolean }, key: string): Promise<boolean> {
  const { rows } = await db.executeQuery(CompiledQuery.raw(HELD, [scope.userId, scope.livemode, key, new Date()]));
  return rows.length > 0;
}

/**
 * The handler of a route with inline keys: `inline(key)` does the work with the key stored by its
 * own statement and returns the response text (`status`); `claimed()` does it as a claimed request
 * (no key, a card charge, or after the fallback described at the top) and sends its reply.
 */
export async function runIdempotent(
  db: Db,
  req: FastifyRequest,
  reply: FastifyReply,
  work: { status: number; inline: (key: RequestKey) => Promise<string>; claimed: () => Promise<FastifyReply> },
): Promise<FastifyReply> {
  const key = req.idempotency?.state === 'inline' ? req.idempotency : null;
  if (!key) return work.claimed();
  try {
    const text = await work.inline(key);
    // A held key (a card charged after its creation) still takes the final answer (onSend).
    if (key.state === 'inline') key.state = 'settled';
    return sendJsonText(reply, work.status, text);
  } catch (err) {
    // A 5xx did nothing and stores nothing: the key stays free.
    if (!keyTaken(err) && !(err instanceof AppError && err.status < 500)) throw err;
  }
  if (!(await claimKey(db, req, reply))) return reply;
  return work.claimed();
}
