// Subscriptions paid by boleto where the bank registers boletos (the inter connector over a bank in
// memory, test/boleto-bank-kit.ts): the payer's address is given when subscribing (required there,
// refused with nothing written without it) and reaches the bank on the first charge and on every
// renewal; a cycle's boleto is ISSUING (no line) when created, and its e-mail waits for the bank's
// numbers: one e-mail per cycle, with the real linha digitável, whichever of the charge's attachment
// and the numbers comes first, also with a worker that dies and two instances at once. The
// development sandbox needs no address.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { App } from '../src/deps.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { CHARGE_LEASE_MS } from '../src/modules/subscriptions/agenda.ts';
import { advance } from '../src/modules/subscriptions/sweep.ts';
import { validateDigitableLine } from '../src/payments/boleto.ts';
import { InterConnector } from '../src/payments/inter/connector.ts';
import type { RegistryOptions } from '../src/payments/catalogue.ts';
import { Books } from './boleto-bank-kit.ts';
import { appOver, call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';

const QUIET = { info() {}, warn() {}, error() {} };
const DAY = 86_400_000;
const ADDRESS = { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', complement: 'ap 12', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'sp' };
const STORED = { zipCode: '01310100', street: 'Avenida Paulista', number: '1000', complement: 'ap 12', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };
const never = () => new Promise<never>(() => {});

describe('boleto subscriptions with a bank that registers boletos', () => {
  let ctx: TestContext;
  let second: App;
  let bank: Books;
  let m: Merchant;
  // Both instances' inter connectors share the bank; nothing issues but the sweeps the tests run.
  const connectors = (): RegistryOptions => ({
    extra: [(db) => new InterConnector(bank, db, QUIET, { reconcileMinutes: 60, issuing: { pollMs: 1, backoffMs: 1, nudge: false } })],
    production: { BOLETO: ['inter'], PAYOUT: ['sandbox'] },
  });
  const db = () => ctx.app.deps.db;
  const issue = (app: App = ctx.app) => app.deps.connectors.edges('inter')!.sweeps.find((s) => s.name === 'issue')!.run(new Date());
  const plan = async (key: string, body: Record<string, unknown> = {}) => {
    const res = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['BOLETO'], ...body } });
    assert.equal(res.status, 201, res.raw);
    return res.body.plan.id as string;
  };
  const subscribe = (planId: string, body: Record<string, unknown> = {}, key = m.liveKey!, app: App = ctx.app) =>
    call(app, 'POST', '/api/v1/subscriptions', { key, body: { planId, paymentMethod: 'BOLETO', client: { name: 'Ana Souza', email: `ana.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, clientAddress: ADDRESS, ...body } });
  const txsOf = (id: string) => db().selectFrom('transactions').selectAll().where('subscription_id', '=', id).orderBy('created_at').execute();
  const mails = (id: string) => db().selectFrom('emails').select(['text_body', 'html_body']).where('related_id', '=', id).where('template', '=', 'charge_issued').orderBy('created_at').execute();
  const view = async (id: string, key = m.liveKey!) => (await call(ctx.app, 'GET', `/api/v1/subscriptions/${id}`, { key })).body.subscription;

  before(async () => {
    bank = new Books();
    ctx = await startApp({ env: { SANDBOX_PAYOUT_DELAY_MS: '0' }, deps: { connectors: connectors() } });
    second = await appOver(ctx.config, ctx.database, { limiter: new MemoryLimiter(), logStream: new Writable({ write: (_c, _e, cb) => cb() }), connectors: connectors() });
    m = await merchant(ctx.app, { live: true });
  });
  after(async () => {
    await assertLedgerBalanced(ctx.app.deps.db);
    await second.close();
    await ctx.close();
  });

  test('the first charge and a renewal reach the bank with the address; each cycle is e-mailed once, with its real linha digitável, once issued', async () => {
    const res = await subscribe(await plan(m.liveKey!));
    assert.equal(res.status, 201, res.raw);
    const sub = res.body.subscription;
    assert.equal(sub.status, 'INCOMPLETE');
    assert.deepEqual(sub.clientAddress, STORED);
    assert.equal(sub.payment.boletoLine, null, 'the bank has not registered it yet');
    assert.equal((await mails(sub.id)).length, 0, 'no e-mail without the line');

    await issue();
    const [first] = await txsOf(sub.id);
    assert.ok(first.boleto_line && validateDigitableLine(first.boleto_line));
    assert.deepEqual(bank.of(first.id)!.req.address, STORED);
    assert.deepEqual(first.address, STORED);
    let sent = await mails(sub.id);
    assert.equal(sent.length, 1);
    assert.ok(sent[0].text_body.includes(first.boleto_line!), 'the e-mail carries the linha digitável');
    assert.equal((await view(sub.id)).payment.boletoLine, first.boleto_line);

    // Paid at the bank: ACTIVE; the renewal is issued 5 days before the period ends.
    bank.pay(bank.of(first.id)!.reference, 'BOLETO');
    assert.equal((await call(ctx.app, 'POST', '/api/psp/inter/notifications', { body: [{ codigoSolicitacao: bank.of(first.id)!.reference }] })).status, 200);
    const active = await db().selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    assert.equal(active.status, 'ACTIVE');
    const renewAt = new Date(active.current_period_end.getTime() - 5 * DAY + 60_000);
    await advance(ctx.app.deps.subscriptions, sub.id, renewAt);
    const renewal = (await txsOf(sub.id))[1];
    assert.ok(renewal, 'the renewal was charged (not refused for want of an address)');
    assert.equal(renewal.status, 'PENDING');
    assert.equal(renewal.boleto_line, null);
    assert.deepEqual(renewal.address, STORED);
    assert.equal((await mails(sub.id)).length, 1, "the renewal's e-mail waits for its line");

    await issue();
    const issued = (await txsOf(sub.id))[1];
    assert.ok(issued.boleto_line && issued.boleto_line !== first.boleto_line);
    assert.deepEqual(bank.of(issued.id)!.req.address, STORED);
    sent = await mails(sub.id);
    assert.equal(sent.length, 2);
    assert.ok(sent[1].text_body.includes(issued.boleto_line!) && sent[1].html_body.includes(issued.boleto_line!));
    assert.deepEqual(bank.calls.issue.filter((t) => t === first.id || t === issued.id), [first.id, issued.id], 'each boleto sent once');

    // Nothing more to send: later sweeps and steps e-mail nothing again.
    await issue();
    await advance(ctx.app.deps.subscriptions, sub.id, new Date(renewAt.getTime() + 60_000));
    assert.equal((await mails(sub.id)).length, 2);
  });

  test('without the address: 400 naming clientAddress, nothing written, the bank never asked (API and hosted checkout)', async () => {
    const planId = await plan(m.liveKey!);
    const count = async () => {
      const n = async (table: 'subscriptions' | 'clients' | 'emails' | 'transactions' | 'subscription_cycles' | 'events') =>
        Number((await db().selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', m.id).executeTakeFirstOrThrow()).n);
      return [await n('subscriptions'), await n('clients'), await n('emails'), await n('transactions'), await n('subscription_cycles'), await n('events')];
    };
    const before = await count();
    const calls = bank.calls.issue.length;
    const api = await subscribe(planId, { clientAddress: undefined });
    assert.equal(api.status, 400, api.raw);
    assert.equal(api.body.errors[0].field, 'clientAddress');
    const body = { planId, clientName: 'Ana Souza', clientEmail: 'ana.checkout@example.com', clientDocument: cpf(), paymentMethod: 'BOLETO' };
    const hosted = await call(ctx.app, 'POST', '/api/subscriptions/checkout', { body });
    assert.equal(hosted.status, 400, hosted.raw);
    assert.equal(hosted.body.errors[0].field, 'clientAddress');
    const badUf = await subscribe(planId, { clientAddress: { ...ADDRESS, state: 'XX' } });
    assert.equal(badUf.status, 400);
    assert.equal(badUf.body.errors[0].field, 'clientAddress.state');
    assert.deepEqual(await count(), before);
    assert.equal(bank.calls.issue.length, calls);
    const p = (await call(ctx.app, 'GET', `/api/subscriptions/plans/${planId}`, { key: m.liveKey })).body.plan;
    assert.equal(p.subscriberCount, 0, 'no seat taken');

    // The hosted checkout with it: subscribed, the address on the boleto.
    const ok = await call(ctx.app, 'POST', '/api/subscriptions/checkout', { body: { ...body, clientAddress: ADDRESS } });
    assert.equal(ok.status, 201, ok.raw);
    await issue();
    const [tx] = await txsOf(ok.body.subscription.id);
    assert.deepEqual(bank.of(tx.id)!.req.address, STORED);
  });

  test('the subscription page asks the payer address in the boleto panel where the bank registers boletos, not in development', async () => {
    const live = await call(ctx.app, 'GET', `/subscribe/${await plan(m.liveKey!, { paymentMethods: ['BOLETO', 'CARD'] })}`);
    assert.equal(live.status, 200);
    const panel = live.raw.slice(live.raw.indexOf('id="panel-BOLETO"'));
    for (const label of ['CEP', 'Rua', 'Número', 'Complemento', 'Bairro', 'Cidade', 'UF']) assert.ok(panel.includes(`>${label}</label>`), label);
    assert.match(panel, /Endereço do pagador/);
    const dev = await call(ctx.app, 'GET', `/subscribe/${await plan(m.devKey)}`);
    assert.equal(dev.status, 200);
    assert.ok(!dev.raw.includes('id="zip"'));
  });

  test('development: the sandbox needs no address; one given is carried; only boletos take it', async () => {
    const planId = await plan(m.devKey, { paymentMethods: ['BOLETO', 'PIX'] });
    const bare = await subscribe(planId, { clientAddress: undefined }, m.devKey);
    assert.equal(bare.status, 201, bare.raw);
    assert.equal(bare.body.subscription.clientAddress, null);
    const line = bare.body.subscription.payment.boletoLine;
    assert.ok(line && validateDigitableLine(line), 'the sandbox issues at once');
    const sent = await mails(bare.body.subscription.id);
    assert.equal(sent.length, 1);
    assert.ok(sent[0].text_body.includes(line));
    const withAddress = await subscribe(planId, {}, m.devKey);
    assert.equal(withAddress.status, 201, withAddress.raw);
    const tx = (await call(ctx.app, 'GET', `/api/v1/transactions/${withAddress.body.subscription.payment.transactionId}`, { key: m.devKey })).body.transaction;
    assert.deepEqual(tx.address, STORED);
    const pix = await subscribe(planId, { paymentMethod: 'PIX' }, m.devKey);
    assert.equal(pix.status, 400);
    assert.equal(pix.body.errors[0].field, 'clientAddress');
  });

  test('a worker dies after the charge was recorded; the bank issues it meanwhile: the sweep that finishes the attempt e-mails it, once', async () => {
    const created = await subscribe(await plan(m.liveKey!, { trialDays: 7 }));
    assert.equal(created.status, 201, created.raw);
    const id = created.body.subscription.id;
    const issueAt = new Date(Date.now() + 2 * DAY + 60_000); // 5 days before the trial ends
    const creations = ctx.app.deps.transactions.creations;
    const insert = creations.insert;
    creations.insert = async (draft) => (await insert.call(creations, draft), never());
    try {
      void advance(ctx.app.deps.subscriptions, id, issueAt).catch(() => {});
      for (let i = 0; i < 600 && !(await txsOf(id)).length; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      creations.insert = insert;
    }
    const [tx] = await txsOf(id);
    assert.ok(tx, 'the charge was recorded before the crash');
    await issue(second);
    assert.ok((await txsOf(id))[0].boleto_line, 'issued while the attempt was in flight');
    assert.equal((await mails(id)).length, 0, 'the attempt is not finished: not e-mailed yet');
    await advance(second.deps.subscriptions, id, new Date(issueAt.getTime() + CHARGE_LEASE_MS + 60_000));
    const sent = await mails(id);
    assert.equal(sent.length, 1);
    assert.ok(sent[0].text_body.includes((await txsOf(id))[0].boleto_line!));
    assert.equal((await txsOf(id)).length, 1, 'not charged again');
    await issue();
    assert.equal((await mails(id)).length, 1);
  });

  test('the bank registers a boleto before its charge is attached to the cycle: the attachment e-mails it, once', async () => {
    const planId = await plan(m.liveKey!);
    const creations = ctx.app.deps.transactions.creations;
    const insert = creations.insert;
    // Another instance's sweep issues the boleto as soon as it is stored, before this one attaches it.
    creations.insert = async (draft) => {
      const stored = await insert.call(creations, draft);
      await issue(second);
      return stored;
    };
    const res = await subscribe(planId).finally(() => (creations.insert = insert));
    assert.equal(res.status, 201, res.raw);
    const [tx] = await txsOf(res.body.subscription.id);
    assert.ok(tx.boleto_line, 'issued before the attachment');
    const sent = await mails(res.body.subscription.id);
    assert.equal(sent.length, 1);
    assert.ok(sent[0].text_body.includes(tx.boleto_line));
    await issue();
    assert.equal((await mails(res.body.subscription.id)).length, 1);
  });

  test('two instances subscribing and issuing at once: every cycle e-mailed exactly once, with its line', async () => {
    const planId = await plan(m.liveKey!);
    let done = false;
    const sweeping = (async () => {
      while (!done) {
        await Promise.all([issue(), issue(second)]);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => subscribe(planId, {}, m.liveKey!, i % 2 ? second : ctx.app)));
    done = true;
    await sweeping;
    for (let i = 0; i < 5; i++) await Promise.all([issue(), issue(second)]);
    for (const res of results) {
      assert.equal(res.status, 201, res.raw);
      const [tx] = await txsOf(res.body.subscription.id);
      assert.ok(tx.boleto_line, 'issued');
      const sent = await mails(res.body.subscription.id);
      assert.equal(sent.length, 1, `one e-mail for ${tx.id}`);
      assert.ok(sent[0].text_body.includes(tx.boleto_line));
      assert.equal(bank.calls.issue.filter((t) => t === tx.id).length, 1);
    }
  });
});
