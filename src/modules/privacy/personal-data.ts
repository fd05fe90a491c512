// A client's personal data (LGPD): every value of it Cofre stored, and how a stored text or JSON
// value is rewritten without them. The client row is the latest version; transactions and
// subscriptions keep the name, e-mail, document and phone each was made with, and saved cards the
// holder's name, so all of those are collected. docs/security.md lists the tables and columns.
import type { Executor } from '../../db/index.ts';
import type { Client } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { formatDocument, maskDocument } from '../../payments/documents.ts';

export const ERASED_NAME = 'Cliente removido';

/** The anonymised values an erased client and its copies carry: unique per client (the document is unique per merchant). */
export function anonymousOf(clientId: string) {
  const hex = clientId.replace(/-/g, '');
  return { name: ERASED_NAME, email: `removido-${hex}@anonimo.invalid`, document: `REMOVIDO${hex}`, phone: null };
}

export interface PersonalValues {
  /** Strong identifiers (the client's id, e-mails, documents): a stored value holding one is about this client. */
  needles: string[];
  /** The client's e-mail addresses (as stored, and lower case), for the e-mail log's recipients and checkout orders. */
  emails: string[];
  /** Its documents (normalised), for checkout orders and coupon uses. */
  documents: string[];
  /** Each value and what replaces it, longest first (so a name inside an e-mail is replaced as part of the e-mail). */
  replacements: [string, string][];
}

const uniq = (xs: (string | null | undefined)[]) => [...new Set(xs.filter((x): x is string => typeof x === 'string' && x.trim().length > 0))];

/** Every personal value stored about `client`, from its row and the copies on its payments, subscriptions and cards. */
export async function personalValues(db: Executor, scope: Scope, client: Client): Promise<PersonalValues> {
  const mine = <T extends 'transactions' | 'subscriptions'>(table: T) =>
    db.selectFrom(table as 'transactions').select(['client_name', 'client_email', 'client_document', 'client_phone']).distinct().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('client_id', '=', client.id).execute();
  const [txs, subs, cards] = await Promise.all([
    mine('transactions'),
    mine('subscriptions'),
    db.selectFrom('saved_cards').select('holder_name').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('client_id', '=', client.id).execute(),
  ]);
  const copies = [...txs, ...subs];
  const anon = anonymousOf(client.id);
  const emails = uniq([client.email, ...copies.map((c) => c.client_email)]);
  const documents = uniq([client.document, ...copies.map((c) => c.client_document)]).filter((d) => d !== anon.document);
  const names = uniq([client.name, ...copies.map((c) => c.client_name), ...cards.map((c) => c.holder_name)]).filter((n) => n !== ERASED_NAME);
  const phones = uniq([client.phone, ...copies.map((c) => c.client_phone)]);
  const replacements: [string, string][] = [
    ...emails.flatMap((e): [string, string][] => [[e, anon.email], [e.toLowerCase(), anon.email]]),
    ...documents.flatMap((d): [string, string][] => [[formatDocument(d), anon.document], [d, anon.document], [maskDocument(d), '***']]),
    ...phones.map((p): [string, string] => [p, '[removido]']),
    ...names.map((n): [string, string] => [n, ERASED_NAME]),
  ].filter(([from]) => from.length > 0 && from !== '***');
  replacements.sort((a, b) => b[0].length - a[0].length);
  return { needles: uniq([client.id, ...emails, ...documents]), emails: uniq([...emails, ...emails.map((e) => e.toLowerCase())]), documents, replacements };
}

/** `text` with every personal value replaced. */
export function scrubText(text: string, values: PersonalValues): string {
  let out = text;
  for (const [from, to] of values.replacements) out = out.split(from).join(to);
  return out;
}

/** A JSON value with every personal value replaced in its strings, and delivery addresses dropped. */
export function scrubJson(value: unknown, values: PersonalValues): unknown {
  if (typeof value === 'string') return scrubText(value, values);
  if (Array.isArray(value)) return value.map((v) => scrubJson(v, values));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = k === 'address' && v && typeof v === 'object' ? null : scrubJson(v, values);
    return out;
  }
  return value;
}

/** A stored text that may be JSON (a webhook body, a stored response): rewritten as JSON when it parses, as text otherwise. */
export function scrubStored(text: string, values: PersonalValues): string {
  try {
    return JSON.stringify(scrubJson(JSON.parse(text), values));
  } catch {
    return scrubText(text, values);
  }
}
