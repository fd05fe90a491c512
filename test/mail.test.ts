// Outgoing e-mail: the outbox, the sweep that sends it through a real SMTP server (smtp-server on
// loopback), retries with backoff, store-only mode and the development listing.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { MAIL_RETRY_MS, queueEmail, sendDueEmails } from '../src/mail/outbox.ts';
import { render, type MailMessage } from '../src/mail/templates.ts';
import { createMailer } from '../src/mail/transport.ts';
import { call, merchant } from './helpers.ts';
import { ready, useApp, useBefore } from './kit/app.ts';

interface Received {
  to: string[];
  raw: string;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives; `refuse` makes it answer 451. */
async function smtpServer() {
  const received: Received[] = [];
  const state = { refuse: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (raw += c));
      stream.on('end', () => {
        if (state.refuse) {
          const err = new Error('mailbox busy, try later') as Error & { responseCode: number };
          err.responseCode = 451;
          return cb(err);
        }
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { received, state, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const common = { merchantName: 'Loja <Teste>', customerName: 'Maria & José', planName: 'Plano Ouro', manageUrl: 'http://localhost:3000/subscription/x?t=abc' };

const messages: MailMessage[] = [
  { ...common, kind: 'welcome', amountCents: 4990, intervalLabel: 'por mês', trialEndsAt: new Date('2026-03-10T15:00:00Z'), firstChargeAt: null },
  { ...common, kind: 'receipt', amountCents: 4990, paidAt: new Date('2026-03-10T15:00:00Z'), periodEnd: new Date('2026-04-10T15:00:00Z'), method: 'CARD', cardLast4: '4242' },
  { ...common, kind: 'charge_issued', amountCents: 4990, dueDate: '2026-04-10', method: 'PIX', pixCode: '00020126PIXCODE', boletoLine: null, payUrl: 'http://localhost:3000/checkout/1' },
  { ...common, kind: 'payment_failed', amountCents: 4990, reason: 'INSUFFICIENT_FUNDS', nextRetryAt: new Date('2026-04-11T15:00:00Z'), updateCardUrl: 'http://localhost:3000/subscription/x?t=abc#cartao' },
  { ...common, kind: 'card_expiring', brand: 'VISA', last4: '4242', expMonth: 5, expYear: 2026, updateCardUrl: 'http://localhost:3000/subscription/x?t=abc#cartao' },
  { ...common, kind: 'cancelled', endedAt: new Date('2026-04-10T15:00:00Z'), reason: null },
];

describe('mail templates', () => {
  test('every template renders pt-BR text and HTML with BRL amounts, the links, and escaped values', () => {
    for (const m of messages) {
      const r = render(m);
      assert.match(r.text, /^Olá, Maria & José!/, m.kind);
      assert.ok(r.html.includes('Maria &#38; José') && r.html.includes('Loja &#60;Teste&#62;'), `${m.kind}: escaped`);
      assert.ok(!r.html.includes('<Teste>'), `${m.kind}: nothing unescaped`);
      assert.ok(r.text.includes(m.manageUrl), `${m.kind}: self-service link`);
      if ('amountCents' in m) assert.ok(r.text.includes('R$\u00a049,90'), `${m.kind}: amount in BRL`);
    }
    assert.ok(render(messages[2]).text.includes('00020126PIXCODE') && render(messages[2]).text.includes('http://localhost:3000/checkout/1'));
    assert.match(render(messages[3]).text, /saldo ou limite insuficiente[\s\S]*Vamos tentar de novo em 11\/04\/2026[\s\S]*Atualizar cartão: http/);
    assert.match(render(messages[4]).subject, /VISA final 4242 vai vencer/);
    assert.match(render(messages[0]).text, /começou\. Seu período de teste vai até 10\/03\/2026/);
    // Without a trial the first payment is not confirmed yet: the welcome does not say it is.
    const unpaid = render({ ...messages[0], kind: 'welcome', trialEndsAt: null, firstChargeAt: new Date('2026-04-10T15:00:00Z') } as MailMessage).text;
    assert.match(unpaid, /fica ativa assim que o primeiro pagamento for confirmado[\s\S]*próxima cobrança será em 10\/04\/2026/);
    assert.ok(!/confirmada/.test(unpaid));
  });
});

describe('mail outbox over SMTP', () => {
  const smtp = useBefore('the SMTP server', smtpServer, (s) => s.close());
  const ctx = useApp(async () => ({ env: { SMTP_URL: (await ready(smtp)).url, MAIL_FROM: 'Loja <nao-responda@loja.test>' } }));
  const scope = () => ({ userId: '', livemode: false });
  let userId: string;
  before(async () => {
    userId = (await merchant(ctx.app)).id;
  });

  test('a queued message is sent by the sweep, not before, and marked SENT with the Message-ID', async () => {
    const now = new Date();
    const id = await queueEmail(ctx.app.deps.db, { ...scope(), userId }, 'maria@example.com', messages[1], null, now);
    assert.equal(smtp.received.length, 0, 'nothing is sent when the message is queued');
    assert.equal(await sendDueEmails(ctx.app.deps.mail, now), 1);
    assert.equal(smtp.received.length, 1);
    assert.deepEqual(smtp.received[0].to, ['maria@example.com']);
    assert.match(smtp.received[0].raw, /From: Loja <nao-responda@loja\.test>/);
    assert.match(smtp.received[0].raw, /Subject: =\?UTF-8\?/);
    const row = await ctx.app.deps.db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'SENT');
    assert.ok(row.message_id);
    assert.equal(await sendDueEmails(ctx.app.deps.mail, now), 0, 'sent once');
  });

  test('a refused message is retried with backoff and FAILED after the last attempt', async () => {
    smtp.state.refuse = true;
    const t0 = new Date();
    const id = await queueEmail(ctx.app.deps.db, { ...scope(), userId }, 'jose@example.com', messages[5], null, t0);
    let now = t0;
    for (let attempt = 1; attempt <= MAIL_RETRY_MS.length + 1; attempt++) {
      assert.equal(await sendDueEmails(ctx.app.deps.mail, now), 1, `attempt ${attempt}`);
      const row = await ctx.app.deps.db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.attempts, attempt);
      assert.match(row.last_error ?? '', /mailbox busy/);
      if (attempt <= MAIL_RETRY_MS.length) {
        assert.equal(row.status, 'QUEUED');
        assert.equal(row.next_attempt_at!.getTime(), now.getTime() + MAIL_RETRY_MS[attempt - 1]);
        assert.equal(await sendDueEmails(ctx.app.deps.mail, new Date(row.next_attempt_at!.getTime() - 1)), 0, 'not before its time');
        now = row.next_attempt_at!;
      } else assert.equal(row.status, 'FAILED');
    }
    smtp.state.refuse = false;
  });

  test('the message queued in a rolled-back transaction does not exist', async () => {
    const before = (await ctx.app.deps.db.selectFrom('emails').select('id').execute()).length;
    await ctx.app.deps.db
      .transaction()
      .execute(async (trx) => {
        await queueEmail(trx, { ...scope(), userId }, 'x@example.com', messages[0], null, new Date());
        throw new Error('rollback');
      })
      .catch(() => {});
    assert.equal((await ctx.app.deps.db.selectFrom('emails').select('id').execute()).length, before);
  });
});

describe('mail without SMTP_URL (store only) and GET /api/v1/emails', () => {
  const ctx = useApp();

  test('messages are STORED and listed to their merchant in development only', async () => {
    assert.equal(createMailer(ctx.config.mail).kind, 'store');
    const m = await merchant(ctx.app, { live: true });
    const other = await merchant(ctx.app);
    const now = new Date();
    await queueEmail(ctx.app.deps.db, { userId: m.id, livemode: false }, 'ana@example.com', messages[2], null, now);
    await queueEmail(ctx.app.deps.db, { userId: m.id, livemode: true }, 'live@example.com', messages[2], null, now);
    await sendDueEmails(ctx.app.deps.mail, now);
    const list = await call(ctx.app, 'GET', '/api/v1/emails', { key: m.devKey });
    assert.equal(list.status, 200);
    assert.equal(list.body.emails.length, 1, 'only development mail');
    assert.equal(list.body.emails[0].status, 'STORED');
    assert.equal(list.body.emails[0].to, 'ana@example.com');
    assert.match(list.body.emails[0].text, /00020126PIXCODE/);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/emails?to=ANA@example.com', { key: m.devKey })).body.emails.length, 1);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/emails', { key: other.devKey })).body.emails.length, 0, 'another merchant sees none');
    assert.equal((await call(ctx.app, 'GET', '/api/v1/emails', { key: m.liveKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/emails', { token: m.token })).body.emails.length, 1);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/emails')).status, 401);
  });
});
