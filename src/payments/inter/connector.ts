// Boletos through Banco Inter's API Cobrança v3: each one a registered boleto with a Pix QR (boleto
// híbrido), issued after the transaction is stored (boleto-issuing.ts: the creation answers
// ISSUING at once), confirmed only by asking Inter (a notification, the reconciliation, the
// expiry), withdrawn at Inter (baixa) when the merchant cancels or it expires. A boleto cannot be
// reversed: a paid one is refunded by a Pix to the payer (the core's refund by payout).
import type { Db } from '../../db/index.ts';
import { BoletoIssuer, BoletoRefused, type IssuingBank, type IssuingOptions } from '../boleto-issuing.ts';
import type { BoletoRequest, CancelRequest, ChargeLookup, Connector, ConnectorCore, ConnectorEdges, ConnectorLog, ProviderResult, Rail, RefundRequest, RefundResult } from '../connector.ts';
import { INTER_PROVIDER, seuNumeroOf, type InterBank, type InterCharge } from './bank.ts';
import { interEdges } from './edges.ts';

export interface InterOptions {
  /** BOLETO_RECONCILE_MINUTES: how often the paid charges of the last days are listed. */
  reconcileMinutes: number;
  issuing?: Partial<IssuingOptions>;
}

export class InterConnector implements Connector {
  readonly name = INTER_PROVIDER;
  readonly rails: readonly Rail[] = ['BOLETO'];
  readonly needsPayerAddress = true;
  /** Inter's valorNominal starts at R$ 2,50. */
  readonly minBoletoCents = 250;
  readonly expiresOwnCharges = true;
  /** A paid boleto goes back to the payer by Pix (the core asks the merchant for the payer's key). */
  readonly refundsByPix = true;
  readonly bank: InterBank;
  private readonly db: Db;
  private readonly log: ConnectorLog;
  private readonly opts: InterOptions;
  private issuer: BoletoIssuer | null = null;

  constructor(bank: InterBank, db: Db, log: ConnectorLog, opts: InterOptions) {
    this.bank = bank;
    this.db = db;
    this.log = log;
    this.opts = opts;
  }

  /** Issued by the sweep once the transaction is stored: ISSUING now, a run asked for soon. */
  async createBoleto(_req: BoletoRequest): Promise<null> {
    this.issuer?.nudge();
    return null;
  }

  /** The baixa at Inter. One paid there first is not cancelled: the caller is told, and it is settled by the sweeps. */
  async cancelCharge(req: CancelRequest): Promise<ProviderResult> {
    const charge = req.boletoRef ? await this.bank.charge(req.boletoRef) : await this.bank.findBySeuNumero(seuNumeroOf(req.transactionId), new Date());
    // Never reached Inter: nothing to withdraw (one issued after this is withdrawn by the issuing sweep).
    if (!charge) return { ok: true };
    if (charge.state === 'PAID') return { ok: false, reason: 'ALREADY_PAID', message: 'The payer has paid this boleto at the bank; the payment is being confirmed' };
    if (charge.state === 'ISSUING' || charge.state === 'ISSUED') await this.bank.cancel(charge.reference);
    return { ok: true };
  }

  /** Inter cannot reverse a boleto: the core refunds it by a Pix payout instead of calling this. */
  async refund(_req: RefundRequest): Promise<RefundResult> {
    return { ok: false, reason: 'REFUND_BY_PIX', message: "A boleto cannot be reversed: refund it by Pix to the payer's key (pixKey)" };
  }

  async findRefund(): Promise<RefundResult | null> {
    return null;
  }

  /** The boleto of our transaction as Inter holds it (by its codigoSolicitacao, or our seuNumero). */
  async findCharge(reference: string): Promise<ChargeLookup | null> {
    const tx = await this.db.selectFrom('transactions').select(['boleto_ref', 'created_at']).where('id', '=', reference).where('provider', '=', this.name).executeTakeFirst();
    if (!tx) return null;
    const charge = tx.boleto_ref ? await this.bank.charge(tx.boleto_ref) : await this.bank.findBySeuNumero(seuNumeroOf(reference), tx.created_at);
    return charge ? lookupOf(charge) : null;
  }

  boletoPdf(boletoRef: string): Promise<Buffer> {
    return this.bank.pdf(boletoRef);
  }

  edges(core: ConnectorCore): ConnectorEdges {
    this.issuer = new BoletoIssuer(this.name, issuingBank(this.bank), core, this.opts.issuing);
    return interEdges({ bank: this.bank, core, log: this.log, issuer: this.issuer, reconcileEveryMs: this.opts.reconcileMinutes * 60_000 });
  }

  close(): void {
    this.issuer?.close();
    this.bank.close?.();
  }
}

function lookupOf(c: InterCharge): ChargeLookup {
  if (c.state === 'PAID') return { status: 'PAID', reference: c.reference };
  if (c.state === 'CANCELLED' || c.state === 'EXPIRED') return { status: 'CANCELLED' };
  if (c.state === 'FAILED') return { status: 'FAILED', reason: 'BOLETO_REFUSED', message: 'Inter could not issue this boleto' };
  return { status: 'PENDING' };
}

/** The issuing sweep's view of Inter. */
function issuingBank(bank: InterBank): IssuingBank {
  return {
    issue: (req) => bank.issue(req),
    find: async (transactionId, createdAt) => (await bank.findBySeuNumero(seuNumeroOf(transactionId), createdAt))?.reference ?? null,
    numbers: async (ref) => {
      const c = await bank.charge(ref);
      if (c?.state === 'FAILED') throw new BoletoRefused('Inter could not issue the boleto (FALHA_EMISSAO)');
      return c?.state === 'ISSUED' || c?.state === 'PAID' ? c.numbers : null;
    },
    cancel: (ref) => bank.cancel(ref),
  };
}
