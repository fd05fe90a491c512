// Idempotency-Key on every POST made with an API key: the first response (status and body) is
// stored for 24 h per merchant, environment and key, and replayed for a retry with the same body.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/index.ts';
import { badRequest, conflict, validation } from './errors.ts';

const TTL_MS = 24 * 3600_000;

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
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({ user_id: userId, livemode, key, fingerprint: print, created_at: now, expires_at: new Date(now.getTime() + TTL_MS) })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'livemode', 'key'])
          .doUpdateSet((eb) => ({
            fingerprint: eb.ref('excluded.fingerprint'),
            response_status: null,
            response_body: null,
            created_at: eb.ref('excluded.created_at'),
            expires_at: eb.ref('excluded.expires_at'),
          }))
          .where('idempotency_keys.expires_at', '<', now),
      )
      .returning('key')
      .executeTakeFirst();
    if (claimed) {
      req.idempotency = { key };
      return;
    }
    const stored = await db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'response_status', 'response_body'])
      .where('user_id', '=', userId)
      .where('livemode', '=', livemode)
      .where('key', '=', key)
      .executeTakeFirst();
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
    const own = <T extends { where: (...a: any[]) => T }>(q: T) =>
      q.where('user_id', '=', userId).where('livemode', '=', livemode).where('key', '=', req.idempotency!.key);
    if (reply.statusCode >= 500) {
      // Nothing was done: free the key so the client can retry with it.
      await own(db.deleteFrom('idempotency_keys')).execute();
    } else {
      await own(db.updateTable('idempotency_keys').set({ response_status: reply.statusCode, response_body: String(payload) })).execute();
    }
    return payload;
  });
}
