// Split partners (/api/v1/split-partners): a merchant invites another by its wallet; only the invited
// partner accepts or declines, while PENDING; either side ends it. A sale's split may name the
// partner only while ACCEPTED; a platform's own sub-accounts need no invitation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PERMISSIONS } from '../src/http/auth.ts';
import { call, cpf, merchant, type Merchant } from './helpers.ts';
import { assert400, assertMessageOnly, assertValidation, UUID } from './kit/assert.ts';
import { useApp } from './kit/app.ts';
import { countingReads } from './kit/reads.ts';
import { createAccount, PARTNERS } from './accounts-kit.ts';

const ctx = useApp({ env: { PAYMENT_PROVIDER: 'sandbox' } });

const walletOf = async (m: Merchant) => (await ctx.database.db.selectFrom('users').select('wallet_id').where('id', '=', m.id).executeTakeFirstOrThrow()).wallet_id;
const send = (m: Merchant | string, method: string, url: string, body?: unknown) => call(ctx.app, method, url, { key: typeof m === 'string' ? m : m.devKey, body });
const invite = (from: Merchant | string, walletId: string, message?: string) => send(from, 'POST', PARTNERS, message === undefined ? { walletId } : { walletId, message });

/** A sale of `seller` paying `walletId` 10% of its net: the creation's answer. */
const saleTo = (seller: Merchant, walletId: string) =>
  send(seller, 'POST', '/api/v1/transactions', {
    product: 'Curso',
    amountCents: 10_000,
    clientName: 'Joana Lima',
    clientEmail: 'joana@example.com',
    clientDocument: cpf(),
    paymentMethod: 'PIX',
    split: [{ walletId, percentageBp: 1000 }],
  });

async function pair() {
  const [seller, partner] = [await merchant(ctx.app), await merchant(ctx.app)];
  return { seller, partner, wallet: await walletOf(partner) };
}

describe('an invitation', () => {
  test('PENDING, e-mailed to the partner; only the partner accepts; then, and only then, splits may pay it', async () => {
    const { seller, partner, wallet } = await pair();
    const res = await invite(seller, wallet.toUpperCase(), 'Coprodução do curso <script>x</script>');
    assert.equal(res.status, 201, res.raw);
    const p = res.body.data;
    assert.match(p.id, UUID);
    assert.deepEqual(p.merchant, { walletId: await walletOf(seller), name: 'Loja Teste' });
    assert.deepEqual(p.partner, { walletId: wallet, name: 'Loja Teste' });
    assert.equal(p.status, 'PENDING');
    assert.equal(p.message, 'Coprodução do curso');
    assert.equal(p.decidedAt, null);
    const mail = await ctx.database.db.selectFrom('emails').selectAll().where('user_id', '=', partner.id).where('template', '=', 'split_partner_invited').executeTakeFirstOrThrow();
    assert.equal(mail.to_address, partner.email);
    assert.equal(mail.related_id, p.id);
    assert.match(mail.text_body, /Coprodução do curso/);
    assert.ok(!mail.html_body.includes('<script'));

    // Pending: a split naming it is refused, and nothing is created.
    assert400(await saleTo(seller, wallet), 'SPLIT_RECIPIENT_NOT_ALLOWED', ['split.0.walletId']);
    // Either side reads it; the inviting merchant cannot accept for the partner; a stranger sees nothing.
    const stranger = await merchant(ctx.app);
    assert.deepEqual((await send(partner, 'GET', `${PARTNERS}/${p.id}`)).body.data, p);
    assert.deepEqual((await send(seller, 'GET', `${PARTNERS}/${p.id}`)).body.data, p);
    assertMessageOnly(await send(stranger, 'GET', `${PARTNERS}/${p.id}`), 404);
    assertMessageOnly(await send(seller, 'POST', `${PARTNERS}/${p.id}/accept`), 404);
    assertMessageOnly(await send(stranger, 'POST', `${PARTNERS}/${p.id}/accept`), 404);
    assertMessageOnly(await send(stranger, 'DELETE', `${PARTNERS}/${p.id}`), 404);

    const accepted = await send(partner, 'POST', `${PARTNERS}/${p.id}/accept`);
    assert.equal(accepted.status, 200, accepted.raw);
    assert.equal(accepted.body.data.status, 'ACCEPTED');
    assert.ok(accepted.body.data.decidedAt);
    assert.equal((await saleTo(seller, wallet)).status, 201);
    // Accepting is one way: the partner's own sales still may not pay the seller.
    assert400(await saleTo(partner, await walletOf(seller)), 'SPLIT_RECIPIENT_NOT_ALLOWED', ['split.0.walletId']);
    // Decided once: a second decision is a wrong transition.
    assert400(await send(partner, 'POST', `${PARTNERS}/${p.id}/accept`), 'INVALID_STATE_TRANSITION', ['status']);
    assert400(await send(partner, 'POST', `${PARTNERS}/${p.id}/decline`), 'INVALID_STATE_TRANSITION', ['status']);
  });

  test('refused on walletId: your own, an unknown one, one invited already, your sub-account, your platform, not a UUID', async () => {
    const { seller, partner, wallet } = await pair();
    assertValidation(await invite(seller, await walletOf(seller)), ['walletId']);
    assertValidation(await invite(seller, crypto.randomUUID()), ['walletId']);
    assertValidation(await invite(seller, 'carteira'), ['walletId']);
    assert.equal((await invite(seller, wallet)).status, 201);
    assertValidation(await invite(seller, wallet), ['walletId']); // pending
    const id = (await send(seller, 'GET', `${PARTNERS}?role=sent`)).body.data[0].id;
    assert.equal((await send(partner, 'POST', `${PARTNERS}/${id}/accept`)).status, 200);
    assertValidation(await invite(seller, wallet), ['walletId']); // accepted
    // The other way round is another partnership.
    assert.equal((await invite(partner, await walletOf(seller))).status, 201);

    const { account, apiKey } = await createAccount(ctx, seller.devKey, { createApiKey: true });
    const own = await invite(seller, account.walletId);
    assertValidation(own, ['walletId']);
    assert.match(own.body.errors[0].message, /your own sub-account.*no invitation is needed/);
    const up = await invite(apiKey!.key, await walletOf(seller));
    assertValidation(up, ['walletId']);
    assert.match(up.body.errors[0].message, /your platform.*no invitation is needed/);
    assertValidation(await send(seller, 'POST', PARTNERS, { walletId: wallet, message: '' }), ['message']);
  });

  test('invitations racing for one pair: one is made, the others are told it exists', async () => {
    const { seller, wallet } = await pair();
    const answers = await Promise.all(Array.from({ length: 6 }, () => invite(seller, wallet)));
    assert.equal(answers.filter((r) => r.status === 201).length, 1, answers.map((r) => r.raw).join('\n'));
    for (const r of answers.filter((x) => x.status !== 201)) assertValidation(r, ['walletId']);
    assert.equal((await send(seller, 'GET', `${PARTNERS}?role=sent`)).body.meta.total, 1);
  });

  test('declined: the inviting merchant may ask again; revoked by either side: later sales cannot name the wallet', async () => {
    const { seller, partner, wallet } = await pair();
    const first = (await invite(seller, wallet)).body.data.id;
    const declined = await send(partner, 'POST', `${PARTNERS}/${first}/decline`);
    assert.equal(declined.body.data.status, 'DECLINED');
    assert.ok(declined.body.data.decidedAt);
    assert400(await send(seller, 'DELETE', `${PARTNERS}/${first}`), 'INVALID_STATE_TRANSITION', ['status']);

    const second = (await invite(seller, wallet)).body.data.id;
    assert.equal((await send(partner, 'POST', `${PARTNERS}/${second}/accept`)).status, 200);
    assert.equal((await saleTo(seller, wallet)).status, 201);
    const revoked = await send(partner, 'DELETE', `${PARTNERS}/${second}`);
    assert.equal(revoked.status, 200, revoked.raw);
    assert.equal(revoked.body.data.status, 'REVOKED');
    assert400(await saleTo(seller, wallet), 'SPLIT_RECIPIENT_NOT_ALLOWED', ['split.0.walletId']);
    assert400(await send(seller, 'DELETE', `${PARTNERS}/${second}`), 'INVALID_STATE_TRANSITION', ['status']);

    // The seller may withdraw a pending invitation too: the partner can no longer accept it.
    const third = (await invite(seller, wallet)).body.data.id;
    assert.equal((await send(seller, 'DELETE', `${PARTNERS}/${third}`)).body.data.status, 'REVOKED');
    assert400(await send(partner, 'POST', `${PARTNERS}/${third}/accept`), 'INVALID_STATE_TRANSITION', ['status']);

    // Every step is in the audit log of whoever took it.
    const log = await ctx.database.db.selectFrom('audit_log').select(['action', 'user_id']).where('object_type', '=', 'split_partner').where('object_id', 'in', [first, second, third]).orderBy('occurred_at').orderBy('id').execute();
    assert.deepEqual(
      log.map((e) => [e.action, e.user_id === seller.id ? 'seller' : 'partner']),
      [
        ['split_partner.invited', 'seller'],
        ['split_partner.declined', 'partner'],
        ['split_partner.invited', 'seller'],
        ['split_partner.accepted', 'partner'],
        ['split_partner.revoked', 'partner'],
        ['split_partner.invited', 'seller'],
        ['split_partner.revoked', 'seller'],
      ],
    );
  });
});

describe('the recipients\' cache', () => {
  test('sales that miss it together share one read of their recipients; a partnership ended is read again', async () => {
    const { allowedRecipients, forgetRecipients } = await import('../src/modules/splits/rule.ts');
    const { seller, partner, wallet } = await pair();
    const p = (await invite(seller, wallet)).body.data;
    assert.equal((await send(partner, 'POST', `${PARTNERS}/${p.id}/accept`)).status, 200);
    const { db, reads } = countingReads(ctx.database.db, 'split_partners');
    forgetRecipients(seller.id);
    const found = await Promise.all(Array.from({ length: 20 }, () => allowedRecipients(db, seller.id, [wallet])));
    assert.equal(reads(), 1);
    assert.ok(found.every((m) => m.get(wallet) === partner.id));
    // Ended: the next sale reads again, and may not pay it.
    assert.equal((await send(seller, 'DELETE', `${PARTNERS}/${p.id}`)).status, 200);
    assert.equal((await allowedRecipients(db, seller.id, [wallet])).size, 0);
  });
});

describe('the list', () => {
  test('sent, received or both, by status, newest first, page by page', async () => {
    const me = await merchant(ctx.app);
    const [a, b, c] = [await merchant(ctx.app), await merchant(ctx.app), await merchant(ctx.app)];
    const toA = (await invite(me, await walletOf(a))).body.data.id;
    const toB = (await invite(me, await walletOf(b))).body.data.id;
    const fromC = (await invite(c, await walletOf(me))).body.data.id;
    assert.equal((await send(me, 'POST', `${PARTNERS}/${fromC}/accept`)).status, 200);
    const ids = async (query: string) => {
      const res = await send(me, 'GET', `${PARTNERS}${query}`);
      assert.equal(res.status, 200, res.raw);
      return res.body.data.map((p: { id: string }) => p.id);
    };
    assert.deepEqual(await ids(''), [fromC, toB, toA]);
    assert.deepEqual(await ids('?role=sent'), [toB, toA]);
    assert.deepEqual(await ids('?role=received'), [fromC]);
    assert.deepEqual(await ids('?status=ACCEPTED'), [fromC]);
    assert.deepEqual(await ids('?role=sent&status=PENDING&limit=1&page=2'), [toA]);
    assert.deepEqual((await send(me, 'GET', `${PARTNERS}?limit=1`)).body.meta, { page: 1, limit: 1, total: 3, totalPages: 3 });
    assertValidation(await send(me, 'GET', `${PARTNERS}?role=both`), ['querystring.role']);
    assert.deepEqual((await send(a, 'GET', PARTNERS)).body.data.map((p: { id: string }) => p.id), [toA]);
  });

  test('accounts:read reads, accounts:write invites and decides; other keys 403; a dashboard token does both', async () => {
    const { seller, wallet } = await pair();
    const key = async (permissions: string[]) => (await call(ctx.app, 'POST', '/api/credentials', { token: seller.token, body: { name: `${permissions.length}`, environment: 'DEVELOPMENT', permissions } })).body.key as string;
    const reader = await key(['accounts:read']);
    const others = await key(PERMISSIONS.filter((p) => !p.startsWith('accounts:')));
    assertMessageOnly(await invite(reader, wallet), 403);
    assertMessageOnly(await send(others, 'POST', PARTNERS, { walletId: wallet }), 403);
    assertMessageOnly(await send(others, 'GET', PARTNERS), 403);
    const res = await call(ctx.app, 'POST', PARTNERS, { token: seller.token, body: { walletId: wallet } });
    assert.equal(res.status, 201, res.raw);
    assert.equal((await send(reader, 'GET', `${PARTNERS}/${res.body.data.id}`)).status, 200);
    assertMessageOnly(await send(reader, 'DELETE', `${PARTNERS}/${res.body.data.id}`), 403);
  });
});
