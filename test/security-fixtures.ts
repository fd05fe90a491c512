// The small explicit part of the security matrix (test/security-matrix.test.ts): how to make one
// object of each kind a route's path names, which permission each area of the API needs, and the
// routes that are public or undocumented on purpose (with the reason). Everything else is derived
// from the app's route table. A route the tables do not cover fails the matrix, saying what to add.
import assert from 'node:assert/strict';
import type { Permission } from '../src/http/auth.ts';
import { call, cpf, merchant, type Merchant, type TestContext } from './helpers.ts';
import { accountBody } from './accounts-kit.ts';
import { kycBody, liveFunds, paidCard, paidPix } from './wallet-helpers.ts';

export type Env = 'development' | 'production';

/** Keys of the tables below are paths without the /v1 (one entry serves /api/x and /api/v1/x). */
export const canonical = (path: string) => path.replace(/^\/api\/v1\//, '/api/');

export interface FixtureDeps {
  ctx: TestContext;
  /** A merchant other than the owner, with development and production keys (affiliates join with it). */
  third: Merchant;
}

export interface ObjectFixture {
  /** Makes one object owned by `owner` in `env`; returns the route's path parameters (and extras for bodies). */
  create(d: FixtureDeps, owner: Merchant, env: Env): Promise<Record<string, string>>;
  /** Account-level (no environment): why. The environment checks are left out. */
  accountLevel?: string;
  /** Each object needs a merchant of its own: why. */
  freshOwner?: string;
}

const keyOf = (m: Merchant, env: Env) => (env === 'production' ? m.liveKey! : m.devKey);
let seq = 0;
const n = () => `${Date.now().toString(36)}${++seq}`;

/** POSTs as `owner` in `env` and returns the JSON body (201 or 200 expected). */
async function post(d: FixtureDeps, owner: Merchant, env: Env, url: string, body: unknown): Promise<any> {
  const res = await call(d.ctx.app, 'POST', url, { key: keyOf(owner, env), body });
  assert.ok(res.status === 201 || res.status === 200, `fixture POST ${url} (${env}): ${res.status} ${res.raw}`);
  return res.body;
}

const product = async (d: FixtureDeps, o: Merchant, env: Env) => (await post(d, o, env, '/api/v1/products', { name: `Produto ${n()}`, price: 4990 })).product.id as string;
const transaction = async (d: FixtureDeps, o: Merchant, env: Env) =>
  (await post(d, o, env, '/api/v1/transactions', { product: 'Curso', amountCents: 5000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' })).transaction
    .id as string;
const plan = async (d: FixtureDeps, o: Merchant, env: Env) =>
  (await post(d, o, env, '/api/subscriptions/plans', { name: `Plano ${n()}`, amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['PIX'] })).plan.id as string;
const webhook = async (d: FixtureDeps, o: Merchant, env: Env) =>
  (await post(d, o, env, '/api/v1/webhooks/subscriptions', { url: 'https://127.0.0.1:9/hook', events: ['transaction.created'] })).subscription.id as string;
async function program(d: FixtureDeps, o: Merchant, env: Env) {
  return (await post(d, o, env, '/api/affiliate/programs', { productId: await product(d, o, env), commissionType: 'PERCENTAGE', commissionValue: 1000, approval: 'MANUAL' })).data.id as string;
}

/** Production money is a settled card payment (no simulate in production); development money a paid PIX. */
const funded = new Set<string>();
async function fund(d: FixtureDeps, o: Merchant, env: Env) {
  if (funded.has(`${o.id} ${env}`)) return;
  if (env === 'production') await liveFunds(d.ctx, { key: o.liveKey! }, 5_000_000);
  else await paidPix(d.ctx.app, { key: o.devKey }, 5_000_000);
  funded.add(`${o.id} ${env}`);
}

/** A checkout with a bump, an upsell and a downsell; `productId` for the bodies that name one. */
async function checkoutWithOffers(d: FixtureDeps, o: Merchant, env: Env) {
  const productId = await product(d, o, env);
  const id = (await post(d, o, env, '/api/v1/checkouts', { name: `Checkout ${n()}` })).checkout.id;
  const bumpId = (await post(d, o, env, `/api/v1/checkouts/${id}/order-bumps`, { productId })).orderBump.id;
  await post(d, o, env, `/api/v1/checkouts/${id}/upsell`, { productId });
  await post(d, o, env, `/api/v1/checkouts/${id}/upsell/downsell`, { productId });
  return { id, bumpId, productId };
}

/** How to make the object of each path with a parameter (keys: canonical paths, up to the last parameter). */
export const OBJECTS: Record<string, ObjectFixture> = {
  '/api/products/{id}': { create: async (d, o, env) => ({ id: await product(d, o, env) }) },
  '/api/clients/{id}': {
    create: async (d, o, env) => ({ id: (await post(d, o, env, '/api/clients', { name: 'Pedro', email: 'pedro@example.com', document: cpf() })).client.id }),
  },
  '/api/cards/{id}': {
    async create(d, o, env) {
      const clientId = (await post(d, o, env, '/api/clients', { name: 'Pedro', email: 'pedro@example.com', document: cpf() })).client.id;
      const card = { number: '4242424242424242', holderName: 'PEDRO', expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvv: '123' };
      return { id: (await post(d, o, env, '/api/v1/cards', { clientId, card })).card.id };
    },
  },
  '/api/transactions/{id}': { create: async (d, o, env) => ({ id: await transaction(d, o, env) }) },
  '/api/coupons/{id}': {
    create: async (d, o, env) => ({ id: (await post(d, o, env, '/api/v1/coupons', { code: `CUPOM${n()}`.toUpperCase(), discountType: 'PERCENTAGE', discountValue: 10 })).coupon.id }),
  },
  '/api/payment-links/{id}': {
    create: async (d, o, env) => ({ id: (await post(d, o, env, '/api/v1/payment-links', { title: `Link ${n()}`, amountCents: 5000 })).paymentLink.id }),
  },
  '/api/payment-links/slug/{slug}': {
    create: async (d, o, env) => ({ slug: (await post(d, o, env, '/api/v1/payment-links', { title: `Link ${n()}`, amountCents: 5000 })).paymentLink.slug }),
  },
  '/api/subscriptions/plans/{id}': { create: async (d, o, env) => ({ id: await plan(d, o, env) }) },
  '/api/checkouts/{id}': { create: checkoutWithOffers },
  '/api/checkouts/{id}/order-bumps/{bumpId}': { create: checkoutWithOffers },
  '/api/subscriptions/{id}': {
    async create(d, o, env) {
      const planId = await plan(d, o, env);
      const body = { planId, paymentMethod: 'PIX', client: { name: 'Ana Souza', email: `ana.${n()}@example.com`, document: cpf() } };
      return { id: (await post(d, o, env, '/api/v1/subscriptions', body)).subscription.id, planId };
    },
  },
  '/api/webhooks/subscriptions/{id}': { create: async (d, o, env) => ({ id: await webhook(d, o, env) }) },
  '/api/webhooks/deliveries/{id}': {
    async create(d, o, env) {
      const subscription = await webhook(d, o, env);
      await transaction(d, o, env); // transaction.created: one delivery to the subscription
      const res = await call(d.ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${subscription}/deliveries`, { key: keyOf(o, env) });
      assert.equal(res.status, 200, res.raw);
      assert.ok(res.body.deliveries.length > 0, `a delivery was queued: ${res.raw}`);
      return { id: res.body.deliveries[0].id };
    },
  },
  '/api/withdraws/{id}': {
    async create(d, o, env) {
      await fund(d, o, env);
      return { id: (await post(d, o, env, '/api/withdraws', { amountCents: 1000, pixKeyType: 'email', pixKey: 'loja@example.com' })).data.id };
    },
  },
  '/api/advances/{id}': {
    freshOwner: 'a merchant has one advance PENDING or APPROVED at a time (production advances wait for an operator)',
    async create(d, o, env) {
      await paidCard(d.ctx.app, { key: keyOf(o, env) }, 120_000, 3);
      return { id: (await post(d, o, env, '/api/advances', { reason: 'Capital de giro' })).advance.id };
    },
  },
  '/api/affiliate/programs/{id}': { create: async (d, o, env) => ({ id: await program(d, o, env) }) },
  '/api/affiliate/programs/{id}/links/{linkId}': {
    async create(d, o, env) {
      const id = await program(d, o, env);
      return { id, linkId: (await post(d, d.third, env, `/api/affiliate/join/${id}`, undefined)).data.id };
    },
  },
  '/api/affiliate/join/{programId}': { create: async (d, o, env) => ({ programId: await program(d, o, env) }) },
  '/api/auth/sessions/{id}': {
    accountLevel: 'dashboard sessions belong to the account',
    async create(d, o) {
      const res = await call(d.ctx.app, 'POST', '/api/auth/login', { body: { email: o.email, password: o.password } });
      assert.equal(res.status, 200, res.raw);
      return { id: JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString()).jti };
    },
  },
  '/api/accounts/{id}': {
    accountLevel: "a sub-account is a merchant account, the same in both environments (its balance and sales are read in the request's)",
    create: async (d, o) => ({ id: (await post(d, o, 'development', '/api/v1/accounts', accountBody())).account.id }),
  },
  '/api/split-partners/{id}': {
    accountLevel: 'a partnership is between two accounts, in both environments',
    // The owner is the invited partner (it alone may accept or decline; either side reads and ends it).
    async create(d, o) {
      const inviter = await merchant(d.ctx.app);
      const walletId = (await d.ctx.database.db.selectFrom('users').select('wallet_id').where('id', '=', o.id).executeTakeFirstOrThrow()).wallet_id;
      return { id: (await post(d, inviter, 'development', '/api/v1/split-partners', { walletId })).data.id };
    },
  },
  '/api/credentials/{id}': {
    accountLevel: 'API keys belong to the account; each key has its environment',
    async create(d, o) {
      const res = await call(d.ctx.app, 'POST', '/api/credentials', { token: o.token, body: { name: `k${n()}`, environment: 'DEVELOPMENT' } });
      assert.equal(res.status, 201, res.raw);
      return { id: res.body.credential.id };
    },
  },
};

/**
 * Routes whose path names an object of another merchant on purpose: the id is not a 404 for them
 * (the environment still is).
 */
export const SHARED: Record<string, string> = {
  'POST /api/affiliate/join/{programId}': "the marketplace: an affiliate joins another merchant's program by its id",
};

/** The resource whose `:read` (GET) or `:write` (other methods) permission each area needs (canonical path prefixes). */
export const RESOURCE_OF: Record<string, string> = {
  '/api/products': 'products',
  '/api/clients': 'customers',
  '/api/cards': 'customers', // saved cards belong to clients
  '/api/transactions': 'transactions',
  '/api/reports': 'transactions', // figures of the merchant's transactions
  '/api/wallet': 'transactions', // the balance the transactions made
  '/api/balance': 'transactions',
  '/api/fees': 'transactions', // the fees charged on transactions
  '/api/user/fees': 'transactions',
  '/api/webhooks': 'webhooks',
  '/api/withdraws': 'withdrawals',
  '/api/advances': 'withdrawals', // DESIGN.md: advances use withdrawals:*
  '/api/emails': 'customers', // e-mails sent to the merchant's clients
  '/api/subscriptions': 'subscriptions',
  '/api/payment-links': 'paymentLinks',
  '/api/cart-abandonments': 'paymentLinks',
  '/api/coupons': 'coupons',
  '/api/affiliate': 'affiliates',
  '/api/audit-log': 'auditLog',
  '/api/checkouts': 'checkouts',
  '/api/splits': 'transactions', // shares of the merchant's sales, sent and received
  '/api/accounts': 'accounts', // the platform's sub-accounts, their sales and KYC included
  '/api/split-partners': 'accounts',
};

/** Routes whose permission is not the method's: the permission and why. */
export const PERMISSION_EXCEPTIONS: Record<string, [Permission, string]> = {
  'POST /api/coupons/validate': ['coupons:read', 'a question about a coupon (POST for its body): it changes nothing'],
  'GET /api/webhooks/postback-secret': ['webhooks:write', 'whoever holds the secret can sign postbacks (docs/webhooks.md)'],
};

/**
 * Routes of the sandbox: production credentials are refused with 403 whatever the id (before any
 * lookup, so no id is revealed), instead of the 404 of another environment's object.
 */
export const SANDBOX_ONLY: Record<string, string> = {
  'POST /api/transactions/{id}/simulate': 'DESIGN.md: simulate is never available to production keys',
  'POST /api/subscriptions/{id}/simulate': 'the sandbox clock of development subscriptions',
};

/** Routes without credentials on purpose (canonical path prefixes), with the reason. */
export const PUBLIC: Record<string, string> = {
  '/health': 'liveness probe',
  '/ready': 'readiness probe',
  '/api/auth/register': 'creates the account the credentials will belong to',
  '/api/auth/login': 'obtains the dashboard token',
  '/api/auth/login/mfa': 'the second step of a login with two-factor authentication (the challenge is the credential)',
  '/api/auth/password/forgot': 'a merchant who forgot the password has no credential (always 202 alike, rate limited)',
  '/api/auth/password/reset': 'the e-mailed single-use token is the credential',
  '/api/subscriptions/public/': 'public plan page (spec: P)',
  '/api/subscriptions/checkout': 'a customer subscribes without an account (spec: P)',
  '/api/subscriptions/self/': "the subscriber's own page: the subscription id in the e-mailed link is the capability",
  '/api/payment-links/public/': 'hosted checkout of a payment link (spec: P), cart abandonment included',
  '/api/checkout/transactions/': "the payer's checkout page polls status and sends the card; the transaction id is the capability",
  '/api/psp/': "payment providers' notifications (authenticated by mTLS and confirmed with the provider, never trusted)",
  '/pay/': 'hosted payment-link page',
  '/checkout/': 'hosted checkout page of a transaction',
  '/subscribe/': 'hosted subscription checkout page',
  '/subscription/': "hosted subscriber's page",
  '/pix/': 'PIX QR image of a hosted checkout',
  '/boleto/': 'boleto page of a hosted checkout',
  '/api/checkout/offers/': "the upsell on a paid payment's page: the offer id shown there is the capability",
  '/media/': "merchant images the hosted pages show (logo, banner), public files",
};

/** Routes left out of the OpenAPI document (hide: true), all public, with the reason. */
export const HIDDEN: Record<string, string> = {
  'GET /': 'redirects to /dashboard',
  'GET /openapi.json': 'the OpenAPI document itself',
  'GET /docs': 'API reference (swagger-ui) and its assets',
  'GET /dashboard': 'dashboard SPA shell and assets; its data comes from the API with a token',
  'GET /cadastro': 'sign-up page of the dashboard',
  'GET /assets/checkout.js': "hosted checkout's script",
};

/**
 * Bodies the schema's sample does not make (a rule beyond the schema, or a value that must be the
 * owner's): by route, from the fixture's values.
 */
export const BODIES: Record<string, (v: Record<string, string>) => unknown> = {
  'PATCH /api/payment-links/{id}': () => ({ amountCents: 6000 }),
  'POST /api/accounts/{id}/kyc': () => kycBody(),
  'POST /api/checkouts/{id}/order-bumps': (v) => ({ productId: v.productId }),
  'POST /api/checkouts/{id}/upsell': (v) => ({ productId: v.productId }),
  'POST /api/checkouts/{id}/upsell/downsell': (v) => ({ productId: v.productId }),
  'POST /api/subscriptions/{id}/change-plan': (v) => ({ planId: v.planId, preview: true }),
  'POST /api/transactions/{id}/simulate': () => ({ outcome: 'PAID' }),
  'POST /api/transactions/{id}/process': () => ({ card: { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvv: '123' } }),
};
