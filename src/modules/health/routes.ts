import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Database, Db } from '../../db/index.ts';
import { ping } from '../../db/index.ts';

/** The options of healthRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface HealthRouteDeps {
  db: Db;
  database: Database;
}

export default async function healthRoutes(app: HttpApp, deps: HealthRouteDeps) {
  app.get(
    '/health',
    { schema: { tags: ['Health'], operationId: 'getHealth', summary: 'Liveness: the process answers', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      schema: {
        tags: ['Health'],
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers',
        response: { 200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }), 503: Type.Object({ message: Type.String() }) },
      },
    },
    async (_req, reply) => {
      try {
        await ping(deps.db);
        return { status: 'ready' as const, database: deps.database.kind };
      } catch {
        return reply.code(503).send({ message: 'Database unreachable' });
      }
    },
  );
}
