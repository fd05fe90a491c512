import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Authenticator } from '../../http/auth.ts';
import { Environment, errors, IdParams, Message } from '../../http/schemas.ts';
import { CredentialView, PermissionSchema } from './schemas.ts';
import { actorOf } from '../audit/service.ts';
import { createCredential, credentialView, listCredentials, revokeCredential } from './service.ts';

/** The options of credentialRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface CredentialRouteDeps {
  db: Db;
  auth: Authenticator;
}

export default async function credentialRoutes(app: HttpApp, deps: CredentialRouteDeps) {
  const { db, auth } = deps;

  app.post(
    '/api/credentials',
    {
      // The key is shown once: its response is never stored for Idempotency-Key replays.
      // A production key moves real money: it needs the second factor.
      config: { auth: { token: true }, idempotency: 'off', secondFactor: (req) => (req.body as { environment?: string }).environment === 'PRODUCTION' },
      schema: {
        tags: ['Credentials'],
        operationId: 'createCredential',
        summary: 'Create an API key (its value is returned only in this response)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100 }),
            environment: Environment,
            permissions: Type.Optional(Type.Array(PermissionSchema, { minItems: 1, uniqueItems: true, description: 'Omitted: all permissions' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ message: Type.String(), credential: CredentialView, key: Type.String() }), ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const { credential, key } = await createCredential(db, req.auth.userId, req.body, actorOf(req));
      return reply.code(201).send({ message: 'API key created; store it now, it will not be shown again', credential: credentialView(credential), key });
    },
  );

  app.get(
    '/api/credentials',
    {
      // The key is shown once: its response is never stored for Idempotency-Key replays.
      config: { auth: { token: true }, idempotency: 'off' },
      schema: { tags: ['Credentials'], operationId: 'listCredentials', summary: 'List API keys (without their values)', response: { 200: Type.Object({ message: Type.String(), credentials: Type.Array(CredentialView) }), ...errors(401) } },
    },
    async (req) => ({ message: 'OK', credentials: (await listCredentials(db, req.auth.userId)).map(credentialView) }),
  );

  app.delete(
    '/api/credentials/:id',
    {
      config: { auth: { token: true } },
      schema: { tags: ['Credentials'], operationId: 'revokeCredential', summary: 'Revoke an API key (stops working at once)', params: IdParams, response: { 200: Message, ...errors(401, 404) } },
    },
    async (req) => {
      await revokeCredential(db, auth, req.auth.userId, req.params.id, actorOf(req));
      return { message: 'API key revoked' };
    },
  );
}
