// Reading the audit log: a merchant's own entries (GET /api/v1/audit-log) and everyone's for
// operators (GET /api/admin/audit-log), newest first by keyset, or as a pt-BR CSV file.
import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import type { Executor } from '../../db/index.ts';
import type { AuditLogRow } from '../../db/types.ts';
import { CSV_BOM, csvDate, csvLine } from '../../http/csv.ts';
import { keysetPage, type ListCursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import type { AdminAuditQuery, AuditEntryView } from './schemas.ts';

type Query = Static<typeof AdminAuditQuery>;
type Filters = Omit<Query, 'limit' | 'cursor' | 'format'>;
/** Whose entries: one merchant in one environment (its account-level entries too), or everyone's (operators). */
export type Audience = { merchant: Scope } | { operator: true };

export function auditView(r: AuditLogRow): Static<typeof AuditEntryView> {
  return {
    id: r.id,
    occurredAt: r.occurred_at,
    userId: r.user_id,
    livemode: r.livemode,
    actor: { type: r.actor_type, id: r.actor_id, ip: r.ip, userAgent: r.user_agent },
    action: r.action,
    objectType: r.object_type,
    objectId: r.object_id,
    before: r.before,
    after: r.after,
  };
}

function query(db: Executor, who: Audience, f: Filters) {
  let q = db.selectFrom('audit_log').selectAll();
  if ('merchant' in who) {
    const { userId, livemode } = who.merchant;
    // Account-level entries (no environment) belong to both of the merchant's environments.
    q = q.where('user_id', '=', userId).where((eb) => eb.or([eb('livemode', '=', livemode), eb('livemode', 'is', null)]));
  } else if (f.userId) q = q.where('user_id', '=', f.userId);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.objectType) q = q.where('object_type', '=', f.objectType);
  if (f.objectId) q = q.where('object_id', '=', f.objectId);
  if (f.actorType) q = q.where('actor_type', '=', f.actorType);
  if (f.from) q = q.where('occurred_at', '>=', new Date(f.from));
  if (f.to) q = q.where('occurred_at', '<=', new Date(f.to));
  return q;
}

/** One page of entries, newest first unless `orderDirection` is asc. */
export function listAudit(db: Executor, cursors: ListCursors, who: Audience, q: Omit<Query, 'format'>) {
  const { limit, cursor, orderDirection, ...filters } = q;
  return keysetPage(cursors, query(db, who, filters), {
    by: 'occurredAt',
    column: 'occurred_at',
    direction: orderDirection ?? 'desc',
    limit,
    cursor,
    value: (r) => r.occurred_at,
    timestamp: true,
  });
}

const ACTOR_PT: Record<AuditLogRow['actor_type'], string> = { USER: 'Usuário', API_KEY: 'Chave de API', OPERATOR: 'Operador', SYSTEM: 'Sistema' };
const environmentPt = (livemode: boolean | null) => (livemode === null ? 'Conta' : livemode ? 'Produção' : 'Desenvolvimento');
const json = (v: unknown) => (v === null ? '' : JSON.stringify(v));

const COLUMNS: Array<[string, (r: AuditLogRow) => string]> = [
  ['ID', (r) => r.id],
  ['Data', (r) => csvDate(r.occurred_at)],
  ['Conta', (r) => r.user_id ?? ''],
  ['Ambiente', (r) => environmentPt(r.livemode)],
  ['Quem', (r) => ACTOR_PT[r.actor_type]],
  ['ID de quem', (r) => r.actor_id ?? ''],
  ['IP', (r) => r.ip ?? ''],
  ['Navegador', (r) => r.user_agent ?? ''],
  ['Ação', (r) => r.action],
  ['Objeto', (r) => r.object_type],
  ['ID do objeto', (r) => r.object_id ?? ''],
  ['Antes', (r) => json(r.before)],
  ['Depois', (r) => json(r.after)],
];

export const EXPORT_PAGE = 1000;

/** Every matching entry as CSV, read a page at a time as the client takes it. */
export function auditCsv(db: Executor, cursors: ListCursors, who: Audience, q: Query): Readable {
  const { format: _format, limit: _limit, cursor: _cursor, ...rest } = q;
  async function* chunks() {
    yield `${CSV_BOM}${csvLine(COLUMNS.map(([name]) => name))}`;
    let cursor: string | undefined;
    do {
      const { rows, pagination } = await listAudit(db, cursors, who, { ...rest, limit: EXPORT_PAGE, cursor });
      if (rows.length) yield rows.map((r) => csvLine(COLUMNS.map(([, value]) => value(r)))).join('');
      cursor = pagination.nextCursor ?? undefined;
    } while (cursor);
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
}
