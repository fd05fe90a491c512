// What the inter connector needs of Banco Inter's API Cobrança v3, normalised (client.ts speaks
// Inter's JSON; this is what the connector, its sweeps and its notification route reason about).
import { createHash } from 'node:crypto';
import type { BoletoCharge, BoletoRequest } from '../connector.ts';

export const INTER_PROVIDER = 'inter';

/**
 * seuNumero (at most 15 letters or digits): our transaction id hashed, in base 36: about 77 bits, so
 * two of our boletos never share one (a clash becomes likely only past 2^38 boletos), and a retry of
 * the same transaction always sends the same one.
 */
export function seuNumeroOf(transactionId: string): string {
  const n = BigInt(`0x${createHash('sha256').update(transactionId).digest('hex').slice(0, 20)}`);
  return n.toString(36).toUpperCase().padStart(15, '0').slice(-15);
}

/** A charge (cobrança) as Inter holds it, by its codigoSolicitacao. */
export interface InterCharge {
  /** codigoSolicitacao: Inter's id of the charge (our boleto_ref). */
  reference: string;
  /** seuNumero: our number of it, derived from the transaction id (mapping.ts). */
  seuNumero: string;
  /** ISSUING: taken, numbers not ready; ISSUED: payable; PAID: received (by boleto or its Pix). */
  state: 'ISSUING' | 'ISSUED' | 'PAID' | 'CANCELLED' | 'EXPIRED' | 'FAILED';
  /** The boleto's numbers and Pix code, once issued. */
  numbers: BoletoCharge | null;
  /** PAID: what was received, when, and how. */
  paidCents?: number;
  paidAt?: Date;
  paidWith?: 'BOLETO' | 'PIX';
}

/** The calls the connector makes. Errors: InterError (client.ts) with kind unavailable | refused | not_found | auth. */
export interface InterBank {
  /** POST /cobranca/v3/cobrancas: the codigoSolicitacao. Throws BoletoRefused when Inter refuses the request's data. */
  issue(req: BoletoRequest): Promise<string>;
  /** GET /cobranca/v3/cobrancas/{codigoSolicitacao}; null: Inter has no such charge. */
  charge(reference: string): Promise<InterCharge | null>;
  /** The charge issued under the seuNumero of our transaction (created around `createdAt`), or null. */
  findBySeuNumero(seuNumero: string, createdAt: Date): Promise<InterCharge | null>;
  /** Charges paid between the two dates (the reconciliation). */
  listPaid(from: Date, to: Date): Promise<InterCharge[]>;
  /** POST .../{codigoSolicitacao}/cancelar (a baixa, at the payee's request); one already cancelled is not an error. */
  cancel(reference: string): Promise<void>;
  /** GET .../{codigoSolicitacao}/pdf: the PDF's bytes. */
  pdf(reference: string): Promise<Buffer>;
  /** PUT /cobranca/v3/cobrancas/webhook. */
  registerWebhook(url: string): Promise<void>;
  /** Lets its connections go (the process stops). */
  close?(): void;
}
