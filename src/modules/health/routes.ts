import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Database, Db } from '../../db/index.ts';
import { ping } from '../../db/index.ts';

/** What a process tells the outside while it stops (src/shutdown.ts): GET /ready answers 503 once `draining`. */
export interface Lifecycle {
  draining: boolean;
}

/** The options of healthRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface HealthRouteDeps {
  db: Db;
  database: Database;
  lifecycle: Lifecycle;
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
        summary: 'Readiness: the database answers and the process is not stopping',
        response: { 200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }), 503: Type.Object({ message: Type.String() }) },
      },
    },
    async (_req, reply) => {
      if (deps.lifecycle.draining) return reply.code(503).header('connection', 'close').send({ message: 'Shutting down' });
      try {
        await ping(deps.db);
        return { status: 'ready' as const, database: deps.database.kind };
      } catch {
        return reply.code(503).send({ message: 'Database unreachable' });
      }
    },
  );
}
