// The API Pix (Banco Central, v2.9.0) as Cofre maps it: ids derived from ours (txid, devolução id),
// money as the standard writes it, the shapes read back from the PSP, and what a merchant is told
// of a PSP failure (a Cofre error: 503 unavailable, 502 refused; the PSP's own words go to the logs).
import { AppError } from '../../http/errors.ts';
import type { PixApiConfig } from '../../config.ts';
import type { ConnectorLog } from '../connector.ts';
import type { LatePayment } from '../late-payment.ts';
import { PixApiError, type PixApiClient } from './client.ts';

export const PIX_API_PROVIDER = 'bcb-api';

/** The standard allows a devolução within 90 days of the original Pix's settlement. */
export const REFUND_WINDOW_DAYS = 90;

/** New e2eids confirmed per notification: each one costs a call to the PSP (the rest: see receiveNotification). */
export const MAX_CONFIRMED = 100;

export const E2EID = /^[a-zA-Z0-9]{32}$/;
export const REC_ID = /^[a-zA-Z0-9]{29}$/;
export const MANDATE_STATUSES = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const;
export const COBR_STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;
const MONEY = /^\d{1,10}\.\d{2}$/;

/** The txid of a transaction's charge: its UUID's 32 hex digits (the standard asks 26 to 35 alphanumerics). */
export function txidFor(transactionId: string): string {
  return transactionId.replace(/-/g, '').toLowerCase();
}

/** The transaction a txid was derived from, or null for a txid that is not one of ours. */
export function transactionIdOf(txid: unknown): string | null {
  if (typeof txid !== 'string' || !/^[0-9a-fA-F]{32}$/.test(txid)) return null;
  const h = txid.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The devolução id of a refund: its UUID's 32 hex digits (the standard asks 1 to 35 alphanumerics). */
export const devolucaoIdFor = txidFor;

export function toMoney(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

export function toCents(valor: unknown): number | null {
  if (typeof valor !== 'string' || !MONEY.test(valor)) return null;
  const [reais, centavos] = valor.split('.');
  return Number(reais) * 100 + Number(centavos);
}

/**
 * A cobv's `valor`: the amount and the late-payment terms as the standard writes them. The fine is
 * `multa` modalidade 2 (a percentage, once); the interest `juros` modalidade 3 (percent per month,
 * calendar days); `valorPerc` is the percentage with 2 decimals (basis points / 100).
 */
export function cobvValor(amountCents: number, late: LatePayment | undefined) {
  return {
    original: toMoney(amountCents),
    ...(late?.fineBp ? { multa: { modalidade: 2, valorPerc: toMoney(late.fineBp) } } : {}),
    ...(late?.interestMonthlyBp ? { juros: { modalidade: 3, valorPerc: toMoney(late.interestMonthlyBp) } } : {}),
  };
}

/** A Pix as the PSP reports it, checked: ours (txid), to our key, with its value in cents. */
export interface ConfirmedPix {
  e2eid: string;
  txid: string;
  transactionId: string;
  amountCents: number;
  settledAt: Date;
}

export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

/** A Pix Automático authorisation as the PSP reports it (GET /rec/{idRec}), checked. */
export interface Mandate {
  recurrenceId: string;
  status: (typeof MANDATE_STATUSES)[number];
  /** Our contract (the subscription id's 32 hex digits) as the authorisation names it. */
  contract: string | null;
  /** For CANCELADA: who asked (USUARIO_PAGADOR, PSP_PAGADOR, USUARIO_RECEBEDOR, PSP_RECEBEDOR). */
  cancelledBy: string | null;
  /** For REJEITADA / CANCELADA: the standard's reason code. */
  code: string | null;
}

/** A recurring charge (cobr) as the PSP reports it (GET /cobr/{txid}), checked. */
export interface RecurringCharge {
  txid: string;
  recurrenceId: string | null;
  status: (typeof COBR_STATUSES)[number];
  /** The debit attempts, oldest first: the last one says where the charge stands. */
  attempts: Array<{ date: string; status: string; code: string | null }>;
  /** End-to-end ids of the Pix that paid it (each confirmed with GET /pix before it counts). */
  e2eids: string[];
  /** Its `encerramento`: who cancelled it (the standard's `solicitante`) and the cancellation's or rejection's code. */
  end: { by: string | null; code: string | null };
}


/** What a charge's state at the PSP means for the transaction here. */
export type ChargeState = { status: 'ATIVA' | 'REMOVIDA' | 'MISSING' } | { status: 'CONCLUIDA'; e2eids: string[] };


export const unavailable = () => new AppError(503, 'The PIX provider is unavailable right now. Try again in a few minutes.');
export const refusedCharge = () => new AppError(502, 'The PIX provider refused to create this charge. Check the payer data and try again, or contact support with the X-Request-Id.');
/** The PSP refused the gateway's own credentials (401/403 after a new token): nothing the merchant or payer sent. */
export const credentialsRefused = () => new AppError(502, "The PIX provider did not accept the gateway's credentials; nothing was charged. Try again later, or contact support with the X-Request-Id.");


/** What the Pix Automático calls (automatico.ts) share with the connector. */
export interface PixApiParts {
  client: PixApiClient;
  log: ConnectorLog;
  /** The receiving account of Pix Automático debits; null: Pix Automático is off. */
  account: PixApiConfig['receiverAccount'];
  merchantError(err: unknown, context: object, refused: () => AppError): AppError;
}

/** A PSP failure as a merchant may see it; the problem itself goes to the logs. */
export function merchantError(log: ConnectorLog, err: unknown, context: object, refused: () => AppError): AppError {
  if (err instanceof PixApiError) {
    log.error({ ...context, pixApi: err.toLog() }, `pix-api: ${err.message}`);
    return err.kind === 'unavailable' ? unavailable() : err.kind === 'auth' ? credentialsRefused() : refused();
  }
  log.error({ ...context, err }, 'pix-api: unexpected failure');
  return unavailable();
}

/** The e2eids a notification names ({pix: [...]} or a bare array), well-formed, deduplicated. */
export function notifiedE2eids(body: unknown): string[] {
  const items = Array.isArray(body) ? body : Array.isArray((body as { pix?: unknown } | null)?.pix) ? (body as { pix: unknown[] }).pix : [];
  const out = new Set<string>();
  for (const item of items) {
    const e2eid = (item as { endToEndId?: unknown } | null)?.endToEndId;
    if (typeof e2eid === 'string' && E2EID.test(e2eid)) out.add(e2eid);
  }
  return [...out];
}
