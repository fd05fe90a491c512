// The fake e.Rede's token service ("Tokenização de Bandeira", /token-service/oauth/v2), written from
// the public material there is (Rede publishes no open reference for it):
//   - bizcommerce/erede-php v4 (2026): src/Rede/CardTokenization.php (POST /tokenization: email,
//     cardNumber, expirationMonth, expirationYear, storageCard 0 not stored / 2 stored,
//     cardholderName, securityCode, kind, embeddedZeroDollar), src/Rede/Tokenization.php and
//     tests/fixtures/tokenization_query.json (GET /tokenization/{id}: returnCode, returnMessage,
//     tokenizationId, affiliation, tokenizationStatus Pending | Active | Inactive | Suspended |
//     Failed | Deleted, bin, last4, lastModifiedDate, brand{name, tokenstatus, brandTid},
//     token{code, expirationDate}), docs/tokenization.md ("the brand token is generated
//     asynchronously"), src/Rede/Transaction.php (a sale with cardToken = tokenizationId and
//     storageCard 2);
//   - silbeckdevs/erede-php a65845f (2026-08): cardToken and tokenCryptogram on a sale;
//   - the devsitarget/sdk-erede-php-oauth README and its sandbox integration test
//     (POST /cryptogram/{tokenizationId} {subscription}: cryptogramInfo{tokenCryptogram, eci,
//     expirationDate}, one per sale; 38 "Token Cryptogram unavailable. Check the token status"
//     until the token is provisioned; securityAuthentication.sai = eci; the tokenizationId a UUID).
// What that material does not give is the fake's own and marked so: the codes of a refused
// tokenisation request (400 with a returnCode naming the field) and the 404 of a tokenizationId
// this PV does not own. A token is the PV's that made it: another PV's bearer does not see it.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Reply } from './routes.ts';

export const TOKEN_API = '/token-service/oauth/v2';

export interface KeptCard {
  id: string;
  pv: string;
  email: string;
  bin: string;
  last4: string;
  expirationMonth: string;
  expirationYear: string;
  status: 'Pending' | 'Active' | 'Suspended' | 'Inactive' | 'Failed' | 'Deleted';
  /** Queries still answered Pending before the token turns Active (the scheme's asynchrony). */
  pendingQueries: number;
  /** Cryptograms given and not yet spent by a sale. */
  cryptograms: Set<string>;
  /** What was asked of each cryptogram (subscription or not). */
  asked: Array<{ subscription: boolean }>;
}

export interface Vault {
  cards: Map<string, KeptCard>;
  /** Queries a new token answers Pending before it is Active (0: Active at once). */
  pendingQueries: number;
}

const code = (status: number, returnCode: string, returnMessage: string): Reply => ({ status, body: { returnCode, returnMessage } });
const digits = (v: unknown) => typeof v === 'string' && /^\d+$/.test(v);

/** POST /tokenization's fields (fake's own codes: the public material gives none). */
function checkTokenization(b: Record<string, unknown>): Reply | null {
  if (typeof b.email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(b.email) || b.email.length > 255) return code(400, '10', 'email: Invalid parameter format');
  if (!digits(b.cardNumber) || String(b.cardNumber).length < 13 || String(b.cardNumber).length > 19) return code(400, '11', 'cardNumber: Invalid parameter format');
  if (!digits(b.expirationMonth) || String(b.expirationMonth).length > 2 || Number(b.expirationMonth) < 1 || Number(b.expirationMonth) > 12) return code(400, '12', 'expirationMonth: Invalid parameter format');
  if (!digits(b.expirationYear) || String(b.expirationYear).length !== 4) return code(400, '13', 'expirationYear: Invalid parameter format');
  if (![0, 1, 2].includes(b.storageCard as number)) return code(400, '14', 'storageCard: Invalid parameter format');
  if (b.securityCode !== undefined && (!digits(b.securityCode) || !/^\d{3,4}$/.test(String(b.securityCode)))) return code(400, '15', 'securityCode: Invalid parameter format');
  if (b.cardholderName !== undefined && (typeof b.cardholderName !== 'string' || !/^[A-Za-z ]{1,30}$/.test(b.cardholderName))) return code(400, '16', 'cardholderName: Invalid parameter format');
  if (b.embeddedZeroDollar !== undefined && typeof b.embeddedZeroDollar !== 'boolean') return code(400, '17', 'embeddedZeroDollar: Invalid parameter format');
  return null;
}

/** A request to the token service by the PV `pv` (the bearer's). */
export function vaultRoute(v: Vault, pv: string, method: string, path: string, body: Record<string, unknown>): Reply {
  const rest = path.slice(TOKEN_API.length);
  if (method === 'POST' && rest === '/tokenization') return tokenize(v, pv, body);
  const id = /^\/(tokenization|cryptogram)\/([0-9a-f-]{36})$/.exec(rest);
  const card = id ? v.cards.get(id[2]) : undefined;
  // Another PV's token is not there for this one (fake's own answer).
  if (!id || !card || card.pv !== pv) return code(404, '78', 'Tokenization not found');
  if (method === 'GET' && id[1] === 'tokenization') return { status: 200, body: view(card) };
  if (method === 'POST' && id[1] === 'cryptogram') return cryptogram(card, body);
  return code(404, '78', 'Tokenization not found');
}

function tokenize(v: Vault, pv: string, b: Record<string, unknown>): Reply {
  const refused = checkTokenization(b);
  if (refused) return refused;
  const number = String(b.cardNumber);
  const card: KeptCard = {
    id: randomUUID(),
    pv,
    email: String(b.email),
    bin: number.slice(0, 6),
    last4: number.slice(-4),
    expirationMonth: String(b.expirationMonth).padStart(2, '0'),
    expirationYear: String(b.expirationYear),
    status: v.pendingQueries > 0 ? 'Pending' : 'Active',
    pendingQueries: v.pendingQueries,
    cryptograms: new Set(),
    asked: [],
  };
  v.cards.set(card.id, card);
  return { status: 201, body: { returnCode: '00', returnMessage: 'Success', tokenizationId: card.id } };
}

function view(card: KeptCard) {
  if (card.status === 'Pending' && card.pendingQueries-- <= 0) card.status = 'Active';
  return {
    returnCode: '00',
    returnMessage: 'Success',
    tokenizationId: card.id,
    affiliation: card.pv,
    tokenizationStatus: card.status,
    bin: card.bin,
    last4: card.last4,
    lastModifiedDate: new Date().toISOString(),
    brand: { name: 'Visa', tokenstatus: card.status, brandTid: null },
    token: { code: null, expirationDate: `${card.expirationMonth}/${card.expirationYear}` },
  };
}

function cryptogram(card: KeptCard, b: Record<string, unknown>): Reply {
  if (b.subscription !== undefined && typeof b.subscription !== 'boolean') return code(400, '18', 'subscription: Invalid parameter format');
  if (card.status !== 'Active') return code(422, '38', 'Token Cryptogram unavailable. Check the token status');
  const value = randomBytes(20).toString('base64').slice(0, 28);
  card.cryptograms.add(value);
  card.asked.push({ subscription: b.subscription === true });
  return { status: 200, body: { returnCode: '00', returnMessage: 'Success', tokenizationId: card.id, cryptogramInfo: { tokenCryptogram: value, eci: '05', expirationDate: `${card.expirationMonth}/${card.expirationYear}` } } };
}

/**
 * A sale with `cardToken`: the token must be this PV's and Active, with an unspent cryptogram of it
 * and storageCard 2; answers the card's last four digits, or a refusal (fake's own codes).
 */
export function tokenSale(v: Vault, pv: string, b: Record<string, unknown>): { card: KeptCard } | Reply {
  const card = typeof b.cardToken === 'string' ? v.cards.get(b.cardToken) : undefined;
  if (!card || card.pv !== pv) return code(400, '78', 'cardToken: Transaction does not exist');
  if (b.storageCard !== STORED) return code(400, '14', 'storageCard: a card token is a stored credential (2)');
  if (b.cardNumber !== undefined || b.securityCode !== undefined) return code(400, '37', 'cardNumber: not with a cardToken');
  if (card.status !== 'Active') return code(422, '38', 'Token Cryptogram unavailable. Check the token status');
  if (typeof b.tokenCryptogram !== 'string' || !card.cryptograms.delete(b.tokenCryptogram)) return code(400, '19', 'tokenCryptogram: Invalid parameter');
  if (b.subscription !== undefined && typeof b.subscription !== 'boolean') return code(400, '20', 'subscription: Invalid parameter format');
  return { card };
}

const STORED = 2;
