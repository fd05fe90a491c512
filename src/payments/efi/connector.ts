// Payouts through Efí's "Envio de Pix" (formerly Gerencianet): PUT /v3/gn/pix/{idEnvio} from the
// platform's paying key to a Pix key or to account data, under idEnvio = our reference (the same on
// every retry, so Efí never sends it twice); the state of a send by GET
// /v2/gn/pix/enviados/id-envio/{idEnvio}; the platform's balance by GET /v2/gn/saldo; the webhook
// Efí requires on the paying key (PUT /v2/webhook/{chave}), whose notifications are confirmed by
// lookup (inbound.ts, edges.ts). The HTTP side is the API Pix client's (OAuth2 over mTLS, token
// cache, retries of these idempotent calls, circuit breaker) with Efí's JSON token request.
import type { EfiConfig } from '../../config.ts';
import type { Connector, ConnectorCore, ConnectorEdges, ConnectorLog, PayoutHealth, PayoutRequest, PayoutSent, PayoutState, Rail } from '../connector.ts';
import { PixApiClient, PixApiError, type ClientOptions } from '../pix-api/client.ts';
import { efiEdges } from './edges.ts';
import {
  EFI_PROVIDER,
  FAILURE_MESSAGES,
  favorecidoOf,
  ID_ENVIO,
  infoPagadorOf,
  logOf,
  mentionsFunds,
  notFound,
  PLATFORM_REFUSALS,
  reasonOf,
  refusalOf,
  stateOf,
  toCents,
  toMoney,
  type SentPix,
} from './mapping.ts';

/** The scopes the Efí application needs (granted in Efí's panel; the token request asks for none). */
export const EFI_SCOPES = ['pix.send', 'gn.pix.send.read', 'gn.balance.read', 'webhook.write', 'webhook.read'] as const;

const HELD_MESSAGE = "The platform's Efí account lacks the balance for this payout; it is sent again once the account is topped up";

export class EfiConnector implements Connector {
  readonly name = EFI_PROVIDER;
  readonly rails: readonly Rail[] = ['PAYOUT'];
  readonly client: PixApiClient;
  readonly payingKey: string;
  /** Where Efí is told to notify (set when the edges are built) and whether it took it, this process. */
  webhook: { url: string; registered: boolean } | null = null;
  private webhookSecret: string;
  private log: ConnectorLog;
  private registering: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(config: EfiConfig, log: ConnectorLog, opts: ClientOptions = {}) {
    const credentialsHint = `EFI_CLIENT_ID, EFI_CLIENT_SECRET, the certificate and the application's scopes (${EFI_SCOPES.join(', ')})`;
    this.client = new PixApiClient(config, { scopes: null, tokenBody: 'json', credentialsHint, ...opts });
    this.payingKey = config.payingKey;
    this.webhookSecret = config.webhookSecret;
    this.log = log;
  }

  /**
   * One send at a time per process: Efí warns that simultaneous sends from one account may fail
   * ("colisão de movimentações de saldo") and suggests waiting for the previous one.
   */
  sendPayout(req: PayoutRequest): Promise<PayoutSent> {
    const next = this.queue.then(() => this.send(req));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async send(req: PayoutRequest): Promise<PayoutSent> {
    if (!ID_ENVIO.test(req.externalId)) throw new Error(`efi: the payout reference must be 1 to 35 letters or digits (idEnvio), got ${req.externalId.length} characters`);
    const favorecido = favorecidoOf(req.destination);
    if ('status' in favorecido) return favorecido;
    // Efí sends nothing from a key without a webhook: registered first (a failure leaves the outcome to the janitor).
    await this.ensureWebhook();
    const info = infoPagadorOf(req.description);
    const body = { valor: toMoney(req.amountCents), pagador: { chave: this.payingKey, ...(info ? { infoPagador: info } : {}) }, favorecido };
    try {
      const answer = await this.client.call<{ e2eId?: unknown } | null>('PUT', `/v3/gn/pix/${req.externalId}`, body);
      return { status: 'SENT', ...(typeof answer?.e2eId === 'string' && answer.e2eId ? { providerId: answer.e2eId } : {}) };
    } catch (err) {
      // No answer, a 5xx, an open circuit, our credentials refused: the outcome is unknown (the janitor asks).
      if (!(err instanceof PixApiError) || err.kind !== 'refused') throw err;
      if (err.status === 409) return this.alreadySent(req.externalId);
      return this.refused(req, err);
    }
  }

  /** A 409: this idEnvio was sent before (a retry after a lost answer). Its state there is the answer. */
  private async alreadySent(idEnvio: string): Promise<PayoutSent> {
    const state = await this.findPayout(idEnvio);
    if (state?.status === 'FAILED') return state;
    if (state) return { status: 'SENT', ...(state.providerId ? { providerId: state.providerId } : {}) };
    this.log.error({ efi: { idEnvio } }, 'efi: Efí refuses this idEnvio as already used but shows no Pix sent under it; left PROCESSING for the janitor: check the account at Efí');
    throw new Error('efi: idEnvio already used at Efí, with no sent Pix to show');
  }

  /**
   * A definite refusal: the platform's own problem (logged, outcome left unknown), its balance short
   * (HELD: said so by Efí, or the balance is below the amount), or the merchant's destination (FAILED).
   */
  private async refused(req: PayoutRequest, err: PixApiError): Promise<PayoutSent> {
    const r = refusalOf(err);
    const where = { efi: { idEnvio: req.externalId, status: r.status, nome: r.nome } };
    if (r.nome && PLATFORM_REFUSALS.has(r.nome)) {
      this.log.error(where, "efi: Efí refused a payout for a reason of the platform's account (its document blocked, or EFI_PAYING_KEY not the account's key); an operator must act");
      throw err;
    }
    if (mentionsFunds(r) || (await this.lacksFunds(req.amountCents))) return { status: 'HELD', reason: 'PLATFORM_FUNDS', message: HELD_MESSAGE };
    const reason = reasonOf(r, req.destination);
    // json_invalido is Efí's word for a body of wrong fields: ours to fix, not the merchant's.
    if (r.nome === 'json_invalido') this.log.error({ ...where, reason }, 'efi: Efí refused the body of a payout as invalid (an integration error)');
    else this.log.warn({ ...where, reason }, 'efi: Efí refused a payout');
    return { status: 'FAILED', reason, message: FAILURE_MESSAGES[reason] };
  }

  /** Whether the balance is below `cents`; a balance Efí does not give (scope, format) is no evidence. */
  private async lacksFunds(cents: number): Promise<boolean> {
    try {
      return (await this.payoutHealth()).balanceCents! < cents;
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'unavailable') throw err;
      this.log.warn({ efi: logOf(err) }, 'efi: the balance could not be read to explain a refusal (scope gn.balance.read?)');
      return false;
    }
  }

  /** GET /v2/gn/pix/enviados/id-envio/{idEnvio}: null when Efí has no Pix sent under it. */
  async findPayout(reference: string): Promise<PayoutState | null> {
    if (!ID_ENVIO.test(reference)) return null;
    let sent: SentPix | null;
    try {
      sent = await this.client.call<SentPix | null>('GET', `/v2/gn/pix/enviados/id-envio/${reference}`);
    } catch (err) {
      if (err instanceof PixApiError && notFound(err)) return null;
      throw err;
    }
    if (!sent || (sent.idEnvio !== undefined && sent.idEnvio !== reference)) throw new Error('efi: the lookup of a sent Pix answered another idEnvio');
    return stateOf(sent);
  }

  /** GET /v2/gn/saldo: the account's available balance ({ "saldo": "100.00" }). */
  async payoutHealth(): Promise<PayoutHealth> {
    const answer = await this.client.call<{ saldo?: unknown } | null>('GET', '/v2/gn/saldo');
    const balanceCents = toCents(answer?.saldo);
    if (balanceCents === null) throw new Error('efi: the balance Efí answered is not an amount');
    return { balanceCents };
  }

  /**
   * PUT /v2/webhook/{chave} with the notification URL, once per process (Efí replaces the key's URL:
   * idempotent). x-skip-mtls-checking: the gateway cannot check Efí's client certificate behind its
   * TLS terminator, so notifications carry the secret instead and are never believed (inbound.ts).
   */
  async ensureWebhook(): Promise<void> {
    const hook = this.webhook;
    if (!hook || hook.registered) return;
    this.registering ??= this.client
      .call('PUT', `/v2/webhook/${encodeURIComponent(this.payingKey)}`, { webhookUrl: hook.url }, { headers: { 'x-skip-mtls-checking': 'true' } })
      .then(() => {
        hook.registered = true;
        this.log.info({ webhookUrl: hook.url.split('?')[0] }, 'efi: webhook registered with Efí for the paying key');
      })
      .finally(() => {
        this.registering = null;
      });
    return this.registering;
  }

  edges(core: ConnectorCore): ConnectorEdges {
    return efiEdges(this, core, this.webhookSecret);
  }

  close() {
    this.client.close();
  }
}
