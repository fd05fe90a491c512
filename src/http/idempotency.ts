// Idempotency-Key on every POST made with an API key: the first response (status and body) is
// stored for 24 h per merchant, environment and key, and replayed for a retry with the same body.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CompiledQuery } from 'kysely';
import { prepared, type Db } from '../db/index.ts';
import { badRequest, conflict, validation } from './errors.ts';

const TTL_MS = 24 * 3600_000;

// Fixed statements, built once (no query building on every request; the benchmark's SQL floor
// sends them too), and named prepared statements on PostgreSQL (see prepared()). The claim takes a free key, or one whose 24 h are over ($5 is now).
export const CLAIM = prepared('idem_claim', `INSERT INTO idempotency_keys (user_id, livemode, key, fingerprint, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (user_id, livemode, key) DO UPDATE
  SET fingerprint = excluded.fingerprint, response_status = NULL, response_body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at < $5
  RETURNING key`);
export const STORED = prepared('idem_stored', 'SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE user_id = $1 AND livemode = $2 AND key = $3');
export const RESPOND = prepared('idem_respond', 'UPDATE idempotency_keys SET response_status = $4, response_body = $5 WHERE user_id = $1 AND livemode = $2 AND key = $3');
export const FREE = prepared('idem_free', 'DELETE FROM idempotency_keys WHERE user_id = $1 AND livemode = $2 AND key = $3');

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { key: string } | null;
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
  return createHash('sha256').update(`${req.method} ${req.url}\n${canonical(req.body ?? null)}`).digest('hex');
}

export function installIdempotency(app: FastifyInstance, db: Db) {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST' || req.auth?.via !== 'key') return;
    const header = req.headers['idempotency-key'];
    if (header === undefined) return;
    const key = String(header);
    if (!key.length || key.length > 255) throw validation('Idempotency-Key', 'must be 1 to 255 characters');
    const { userId, livemode } = req.auth;
    const print = fingerprint(req);
    const now = new Date();
    const { rows: claimed } = await db.executeQuery(CompiledQuery.raw(CLAIM, [userId, livemode, key, print, now, new Date(now.getTime() + TTL_MS)]));
    if (claimed.length) {
      req.idempotency = { key };
      return;
    }
    const {
      rows: [stored],
    } = await db.executeQuery<{ fingerprint: string; response_status: number | null; response_body: string | null }>(CompiledQuery.raw(STORED, [userId, livemode, key]));
    if (!stored) throw conflict('A request with this Idempotency-Key is in progress; retry shortly');
    if (stored.fingerprint !== print) {
      throw badRequest('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request', [
        { field: 'Idempotency-Key', message: 'was used with another body or path' },
      ]);
    }
    if (stored.response_status === null) throw conflict('A request with this Idempotency-Key is in progress; retry shortly');
    return reply
      .code(stored.response_status)
      .header('Idempotent-Replayed', 'true')
      .type('application/json; charset=utf-8')
      .serializer((x: unknown) => x as string)
      .send(stored.response_body);
  });

  // Registered before compression, so the payload here is still the JSON text.
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.idempotency || reply.getHeader('Idempotent-Replayed')) return payload;
    const { userId, livemode } = req.auth;
    const { key } = req.idempotency;
    // A 5xx means nothing was done: the key is freed so the client can retry with it.
    const query = reply.statusCode >= 500 ? CompiledQuery.raw(FREE, [userId, livemode, key]) : CompiledQuery.raw(RESPOND, [userId, livemode, key, reply.statusCode, String(payload)]);
    await db.executeQuery(query);
    return payload;
  });
}
