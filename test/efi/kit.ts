// What the Efí connector tests share: the fake Efí, the connector built from the configuration the
// fake's settings give (its CA trusted through EFI_CA_FILE), its edges over a core that records
// what it is told (applyPayout), and a loopback HTTP receiver standing for the gateway's notification
// route (/api/psp/efi/webhook, query string and all), so that Efí's calls reach the route's handler.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/index.ts';
import { AppError } from '../../src/http/errors.ts';
import { createLogger } from '../../src/logger.ts';
import type { ConnectorCore, ConnectorEdges, PayoutRequest, PayoutState } from '../../src/payments/connector.ts';
import { EfiConnector } from '../../src/payments/efi/connector.ts';
import type { ClientOptions } from '../../src/payments/pix-api/client.ts';
import { efiEnv, EFI_TEST_WEBHOOK_SECRET } from '../fake-efi/env.ts';
import { startFakeEfi, type FakeEfi, type FakeEfiOptions } from '../fake-efi/server.ts';

export interface Kit {
  efi: FakeEfi;
  connector: EfiConnector;
  edges: ConnectorEdges;
  /** What the connector told the core, in order. */
  applied: Array<{ reference: string; state: PayoutState }>;
  /** The log lines (JSON), through the gateway's own logger (its redaction included). */
  logs: string[];
  /** What the receiver answered Efí, per call. */
  answered: Array<{ path: string; status: number }>;
  baseUrl: string;
  close(): Promise<void>;
}

const notForPayouts = () => Promise.reject(new Error('not a payout connector call'));

/** A core that records applyPayout calls (the withdrawal core is not under test here). */
function recordingCore(baseUrl: string, log: ConnectorCore['log'], applied: Kit['applied']): ConnectorCore {
  return {
    db: null as unknown as Db,
    log,
    baseUrl,
    applyEvents: notForPayouts,
    recordBoleto: notForPayouts,
    recordRefund: notForPayouts,
    applyMandate: notForPayouts,
    applyChargeback: notForPayouts,
    applyPayout: async (reference, state) => void applied.push({ reference, state }),
  };
}

/** The gateway's notification route on loopback: body JSON, query parsed, AppError -> its status. */
async function receiver(edges: () => ConnectorEdges, answered: Kit['answered']): Promise<{ server: http.Server; baseUrl: string }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const route = edges().routes.find((r) => r.paths.some((p) => url.pathname === `/api/psp/efi${p}`));
      let status = 200;
      try {
        if (req.method !== 'POST' || !route) status = 404;
        else await route.handle(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined, req.headers, Object.fromEntries(url.searchParams));
      } catch (err) {
        status = err instanceof AppError ? err.status : 500;
      }
      answered.push({ path: url.pathname, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function startKit(opts: { client?: ClientOptions; fake?: FakeEfiOptions; secret?: string } = {}): Promise<Kit> {
  const efi = await startFakeEfi(opts.fake);
  const logs: string[] = [];
  const log = createLogger({ logLevel: 'info' }, new Writable({ write: (c, _e, cb) => void (logs.push(String(c)), cb()) }));
  const config = loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...efiEnv(efi, opts.secret ?? EFI_TEST_WEBHOOK_SECRET) }).efi!;
  const connector = new EfiConnector(config, log, { backoffMs: 5, timeoutMs: 1000, ...opts.client });
  const applied: Kit['applied'] = [];
  const answered: Kit['answered'] = [];
  let edges: ConnectorEdges | null = null;
  const { server, baseUrl } = await receiver(() => edges!, answered);
  edges = connector.edges(recordingCore(baseUrl, log, applied));
  return {
    efi,
    connector,
    edges,
    applied,
    logs,
    answered,
    baseUrl,
    async close() {
      await efi.idle();
      connector.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await efi.close();
    },
  };
}

/** A payout request to a key (or to account data with `account`). */
export function payout(externalId: string, amountCents: number, to: { key?: string; account?: Partial<Extract<PayoutRequest['destination'], { type: 'bank_account' }>['account']> } = {}): PayoutRequest {
  const destination: PayoutRequest['destination'] = to.account
    ? { type: 'bank_account', account: { ispb: '60701190', branch: '0001', account: '123456', accountType: 'checking', holderName: 'Ana Souza', holderDocument: '52998224725', ...to.account } }
    : { type: 'pix_key', pixKeyType: 'email', pixKey: to.key ?? 'ana@example.com' };
  return { externalId, amountCents, destination, description: 'Saque Cofre' };
}

/** Waits until `check` holds. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail('condition not met in time');
}
