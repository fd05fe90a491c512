// Cards kept by e.Rede's token service ("Tokenização de Bandeira", /token-service/oauth/v2 on
// EREDE_TOKEN_SERVICE_URL, with the same OAuth2 token as the transactions API). Rede publishes no
// open reference for it; the paths, fields and codes below are those of the public SDKs and
// integrations cited in docs/providers.md ("Connecting e.Rede") and test/fake-erede/vault.ts.
// Keeping a card: POST /tokenization with the card (PAN and CVV travel only in that body) answers
// a `tokenizationId`, our token. The card scheme's token is made asynchronously: the tokenisation
// stays Pending until it is Active, so a charge first asks GET /tokenization/{id} and refuses a
// token not Active (no sale is made), then asks a one-use cryptogram (POST /cryptogram/{id},
// `subscription` for recurring charges) and makes a sale with `cardToken`, `tokenCryptogram` and
// `storageCard` 2 (a stored credential) under our reference, like any sale (never charged twice).
import { validateCard, type CardInput } from '../card.ts';
import type { CardDeclineReason, CardHolder, CardResult, CardToken, ConnectorLog, TokenChargeRequest } from '../connector.ts';
import { AppError, validation } from '../../http/errors.ts';
import { EredeUnavailable, type Answer, type EredeClient } from './client.ts';
import { code, eredeReference, holderName, message } from './mapping.ts';

/** A tokenizationId: e.Rede's token of a kept card (a UUID). */
const TOKENIZATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** storageCard: 0 the card is being stored now (tokenisation), 2 a credential stored earlier (a charge). */
const NOT_STORED_YET = 0;
const STORED = 2;
/** 38: "Token Cryptogram unavailable. Check the token status". */
const CRYPTOGRAM_UNAVAILABLE = '38';

/** A token that cannot be charged, by its tokenizationStatus (Active is chargeable; Pending will be). */
const NOT_CHARGEABLE: Record<string, CardDeclineReason> = { Pending: 'PROCESSING_ERROR', Suspended: 'CARD_DECLINED', Inactive: 'INVALID_CARD', Failed: 'INVALID_CARD', Deleted: 'INVALID_CARD' };

export interface VaultParts {
  client: EredeClient;
  /** EREDE_TOKEN_SERVICE_URL. */
  base: string;
  log: ConnectorLog;
  softDescriptor: string | null;
  /** The connector's sale under our reference (asked for by reference when its answer is lost). */
  sell(reference: string, body: Record<string, unknown>): Promise<CardResult>;
}

const unreachable = () => new AppError(503, 'The card provider (e.Rede) did not answer; the card was not saved. Try again in a moment.');

export class EredeVault {
  private readonly p: VaultParts;

  constructor(parts: VaultParts) {
    this.p = parts;
  }

  private url(path: string) {
    return `${this.p.base}/token-service/oauth/v2${path}`;
  }

  /** POST /tokenization (a zero-dollar check of the card included), then its status: a card e.Rede will not keep is a 400. */
  async tokenize(card: CardInput, holder: CardHolder): Promise<CardToken> {
    const checked = validateCard(card, new Date());
    if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
    const year = Number(card.expYear) < 100 ? 2000 + Number(card.expYear) : Number(card.expYear);
    const body = {
      email: holder.email,
      cardNumber: card.number.replace(/[\s-]/g, ''),
      expirationMonth: String(card.expMonth).padStart(2, '0'),
      expirationYear: String(year),
      cardholderName: holderName(card.holderName),
      securityCode: String(card.cvv),
      storageCard: NOT_STORED_YET,
      embeddedZeroDollar: true,
    };
    const made = await this.ask(() => this.p.client.callAt('POST', this.url('/tokenization'), body));
    const id = String(made.body?.tokenizationId ?? '');
    if (code(made.body) !== '00' || !TOKENIZATION_ID.test(id)) {
      this.p.log.warn({ erede: { status: made.status, returnCode: code(made.body), returnMessage: message(made.body) } }, 'erede: the token service refused to keep a card');
      throw validation('card', `the card provider (e.Rede) refused to keep this card (${code(made.body) || made.status}: ${message(made.body)})`);
    }
    const status = await this.status(id).catch(() => 'Pending');
    if (status !== 'Active' && status !== 'Pending') throw validation('card', `the card provider (e.Rede) could not keep this card (its token is ${status})`);
    return { token: id.toLowerCase(), brand: checked.brand, last4: checked.last4, expMonth: Number(card.expMonth), expYear: year };
  }

  /** A kept card's charge: its token Active, a cryptogram for this sale, then the sale under our reference. */
  async charge(req: TokenChargeRequest): Promise<CardResult> {
    if (!TOKENIZATION_ID.test(req.token)) return { approved: false, reason: 'INVALID_CARD', message: 'not a card token of e.Rede' };
    const status = await this.status(req.token);
    if (status === null) return { approved: false, reason: 'INVALID_CARD', message: 'e.Rede does not know this card token for this PV: save the card again' };
    if (status !== 'Active') {
      const reason = NOT_CHARGEABLE[status] ?? 'PROCESSING_ERROR';
      return { approved: false, reason, message: `e.Rede's token of this card is ${status}, not Active: not charged${status === 'Pending' ? ' (the card scheme is still making it; try again in a moment)' : ''}` };
    }
    const recurring = req.kind !== 'ONE_CLICK';
    const crypto = await this.p.client.callAt('POST', this.url(`/cryptogram/${req.token}`), { subscription: recurring });
    if (crypto.status >= 500) throw new EredeUnavailable(`e.Rede's token service answered ${crypto.status} to a cryptogram`, crypto.status);
    const info = (crypto.body?.cryptogramInfo ?? {}) as { tokenCryptogram?: unknown; eci?: unknown };
    if (code(crypto.body) !== '00' || typeof info.tokenCryptogram !== 'string') {
      const c = code(crypto.body) || String(crypto.status);
      return { approved: false, reason: 'PROCESSING_ERROR', message: `e.Rede ${c}: ${message(crypto.body)}${c === CRYPTOGRAM_UNAVAILABLE ? ' (the token is not usable yet): not charged' : ': not charged'}`, code: c };
    }
    const body = {
      capture: true,
      kind: 'credit',
      reference: eredeReference(req.reference),
      amount: req.amountCents,
      cardToken: req.token,
      tokenCryptogram: info.tokenCryptogram,
      storageCard: STORED,
      subscription: recurring,
      ...(typeof info.eci === 'string' && info.eci ? { securityAuthentication: { sai: info.eci } } : {}),
      ...(this.p.softDescriptor ? { softDescriptor: this.p.softDescriptor } : {}),
    };
    return this.p.sell(req.reference, body);
  }

  /** GET /tokenization/{id}: its tokenizationStatus, or null when e.Rede has no such token for this PV. */
  private async status(id: string): Promise<string | null> {
    const answer = await this.p.client.callAt('GET', this.url(`/tokenization/${id}`));
    if (answer.status === 404) return null;
    if (answer.status >= 500 || !answer.body) throw new EredeUnavailable(`e.Rede's token service answered ${answer.status} to a token query`, answer.status);
    if (code(answer.body) !== '00') return null;
    return String(answer.body.tokenizationStatus ?? 'Pending');
  }

  /** A call whose lack of answer is a 503 (nothing was charged; a token made meanwhile is orphaned at e.Rede, never charged). */
  private async ask(call: () => Promise<Answer>): Promise<Answer> {
    try {
      const answer = await call();
      if (answer.status >= 500) throw new EredeUnavailable(`e.Rede's token service answered ${answer.status}`, answer.status);
      return answer;
    } catch (err) {
      if (!(err instanceof EredeUnavailable)) throw err;
      this.p.log.warn({ erede: err.message }, 'erede: the token service did not answer a tokenisation');
      throw unreachable();
    }
  }
}
