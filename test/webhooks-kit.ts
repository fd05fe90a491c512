// Shared by the webhook test files (webhooks-*.test.ts): a real local HTTPS receiver, apps that
// deliver to it with a compressed retry schedule, and the requests the files make.
import assert from 'node:assert/strict';
import { before } from 'node:test';
import { call, cpf, type TestContext } from './helpers.ts';
import { ready, useApp, useBefore } from './kit/app.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

export const SCHEDULE = [100, 200, 300, 400, 500, 600, 700];
export const TIMEOUT_MS = 1500;

/** The receiver, started before the suite's tests and closed after them. */
export const useReceiver = (): Receiver => useBefore('the webhook receiver', startReceiver, (r) => r.close());

export function env(receiver: Receiver, allowPrivate: boolean): Record<string, string> {
  return {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allowPrivate),
    WEBHOOK_CA_FILE: receiver.certFile,
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_LOCK_MS: '5000',
    WEBHOOK_POLL_MS: '100',
    LOG_LEVEL: 'warn',
  };
}

/**
 * An app trusting the receiver's certificate, with its delivery dispatcher running unless told.
 * allowPrivate: the receiver on localhost is reachable; without it, the SSRF guard is on, as in production.
 */
export function useWebhookApp(receiver: Receiver, opts: { allowPrivate: boolean; dispatcher?: boolean }): TestContext {
  const ctx = useApp(async () => ({ env: env(await ready(receiver), opts.allowPrivate) }));
  if (opts.dispatcher !== false) {
    before(async () => {
      await (await ready(ctx)).app.deps.webhooks.dispatcher.start();
    });
  }
  return ctx;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v && !(Array.isArray(v) && v.length === 0)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export async function subscribe(c: TestContext, key: string, url: string, events: string[], extra: Record<string, unknown> = {}) {
  const res = await call(c.app, 'POST', '/api/v1/webhooks/subscriptions', { key, body: { url, events, ...extra } });
  assert.equal(res.status, 201, res.raw);
  return res.body.subscription as { id: string; secret: string; url: string; events: string[]; status: string };
}

export async function pix(c: TestContext, key: string, extra: Record<string, unknown> = {}) {
  const res = await call(c.app, 'POST', '/api/v1/transactions', {
    key,
    body: { product: 'Camiseta', amountCents: 5000, clientName: 'Maria Souza', clientEmail: 'maria@example.com', clientDocument: cpf(), paymentMethod: 'PIX', ...extra },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction as { id: string; client: { document: string } };
}

export async function deliveriesOf(c: TestContext, key: string, subscriptionId: string) {
  const res = await call(c.app, 'GET', `/api/v1/webhooks/subscriptions/${subscriptionId}/deliveries?limit=100`, { key });
  assert.equal(res.status, 200, res.raw);
  return res.body.deliveries as any[];
}
