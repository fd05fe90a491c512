// The rehearsal's mixed load through HAProxy: merchants with development keys (the sandbox), each
// with a webhook subscription to the local receiver and a plan; then virtual clients each doing, in
// a loop, PIX, card and boleto creations and their confirmations, refunds, withdrawals, subscription
// renewals and a list, until told to stop.
import { EVENT_TYPES } from '../../src/modules/events/service.ts';
import { generateCpf } from '../../src/payments/documents.ts';
import type { Client } from './client.ts';

export interface Merchant {
  index: number;
  userId: string;
  key: string;
  planId: string;
  /** PIX sales paid, with the cents still refundable (refunds are taken from these). */
  paid: { id: string; left: number }[];
}

const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: new Date().getFullYear() + 3, cvv: '123' };
const cpf = () => generateCpf(Math.random);
const buyer = (i: number) => ({ clientName: 'Maria Souza', clientEmail: `maria.${i}@example.com`, clientDocument: cpf() });
const ADDRESS = { street: 'Rua das Flores', number: '100', neighborhood: 'Centro', city: 'São Paulo', state: 'SP', zipCode: '01001000' };

async function must(what: string, r: Promise<{ status: number; body: any }>): Promise<any> {
  const res = await r;
  if (res.status < 200 || res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A merchant ready for the load: registered, a development key, a webhook subscription and a plan. */
export async function setUpMerchant(client: Client, run: string, index: number, receiverUrl: string): Promise<Merchant> {
  const email = `rehearsal.${run}.${index}@example.com`;
  const reg = await must('register', client.send('POST', '/api/auth/register', {}, { name: `Loja ${index}`, email, password: 'correct horse battery staple' }));
  const auth = { authorization: `Bearer ${reg.token}` };
  const cred = await must('credential', client.send('POST', '/api/credentials', auth, { name: 'rehearsal', environment: 'DEVELOPMENT' }));
  const key = cred.key as string;
  const h = { 'api-key': key };
  await must('webhook subscription', client.send('POST', '/api/v1/webhooks/subscriptions', h, { url: `${receiverUrl}/hook/${index}`, events: [...EVENT_TYPES] }));
  const plan = await must('plan', client.send('POST', '/api/subscriptions/plans', h, { name: 'Clube', amountCents: 2990, interval: 'MONTHLY' }));
  return { index, userId: reg.user.id, key, planId: plan.plan.id, paid: [] };
}

type Op = (client: Client, m: Merchant, i: number) => Promise<void>;

const created = (o: { status: number | null; response: any }) => (o.status === 201 || o.status === 200 ? o.response?.transaction : undefined);

const pixSale: Op = async (client, m, i) => {
  const o = await client.post('pix.create', m.index, m.key, '/api/v1/transactions', { product: 'Café', amountCents: 5000 + (i % 50) * 10, paymentMethod: 'PIX', ...buyer(i) });
  const tx = created(o);
  if (!tx) return;
  const paid = await client.post('pix.confirm', m.index, m.key, `/api/v1/transactions/${tx.id}/simulate`, { outcome: 'PAID' });
  if (paid.status === 200) m.paid.push({ id: tx.id, left: paid.response.transaction.netAmountCents ?? 0 });
};

const cardSale: Op = async (client, m, i) => {
  await client.post('card.create', m.index, m.key, '/api/v1/transactions', { product: 'Café', amountCents: 7000, paymentMethod: 'CARD', installments: 1, card: CARD, ...buyer(i) });
};

const boletoSale: Op = async (client, m, i) => {
  const o = await client.post('boleto.create', m.index, m.key, '/api/v1/transactions', { product: 'Café', amountCents: 9000, paymentMethod: 'BOLETO', clientAddress: ADDRESS, ...buyer(i) });
  const tx = created(o);
  if (tx) await client.post('boleto.confirm', m.index, m.key, `/api/v1/transactions/${tx.id}/simulate`, { outcome: 'PAID' });
};

const refund: Op = async (client, m) => {
  const sale = m.paid.find((s) => s.left >= 500);
  if (!sale) return;
  sale.left -= 500;
  await client.post('refund', m.index, m.key, `/api/v1/transactions/${sale.id}/refund`, { amountCents: 500 });
};

const withdrawal: Op = async (client, m) => {
  if (m.paid.length < 3) return;
  await client.post('withdrawal', m.index, m.key, '/api/withdraws', { amountCents: 1000, pixKeyType: 'email', pixKey: `loja${m.index}@example.com` });
};

const renewal: Op = async (client, m, i) => {
  const client_ = { name: 'Caio Lima', email: `caio.${i}@example.com`, document: cpf() };
  const sub = await client.post('subscription.create', m.index, m.key, '/api/v1/subscriptions', { planId: m.planId, paymentMethod: 'CARD', card: CARD, client: client_ });
  const id = sub.status === 201 || sub.status === 200 ? sub.response?.subscription?.id : undefined;
  if (id) await client.post('subscription.renew', m.index, m.key, `/api/v1/subscriptions/${id}/simulate`, { advanceDays: 31 });
};

const list: Op = async (client, m) => {
  await client.get('list', m.key, '/api/v1/transactions?limit=20');
};

/** The mix, by weight: what a merchant's day looks like, bounded to what two cores can carry. */
const MIX: [Op, number][] = [
  [pixSale, 30],
  [cardSale, 20],
  [boletoSale, 10],
  [refund, 10],
  [withdrawal, 8],
  [renewal, 7],
  [list, 15],
];

function pick(n: number): Op {
  const total = MIX.reduce((s, [, w]) => s + w, 0);
  let r = n % total;
  for (const [op, w] of MIX) {
    if (r < w) return op;
    r -= w;
  }
  return list;
}

/** Runs `clients` loops over the merchants until `stop()` says so; resolves when all have stopped. */
export async function runLoad(client: Client, merchants: Merchant[], clients: number, stop: () => boolean): Promise<void> {
  let seq = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (!stop()) {
        const i = seq++;
        const m = merchants[(c + i) % merchants.length];
        await pick(Math.floor(Math.random() * 1000)).call(null, client, m, i);
      }
    }),
  );
}
