// Banco Inter's API Cobrança v3, as the connector writes and reads it. Field names from Inter's
// public reference (developers.inter.co/references/cobranca-bolepix and /references/token: Emitir,
// Recuperar, Recuperar coleção, Cancelar, PDF, Webhook), read through the OpenAPI documents copied in
// github.com/unfoldingcx/inter.js (specs/cobranca.json, specs/token.json) and Inter's SDK
// github.com/inter-co/pj-sdk-python: POST /cobranca/v3/cobrancas { seuNumero ≤ 15, valorNominal 2.50 to 99,999,999.99,
// dataVencimento, numDiasAgenda 0-60, pagador { cpfCnpj, tipoPessoa FISICA|JURIDICA, nome, endereco,
// numero, complemento, bairro, cidade, uf, cep, email }, multa, mora, mensagem { linha1..5 },
// formasRecebimento } -> { codigoSolicitacao }; GET answers { cobranca { codigoSolicitacao,
// seuNumero, situacao, dataSituacao, valorTotalRecebido, origemRecebimento }, boleto { nossoNumero,
// codigoBarras, linhaDigitavel }, pix { txid, pixCopiaECola } }.
import type { BoletoRequest } from '../connector.ts';
import { seuNumeroOf, type InterCharge } from './bank.ts';

/** Inter's `situacao` of a charge, as its reference lists them. */
export type Situacao = 'EM_PROCESSAMENTO' | 'A_RECEBER' | 'ATRASADO' | 'RECEBIDO' | 'MARCADO_RECEBIDO' | 'CANCELADO' | 'EXPIRADO' | 'FALHA_EMISSAO' | 'PROTESTO';

/** One charge as GET /cobranca/v3/cobrancas/{codigoSolicitacao} (and each item of the list) answers it. */
export interface InterCobranca {
  cobranca?: {
    codigoSolicitacao?: string;
    seuNumero?: string;
    situacao?: Situacao | string;
    dataSituacao?: string;
    dataVencimento?: string;
    valorNominal?: string | number;
    valorTotalRecebido?: string | number;
    origemRecebimento?: 'BOLETO' | 'PIX' | string;
  };
  boleto?: { nossoNumero?: string; codigoBarras?: string; linhaDigitavel?: string };
  pix?: { txid?: string; pixCopiaECola?: string };
}

/** Reais with two decimals, as Inter's valores are numbers. */
export const reais = (cents: number): number => Math.round(cents) / 100;
export const centsOf = (v: string | number | undefined): number | undefined => (v === undefined || v === null || v === '' ? undefined : Math.round(Number(v) * 100));

/** Text as Inter's fields take it: one line, trimmed to `max` characters. */
const line = (s: string, max: number) => s.replace(/\s+/g, ' ').trim().slice(0, max);

/** The body of POST /cobranca/v3/cobrancas for a boleto of ours (a hybrid boleto: barcode and Pix). */
export function issueBody(req: BoletoRequest) {
  const a = req.address;
  if (!a) throw new Error(`inter: boleto ${req.transactionId} has no payer address (a registered boleto needs one)`);
  const doc = req.payer.document;
  return {
    seuNumero: seuNumeroOf(req.transactionId),
    valorNominal: reais(req.amountCents),
    dataVencimento: req.dueDate,
    numDiasAgenda: req.daysAfterDue,
    pagador: {
      cpfCnpj: doc,
      tipoPessoa: doc.length === 11 ? 'FISICA' : 'JURIDICA',
      nome: line(req.payer.name, 100),
      endereco: line(a.street, 100),
      numero: line(a.number, 10),
      ...(a.complement?.trim() ? { complemento: line(a.complement, 30) } : {}),
      bairro: line(a.neighborhood, 60),
      cidade: line(a.city, 60),
      uf: a.state,
      cep: a.zipCode,
      // Inter takes at most 50 characters: a longer address is left out rather than cut into another one.
      ...(req.payer.email.length <= 50 ? { email: req.payer.email } : {}),
    },
    mensagem: { linha1: line(req.description, 78) },
    formasRecebimento: ['BOLETO', 'PIX'],
  };
}

/** A date Inter gives: a São Paulo calendar day (noon taken) or a timestamp. */
const dateOf = (d: string) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(d) ? `${d}T12:00:00-03:00` : d);

const STATES: Record<string, InterCharge['state']> = {
  EM_PROCESSAMENTO: 'ISSUING',
  A_RECEBER: 'ISSUED',
  ATRASADO: 'ISSUED',
  PROTESTO: 'ISSUED',
  RECEBIDO: 'PAID',
  // Marked received by hand at Inter: no money went through Inter, so nothing is credited here; it is no longer payable.
  MARCADO_RECEBIDO: 'CANCELLED',
  CANCELADO: 'CANCELLED',
  EXPIRADO: 'EXPIRED',
  FALHA_EMISSAO: 'FAILED',
};

/**
 * Inter's charge, normalised. A charge is ISSUED only with its numbers (Inter fills them once it
 * registered the boleto).
 */
export function chargeOf(c: InterCobranca, reference: string): InterCharge {
  const situacao = c.cobranca?.situacao ?? 'EM_PROCESSAMENTO';
  let state = STATES[situacao] ?? 'ISSUING';
  const barcode = c.boleto?.codigoBarras?.replace(/\D/g, '');
  const digitableLine = c.boleto?.linhaDigitavel?.replace(/\D/g, '');
  const numbers = barcode?.length === 44 && digitableLine?.length === 47 ? { barcode, digitableLine, pixCode: c.pix?.pixCopiaECola || null } : null;
  if (state === 'ISSUED' && !numbers) state = 'ISSUING';
  const paid = state === 'PAID';
  const paidAt = paid && c.cobranca?.dataSituacao ? dateOf(c.cobranca.dataSituacao) : undefined;
  return {
    reference: c.cobranca?.codigoSolicitacao ?? reference,
    seuNumero: c.cobranca?.seuNumero ?? '',
    state,
    numbers,
    ...(paid ? { paidCents: centsOf(c.cobranca?.valorTotalRecebido), paidWith: c.cobranca?.origemRecebimento === 'PIX' ? ('PIX' as const) : ('BOLETO' as const), ...(paidAt && !Number.isNaN(paidAt.getTime()) ? { paidAt } : {}) } : {}),
  };
}
