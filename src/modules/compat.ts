// What the origin gateway's clients call and how they spell it, route by route (the mechanisms are
// in http/compat.ts; docs/compatibility.md is this table for people). Keys are the routes as their
// modules declare them; a key that matches no route stops the app at start.
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/index.ts';
import { canonicalMethod, takeAlias, type Alias, type CompatTable } from '../http/compat.ts';
import { validation } from '../http/errors.ts';
import { inferPixKeyType, pixKeyTypeSpelling } from '../payments/pix-keys.ts';
import { listSpellings, transactionSpellings } from './sales/api.ts';

type Body = Record<string, unknown> | undefined;
const bodyOf = (req: FastifyRequest): Body => {
  const b = req.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : undefined;
};

/** Payment links: `amount` (the name the link carries in responses) for amountCents. */
const linkSpellings = (req: FastifyRequest) => takeAlias(bodyOf(req), 'amount', 'amountCents');

/** Checkout: CREDIT_CARD = CARD. */
const checkoutSpellings = (req: FastifyRequest) => {
  const b = bodyOf(req);
  if (b?.paymentMethod !== undefined) b.paymentMethod = canonicalMethod(b.paymentMethod);
};

/** Withdrawals: the key type inferred from the key when omitted, and spelled as the origin does (CPF, EVP, ...). */
const withdrawalSpellings = (req: FastifyRequest) => {
  const b = bodyOf(req);
  if (!b) return;
  if (typeof b.pixKeyType === 'string') b.pixKeyType = pixKeyTypeSpelling(b.pixKeyType);
  else if (b.pixKeyType === undefined && typeof b.pixKey === 'string') {
    const type = inferPixKeyType(b.pixKey);
    if (!type) throw validation('pixKeyType', 'is required: the type of this pixKey cannot be told from it (cpf, cnpj, email, phone +55..., random UUID)');
    b.pixKeyType = type;
  }
};

/** Webhook subscriptions: `isActive` true/false for status ACTIVE/DISABLED. */
const subscriptionSpellings = (req: FastifyRequest) =>
  takeAlias(bodyOf(req), 'isActive', 'status', (v) => {
    if (typeof v !== 'boolean') throw validation('isActive', 'must be boolean');
    return v ? 'ACTIVE' : 'DISABLED';
  });

/** The /api/v1 twin of an unversioned route; its operationId is the route's with V1 appended. */
const v1 = (url: string) => [{ url: url.replace(/^\/api\//, '/api/v1/'), operationIdSuffix: 'V1' }];

/** Every checkouts route also under /api/..., and each PUT also as PATCH (both paths). */
function checkoutAliases(): CompatTable {
  const routes = [
    'GET /api/v1/checkouts',
    'POST /api/v1/checkouts',
    'GET /api/v1/checkouts/:id',
    'PUT /api/v1/checkouts/:id',
    'DELETE /api/v1/checkouts/:id',
    'GET /api/v1/checkouts/:id/order-bumps',
    'POST /api/v1/checkouts/:id/order-bumps',
    'PUT /api/v1/checkouts/:id/order-bumps/:bumpId',
    'DELETE /api/v1/checkouts/:id/order-bumps/:bumpId',
    'GET /api/v1/checkouts/:id/upsell',
    'POST /api/v1/checkouts/:id/upsell',
    'DELETE /api/v1/checkouts/:id/upsell',
    'POST /api/v1/checkouts/:id/upsell/downsell',
    'DELETE /api/v1/checkouts/:id/upsell/downsell',
  ];
  const table: CompatTable = {};
  for (const route of routes) {
    const [method, url] = route.split(' ');
    const plain = url.replace(/^\/api\/v1\//, '/api/');
    const aliases: Alias[] = [{ url: plain, operationIdSuffix: 'Unversioned' }];
    if (method === 'PUT') aliases.push({ method: 'PATCH', url, operationIdSuffix: 'Patch' }, { method: 'PATCH', url: plain, operationIdSuffix: 'PatchUnversioned' });
    table[route] = { aliases };
  }
  return table;
}

/** The table; `db` for the spellings that read (a transaction's clientId becomes the client's fields). */
export const originCompat = (db: Db): CompatTable => ({
  // Clients and withdrawals are unversioned in the spec; origin clients call them under /api/v1.
  'POST /api/clients': { aliases: v1('/api/clients') },
  'GET /api/clients': { aliases: v1('/api/clients') },
  'GET /api/clients/:id': { aliases: v1('/api/clients/:id') },
  'PATCH /api/clients/:id': { aliases: v1('/api/clients/:id') },
  'DELETE /api/clients/:id': { aliases: v1('/api/clients/:id') },
  'GET /api/clients/:id/export': { aliases: v1('/api/clients/:id/export') },
  'POST /api/clients/:id/erase': { aliases: v1('/api/clients/:id/erase') },
  'GET /api/withdraws': { aliases: v1('/api/withdraws') },
  'POST /api/withdraws': { aliases: v1('/api/withdraws'), spellings: withdrawalSpellings },
  'GET /api/withdraws/balance': { aliases: v1('/api/withdraws/balance') },
  'GET /api/withdraws/:id': { aliases: v1('/api/withdraws/:id') },
  'POST /api/withdraws/:id/cancel': { aliases: v1('/api/withdraws/:id/cancel') },
  'POST /api/coupons/validate': { aliases: v1('/api/coupons/validate') },
  // The origin's wallet endpoints: the balance and the ledger entries.
  'GET /api/v1/balance': { aliases: [{ url: '/api/v1/wallet/summary', operationId: 'getWalletSummary' }] },
  'GET /api/v1/balance/entries': { aliases: [{ url: '/api/v1/wallet/statement', operationId: 'listWalletStatement' }] },
  'GET /api/v1/fees': { aliases: [{ url: '/api/user/fees', operationId: 'getUserFees' }] },
  'POST /api/v1/webhooks/subscriptions': { spellings: subscriptionSpellings },
  // PUT as the origin's clients send it: a partial update, exactly like PATCH.
  'PATCH /api/v1/webhooks/subscriptions/:id': { aliases: [{ method: 'PUT', url: '/api/v1/webhooks/subscriptions/:id', operationId: 'putWebhookSubscription' }], spellings: subscriptionSpellings },
  'POST /api/v1/transactions': { spellings: (req) => transactionSpellings(db, req) },
  'GET /api/v1/transactions': { spellings: listSpellings },
  'GET /api/v1/transactions/export': { spellings: listSpellings },
  'POST /api/v1/payment-links': { spellings: linkSpellings },
  'PATCH /api/v1/payment-links/:id': { spellings: linkSpellings },
  'POST /api/payment-links/public/slug/:slug/checkout': { spellings: checkoutSpellings },
  // Checkouts: the origin's clients call them under /api/v1 and /api, and send PATCH as well as PUT.
  ...checkoutAliases(),
});
