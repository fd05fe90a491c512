// Webhooks: the SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS unset, as in production) at creation and
// at delivery time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { uuidv7 } from '../src/db/ids.ts';
import { ATTEMPT_STARTED } from '../src/modules/webhooks/deliveries.ts';
import { call, cpf } from './helpers.ts';
import { useMerchant } from './kit/app.ts';
import { until, useReceiver, useWebhookApp } from './webhooks-kit.ts';

const receiver = useReceiver();
const guarded = useWebhookApp(receiver, { allowPrivate: false });

describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS unset)', () => {
  const g = useMerchant(guarded);

  test('private, loopback, link-local, metadata and internal targets are refused at creation', async () => {
    const port = receiver.port;
    const refused = [
      `https://127.0.0.1:${port}/x`,
      'https://10.0.0.1/x',
      'https://172.16.5.4/x',
      'https://192.168.0.10/x',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.0.1/x',
      'https://0.0.0.0/x',
      'https://224.0.0.1/x',
      `https://[::1]:${port}/x`,
      'https://[::ffff:127.0.0.1]/x',
      'https://[fd00::1]/x',
      'https://[fe80::1]/x',
      'https://2130706433/x', // 127.0.0.1 as one number
      `https://localhost:${port}/x`,
      'https://metadata.google.internal/computeMetadata/v1/',
      'http://example.com/x',
    ];
    for (const url of refused) {
      const res = await call(guarded.app, 'POST', '/api/v1/webhooks/subscriptions', { key: g.devKey, body: { url, events: ['transaction.created'] } });
      assert.equal(res.status, 400, `${url} -> ${res.status} ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.errors[0].field, 'url', url);
    }
    // The same rule for a transaction's postbackUrl.
    for (const url of [`https://127.0.0.1:${port}/pb`, 'https://169.254.169.254/pb', `https://localhost:${port}/pb`]) {
      const res = await call(guarded.app, 'POST', '/api/v1/transactions', {
        key: g.devKey,
        body: { product: 'X', amountCents: 100, clientName: 'A', clientEmail: 'a@example.com', clientDocument: cpf(), paymentMethod: 'PIX', postbackUrl: url },
      });
      assert.equal(res.status, 400, `${url} -> ${res.raw}`);
      assert.equal(res.body.errors[0].field, 'postbackUrl');
    }
  });

  test('every delivery checks again: rows pointing inside are never sent', async () => {
    const port = receiver.port;
    const targets = [`https://localhost:${port}/ssrf-name`, `https://127.0.0.1:${port}/ssrf-ip`, `https://[::1]:${port}/ssrf-v6`, 'https://10.0.0.1/ssrf', 'https://169.254.169.254/ssrf'];
    const db = guarded.database.db;
    const now = new Date();
    const ids: string[] = [];
    for (const url of targets) {
      const id = uuidv7();
      ids.push(id);
      // As if the URL had passed at creation (DNS changed since): inserted directly.
      await db
        .insertInto('webhook_subscriptions')
        .values({ id, user_id: g.id, livemode: false, url, events: JSON.stringify(['transaction.created']), secret: 'whsec_test', status: 'ACTIVE', created_at: now, updated_at: now })
        .execute();
    }
    const tx = await call(guarded.app, 'POST', '/api/v1/transactions', {
      key: g.devKey,
      body: { product: 'X', amountCents: 100, clientName: 'A', clientEmail: 'a@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
    });
    assert.equal(tx.status, 201);
    // A postback row pointing at loopback, too.
    const rows = await until('attempts on every target', async () => {
      const r = await sql<{ url: string; error: string | null; status_code: number | null; attempt: number }>`
        SELECT d.url, a.error, a.status_code, a.attempt FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.user_id = ${g.id} AND a.attempt >= 2 AND a.error IS DISTINCT FROM ${ATTEMPT_STARTED}`.execute(db); // (not an attempt under way)
      return new Set(r.rows.map((x) => x.url)).size === targets.length && r.rows;
    });
    for (const r of rows) {
      assert.equal(r.status_code, null, r.url);
      assert.match(String(r.error), /^not sent: URL /, `${r.url}: ${r.error}`);
    }
    const errors = Object.fromEntries(rows.map((r) => [r.url, r.error]));
    assert.match(errors[`https://127.0.0.1:${port}/ssrf-ip`]!, /loopback/);
    assert.match(errors['https://169.254.169.254/ssrf']!, /link-local/);
    assert.match(errors[`https://[::1]:${port}/ssrf-v6`]!, /loopback/);
    assert.match(errors['https://10.0.0.1/ssrf']!, /private/);
    assert.equal(receiver.requests.filter((r) => r.path.startsWith('/ssrf')).length, 0, 'the receiver got nothing');
    // The test endpoint obeys the guard as well.
    const t = await call(guarded.app, 'POST', `/api/v1/webhooks/subscriptions/${ids[1]}/test`, { key: g.devKey });
    assert.equal(t.body.success, false);
    assert.match(t.body.attempt.error, /^not sent: URL points to a loopback address/);
    assert.equal(receiver.requests.filter((r) => r.path.startsWith('/ssrf')).length, 0);
    for (const id of ids) await call(guarded.app, 'DELETE', `/api/v1/webhooks/subscriptions/${id}`, { key: g.devKey });
  });
});
