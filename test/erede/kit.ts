// What the e.Rede tests share: the app with CARD_PROVIDER=erede over the fake e.Rede (its CA trusted
// through EREDE_CA_FILE), a merchant with a production key (KYC approved), and small helpers.
import assert from 'node:assert/strict';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from '../helpers.ts';
import { startFakeErede, type FakeErede } from '../fake-erede/server.ts';

const YEAR = new Date().getUTCFullYear();
export const CARD = { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: YEAR + 3, cvv: '123' };
export const SOFT_DESCRIPTOR = 'LOJA TESTE';

export function eredeEnv(fake: FakeErede): Record<string, string> {
  return {
    CARD_PROVIDER: 'erede',
    EREDE_API_URL: fake.apiUrl,
    EREDE_TOKEN_URL: fake.tokenUrl,
    EREDE_CLIENT_ID: fake.clientId,
    EREDE_CLIENT_SECRET: fake.clientSecret,
    EREDE_CA_FILE: fake.caFile,
    EREDE_SOFT_DESCRIPTOR: SOFT_DESCRIPTOR,
    EREDE_TIMEOUT_MS: '1000',
  };
}

export interface EredeWorld {
  ctx: TestContext;
  fake: FakeErede;
  m: Merchant;
  pay(extra?: object): Promise<any>;
  get(id: string): Promise<any>;
  row(id: string): Promise<{ provider: string; provider_ref: string | null; status: string }>;
  close(): Promise<void>;
}

/** `tokens`: with e.Rede's token service (EREDE_TOKEN_SERVICE_URL at the fake): saved cards and card subscriptions. */
export async function startWithErede(env: Record<string, string> = {}, opts: { tokens?: boolean } = {}): Promise<EredeWorld> {
  const fake = await startFakeErede();
  const ctx = await startApp({ env: { ...eredeEnv(fake), ...(opts.tokens ? { EREDE_TOKEN_SERVICE_URL: fake.tokenServiceUrl } : {}), ...env } });
  const m = await merchant(ctx.app, { live: true });
  return {
    ctx,
    fake,
    m,
    async pay(extra = {}) {
      const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
        key: m.liveKey,
        body: { product: 'Curso', amountCents: 10_000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card: CARD, ...extra },
      });
      assert.equal(res.status, 201, res.raw);
      return res.body.transaction;
    },
    async get(id) {
      return (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
    },
    row: (id) => ctx.database.db.selectFrom('transactions').select(['provider', 'provider_ref', 'status']).where('id', '=', id).executeTakeFirstOrThrow(),
    async close() {
      await ctx.close();
      await fake.close();
    },
  };
}
