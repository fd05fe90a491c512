// The audit log: who changed what, from where, the object before and after. An entry is written
// with recordAudit inside the database transaction of the change it records, so a change that rolls
// back leaves none and one that commits always has one. The table itself refuses UPDATE and DELETE
// (migrations/036_audit_log.ts); only the retention sweep (retention.ts) deletes, old rows only.
import type { FastifyRequest } from 'fastify';
import type { Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import { maskDocument } from '../../payments/documents.ts';

export const ACTOR_TYPES = ['USER', 'API_KEY', 'OPERATOR', 'SYSTEM'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** Who acts, and from where: a merchant's dashboard session, one of its API keys, an operator, or Cofre itself. */
export interface Actor {
  type: ActorType;
  /** The user id (USER, OPERATOR) or API key id (API_KEY); null for SYSTEM. */
  id: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** The platform acting on its own (a sweep, development's automatic approval). */
export const SYSTEM_ACTOR: Actor = { type: 'SYSTEM', id: null, ip: null, userAgent: null };

const MAX_USER_AGENT = 512;

/**
 * The actor of an authenticated request: its API key, else the dashboard user (an OPERATOR on
 * /api/admin routes). `signedIn` names the user of a route that has no credentials yet (login).
 */
export function actorOf(req: FastifyRequest, signedIn?: string): Actor {
  const ua = req.headers['user-agent'];
  const origin = { ip: req.ip || null, userAgent: typeof ua === 'string' && ua ? ua.slice(0, MAX_USER_AGENT) : null };
  const auth = req.auth;
  if (!auth) return { type: 'USER', id: signedIn ?? null, ...origin };
  if (auth.via === 'key') return { type: 'API_KEY', id: auth.keyId, ...origin };
  return { type: req.routeOptions.config.auth?.admin ? 'OPERATOR' : 'USER', id: auth.userId, ...origin };
}

/** The actor of an /api/admin route: an operator, whose id is the user's (its decisions name it). */
export function operatorOf(req: FastifyRequest): Actor & { id: string } {
  return { ...actorOf(req), type: 'OPERATOR', id: req.auth.userId };
}

export interface AuditEntry {
  /** The merchant whose object it is; null for a platform-wide operator action. */
  userId: string | null;
  /** The object's environment; null for account-level objects (credentials, KYC, fees, password). */
  livemode: boolean | null;
  /** `<object>.<verb>`, e.g. withdrawal.created. */
  action: string;
  objectType: string;
  objectId: string | null;
  before?: object | null;
  after?: object | null;
}

/** Writes one entry in `trx`, the transaction of the change it records. */
export async function recordAudit(trx: Trx, actor: Actor, entry: AuditEntry): Promise<void> {
  const now = new Date();
  const json = (v: object | null | undefined) => (v ? JSON.stringify(scrub(v)) : null);
  await trx
    .insertInto('audit_log')
    .values({
      id: uuidv7(now.getTime()),
      occurred_at: now,
      user_id: entry.userId,
      livemode: entry.livemode,
      actor_type: actor.type,
      actor_id: actor.id,
      ip: actor.ip,
      user_agent: actor.userAgent,
      action: entry.action,
      object_type: entry.objectType,
      object_id: entry.objectId,
      before: json(entry.before),
      after: json(entry.after),
    })
    .execute();
}

/** Fields never written to the log, whatever object they come in: secrets, keys, hashes, card data. */
const SECRET_FIELD = /secret|password|hash|token|^key$|apikey|^card$|cardnumber|cvv|^cvc$|^pan$|^content(base64)?$/i;
/** Fields holding a CPF or CNPJ: written masked. */
const DOCUMENT_FIELD = /document$|^cpf$|^cnpj$/i;

/**
 * A copy of `value` fit for the log: secret fields dropped, documents masked (a Pix key that is a
 * CPF or CNPJ too), dates as ISO text. The views handed in are already the API's (no secrets); this
 * is the second net that keeps one added later from reaching the log.
 */
export function scrub(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(scrub);
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const docKey = typeof obj.pixKeyType === 'string' && /^(cpf|cnpj)$/i.test(obj.pixKeyType);
  for (const [k, v] of Object.entries(obj)) {
    if (SECRET_FIELD.test(k) || v === undefined) continue;
    if (typeof v === 'string' && (DOCUMENT_FIELD.test(k) || (docKey && k === 'pixKey'))) out[k] = maskDocument(v);
    else out[k] = scrub(v);
  }
  return out;
}
