import { Type } from '@sinclair/typebox';
import type { App } from '../../deps.ts';
import { ping } from '../../db/index.ts';

export default async function healthRoutes(app: App) {
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
        await ping(app.deps.db);
        return { status: 'ready' as const, database: app.deps.database.kind };
      } catch {
        return reply.code(503).send({ message: 'Database unreachable' });
      }
    },
  );
}
