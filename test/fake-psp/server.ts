// A fake PSP for the tests, written from the Banco Central's API Pix v2.9.0
// (../shared/spec/bcb-api-pix-2.9.0.yaml): HTTPS that requires a client certificate, the OAuth2
// client-credentials token endpoint with scopes, cob, cobv, pix, devolução and webhook
// registration, and the notifications a PSP posts to `{webhookUrl}/pix`; Pix Automático: locrec,
// rec (journey 3: a cob with the authorisation attached, the composite BR Code), cobr and its
// retentativas, webhookrec and webhookcobr with their notifications to `{webhookUrl}/rec` and
// `{webhookUrl}/cobr`; the payer's side on demand (approve, reject, cancel, debit, a failed attempt). Every request is checked
// against the standard's rules (txid format, required fields, value formats, the scope of the
// token) and refused with the standard's RFC 7807 problems. It misbehaves on demand: a 401 for a
// valid token, 5xx answers, slow answers, duplicate, out-of-order, bare-array and forged
// notifications, and notifications that are never sent. It listens on loopback only and calls
// loopback webhooks only.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { makeCertificate } from '../webhook-receiver.ts';
import { cobrRoutes, recRoutes, recurringWebhookRoutes } from './automatico-routes.ts';
import { automaticoPayer, pixPayer } from './payer.ts';
import { pixRoutes } from './pix-routes.ts';
import { ALL_SCOPES } from './standard.ts';
import { listen } from './transport.ts';
import type { AddRoute, FakePsp, PspState } from './types.ts';

// The fake PSP in parts: types.ts (its records and public face), standard.ts (the standard's rules),
// views.ts (its answers), pix-routes.ts and automatico-routes.ts (the API), transport.ts (HTTPS,
// OAuth2, misbehaviours, notifications), payer.ts (the payer's side). Importers use this file.
export { ALL_SCOPES, cents as pspCents, cobvAmountOn, money as pspMoney } from './standard.ts';
export type { Cob, CobRRecord, Devolucao, FakePsp, Logged, NotifyOptions, PixRecord, RecRecord, Tentativa, Violation } from './types.ts';

export async function startFakePsp(opts: { keys?: string[]; tokenTtlSeconds?: number } = {}): Promise<FakePsp> {
  const server = makeCertificate();
  const client = makeCertificate();
  const s = newState(opts);
  const route: AddRoute = (method, re, scope, handle) => void s.routes.push({ method, re, scope, handle });
  pixRoutes(s, route);
  recRoutes(s, route);
  cobrRoutes(s, route);
  recurringWebhookRoutes(s, route);
  const httpsServer = await listen(s, server, client.certFile);

  const psp: FakePsp = {
    apiUrl: `https://localhost:${s.port}/api/v2`,
    tokenUrl: `https://localhost:${s.port}/oauth/token`,
    caFile: server.certFile,
    clientCertFile: client.certFile,
    clientKeyFile: client.keyFile,
    clientId: s.auth.clientId,
    clientSecret: s.auth.clientSecret,
    keys: s.keys,
    cobs: s.cobs,
    pix: s.pix,
    webhooks: s.webhooks,
    recs: s.recs,
    cobrs: s.cobrs,
    get recWebhook() {
      return s.recWebhook;
    },
    set recWebhook(hook) {
      s.recWebhook = hook;
    },
    get cobrWebhook() {
      return s.cobrWebhook;
    },
    set cobrWebhook(hook) {
      s.cobrWebhook = hook;
    },
    requests: s.requests,
    get tokensIssued() {
      return s.tokensIssued;
    },
    set tokensIssued(n) {
      s.tokensIssued = n;
    },
    grantable: s.grantable,
    ...misbehaviours(s),
    ...pixPayer(s),
    ...automaticoPayer(s),
    async close() {
      httpsServer.closeAllConnections();
      await new Promise<void>((resolve) => httpsServer.close(() => resolve()));
      rmSync(server.dir, { recursive: true, force: true });
      rmSync(client.dir, { recursive: true, force: true });
    },
  };
  return psp;
}

function newState(opts: { keys?: string[]; tokenTtlSeconds?: number }): PspState {
  return {
    port: 0,
    keys: new Set(opts.keys ?? ['pix@loja.example']),
    grantable: new Set<string>(ALL_SCOPES),
    cobs: new Map(),
    pix: new Map(),
    webhooks: new Map(),
    recs: new Map(),
    cobrs: new Map(),
    locrecs: new Map(),
    locId: 1000,
    locRecId: 500,
    recWebhook: null,
    cobrWebhook: null,
    routes: [],
    requests: [],
    tokensIssued: 0,
    auth: { clientId: `client_${randomBytes(4).toString('hex')}`, clientSecret: randomBytes(16).toString('hex'), tokenTtl: opts.tokenTtlSeconds ?? 3600, tokens: new Map() },
    misbehave: { failures: [], delays: [], drops: [], targeted: [], unauthorized: 0 },
  };
}

/** The request log and the misbehaviours a test queues for the next requests. */
function misbehaviours(s: PspState): Pick<FakePsp, 'calls' | 'failNext' | 'dropAnswer' | 'failNextOn' | 'unauthorizedOnce' | 'delayNext'> {
  const { requests, misbehave } = s;
  return {
    calls: (method, prefix) => requests.filter((r) => r.method === method && r.path.startsWith(`/api/v2${prefix}`)),
    failNext(n, status) {
      for (let i = 0; i < n; i++) misbehave.failures.push(status);
    },
    dropAnswer(method, pathPrefix) {
      misbehave.drops.push({ method, pathPrefix });
    },
    failNextOn(method, path, status) {
      misbehave.targeted.push({ method, path, status });
    },
    unauthorizedOnce() {
      misbehave.unauthorized += 1;
    },
    delayNext(n, ms) {
      for (let i = 0; i < n; i++) misbehave.delays.push(ms);
    },
  };
}
