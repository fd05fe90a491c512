import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Urls } from '../transactions/view.ts';
import { clientView } from '../clients/service.ts';
import { eraseClient } from './erasure.ts';
import { exportClient } from './export.ts';
import { ClientErasedResponse, ClientExportResponse } from './schemas.ts';

/** The options of privacyRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface PrivacyRouteDeps {
  db: Db;
  config: Urls;
}

/** A client's data rights (LGPD): export and erasure. docs/security.md lists what each covers. */
export default async function privacyRoutes(app: HttpApp, deps: PrivacyRouteDeps) {
  const { db, config } = deps;
  const tags = ['Clients'];

  app.get(
    '/api/clients/:id/export',
    {
      config: { auth: { key: 'customers:read', token: true } },
      schema: {
        tags,
        operationId: 'exportClient',
        summary: 'Export everything stored about a client (LGPD)',
        description: 'The client, its transactions, subscriptions, saved cards (brand, last 4, expiry, holder; never the token), hosted checkout orders, e-mails sent to it and the webhook deliveries that named it. Archived clients too. 404 for another merchant\'s or environment\'s client.',
        params: IdParams,
        response: { 200: ClientExportResponse, ...errors(401, 403, 404) },
      },
    },
    async (req) => ({ message: 'OK', export: await exportClient(db, req.auth, req.params.id, config) }),
  );

  app.post(
    '/api/clients/:id/erase',
    {
      config: { auth: { key: 'customers:write', token: true } },
      schema: {
        tags,
        operationId: 'eraseClient',
        summary: "Erase a client's personal data (LGPD)",
        description:
          "Anonymises the client's name, e-mail, document, phone and address everywhere Cofre stored them (the client, its transactions, subscriptions, saved cards, checkout orders, coupon uses, events, webhook deliveries, stored API answers and e-mails), in one commit; amounts, dates, ids and the ledger stay. The client then shows erasedAt and cannot be charged (400 CLIENT_ERASED). Idempotent: erasing again answers the same. 409 while one of its subscriptions is still billing (cancel it first). 404 for another merchant's or environment's client.",
        params: IdParams,
        response: { 200: ClientErasedResponse, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => ({ message: 'Client data erased', client: clientView(await eraseClient(db, req.auth, req.params.id)) }),
  );
}
