// Webhooks in local development: with WEBHOOK_ALLOW_PRIVATE_TARGETS=true a plain http receiver on
// localhost works end to end (the docs/webhooks.md recipe); without it the refusal names the setting;
// a certificate the gateway does not trust names WEBHOOK_CA_FILE.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WebhookSender } from '../src/modules/webhooks/sender.ts';
import { call, cpf, merchant } from './helpers.ts';
import { ready, useApp } from './kit/app.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

interface Got {
  headers: IncomingHttpHeaders;
  raw: string;
}

let local: ReturnType<typeof createServer>;
let got: Got[] = [];
let httpPort = 0;
let tls: Receiver;
const env = { WEBHOOK_RETRY_SCHEDULE_MS: '100,200', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LOCK_MS: '5000', WEBHOOK_POLL_MS: '100', LOG_LEVEL: 'warn' };
const dev = useApp({ env: { ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const prod = useApp({ env: { ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } }); // the guard on

before(async () => {
  local = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      got.push({ headers: req.headers, raw });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
  httpPort = (local.address() as AddressInfo).port;
  tls = await startReceiver();
  await (await ready(dev)).app.deps.webhooks.dispatcher.start();
});

after(async () => {
  await tls?.close();
  local?.closeAllConnections();
  await new Promise<void>((r) => (local ? local.close(() => r()) : r()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('local webhook receivers', () => {
  test('with WEBHOOK_ALLOW_PRIVATE_TARGETS=true an http://localhost subscription is accepted and delivered, signed', async () => {
    got = [];
    const m = await merchant(dev.app);
    const url = `http://localhost:${httpPort}/webhooks`;
    const sub = await call(dev.app, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url, events: ['transaction.created'] } });
    assert.equal(sub.status, 201, sub.raw);
    const tx = await call(dev.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'Camiseta', amountCents: 5000, clientName: 'Maria Souza', clientEmail: 'maria@example.com', clientDocument: cpf(), paymentMethod: 'PIX', postbackUrl: `http://127.0.0.1:${httpPort}/postback` },
    });
    assert.equal(tx.status, 201, tx.raw);
    const { createHmac } = await import('node:crypto');
    const signed = (g: Got) => g.headers['x-webhook-signature'] === 'sha256=' + createHmac('sha256', sub.body.subscription.secret).update(g.raw).digest('hex');
    for (let i = 0; i < 100 && !(got.some(signed) && got.some((g) => g.headers['x-webhook-delivery'] && JSON.parse(g.raw).data?.id === tx.body.transaction.id && !signed(g))); i++) await sleep(50);
    const delivered = got.find(signed);
    assert.ok(delivered, `the subscription's delivery arrived over http, signed with its secret over the raw body (got ${got.length})`);
    assert.ok(got.some((g) => !signed(g)), 'the http postback arrived too');
    assert.equal(JSON.parse(delivered.raw).type, 'transaction.created');
  });

  test('without the setting http and loopback targets are a 400 naming WEBHOOK_ALLOW_PRIVATE_TARGETS', async () => {
    const m = await merchant(prod.app);
    for (const url of [`http://example.com/hook`, `https://127.0.0.1:${httpPort}/hook`, `https://localhost:${httpPort}/hook`]) {
      const res = await call(prod.app, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url, events: ['transaction.created'] } });
      assert.equal(res.status, 400, url);
      assert.equal(res.body.errors[0].field, 'url');
      assert.match(res.body.errors[0].message, /WEBHOOK_ALLOW_PRIVATE_TARGETS=true/, url);
    }
    const pb = await call(prod.app, 'POST', '/api/v1/transactions', {
      key: m.devKey,
      body: { product: 'X', amountCents: 100, clientName: 'A', clientEmail: 'a@example.com', clientDocument: cpf(), paymentMethod: 'PIX', postbackUrl: `http://127.0.0.1:${httpPort}/pb` },
    });
    assert.equal(pb.status, 400);
    assert.equal(pb.body.errors[0].field, 'postbackUrl');
    assert.match(pb.body.errors[0].message, /WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
  });

  test('an untrusted (self-signed) certificate fails the attempt naming WEBHOOK_CA_FILE; with the CA it succeeds', async () => {
    const base = { timeoutMs: 3000, allowPrivateTargets: true, concurrency: 2 };
    const input = { url: tls.url('/tls'), body: '{}', secret: 's', eventId: 'e', eventType: 't', deliveryId: 'd', attempt: 1, timestamp: new Date().toISOString() };
    const untrusted = new WebhookSender({ ...base, ca: null });
    try {
      const r = await untrusted.send(input);
      assert.equal(r.ok, false);
      assert.match(String(r.error), /^TLS: /);
      assert.match(String(r.error), /WEBHOOK_CA_FILE/);
    } finally {
      untrusted.close();
    }
    const { readFileSync } = await import('node:fs');
    const trusted = new WebhookSender({ ...base, ca: readFileSync(tls.certFile, 'utf8') });
    try {
      assert.equal((await trusted.send(input)).ok, true);
    } finally {
      trusted.close();
    }
  });
});
