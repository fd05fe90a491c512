// Efí's Pix send in Cofre's terms: the request's body (valor, pagador, favorecido by key or by
// account data), a sent Pix's state (EM_PROCESSAMENTO, REALIZADO, NAO_REALIZADO), and what a refusal
// means for the merchant. Field names as Efí documents them (dev.efipay.com.br, "Envio de Pix",
// "Webhooks", "Endpoints exclusivos Efí"; the node SDK sdk-node-apis-efi's pixSend/pixSendDetailId).
import type { PayoutDestination, PayoutFailureReason, PayoutSent, PayoutState } from '../connector.ts';
import { PixApiError } from '../pix-api/client.ts';

export const EFI_PROVIDER = 'efi';

/** Efí: idEnvio, string ^[a-zA-Z0-9]{1,35}$. */
export const ID_ENVIO = /^[a-zA-Z0-9]{1,35}$/;

/** Efí's amounts: `\d{1,10}\.\d{2}` (a balance may be negative). */
const MONEY = /^(-?)(\d{1,13})\.(\d{2})$/;

export const toMoney = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export function toCents(valor: unknown): number | null {
  const m = typeof valor === 'string' ? MONEY.exec(valor) : null;
  if (!m) return null;
  const cents = Number(m[2]) * 100 + Number(m[3]);
  return m[1] ? -cents : cents;
}

/** Efí's favorecido.contaBanco (tipoConta: cacc, checking; svgs, savings; the only two it documents). */
export interface ContaBanco {
  nome: string;
  cpf?: string;
  cnpj?: string;
  codigoBanco: string;
  agencia: string;
  conta: string;
  tipoConta: 'cacc' | 'svgs';
}

export type Favorecido = { chave: string } | { contaBanco: ContaBanco };

const TIPO_CONTA = { checking: 'cacc', savings: 'svgs' } as const;

/**
 * The favorecido of a destination, or why Efí cannot take it (nothing is sent): account data of a
 * payment or salary account (Efí documents only cacc and svgs), or a holder document that is not
 * 11 or 14 digits (Efí's cpf ^[0-9]{11}$, cnpj ^[0-9]{14}$).
 */
export function favorecidoOf(d: PayoutDestination): Favorecido | Extract<PayoutSent, { status: 'FAILED' }> {
  if (d.type === 'pix_key') return { chave: d.pixKey };
  const a = d.account;
  const tipoConta = TIPO_CONTA[a.accountType as keyof typeof TIPO_CONTA];
  if (!tipoConta) return { status: 'FAILED', reason: 'PAYOUT_REJECTED', message: "The payout provider sends to checking or savings accounts only: withdraw to this account's Pix key instead" };
  const doc = /^\d{11}$/.test(a.holderDocument) ? { cpf: a.holderDocument } : /^\d{14}$/.test(a.holderDocument) ? { cnpj: a.holderDocument } : null;
  if (!doc) return { status: 'FAILED', reason: 'DOCUMENT_MISMATCH', message: "The payout provider takes the holder's CPF or CNPJ in digits only: withdraw to this account's Pix key instead" };
  return { contaBanco: { nome: a.holderName.slice(0, 199), ...doc, codigoBanco: a.ispb, agencia: a.branch, conta: a.account, tipoConta } };
}

/** Efí: pagador.infoPagador, at most 140 characters, from the withdrawal's description. */
export function infoPagadorOf(description: string | null): string | null {
  const printable = [...(description ?? '')].map((ch) => (ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? ' ' : ch)).join('');
  const text = printable.trim().slice(0, 140);
  return text ? text : null;
}

/** A sent Pix as Efí's lookups show it (GET /v2/gn/pix/enviados/id-envio/{idEnvio}). */
export interface SentPix {
  endToEndId?: unknown;
  idEnvio?: unknown;
  valor?: unknown;
  status?: unknown;
}

/** What the merchant is told of a failed payout (our words, never Efí's). */
export const FAILURE_MESSAGES: Record<PayoutFailureReason, string> = {
  PIX_KEY_NOT_FOUND: 'The Pix key is not registered at any institution (DICT)',
  ACCOUNT_NOT_FOUND: 'The receiving bank has no such account',
  ACCOUNT_CLOSED: 'The receiving account is closed',
  DOCUMENT_MISMATCH: "The holder's CPF/CNPJ does not match the receiving account or key",
  PAYOUT_REJECTED: 'The payout provider or the receiving bank refused the Pix',
};

/**
 * A sent Pix's state: EM_PROCESSAMENTO is still on its way, REALIZADO arrived, NAO_REALIZADO did
 * not (Efí gives no reason in the lookup: PAYOUT_REJECTED). Another status is taken as still on
 * its way: nothing is settled on a word we do not know.
 */
export function stateOf(p: SentPix): PayoutState {
  const providerId = typeof p.endToEndId === 'string' && p.endToEndId ? { providerId: p.endToEndId } : {};
  if (p.status === 'REALIZADO') return { status: 'COMPLETED', ...providerId };
  if (p.status === 'NAO_REALIZADO') return { status: 'FAILED', reason: 'PAYOUT_REJECTED', message: FAILURE_MESSAGES.PAYOUT_REJECTED };
  return { status: 'PROCESSING', ...providerId };
}

/** Efí's refusal of a request: `{ "nome": ..., "mensagem": ... }` (or an RFC 7807 problem on the lookups). */
export interface Refusal {
  status: number | null;
  nome: string | null;
  mensagem: string | null;
}

export function refusalOf(err: PixApiError): Refusal {
  const b = (err.problem ?? {}) as { nome?: unknown; mensagem?: unknown; type?: unknown; detail?: unknown };
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return { status: err.status, nome: text(b.nome) ?? err.problemType, mensagem: text(b.mensagem) ?? text(b.detail) };
}

/**
 * Refusals that are the platform's, not the merchant's (documented by Efí): the account's document
 * is blocked (documento_bloqueado), the paying key is not the authenticated account's
 * (chave_invalida). Nothing is failed for them: an operator must act.
 */
export const PLATFORM_REFUSALS: ReadonlySet<string> = new Set(['documento_bloqueado', 'chave_invalida']);

/** Whether Efí's words say the platform's balance is short (its name for it is not in the pages we read: "saldo" in it). */
export const mentionsFunds = (r: Refusal) => /saldo/i.test(`${r.nome ?? ''} ${r.mensagem ?? ''}`);

/**
 * The merchant's reason for a definite refusal. chave_nao_encontrada is Efí's documented name for
 * an unknown key; the account refusals are recognised by the words of their names (Efí's pages we
 * read do not list them); anything else is PAYOUT_REJECTED.
 */
export function reasonOf(r: Refusal, d: PayoutDestination): PayoutFailureReason {
  const nome = (r.nome ?? '').toLowerCase();
  if (d.type === 'pix_key' && /chave.*(nao_encontrada|inexistente)/.test(nome)) return 'PIX_KEY_NOT_FOUND';
  if (d.type === 'bank_account') {
    if (/conta.*encerrada/.test(nome)) return 'ACCOUNT_CLOSED';
    if (/conta.*(inexistente|invalida|nao_encontrada)/.test(nome)) return 'ACCOUNT_NOT_FOUND';
  }
  if (/(cpf|cnpj|titular|documento)/.test(nome)) return 'DOCUMENT_MISMATCH';
  return 'PAYOUT_REJECTED';
}

/** Whether a lookup's refusal means "no such sent Pix" (404, or Efí's *_nao_encontrado names). */
export const notFound = (err: PixApiError) => err.kind === 'not_found' || /(nao_encontrad|NaoEncontrad)/.test(refusalOf(err).nome ?? '');

/** What the logs may carry of an Efí error: status and names, never its message (it may quote payee data). */
export const logOf = (err: unknown) => (err instanceof PixApiError ? { kind: err.kind, status: err.status, nome: refusalOf(err).nome } : { error: String(err) });
