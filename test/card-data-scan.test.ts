// No card number (PAN) or CVV anywhere Cofre writes: card payments of every kind are made in the
// sandbox with distinctive numbers made for this run (charged at creation, paid on the hosted
// checkout's route, authorised then processed, declined, refused as invalid, a subscription's card
// and its renewals, a saved card and a one-click purchase), then every webhook body delivered to a
// loopback receiver, every e-mail the SMTP server received, every line the app's logger wrote (at
// trace level), every API answer, and every row of every table (to_jsonb: column names kept, so a
// CVV is looked for next to a card-field name, not as three digits anywhere) are searched. Before
// that, the search proves it finds what it looks for: a PAN planted in a table, logged on purpose,
// and in each shape it looks for.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { sendDueEmails } from '../src/mail/outbox.ts';
import { luhnValid } from '../src/payments/card.ts';
import { EVENT_TYPES } from '../src/modules/events/service.ts';
import { call, cpf, merchant, type Merchant, type Res } from './helpers.ts';
import { ready, useApp, useBefore } from './kit/app.ts';
import { env as webhookEnv, until, useReceiver } from './webhooks-kit.ts';

const YEAR = new Date().getUTCFullYear();

/** A random Luhn-valid number: `prefix`, random digits, and `last` as its final digit (Cielo's table decides by it). */
function pan(prefix: string, length: number, last: number): string {
  for (;;) {
    const body = prefix + Array.from({ length: length - prefix.length - 2 }, () => randomInt(10)).join('');
    for (let d = 0; d < 10; d++) {
      const n = `${body}${d}${last}`;
      if (luhnValid(n)) return n;
    }
  }
}

interface TestCard {
  number: string;
  cvv: string;
}
const cardOf = (c: TestCard, spaced = false) => ({ number: spaced ? c.number.replace(/(\d{4})(?=\d)/g, '$1 ') : c.number, holderName: 'ANA SOUZA', expMonth: 11, expYear: YEAR + 4, cvv: c.cvv });
const cvv3 = () => String(randomInt(100, 1000));

// Last digits: 0, 1, 4, 9 approve; 2 declines; 6 is a soft decline (PROCESSING_ERROR), retried by dunning.
const CARDS = {
  created: { number: pan('4', 16, 1), cvv: cvv3() },
  declined: { number: pan('52', 16, 2), cvv: cvv3() },
  hosted: { number: pan('4', 16, 4), cvv: cvv3() },
  authorised: { number: pan('52', 16, 0), cvv: cvv3() },
  amex: { number: pan('37', 15, 9), cvv: String(randomInt(1000, 10000)) },
  subscription: { number: pan('4', 16, 0), cvv: cvv3() },
  renewalFails: { number: pan('4', 16, 6), cvv: cvv3() },
  saved: { number: pan('52', 16, 4), cvv: cvv3() },
  invalid: { number: pan('4', 16, 1), cvv: cvv3() },
} satisfies Record<string, TestCard>;

/**
 * The shapes a PAN leaks in: its digits (alone, or with spaces or hyphens every 4), its first 12
 * digits (anything beyond the first 6 and last 4 PCI DSS lets be shown), and its ASCII as hex (a
 * bytea column). A CVV only next to a card-field name: `"cvv":"123"`, `cvv=123`, `securityCode: 123`.
 */
function needles(c: TestCard): { pan: string[]; cvv: RegExp } {
  const d = c.number;
  const grouped = (sep: string) => d.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
  const hex = Buffer.from(d).toString('hex');
  return {
    pan: [d, grouped(' '), grouped('-'), d.slice(0, 12), hex],
    cvv: new RegExp(`(cvv2?|cvc2?|cid|security[_ -]?code|card[_ -]?code)[^0-9a-z]{0,8}${c.cvv}(?![0-9])`, 'i'),
  };
}

/** What of the cards' data `texts` hold: "<card> PAN|CVV in <where>" per finding. */
function findings(cards: Record<string, TestCard>, texts: { where: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const [name, c] of Object.entries(cards)) {
    const n = needles(c);
    for (const { where, text } of texts) {
      if (n.pan.some((needle) => text.includes(needle))) out.push(`${name} PAN in ${where}: ${excerpt(text, c.number.slice(0, 6))}`);
      if (n.cvv.test(text)) out.push(`${name} CVV in ${where}: ${excerpt(text, c.cvv)}`);
    }
  }
  return out;
}
const excerpt = (text: string, around: string) => {
  const i = Math.max(0, text.indexOf(around));
  return text.slice(Math.max(0, i - 80), i + 80);
};

/** Every row of every table of the database, as JSON with its column names. */
async function tableRows(db: any): Promise<{ where: string; text: string }[]> {
  const tables = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`.execute(db);
  assert.ok(tables.rows.length > 30, `the tables were found: ${tables.rows.map((t) => t.name)}`);
  const out: { where: string; text: string }[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(name)} t`.execute(db);
    for (const r of rows.rows) out.push({ where: `table ${name}`, text: r.row });
  }
  return out;
}

/** A real SMTP server on 127.0.0.1 keeping every message it receives. */
async function smtpServer() {
  const received: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, cb) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (raw += c));
      stream.on('end', () => {
        received.push(raw);
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { received, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('card data never stored, logged, delivered or mailed', () => {
  const receiver = useReceiver();
  const smtp = useBefore('the SMTP server', smtpServer, (s) => s.close());
  const ctx = useApp(async () => ({ env: { ...webhookEnv(await ready(receiver), true), LOG_LEVEL: 'trace', SMTP_URL: (await ready(smtp)).url, MAIL_FROM: 'Loja <nao-responda@loja.test>' } }));
  const answers: Res[] = [];
  let m: Merchant;
  const api = async (method: string, url: string, body?: unknown, key = m.devKey) => {
    const res = await call(ctx.app, method, url, { key, body });
    answers.push(res);
    return res;
  };
  const sale = (over: Record<string, unknown>) => ({ product: 'Curso', amountCents: 12_345, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', ...over });

  before(async () => {
    await ready(ctx);
    await ctx.app.deps.webhooks.dispatcher.start();
    m = await merchant(ctx.app);
    const sub = await api('POST', '/api/v1/webhooks/subscriptions', { url: receiver.url('/all'), events: [...EVENT_TYPES] });
    assert.equal(sub.status, 201, sub.raw);
  });

  test('card payments of every kind in the sandbox', async () => {
    const postbackUrl = receiver.url('/postback');
    const created = await api('POST', '/api/v1/transactions', sale({ card: cardOf(CARDS.created, true), installments: 3, postbackUrl }));
    assert.equal(created.body.transaction.status, 'PAID', created.raw);
    const refunded = await api('POST', `/api/v1/transactions/${created.body.transaction.id}/refund`, { amountCents: 1000 });
    assert.equal(refunded.status, 200, refunded.raw);

    const declined = await api('POST', '/api/v1/transactions', sale({ card: cardOf(CARDS.declined), postbackUrl }));
    assert.equal(declined.body.transaction.status, 'FAILED', declined.raw);
    const amex = await api('POST', '/api/v1/transactions', sale({ card: cardOf(CARDS.amex) }));
    assert.equal(amex.body.transaction.status, 'PAID', amex.raw);

    // Refused before anything is written: an expired card, a bad CVV length, a broken check digit.
    const expired = await api('POST', '/api/v1/transactions', sale({ card: { ...cardOf(CARDS.invalid), expYear: YEAR - 1 } }));
    assert.equal(expired.status, 400, expired.raw);
    const shortCvv = await api('POST', '/api/v1/transactions', sale({ card: { ...cardOf(CARDS.amex), cvv: CARDS.amex.cvv.slice(0, 3) } }));
    assert.equal(shortCvv.status, 400, shortCvv.raw);
    const broken = await api('POST', '/api/v1/transactions', sale({ card: { ...cardOf(CARDS.invalid), number: `${CARDS.invalid.number.slice(0, 15)}${(Number(CARDS.invalid.number[15]) + 1) % 10}` } }));
    assert.equal(broken.status, 400, broken.raw);

    // The hosted checkout: created without a card, paid on its page's route.
    const pending = await api('POST', '/api/v1/transactions', sale({ postbackUrl }));
    const paid = await call(ctx.app, 'POST', `/api/checkout/transactions/${pending.body.transaction.id}/card`, { body: { card: cardOf(CARDS.hosted, true) } });
    answers.push(paid);
    assert.equal(paid.status, 200, paid.raw);
    assert.equal(paid.body.transaction.status, 'PAID', paid.raw);

    // Authorised, then processed server-to-server.
    const toProcess = await api('POST', '/api/v1/transactions', sale({}));
    const processed = await api('POST', `/api/v1/transactions/${toProcess.body.transaction.id}/process`, { card: cardOf(CARDS.authorised), capture: false });
    assert.equal(processed.body.transaction.status, 'AUTHORIZED', processed.raw);
    assert.equal((await api('POST', `/api/v1/transactions/${toProcess.body.transaction.id}/capture`)).status, 200);
  });

  test('subscriptions with a card: charged at once and renewed by the sandbox clock; a trial whose renewal is declined', async () => {
    const plan = await api('POST', '/api/subscriptions/plans', { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['CARD'] });
    assert.equal(plan.status, 201, plan.raw);
    const client = () => ({ name: 'Ana Souza', email: `ana.${randomInt(1e9)}@example.com`, document: cpf() });
    const sub = await api('POST', '/api/v1/subscriptions', { planId: plan.body.plan.id, paymentMethod: 'CARD', card: cardOf(CARDS.subscription), client: client() });
    assert.equal(sub.status, 201, sub.raw);
    assert.equal(sub.body.subscription.status, 'ACTIVE', sub.raw);
    const renewed = await api('POST', `/api/v1/subscriptions/${sub.body.subscription.id}/simulate`, { advanceDays: 31 });
    assert.equal(renewed.status, 200, renewed.raw);

    const trial = await api('POST', '/api/subscriptions/plans', { name: 'Teste grátis', amountCents: 2990, interval: 'MONTHLY', paymentMethods: ['CARD'], trialDays: 7 });
    const failing = await api('POST', '/api/v1/subscriptions', { planId: trial.body.plan.id, paymentMethod: 'CARD', card: cardOf(CARDS.renewalFails), client: client() });
    assert.equal(failing.body.subscription.status, 'TRIALING', failing.raw);
    await api('POST', `/api/v1/subscriptions/${failing.body.subscription.id}/simulate`, { advanceDays: 8 });
    const after = await api('GET', `/api/v1/subscriptions/${failing.body.subscription.id}`);
    assert.equal(after.body.subscription.status, 'PAST_DUE', after.raw);
  });

  test('a saved card and a one-click purchase', async () => {
    const client = await api('POST', '/api/clients', { name: 'Bia Lima', email: 'bia@example.com', document: cpf() });
    const saved = await api('POST', '/api/v1/cards', { clientId: client.body.client.id, card: cardOf(CARDS.saved, true) });
    assert.equal(saved.status, 201, saved.raw);
    const bought = await api('POST', '/api/v1/transactions', sale({ clientDocument: client.body.client.document, cardId: saved.body.card.id, postbackUrl: receiver.url('/postback') }));
    assert.equal(bought.body.transaction.status, 'PAID', bought.raw);
  });

  test('the search finds what it looks for: every shape, a planted row, a line logged on purpose', async () => {
    const probe = { number: pan('4', 16, 1), cvv: '528' };
    const shapes = [probe.number, probe.number.replace(/(\d{4})(?=\d)/g, '$1 '), probe.number.replace(/(\d{4})(?=\d)/g, '$1-'), `${probe.number.slice(0, 12)}XXXX`, Buffer.from(probe.number).toString('hex')];
    for (const s of shapes) assert.equal(findings({ probe }, [{ where: 'probe', text: `x ${s} x` }]).length, 1, s);
    for (const s of ['{"cvv":"528"}', 'cvv=528', '\\"securityCode\\":\\"528\\"', 'CardCode: 528']) assert.equal(findings({ probe }, [{ where: 'probe', text: s }]).length, 1, s);
    // A CVV as digits without a card field next to it is no finding: ids and amounts hold any 3 digits.
    assert.deepEqual(findings({ probe }, [{ where: 'probe', text: '{"id":"0195-528a","amountCents":5281,"cvvOk":true}' }]), []);

    const db = ctx.app.deps.db;
    const product = await api('POST', '/api/v1/products', { name: 'Produto', price: 100 });
    await db.updateTable('products').set({ name: `Cartão ${probe.number}` }).where('id', '=', product.body.product.id).execute();
    assert.equal(findings({ probe }, await tableRows(db)).length, 1, 'a PAN planted in a table is found');
    await db.deleteFrom('products').where('id', '=', product.body.product.id).execute();
    assert.deepEqual(findings({ probe }, await tableRows(db)), []);

    ctx.app.log.info({ leaked: probe.number }, 'a card number logged on purpose');
    assert.equal(findings({ probe }, ctx.logs.map((text) => ({ where: 'log', text }))).length, 1, "the app's log lines are the ones searched");
  });

  test('no PAN or CVV in any table, log line, webhook, e-mail or answer; no saved-card token outside the database', async () => {
    const db = ctx.app.deps.db;
    // Every webhook delivered, every e-mail sent.
    await until('the webhooks delivered', async () => {
      const left = await db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'PENDING').execute();
      return left.length === 0;
    }, 30_000);
    while ((await sendDueEmails(ctx.app.deps.mail, new Date(Date.now() + 60_000))) > 0);

    const hooks = receiver.requests.map((r) => ({ where: `webhook ${r.path}`, text: r.raw.toString('utf8') }));
    const mails = smtp.received.map((text) => ({ where: 'e-mail', text }));
    const logs = ctx.logs.map((text) => ({ where: 'log', text }));
    const responses = answers.map((r) => ({ where: 'answer', text: r.raw }));
    const rows = await tableRows(db);
    // The scan saw the work: payloads of card payments, renewals and failures, e-mails, log lines, rows.
    assert.ok(hooks.some((h) => h.text.includes('transaction.failed')) && hooks.some((h) => h.text.includes('subscription.renewed')), 'webhooks of card payments');
    assert.ok(hooks.filter((h) => h.where === 'webhook /postback').length >= 3, 'postbacks delivered');
    assert.ok(mails.length >= 3, `e-mails sent: ${mails.length}`);
    assert.ok(logs.length >= 2 * answers.length, `log lines (each request logs two): ${logs.length}`);
    assert.ok(rows.some((r) => r.where === 'table saved_cards') && rows.some((r) => r.where === 'table subscriptions'));
    const last4s = Object.values(CARDS).map((c) => c.number.slice(-4));
    assert.ok(rows.some((r) => r.where === 'table transactions' && last4s.some((l) => r.text.includes(`"card_last4": "${l}"`))), 'last 4 digits are kept: the search would see the rest');

    assert.deepEqual(findings(CARDS, [...rows, ...logs, ...hooks, ...mails, ...responses]), []);

    const tokens = (await db.selectFrom('saved_cards').select('token').execute()).map((r) => r.token);
    const subTokens = (await db.selectFrom('subscriptions').select('card_token').execute()).map((r) => r.card_token).filter((t): t is string => !!t);
    assert.ok(tokens.length === 1 && subTokens.length === 2);
    const outside = [...logs, ...hooks, ...mails, ...responses].filter((t) => [...tokens, ...subTokens].some((token) => t.text.includes(token)));
    assert.deepEqual(outside.map((t) => t.where), [], 'a card token outside the database');
  });
});
