// Card payments through e.Rede (Rede's e-commerce API v2, OAuth2): credit sales and authorisations
// under a `reference` derived from our transaction id (mapping.ts), capture, void and refunds by
// e.Rede's tid, lookups by reference. Never charged twice: a sale whose answer is lost is asked for
// by reference before the one retry, and e.Rede refuses a second sale with the same reference (42).
// With EREDE_TOKEN_SERVICE_URL, cards are kept by e.Rede's token service (vault.ts: tokenizeCard and
// chargeToken, a stored card's charge being a sale like any other here); without it both are
// absent (no saved cards nor card subscriptions through it). PAN and CVV only travel in the body
// of a sale or of a tokenisation request: never logged, never kept.
import type { EredeConfig } from '../../config-connectors.ts';
import type { CardInput } from '../card.ts';
import type { AuthorizationRequest, CardChargeRequest, CardDeclineReason, CardHolder, CardResult, CardToken, ChargeLookup, Connector, ConnectorCore, ConnectorEdges, ConnectorLog, ProviderResult, Rail, RefundRequest, RefundResult, TokenChargeRequest } from '../connector.ts';
import { EredeClient, EredeUnavailable, type Answer, type EredeClientOptions } from './client.ts';
import { APPROVED, code, declineReason, EREDE_PROVIDER, eredeReference, isIntegrationError, lookupOf, message, NOT_FOUND, REFERENCE_EXISTS, REFUND_WINDOW_DAYS, saleBody } from './mapping.ts';
import { followRefunds, refundAnswer, refundOf, type EredeRefund } from './refunds.ts';
import { EredeVault } from './vault.ts';

export class EredeConnector implements Connector {
  readonly name = EREDE_PROVIDER;
  readonly rails: readonly Rail[] = ['CARD'];
  readonly refundWindowDays = REFUND_WINDOW_DAYS;
  readonly client: EredeClient;
  private readonly config: EredeConfig;
  private readonly log: ConnectorLog;
  private core: ConnectorCore | null = null;
  /** Present only with a token service (EREDE_TOKEN_SERVICE_URL): the core reads their absence as "keeps no cards". */
  readonly tokenizeCard?: (card: CardInput, holder: CardHolder) => Promise<CardToken>;
  readonly chargeToken?: (req: TokenChargeRequest) => Promise<CardResult>;

  constructor(config: EredeConfig, log: ConnectorLog, opts: EredeClientOptions = {}) {
    this.config = config;
    this.log = log;
    this.client = new EredeClient(config, opts);
    if (config.tokenServiceUrl) {
      const vault = new EredeVault({ client: this.client, base: config.tokenServiceUrl, log, softDescriptor: config.softDescriptor, sell: (reference, body) => this.sell(reference, body) });
      this.tokenizeCard = (card, holder) => vault.tokenize(card, holder);
      this.chargeToken = (req) => vault.charge(req);
    }
  }

  close() {
    this.client.close();
  }

  /** A refund e.Rede only received (360) is followed until it says Done or Denied. */
  edges(core: ConnectorCore): ConnectorEdges {
    this.core = core;
    return { routes: [], sweeps: [{ name: 'refunds', batch: 50, run: (now) => followRefunds({ core, list: (tid) => this.refundsOf(tid) }, now, 50) }] };
  }

  chargeCard(req: CardChargeRequest): Promise<CardResult> {
    return this.sell(req.reference, saleBody(req, this.config.softDescriptor));
  }

  /** POST /v2/transactions under our `reference` (a card's sale or a stored card's), made once. */
  private async sell(reference: string, body: Record<string, unknown>): Promise<CardResult> {
    let answer: Answer;
    try {
      answer = await this.client.call('POST', '', body);
    } catch (err) {
      if (!(err instanceof EredeUnavailable)) throw err;
      // The sale may have gone through: asked by reference before the one retry (same reference).
      const found = await this.findCharge(reference);
      if (found) return this.settled(found, err);
      this.log.warn({ transactionId: reference, erede: err.message }, 'erede: no answer to a sale and none made under its reference; sent once more');
      answer = await this.client.call('POST', '', body);
    }
    return this.saleResult(reference, answer);
  }

  private async saleResult(reference: string, answer: Answer): Promise<CardResult> {
    const c = code(answer.body);
    if (c === APPROVED && typeof answer.body?.tid === 'string') return { approved: true, reference: answer.body.tid, code: c };
    // Refused as a duplicate (our retry of a sale that went through), or approved without its tid: asked by reference.
    if (c === REFERENCE_EXISTS || c === APPROVED) {
      const found = await this.findCharge(reference);
      if (found) return this.settled(found, new EredeUnavailable(c === APPROVED ? 'an approval without its tid' : 'reference already used'));
      if (c === APPROVED) throw new EredeUnavailable('e.Rede approved a sale it cannot find by reference');
    }
    if (!c) throw new EredeUnavailable(`e.Rede answered ${answer.status} without a returnCode`, answer.status);
    if (isIntegrationError(c)) this.log.error({ transactionId: reference, returnCode: c, returnMessage: message(answer.body) }, 'erede: the sale was refused for its request or contract, not the card');
    return { approved: false, reason: declineReason(c), message: `e.Rede ${c}: ${message(answer.body)}`, code: c };
  }

  /** A sale found by reference as the charge's result; one still undecided there is no answer yet. */
  private settled(found: ChargeLookup, err: Error): CardResult {
    if (found.status === 'PAID' || found.status === 'AUTHORIZED') return { approved: true, reference: found.reference, code: APPROVED };
    if (found.status === 'FAILED') return { approved: false, reason: found.reason as CardDeclineReason, message: found.message };
    throw new EredeUnavailable(`the sale is ${found.status} at e.Rede after: ${err.message}`);
  }

  /** The sale made under our reference (e.Rede keeps reference lookups for 60 days), or null. */
  async findCharge(reference: string): Promise<ChargeLookup | null> {
    const answer = await this.client.call('GET', `?reference=${eredeReference(reference)}`);
    if (answer.status === 404 || code(answer.body) === NOT_FOUND) return null;
    if (answer.status !== 200 || !answer.body) throw new EredeUnavailable(`e.Rede answered ${answer.status} to a query by reference (${code(answer.body) || 'no code'})`, answer.status);
    return lookupOf(answer.body);
  }

  /** e.Rede's tid of our sale: the one stored, else asked by reference. */
  private async tidOf(req: { transactionId: string; paymentReference: string | null }): Promise<string | null> {
    if (req.paymentReference) return req.paymentReference;
    const found = await this.findCharge(req.transactionId);
    return found && 'reference' in found ? found.reference : null;
  }

  private async transaction(tid: string): Promise<Record<string, unknown> | null> {
    const answer = await this.client.call('GET', `/${encodeURIComponent(tid)}`);
    return answer.status === 200 ? answer.body : null;
  }

  /** Captures all or part of an authorisation (PUT with the amount); one already captured is fine. */
  async captureCard(req: AuthorizationRequest): Promise<ProviderResult> {
    const tid = await this.tidOf(req);
    if (!tid) return { ok: false, reason: 'NOT_FOUND', message: 'e.Rede has no sale under this reference' };
    const answer = await this.client.call('PUT', `/${encodeURIComponent(tid)}`, { amount: req.amountCents });
    if (code(answer.body) === APPROVED) return { ok: true };
    if ((await this.transaction(tid))?.capture) return { ok: true };
    return { ok: false, reason: `EREDE_${code(answer.body) || answer.status}`, message: message(answer.body) };
  }

  /** Releases an authorisation: e.Rede cancels one not captured through a refund of its whole amount. */
  async voidCard(req: AuthorizationRequest): Promise<ProviderResult> {
    const tid = await this.tidOf(req);
    if (!tid) return { ok: true }; // no sale there: nothing is held
    const before = await this.transaction(tid);
    const auth = (before?.authorization ?? {}) as { status?: string; amount?: number };
    if (auth.status === 'Canceled' || auth.status === 'Denied') return { ok: true };
    const answer = await this.client.call('POST', `/${encodeURIComponent(tid)}/refunds`, { amount: auth.amount });
    const result = refundAnswer(answer);
    if (result.ok) return { ok: true };
    const after = (await this.transaction(tid))?.authorization as { status?: string } | undefined;
    return after?.status === 'Canceled' ? { ok: true } : { ok: false, reason: result.reason, message: result.message };
  }

  /** A refund, all or part (359: made; 360: received, decided later and followed by the refunds sweep). */
  async refund(req: RefundRequest): Promise<RefundResult> {
    const tid = await this.tidOf(req);
    if (!tid) return { ok: false, reason: 'NOT_FOUND', message: 'e.Rede has no sale under this reference' };
    return refundAnswer(await this.client.call('POST', `/${encodeURIComponent(tid)}/refunds`, { amount: req.amountCents }));
  }

  /**
   * A refund whose answer was lost. e.Rede names refunds by its own refundId, not ours: ours is the
   * refund of that amount on the sale that no other refund of ours already names (refunds made
   * outside Cofre, e.g. on e.Rede's portal, would confuse this).
   */
  async findRefund(req: RefundRequest): Promise<RefundResult | null> {
    const tid = await this.tidOf(req);
    if (!tid || !this.core) return null;
    const made = (await this.refundsOf(tid)).filter((r) => r.amount === req.amountCents);
    if (!made.length) return null;
    const claimed = await this.core.db.selectFrom('refunds').select('provider_ref').where('transaction_id', '=', req.transactionId).where('id', '!=', req.refundId).where('provider_ref', 'in', made.map((r) => r.refundId)).execute();
    const taken = new Set(claimed.map((r) => r.provider_ref));
    const mine = made.find((r) => !taken.has(r.refundId));
    return mine ? refundOf(mine) : null;
  }

  private async refundsOf(tid: string): Promise<EredeRefund[]> {
    const answer = await this.client.call('GET', `/${encodeURIComponent(tid)}/refunds`);
    if (answer.status === 404 || code(answer.body) === NOT_FOUND) return [];
    if (answer.status !== 200) throw new EredeUnavailable(`e.Rede answered ${answer.status} to a refunds query`, answer.status);
    const list = Array.isArray(answer.body?.refunds) ? (answer.body.refunds as EredeRefund[]) : [];
    return [...list].sort((a, b) => String(a.refundDateTime ?? '').localeCompare(String(b.refundDateTime ?? '')));
  }
}
