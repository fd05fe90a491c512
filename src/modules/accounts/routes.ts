// Sub-accounts: /api/v1/accounts (docs/accounts.md). Transport only: the rules are in service.ts.
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import type { HttpApp } from '../../http/app-type.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';
import { emptyBodyIsObject, errors, IdParams, Message } from '../../http/schemas.ts';
import { actorOf } from '../audit/service.ts';
import { KYC_BODY_LIMIT, KycResponse, SubmitKycBody } from '../kyc/schemas.ts';
import { getKyc, submitKyc, type KycDeps } from '../kyc/service.ts';
import { listTransactions } from '../transactions/queries.ts';
import { ListTransactionsQuery, TransactionListResponse } from '../transactions/schemas.ts';
import { transactionView } from '../transactions/view.ts';
import { AccountListResponse, AccountResponse, CreateAccountBody, CreatedAccountResponse, ListAccountsQuery, UpdateAccountBody } from './schemas.ts';
import { createAccount, getAccount, INVITATION_DAYS, listAccounts, resendInvitation, subAccountOf, updateAccount } from './service.ts';

/** The options of accountRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface AccountRouteDeps {
  db: Db;
  config: Config;
  limiter: RateLimiter;
  cursors: Cursors;
  kyc: KycDeps;
}

export default async function accountRoutes(app: HttpApp, deps: AccountRouteDeps) {
  const { db, config, cursors } = deps;
  const accounts = { db, limiter: deps.limiter, baseUrl: config.baseUrl };
  const tags = ['Sub-accounts'];
  const READ = { auth: { key: 'accounts:read' as const, token: true } };
  const WRITE = { auth: { key: 'accounts:write' as const, token: true } };
  /** The sub-account a path names, as its own scope in the request's environment (404 unless the caller's). */
  const scopeOf = async (platformId: string, id: string, livemode: boolean) => ({ userId: (await subAccountOf(db, platformId, id)).user_id, livemode });

  app.post(
    '/api/v1/accounts',
    {
      // The answer may carry the new account's API key, shown once: never stored for replays.
      config: { ...WRITE, idempotency: 'off' },
      schema: {
        tags,
        operationId: 'createAccount',
        summary: "Create an account for one of your sellers (a sub-account), optionally with its API key",
        description: `A full merchant account linked to yours: its own wallet, KYC, balance and withdrawals. The seller is e-mailed an invitation to set a password (valid ${INVITATION_DAYS} days) and use the dashboard. You read its sales, balance and KYC; you never move its money. createApiKey: its key in this environment, shown only in this answer (development only). A sub-account cannot create accounts (403). Retrying after a lost answer gives 400 EMAIL_ALREADY_REGISTERED: list your accounts to find it.`,
        body: CreateAccountBody,
        response: { 201: CreatedAccountResponse, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const created = await createAccount(accounts, req.auth, req.body, actorOf(req));
      return reply.code(201).send({ message: 'Account created; the seller was e-mailed an invitation to set a password', ...created });
    },
  );

  app.get(
    '/api/v1/accounts',
    {
      config: READ,
      schema: { tags, operationId: 'listAccounts', summary: 'Your sub-accounts (page style, newest first)', description: "Balances are in the request's environment.", querystring: ListAccountsQuery, response: { 200: AccountListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => ({ message: 'OK', ...(await listAccounts(db, req.auth, req.query)) }),
  );

  app.get(
    '/api/v1/accounts/:id',
    { config: READ, schema: { tags, operationId: 'getAccount', summary: 'One of your sub-accounts', params: IdParams, response: { 200: AccountResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ message: 'OK', account: await getAccount(db, req.auth, req.params.id) }),
  );

  app.patch(
    '/api/v1/accounts/:id',
    {
      config: WRITE,
      schema: { tags, operationId: 'updateAccount', summary: "Change a sub-account's name, phone, address or Pix key", params: IdParams, body: UpdateAccountBody, response: { 200: AccountResponse, ...errors(400, 401, 403, 404) } },
    },
    async (req) => ({ message: 'Account updated', account: await updateAccount(db, req.auth, req.params.id, req.body, actorOf(req)) }),
  );

  app.post(
    '/api/v1/accounts/:id/invitation',
    {
      config: WRITE,
      preValidation: emptyBodyIsObject,
      schema: {
        tags,
        operationId: 'resendAccountInvitation',
        summary: 'E-mail the invitation to set a password again',
        description: `Only while the seller has not set a password (400 INVALID_STATE_TRANSITION once loginEnabled). A new link valid ${INVITATION_DAYS} days; at most 5 per account per hour (429).`,
        params: IdParams,
        response: { 202: Message, ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      await resendInvitation(accounts, req.auth, req.params.id);
      return reply.code(202).send({ message: 'Invitation sent' });
    },
  );

  app.get(
    '/api/v1/accounts/:id/transactions',
    {
      config: READ,
      schema: {
        tags,
        operationId: 'listAccountTransactions',
        summary: "A sub-account's sales (read only), as GET /api/v1/transactions lists them",
        description: "The same filters, order and cursor pagination as GET /api/v1/transactions, in the request's environment.",
        params: IdParams,
        querystring: ListTransactionsQuery,
        response: { 200: TransactionListResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const scope = await scopeOf(req.auth.userId, req.params.id, req.auth.livemode);
      const { rows, pagination } = await listTransactions(db, cursors, scope, req.query);
      return { message: 'OK', transactions: rows.map((tx) => transactionView(tx, config)), pagination };
    },
  );

  app.post(
    '/api/v1/accounts/:id/kyc',
    {
      config: WRITE,
      // Documents travel base64-encoded in the JSON body, as on POST /api/kyc.
      bodyLimit: KYC_BODY_LIMIT,
      schema: {
        tags,
        operationId: 'submitAccountKyc',
        summary: "Submit a sub-account's KYC for review (as POST /api/kyc)",
        description: 'The same body, rules and limits as POST /api/kyc; the submission is the sub-account\'s. Allowed when nothing was submitted yet or the last submission was REJECTED.',
        params: IdParams,
        body: SubmitKycBody,
        response: { 201: KycResponse, ...errors(400, 401, 403, 404, 413) },
      },
    },
    async (req, reply) => {
      const { userId } = await scopeOf(req.auth.userId, req.params.id, req.auth.livemode);
      const kyc = await submitKyc(deps.kyc, userId, req.body, actorOf(req));
      return reply.code(201).send({ message: 'KYC submitted for review', status: 'SUBMITTED' as const, kyc });
    },
  );

  app.get(
    '/api/v1/accounts/:id/kyc',
    { config: READ, schema: { tags, operationId: 'getAccountKyc', summary: "A sub-account's KYC status and latest submission (as GET /api/kyc)", params: IdParams, response: { 200: KycResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ message: 'OK', ...(await getKyc(db, (await scopeOf(req.auth.userId, req.params.id, req.auth.livemode)).userId)) }),
  );
}
