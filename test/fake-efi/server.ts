// A fake Efí (formerly Gerencianet) Pix API for the payout tests: the "Envio de Pix" and what goes
// with it. Written from Efí's public documentation:
// - the send, PUT /v3/gn/pix/:idEnvio (scope pix.send; the paying key must have a webhook; sends one
//   at a time advised; homologation outcomes): https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix/
//   and its 2023 build in github.com/efipay/documentacao-tecnica-efi (markdown/pix/pix/Enviar_pix.md:
//   idEnvio ^[a-zA-Z0-9]{1,35}$; valor \d{1,10}\.\d{2}; pagador.chave ≤ 77, infoPagador < 140;
//   favorecido.chave, or favorecido.contaBanco { nome < 200, cpf ^[0-9]{11}$ | cnpj ^[0-9]{14}$,
//   codigoBanco (ISPB) ^[0-9]{8}$, agencia ^[0-9]{1,4}$, conta ^[0-9]+, tipoConta cacc | svgs };
//   status EM_PROCESSAMENTO, REALIZADO, NAO_REALIZADO; answers 201, 400, 409, 500)
// - the path /v3, the answer { idEnvio, e2eId, valor, horario.solicitacao, status } and the lookup
//   GET /v2/gn/pix/enviados/id-envio/:idEnvio: Efí's node SDK, github.com/efipay/sdk-node-apis-efi
//   (src/lib/endpoints, pixSend and pixSendDetailId); the lookup's answer and its 404
//   (PixEnviadoNaoEncontrado, scope gn.pix.send.read): docs/APIPix/Pix in the 2023 build
// - the balance, GET /v2/gn/saldo ({ "saldo": "100.00" }, scope gn.balance.read):
//   https://dev.efipay.com.br/docs/api-pix/endpoints-exclusivos-efi/
// - OAuth2: POST /oauth/token with HTTP Basic and the JSON body {"grant_type":"client_credentials"},
//   the application's scopes chosen in Efí's panel (pix.send, gn.pix.send.read, gn.balance.read,
//   webhook.write, webhook.read, ...), answer { access_token, token_type, expires_in, scope }:
//   https://dev.efipay.com.br/docs/api-pix/credenciais (docs/APIPix/Credenciais in the 2023 build)
// - the webhook, PUT /v2/webhook/:chave { webhookUrl }, x-skip-mtls-checking, the hmac in the URL,
//   `?ignorar=`, callbacks POSTed to `{webhookUrl}/pix`, the sent-Pix callback
//   { pix: [ { endToEndId, chave, tipo, status, valor, horario, gnExtras: { idEnvio } } ] }, its
//   refusals (valor_invalido, webhook_invalido): https://dev.efipay.com.br/docs/api-pix/webhooks/
//   (docs/APIPix/Webhooks in the 2023 build); the hmac as a query parameter when mTLS is skipped:
//   https://comunidade.sejaefi.com.br/historico?canal=pix&data=2025-01-17&mensagem=webhook
// - refusals `{ nome, mensagem }` (json_invalido, chave_invalida, chave_nao_encontrada,
//   erro_aplicacao): the 2023 build's Pix and exclusive-endpoint pages.
// Not found in the pages read, so the fake's own words: the names of the send's refusals for a
// lacking balance, a duplicate idEnvio (409) and a paying key without webhook; a refusal naming the
// payee's account; the body of Efí's call to a webhook at registration ({} here); the TLS checks a
// registration makes without x-skip-mtls-checking (refused here). HTTPS on 127.0.0.1 requiring the
// client certificate; misbehaviour on demand; loopback receivers only.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { makeCertificate } from '../webhook-receiver.ts';
import { efiRoutes } from './routes.ts';
import { listen, postTo } from './transport.ts';
import type { Behaviour, EfiState, FakeEfi, Sent } from './types.ts';

export type { FakeEfi, Logged, Sent } from './types.ts';

/** The scopes an Efí application for payouts is given. */
export const EFI_SCOPES = ['pix.send', 'gn.pix.send.read', 'gn.balance.read', 'webhook.write', 'webhook.read'];

export interface FakeEfiOptions {
  payingKey?: string;
  balanceCents?: number;
  tokenTtlSeconds?: number;
  /** Every API answer takes this long. */
  latencyMs?: number;
}

function newState(o: FakeEfiOptions): EfiState {
  const behaviour: Behaviour = {
    settleAfterMs: 0,
    failKeys: new Set(),
    failAccounts: new Set(),
    refuseKeys: new Map(),
    refuseAccounts: new Map(),
    fundsRefusal: { nome: 'saldo_insuficiente', mensagem: 'Saldo insuficiente para realizar o envio' },
    notify: 'normal',
    pingOnRegister: true,
    latencyMs: o.latencyMs ?? 0,
  };
  return {
    port: 0,
    payingKey: o.payingKey ?? 'pagamentos@cofre.example',
    balanceCents: o.balanceCents ?? 1_000_000,
    grantable: new Set(EFI_SCOPES),
    auth: { clientId: `Client_Id_${randomBytes(8).toString('hex')}`, clientSecret: `Client_Secret_${randomBytes(16).toString('hex')}`, tokenTtl: o.tokenTtlSeconds ?? 3600, tokens: new Map() },
    tokensIssued: 0,
    sends: new Map(),
    webhooks: new Map(),
    requests: [],
    violations: [],
    behaviour,
    misbehave: { failures: [], delays: [], drops: [], unauthorized: 0 },
    pending: new Set(),
    delivered: [],
  };
}

/** The sent-Pix callback's item, as Efí's webhook page shows it. */
const itemOf = (s: EfiState, p: Sent) => ({ endToEndId: p.e2eId, chave: s.payingKey, tipo: 'SOLICITACAO', status: p.status, valor: p.valor, horario: p.liquidacao ?? p.solicitacao, gnExtras: { idEnvio: p.idEnvio } });

function notifier(s: EfiState) {
  /** POSTs `{ pix: items }` to the paying key's webhook (with its hmac replaced or removed, for forgeries). */
  const post = (items: unknown[], opts: { hmac?: string | null } = {}): Promise<number> => {
    const hook = s.webhooks.get(s.payingKey);
    if (!hook) return Promise.resolve(0);
    let url = hook.webhookUrl;
    if (opts.hmac !== undefined) {
      const u = new URL(url);
      if (opts.hmac === null) u.searchParams.delete('hmac');
      else u.searchParams.set('hmac', opts.hmac);
      url = u.toString();
    }
    const delivery = postTo(url, { pix: items }).then((status) => {
      s.delivered.push({ path: new URL(`${url}/pix`).pathname, status, items });
      return status;
    });
    s.pending.add(delivery);
    void delivery.finally(() => s.pending.delete(delivery));
    return delivery;
  };
  const notify = async (idEnvio: string) => {
    const p = s.sends.get(idEnvio);
    if (p) await post([itemOf(s, p)]);
  };
  return { post, notify };
}

export async function startFakeEfi(o: FakeEfiOptions = {}): Promise<FakeEfi> {
  const serverCert = makeCertificate();
  const client = makeCertificate();
  const s = newState(o);
  const { post, notify } = notifier(s);
  const timers = new Set<NodeJS.Timeout>();
  const settle = async (idEnvio: string, status?: 'REALIZADO' | 'NAO_REALIZADO') => {
    const p = s.sends.get(idEnvio);
    if (p?.status !== 'EM_PROCESSAMENTO') return;
    const fails = (p.favorecido.chave && s.behaviour.failKeys.has(p.favorecido.chave)) || (p.favorecido.contaBanco && s.behaviour.failAccounts.has(p.favorecido.contaBanco.conta));
    p.status = status ?? (fails ? 'NAO_REALIZADO' : 'REALIZADO');
    if (p.status === 'NAO_REALIZADO') s.balanceCents += p.cents;
    else p.liquidacao = new Date().toISOString();
    const mode = s.behaviour.notify;
    if (mode !== 'none') await notify(idEnvio);
    if (mode === 'twice') await notify(idEnvio);
  };
  const schedule = (p: Sent) => {
    const after = s.behaviour.settleAfterMs;
    if (after === null) return;
    const t = setTimeout(() => {
      timers.delete(t);
      void settle(p.idEnvio);
    }, after);
    timers.add(t);
  };
  const server = await listen(s, efiRoutes(s, schedule), serverCert, client.certFile);
  const { misbehave } = s;
  return {
    apiUrl: `https://localhost:${s.port}`,
    tokenUrl: `https://localhost:${s.port}/oauth/token`,
    caFile: serverCert.certFile,
    clientCertFile: client.certFile,
    clientKeyFile: client.keyFile,
    clientId: s.auth.clientId,
    clientSecret: s.auth.clientSecret,
    payingKey: s.payingKey,
    get balanceCents() {
      return s.balanceCents;
    },
    set balanceCents(v) {
      s.balanceCents = v;
    },
    grantable: s.grantable,
    get tokensIssued() {
      return s.tokensIssued;
    },
    sends: s.sends,
    webhooks: s.webhooks,
    requests: s.requests,
    violations: s.violations,
    behaviour: s.behaviour,
    delivered: s.delivered,
    calls: (method, prefix) => s.requests.filter((r) => r.method === method && r.path.startsWith(prefix)),
    paidTo: (to) => [...s.sends.values()].filter((p) => p.status !== 'NAO_REALIZADO' && (p.favorecido.chave === to || p.favorecido.contaBanco?.conta === to)).reduce((sum, p) => sum + p.cents * p.debits, 0),
    failNext: (n, status, pathPrefix) => void misbehave.failures.push(...Array.from({ length: n }, () => ({ status, pathPrefix }))),
    delayNext: (n, ms) => void misbehave.delays.push(...Array<number>(n).fill(ms)),
    dropAnswer: (method, pathPrefix) => void misbehave.drops.push({ method, pathPrefix }),
    unauthorizedOnce: () => void (misbehave.unauthorized += 1),
    settle,
    notify,
    post,
    async idle() {
      while (s.pending.size) await Promise.allSettled([...s.pending]);
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled([...s.pending]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(serverCert.dir, { recursive: true, force: true });
      rmSync(client.dir, { recursive: true, force: true });
    },
  };
}
