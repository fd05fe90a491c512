import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { ClientListResponse, ClientResponse, CreateClientBody, ListClientsQuery, UpdateClientBody } from './schemas.ts';
import { clientView, createClient, deleteClient, getClient, listClients, updateClient } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of clientRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface ClientRouteDeps {
  db: Db;
  reads: ReadRouter;
}

export default async function clientRoutes(app: HttpApp, deps: ClientRouteDeps) {
  const { db, reads } = deps;
  const tags = ['Clients'];

  app.post(
    '/api/clients',
    {
      config: { auth: { key: 'customers:write' } },
      schema: { tags, operationId: 'createClient', summary: 'Create a client', body: CreateClientBody, response: { 201: ClientResponse, ...errors(400, 401, 403) } },
    },
    async (req, reply) => reply.code(201).send({ message: 'Client created', client: clientView(await createClient(db, req.auth, req.body)) }),
  );

  app.get(
    '/api/clients',
    {
      config: { auth: { key: 'customers:read' } },
      schema: { tags, operationId: 'listClients', summary: 'List clients (page style; search by name, e-mail or document)', querystring: ListClientsQuery, response: { 200: ClientListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listClients(await reads.for(req.auth), req.auth, req.query);
      return { message: 'OK', clients: rows.map(clientView), pagination };
    },
  );

  app.get(
    '/api/clients/:id',
    {
      config: { auth: { key: 'customers:read' } },
      schema: { tags, operationId: 'getClient', summary: 'Get a client', params: IdParams, response: { 200: ClientResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', client: clientView(await getClient(db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/api/clients/:id',
    {
      config: { auth: { key: 'customers:write' } },
      schema: { tags, operationId: 'updateClient', summary: 'Update a client', params: IdParams, body: UpdateClientBody, response: { 200: ClientResponse, ...errors(400, 401, 403, 404) } },
    },
    async (req) => ({ message: 'Client updated', client: clientView(await updateClient(db, req.auth, req.params.id, req.body)) }),
  );

  app.delete(
    '/api/clients/:id',
    {
      config: { auth: { key: 'customers:write' } },
      schema: { tags, operationId: 'deleteClient', summary: 'Delete a client (its transactions are kept)', params: IdParams, response: { 200: Message, ...errors(401, 403, 404) } },
    },
    async (req) => {
      await deleteClient(db, req.auth, req.params.id);
      return { message: 'Client deleted' };
    },
  );
}
