// Sub-accounts (/api/v1/accounts): a platform creates its sellers' accounts (one transaction: the
// user, its profile, its key when asked, the invitation), reads and edits them, re-sends the
// invitation, reads their sales, balance and KYC; never another platform's, never their money.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PERMISSIONS } from '../src/http/auth.ts';
import { call, merchant } from './helpers.ts';
import { assert400, assertMessageOnly, assertValidation, UUID } from './kit/assert.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { documentedRoutes } from './kit/routes.ts';
import { ACCOUNTS, accountBody, createAccount, invitation } from './accounts-kit.ts';
import { kycBody, paidPix } from './wallet-helpers.ts';

const ctx = useApp({ env: { PAYMENT_PROVIDER: 'sandbox' } });
const platform = useMerchant(ctx, { live: true });

const get = (url: string, who: { key?: string; token?: string }) => call(ctx.app, 'GET', url, who);
const post = (url: string, who: { key?: string; token?: string }, body?: unknown) => call(ctx.app, 'POST', url, { ...who, body });
const walletOf = async (id: string) => (await ctx.database.db.selectFrom('users').select('wallet_id').where('id', '=', id).executeTakeFirstOrThrow()).wallet_id;

describe('creating an account', () => {
  test('201: the account, its profile normalised, no key unless asked; the invitation sets a password that logs in; /api/auth/me names the platform', async () => {
    const body = accountBody();
    const res = await post(ACCOUNTS, { key: platform.devKey }, body);
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['account', 'apiKey', 'message']);
    assert.equal(res.body.apiKey, null);
    const a = res.body.account;
    assert.match(a.id, UUID);
    assert.equal(a.walletId, await walletOf(a.id));
    assert.equal(a.name, 'Cerâmica da Carla');
    assert.equal(a.email, body.email);
    assert.equal(a.document, body.document.replace(/\D/g, ''));
    assert.equal(a.phone, '11987654321');
    assert.deepEqual(a.address, { street: 'Rua Augusta', number: '100', complement: 'Loja 2', neighborhood: 'Consolação', city: 'São Paulo', state: 'SP', zipCode: '01304000' });
    assert.equal(a.pixKey, null);
    assert.equal(a.kycStatus, 'NOT_SUBMITTED');
    assert.equal(a.loginEnabled, false);
    assert.deepEqual(a.balance, { availableCents: 0, receivableCents: 0, reservedCents: 0 });
    assert.deepEqual(await get(`${ACCOUNTS}/${a.id}`, { key: platform.devKey }).then((r) => r.body.account), a);

    // The invitation: to the seller, naming the platform, a link valid 7 days.
    const mail = await invitation(ctx, a.id);
    assert.equal(mail.to_address, body.email);
    assert.match(mail.subject, /Loja Teste criou sua conta na Cofre: defina sua senha/);
    assert.match(mail.text_body, /7 dias/);
    const reset = await ctx.database.db.selectFrom('password_resets').select(['expires_at', 'created_at']).where('user_id', '=', a.id).executeTakeFirstOrThrow();
    assert.equal(new Date(reset.expires_at).getTime() - new Date(reset.created_at).getTime(), 7 * 86_400_000);
    // Nobody can log in before the seller sets a password.
    assert.equal((await post('/api/auth/login', {}, { email: body.email, password: 'correct horse battery' })).status, 401);
    const set = await post('/api/auth/password/reset', {}, { token: mail.token, password: 'minha senha da loja' });
    assert.equal(set.status, 200, set.raw);
    const login = await post('/api/auth/login', {}, { email: body.email, password: 'minha senha da loja' });
    assert.equal(login.status, 200, login.raw);
    const me = await get('/api/auth/me', { token: login.body.token });
    assert.equal(me.body.user.id, a.id);
    assert.equal(me.body.user.walletId, a.walletId);
    assert.deepEqual(me.body.user.platform, { name: 'Loja Teste', walletId: await walletOf(platform.id) });
    // The platform sees it can log in now; the invitation is not sent again.
    assert.equal((await get(`${ACCOUNTS}/${a.id}`, { key: platform.devKey })).body.account.loginEnabled, true);
    assert400(await post(`${ACCOUNTS}/${a.id}/invitation`, { key: platform.devKey }), 'INVALID_STATE_TRANSITION', ['loginEnabled']);
  });

  test("every merchant's wallet id is in /api/auth/me and /api/v1/balance; a merchant that is no sub-account has no platform", async () => {
    const walletId = await walletOf(platform.id);
    const me = await get('/api/auth/me', { token: platform.token });
    assert.equal(me.body.user.walletId, walletId);
    assert.equal(me.body.user.platform, null);
    assert.equal((await get('/api/v1/balance', { key: platform.devKey })).body.walletId, walletId);
    assert.equal((await get('/api/v1/balance', { key: platform.liveKey! })).body.walletId, walletId);
  });

  test('createApiKey: a development key of the new account with every permission, shown once; it works as the account, never as the platform', async () => {
    const res = await call(ctx.app, 'POST', ACCOUNTS, { key: platform.devKey, headers: { 'idempotency-key': 'conta-da-carla' }, body: accountBody({ createApiKey: true, pixKey: 'carla@example.com' }) });
    assert.equal(res.status, 201, res.raw);
    const { account, apiKey } = res.body;
    assert.ok(apiKey);
    assert.match(apiKey.key, /^cofre_test_[A-Za-z0-9_-]{43}$/);
    assert.equal(apiKey.credential.environment, 'DEVELOPMENT');
    assert.deepEqual([...apiKey.credential.permissions].sort(), [...PERMISSIONS].sort());
    assert.ok(apiKey.key.startsWith(apiKey.credential.prefix));
    assert.equal(account.pixKey, 'carla@example.com');
    // The key is the seller's: its balance, its wallet, its own (empty) accounts.
    assert.equal((await get('/api/v1/balance', { key: apiKey.key })).body.walletId, account.walletId);
    assert.deepEqual((await get(ACCOUNTS, { key: apiKey.key })).body.accounts, []);
    // Never shown again: not in the reads, not kept for Idempotency-Key replays, only its hash stored.
    for (const url of [`${ACCOUNTS}/${account.id}`, ACCOUNTS]) assert.ok(!(await get(url, { key: platform.devKey })).raw.includes(apiKey.key));
    assert.deepEqual(await ctx.database.db.selectFrom('idempotency_keys').select('response_body').where('key', '=', 'conta-da-carla').execute(), []);
    const keys = await ctx.database.db.selectFrom('api_keys').select(['user_id', 'key_hash']).where('id', '=', apiKey.credential.id).executeTakeFirstOrThrow();
    assert.equal(keys.user_id, account.id);
    assert.ok(!keys.key_hash.includes(apiKey.key));
  });

  test('createApiKey in production: 403 before anything is made (a production key needs approved KYC); without it the account is made', async () => {
    const body = accountBody({ createApiKey: true });
    assertMessageOnly(await post(ACCOUNTS, { key: platform.liveKey! }, body), 403);
    assert.equal(await ctx.database.db.selectFrom('users').select('id').where('email', '=', body.email).executeTakeFirst(), undefined);
    const res = await post(ACCOUNTS, { key: platform.liveKey! }, { ...body, createApiKey: false });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.apiKey, null);
  });

  test('400s in the spec shape: a bad CPF, a bad UF, a bad CEP, missing fields, a bad Pix key, markup for a name, an e-mail already registered', async () => {
    const send = (over: Record<string, unknown>) => post(ACCOUNTS, { key: platform.devKey }, accountBody(over));
    assert400(await send({ document: '529.982.247-24' }), 'INVALID_DOCUMENT', ['document']);
    const address = accountBody().address;
    assertValidation(await send({ address: { ...address, state: 'XX' } }), ['address.state']);
    assertValidation(await send({ address: { ...address, state: 'São' } }), ['address.state']);
    assertValidation(await send({ address: { ...address, zipCode: '0130400' } }), ['address.zipCode']);
    const { name: _n, phone: _p, address: _a, ...missing } = accountBody();
    assertValidation(await post(ACCOUNTS, { key: platform.devKey }, missing), ['address', 'name', 'phone']);
    assertValidation(await send({ email: 'not-an-email' }), ['email']);
    assertValidation(await send({ pixKey: 'no key' }), ['pixKey']);
    assert400(await send({ pixKey: '111.444.777-36' }), 'INVALID_DOCUMENT', ['pixKey']);
    assertValidation(await send({ name: '<b></b>' }), ['name']);
    assertValidation(await send({ walletId: crypto.randomUUID() }), ['walletId']);
    assert400(await send({ email: platform.email.toUpperCase() }), 'EMAIL_ALREADY_REGISTERED', ['email']);
  });
});

test('creations racing for one e-mail: one account, the others 400 EMAIL_ALREADY_REGISTERED, nothing half made', async () => {
  const p = await merchant(ctx.app);
  const body = accountBody();
  const answers = await Promise.all(Array.from({ length: 5 }, () => post(ACCOUNTS, { key: p.devKey }, { ...body, createApiKey: true })));
  assert.equal(answers.filter((r) => r.status === 201).length, 1, answers.map((r) => r.raw).join('\n'));
  for (const r of answers.filter((x) => x.status !== 201)) assert400(r, 'EMAIL_ALREADY_REGISTERED', ['email']);
  const users = await ctx.database.db.selectFrom('users').select('id').where('email', '=', body.email).execute();
  assert.equal(users.length, 1);
  assert.equal((await ctx.database.db.selectFrom('api_keys').select('id').where('user_id', '=', users[0].id).execute()).length, 1);
  assert.equal((await ctx.database.db.selectFrom('emails').select('id').where('to_address', '=', body.email).execute()).length, 1);
  assert.equal((await get(ACCOUNTS, { key: p.devKey })).body.pagination.total, 1);
});

describe('reading and changing accounts', () => {
  test('the list: newest first, page by page, balances of the request environment', async () => {
    const p = await merchant(ctx.app);
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await createAccount(ctx, p.devKey, { name: `Vendedor ${i}` })).account.id);
    const first = await get(`${ACCOUNTS}?limit=2`, { key: p.devKey });
    assert.equal(first.status, 200, first.raw);
    assert.deepEqual(first.body.accounts.map((a: { id: string }) => a.id), [made[2], made[1]]);
    assert.deepEqual(first.body.pagination, { page: 1, limit: 2, total: 3, totalPages: 2 });
    const second = await get(`${ACCOUNTS}?limit=2&page=2`, { key: p.devKey });
    assert.deepEqual(second.body.accounts.map((a: { id: string }) => a.id), [made[0]]);
    // A dashboard token lists them too.
    assert.equal((await get(ACCOUNTS, { token: p.token })).body.pagination.total, 3);
  });

  test('PATCH: name, phone, address, Pix key (null clears it); e-mail and document cannot change; audited in the platform log', async () => {
    const { account } = await createAccount(ctx, platform.devKey, { pixKey: '+55 11 98765-4321' });
    assert.equal(account.pixKey, '+5511987654321');
    const patch = (body: unknown) => call(ctx.app, 'PATCH', `${ACCOUNTS}/${account.id}`, { key: platform.devKey, body });
    const address = { street: 'Rua do Ouvidor', number: '50', neighborhood: 'Centro', city: 'Rio de Janeiro', state: 'RJ', zipCode: '20040030' };
    const res = await patch({ name: 'Ateliê da Carla', phone: '21987654321', address, pixKey: null });
    assert.equal(res.status, 200, res.raw);
    const a = res.body.account;
    assert.deepEqual([a.name, a.phone, a.address, a.pixKey], ['Ateliê da Carla', '21987654321', address, null]);
    assert.ok(new Date(a.updatedAt) > new Date(account.updatedAt));
    assert.equal((await get(`${ACCOUNTS}/${account.id}`, { key: platform.devKey })).body.account.name, 'Ateliê da Carla');
    assert400(await patch({}), 'VALIDATION_ERROR');
    assertValidation(await patch({ email: 'x@example.com' }), ['email']);
    assertValidation(await patch({ document: '52998224725' }), ['document']);
    assertValidation(await patch({ address: { ...address, state: 'ZZ' } }), ['address.state']);
    // The audit log: created and updated, the document masked, the actor the platform's key.
    const log = await ctx.database.db.selectFrom('audit_log').selectAll().where('object_id', '=', account.id).orderBy('occurred_at').execute();
    assert.deepEqual(log.map((e) => [e.action, e.user_id, e.actor_type]), [['account.created', platform.id, 'API_KEY'], ['account.updated', platform.id, 'API_KEY']]);
    const after = log[1].after as Record<string, unknown>;
    assert.equal(after.name, 'Ateliê da Carla');
    assert.match(String(after.document), /\*\*\*/);
    assert.equal((log[1].before as Record<string, unknown>).pixKey, '+5511987654321');
  });

  test('re-sending the invitation: a new link while no password is set, at most 5 an hour', async () => {
    const p = await merchant(ctx.app);
    const { account } = await createAccount(ctx, p.devKey);
    const first = await invitation(ctx, account.id);
    for (let i = 0; i < 5; i++) assert.equal((await post(`${ACCOUNTS}/${account.id}/invitation`, { key: p.devKey })).status, 202);
    assertMessageOnly(await post(`${ACCOUNTS}/${account.id}/invitation`, { key: p.devKey }), 429);
    const latest = await invitation(ctx, account.id);
    assert.notEqual(latest.token, first.token);
    // Both links work until one is used; then every one is spent.
    assert.equal((await post('/api/auth/password/reset', {}, { token: first.token, password: 'uma senha boa 123' })).status, 200);
    assert.equal((await post('/api/auth/password/reset', {}, { token: latest.token, password: 'outra senha boa 1' })).status, 400);
  });
});

describe('tenancy and permissions', () => {
  test("another platform's account, a merchant that is no sub-account, the platform itself: 404 on every route", async () => {
    const other = await merchant(ctx.app);
    const { account } = await createAccount(ctx, platform.devKey);
    const stranger = await merchant(ctx.app);
    for (const id of [account.id, stranger.id, platform.id]) {
      for (const [method, path] of [['GET', ''], ['PATCH', ''], ['POST', '/invitation'], ['GET', '/transactions'], ['GET', '/kyc'], ['POST', '/kyc']]) {
        const body = method === 'PATCH' ? { name: 'X' } : path === '/kyc' ? kycBody() : undefined;
        assertMessageOnly(await call(ctx.app, method, `${ACCOUNTS}/${id}${path}`, { key: other.devKey, body }), 404);
      }
    }
    assert.equal((await get(`${ACCOUNTS}/${account.id}`, { key: platform.devKey })).body.account.name, 'Cerâmica da Carla');
    assert.deepEqual((await get(ACCOUNTS, { key: other.devKey })).body.accounts, []);
  });

  test("a sub-account cannot create accounts (403), nor read its platform's (404)", async () => {
    const { apiKey } = await createAccount(ctx, platform.devKey, { createApiKey: true });
    const { account: sibling } = await createAccount(ctx, platform.devKey);
    assertMessageOnly(await post(ACCOUNTS, { key: apiKey!.key }, accountBody()), 403);
    assertMessageOnly(await get(`${ACCOUNTS}/${sibling.id}`, { key: apiKey!.key }), 404);
    assertMessageOnly(await get(`${ACCOUNTS}/${platform.id}`, { key: apiKey!.key }), 404);
  });

  test('accounts:read reads, accounts:write changes; other keys 403; a dashboard token does both', async () => {
    const { account } = await createAccount(ctx, platform.devKey);
    const keyWith = async (permissions: string[]) => {
      const res = await call(ctx.app, 'POST', '/api/credentials', { token: platform.token, body: { name: `${permissions.length} permissions`, environment: 'DEVELOPMENT', permissions } });
      assert.equal(res.status, 201, res.raw);
      return res.body.key as string;
    };
    const reader = await keyWith(['accounts:read']);
    const writer = await keyWith(['accounts:write']);
    const others = await keyWith(PERMISSIONS.filter((p) => !p.startsWith('accounts:')));
    assert.equal((await get(`${ACCOUNTS}/${account.id}`, { key: reader })).status, 200);
    assertMessageOnly(await get(`${ACCOUNTS}/${account.id}`, { key: writer }), 403);
    assertMessageOnly(await post(ACCOUNTS, { key: reader }, accountBody()), 403);
    assertMessageOnly(await get(ACCOUNTS, { key: others }), 403);
    assertMessageOnly(await get(`${ACCOUNTS}/${account.id}/transactions`, { key: others }), 403);
    assert.equal((await post(ACCOUNTS, { key: writer }, accountBody())).status, 201);
    assert.equal((await call(ctx.app, 'PATCH', `${ACCOUNTS}/${account.id}`, { token: platform.token, body: { phone: '11912345678' } })).status, 200);
  });
});

describe("the seller's sales, balance and KYC", () => {
  test("the platform reads its sub-account's sales and balance, per environment; they are not the platform's", async () => {
    const { account, apiKey } = await createAccount(ctx, platform.devKey, { createApiKey: true });
    const sale = await paidPix(ctx.app, { key: apiKey!.key }, 10_000);
    const list = await get(`${ACCOUNTS}/${account.id}/transactions?status=PAID`, { key: platform.devKey });
    assert.equal(list.status, 200, list.raw);
    assert.deepEqual(list.body.transactions.map((t: { id: string }) => t.id), [sale]);
    // The seller's own view of the sale, field for field.
    assert.deepEqual(list.body.transactions[0], (await get(`/api/v1/transactions/${sale}`, { key: apiKey!.key })).body.transaction);
    assert.equal(list.body.pagination.hasMore, false);
    assert.deepEqual((await get(`${ACCOUNTS}/${account.id}/transactions`, { key: platform.liveKey! })).body.transactions, []);
    assert.ok(!(await get('/api/v1/transactions', { key: platform.devKey })).body.transactions.some((t: { id: string }) => t.id === sale));
    const balance = (await get(`${ACCOUNTS}/${account.id}`, { key: platform.devKey })).body.account.balance;
    assert.deepEqual(balance, { availableCents: 10_000 - 99, receivableCents: 0, reservedCents: 0 });
    assert.deepEqual((await get(`${ACCOUNTS}/${account.id}`, { key: platform.liveKey! })).body.account.balance, { availableCents: 0, receivableCents: 0, reservedCents: 0 });
  });

  test("the platform never moves a sub-account's money: no such route, and the seller's ids are 404 to the platform's key", async () => {
    const { account, apiKey } = await createAccount(ctx, platform.devKey, { createApiKey: true });
    const seller = { key: apiKey!.key };
    const sale = await paidPix(ctx.app, seller, 20_000);
    const w = await post('/api/withdraws', seller, { amountCents: 1000, pixKeyType: 'email', pixKey: 'carla@example.com' });
    assert.equal(w.status, 201, w.raw);
    const withdrawal = w.body.data.id;
    const mine = { key: platform.devKey };
    const before = (await get(`${ACCOUNTS}/${account.id}`, mine)).body.account.balance;
    assertMessageOnly(await post(`/api/v1/transactions/${sale}/refund`, mine, { amountCents: 1000 }), 404);
    assertMessageOnly(await post(`/api/v1/transactions/${sale}/cancel`, mine, {}), 404);
    assertMessageOnly(await get(`/api/withdraws/${withdrawal}`, mine), 404);
    assertMessageOnly(await post(`/api/withdraws/${withdrawal}/cancel`, mine, {}), 404);
    // The accounts API reads and edits the profile; nothing under it moves money.
    const routes = documentedRoutes(ctx.app).filter((r) => r.path.startsWith(ACCOUNTS)).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(routes.sort(), [
      'GET /api/v1/accounts',
      'GET /api/v1/accounts/{id}',
      'GET /api/v1/accounts/{id}/kyc',
      'GET /api/v1/accounts/{id}/transactions',
      'PATCH /api/v1/accounts/{id}',
      'POST /api/v1/accounts',
      'POST /api/v1/accounts/{id}/invitation',
      'POST /api/v1/accounts/{id}/kyc',
    ]);
    // The seller's money is where its own sale and withdrawal left it.
    assert.equal(before.reservedCents, 1000);
    assert.deepEqual((await get(`${ACCOUNTS}/${account.id}`, mine)).body.account.balance, before);
    assert.equal((await get(`/api/v1/transactions/${sale}`, seller)).body.transaction.status, 'PAID');
  });

  test("KYC submitted by the platform is the sub-account's: its status, its own /api/kyc; the platform's stays its own", async () => {
    const { account } = await createAccount(ctx, platform.devKey);
    const res = await post(`${ACCOUNTS}/${account.id}/kyc`, { key: platform.devKey }, kycBody({ document: account.document }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.status, 'SUBMITTED');
    assert.equal(res.body.kyc.userId, account.id);
    const read = await get(`${ACCOUNTS}/${account.id}/kyc`, { key: platform.devKey });
    assert.deepEqual(read.body, { message: 'OK', status: 'SUBMITTED', kyc: res.body.kyc });
    assert.equal((await get(`${ACCOUNTS}/${account.id}`, { key: platform.devKey })).body.account.kycStatus, 'SUBMITTED');
    assert.equal((await get('/api/kyc', { token: platform.token })).body.status, 'APPROVED'); // the platform's own (approved by the helper)
    const row = await ctx.database.db.selectFrom('kyc_submissions').select('user_id').where('id', '=', res.body.kyc.id).executeTakeFirstOrThrow();
    assert.equal(row.user_id, account.id);
    // The same rules as POST /api/kyc: under review, a second one is refused; a bad document is a 400.
    assert400(await post(`${ACCOUNTS}/${account.id}/kyc`, { key: platform.devKey }, kycBody()), 'INVALID_STATE_TRANSITION', ['status']);
    const { account: other } = await createAccount(ctx, platform.devKey);
    assert400(await post(`${ACCOUNTS}/${other.id}/kyc`, { key: platform.devKey }, kycBody({ document: '529.982.247-24' })), 'INVALID_DOCUMENT', ['document']);
  });
});
