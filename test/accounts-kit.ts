// Shared by test/accounts.test.ts and test/split-partners.test.ts: a sub-account's creation body,
// its creation through the API, and the invitation e-mail as the seller reads it.
import assert from 'node:assert/strict';
import { call, cpf, uniqueEmail, type TestContext } from './helpers.ts';

export const ACCOUNTS = '/api/v1/accounts';
export const PARTNERS = '/api/v1/split-partners';

export function accountBody(over: Record<string, unknown> = {}) {
  return {
    name: 'Cerâmica da Carla',
    email: uniqueEmail('seller'),
    document: cpf(),
    phone: '(11) 98765-4321',
    address: { street: 'Rua Augusta', number: '100', complement: 'Loja 2', neighborhood: 'Consolação', city: 'São Paulo', state: 'sp', zipCode: '01304-000' },
    ...over,
  };
}

/** Creates a sub-account with `key` (201 expected): the answer's account and apiKey. */
export async function createAccount(ctx: TestContext, key: string, over: Record<string, unknown> = {}) {
  const res = await call(ctx.app, 'POST', ACCOUNTS, { key, body: accountBody(over) });
  assert.equal(res.status, 201, res.raw);
  return res.body as { account: Record<string, any>; apiKey: { credential: Record<string, any>; key: string } | null };
}

/** The token of the last invitation e-mailed to `userId`, from its link, with the message. */
export async function invitation(ctx: TestContext, userId: string) {
  const mail = await ctx.database.db
    .selectFrom('emails')
    .select(['to_address', 'subject', 'text_body', 'html_body'])
    .where('user_id', '=', userId)
    .where('template', '=', 'account_invitation')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const token = /\/dashboard\/redefinir-senha\?token=([A-Za-z0-9_-]+)/.exec(mail.text_body)?.[1];
  assert.ok(token, mail.text_body);
  return { ...mail, token };
}
