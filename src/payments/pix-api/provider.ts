// Production PIX through any PSP that implements the Banco Central's API Pix (v2.9.0): immediate
// charges (cob) and charges with a due date (cobv) under a txid derived from our transaction id,
// confirmation of every notified Pix with the PSP's own GET /pix/{e2eid}, the received-Pix list
// for reconciliation, devoluções (refunds) under an id derived from our refund id, removal of a
// charge the merchant cancels, and the webhook registration. What a merchant sees of a PSP failure
// is a Cofre error (503 unavailable, 502 refused); the PSP's problem goes to the logs only.
import { AppError } from '../../http/errors.ts';
import type { PixApiConfig } from '../../config.ts';
import { spDate } from '../calendar.ts';
import type { LatePayment } from '../late-payment.ts';
import { methodNotOffered, type CancelRequest, type PaymentProvider, type PixAutomaticoCharge, type ProviderResult, type PixCharge, type PixRequest, type ProviderEvent, type RefundRequest, type RefundResult } from '../provider.ts';
import { PixApiClient, PixApiError, type ClientOptions } from './client.ts';

export const PIX_API_PROVIDER = 'bcb-api';

/** The standard allows a devolução within 90 days of the original Pix's settlement. */
export const REFUND_WINDOW_DAYS = 90;

/** New e2eids confirmed per notification: each one costs a call to the PSP (the rest: see receiveNotification). */
export const MAX_CONFIRMED = 100;

const E2EID = /^[a-zA-Z0-9]{32}$/;
const REC_ID = /^[a-zA-Z0-9]{29}$/;
const MANDATE_STATUSES = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const;
const COBR_STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;
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

export interface ProviderLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const unavailable = () => new AppError(503, 'The PIX provider is unavailable right now. Try again in a few minutes.');
const refusedCharge = () => new AppError(502, 'The PIX provider refused to create this charge. Check the payer data and try again, or contact support with the X-Request-Id.');
/** The PSP refused the gateway's own credentials (401/403 after a new token): nothing the merchant or payer sent. */
const credentialsRefused = () => new AppError(502, "The PIX provider did not accept the gateway's credentials; nothing was charged. Try again later, or contact support with the X-Request-Id.");

export class PixApiProvider implements PaymentProvider {
  readonly name = PIX_API_PROVIDER;
  readonly refundWindowDays = REFUND_WINDOW_DAYS;
  readonly expiresOwnCharges = true;
  readonly pixAutomatico: boolean;
  readonly client: PixApiClient;
  private key: string;
  private log: ProviderLog;
  private account: PixApiConfig['receiverAccount'];

  constructor(config: PixApiConfig, pixKey: string, log: ProviderLog, opts: ClientOptions = {}) {
    this.client = new PixApiClient(config, opts);
    this.key = pixKey;
    this.log = log;
    this.account = config.receiverAccount;
    this.pixAutomatico = config.receiverAccount !== null;
  }

  accepts(method: 'PIX' | 'BOLETO' | 'CARD'): boolean {
    return method === 'PIX';
  }

  /**
   * PUT /cob/{txid} (or /cobv/{txid} when the merchant gave a due date after today): the same
   * transaction always sends the same txid and body, so a retried request finds the charge it
   * created instead of making a second one.
   */
  async createPix(req: PixRequest): Promise<PixCharge> {
    if (req.automatic && req.automatic.kind !== 'first') return this.automaticDebit(req, req.automatic);
    const txid = txidFor(req.transactionId);
    const devedor = { ...(req.payer.document.length === 11 ? { cpf: req.payer.document } : { cnpj: req.payer.document }), nome: req.payer.name.slice(0, 200) };
    const solicitacaoPagador = req.description.slice(0, 140);
    const withDueDate = !req.automatic && req.dueDate !== undefined && (req.dueDate > spDate(new Date()) || req.latePayment !== undefined);
    const [path, body] = withDueDate
      ? [`/cobv/${txid}`, { calendario: { dataDeVencimento: req.dueDate, validadeAposVencimento: req.latePayment?.daysAfterDue ?? 0 }, devedor, valor: cobvValor(req.amountCents, req.latePayment), chave: this.key, solicitacaoPagador }]
      : [`/cob/${txid}`, { calendario: { expiracao: Math.max(1, Math.ceil((req.expiresAt.getTime() - Date.now()) / 1000)) }, devedor, valor: { original: toMoney(req.amountCents) }, chave: this.key, solicitacaoPagador }];
    let answer: { txid?: unknown; pixCopiaECola?: unknown; location?: unknown; status?: unknown };
    try {
      answer = await this.client.call('PUT', path, body);
    } catch (err) {
      throw this.merchantError(err, { transactionId: req.transactionId, call: `PUT ${path.split('/')[1]}` }, refusedCharge);
    }
    if (answer?.txid !== txid || typeof answer.pixCopiaECola !== 'string' || !answer.pixCopiaECola) {
      this.log.error({ transactionId: req.transactionId, pixApi: { call: 'PUT cob', answered: { txid: answer?.txid === txid, pixCopiaECola: typeof answer?.pixCopiaECola } } }, 'pix-api: the PSP answered a charge without its txid or BR Code');
      throw refusedCharge();
    }
    if (req.automatic?.kind === 'first') return this.journey3(req, req.automatic, txid);
    return { txid, brCode: answer.pixCopiaECola };
  }

  /**
   * Pix Automático, journey 3: the immediate charge just made (`txid`) carries the authorisation.
   * POST /locrec (a location for the authorisation), POST /rec with `ativacao.dadosJornada.txid` =
   * the charge (politicaRetentativa PERMITE_3R_7D: up to 3 retries within 7 days of a due date),
   * then GET /rec/{idRec}?txid= for the composite BR Code (charge + authorisation: dadosQR,
   * JORNADA_3), which is what the payer scans. POST /locrec is sent once (a location lost with its
   * answer is an unused location, nothing more); POST /rec is recovered by its location (createMandate).
   */
  private async journey3(req: PixRequest, auto: Extract<PixAutomaticoCharge, { kind: 'first' }>, txid: string): Promise<PixCharge> {
    if (!this.pixAutomatico) throw new AppError(503, 'Pix Automático is not available on this gateway (PIX_API_RECEIVER_ACCOUNT is not configured)');
    const context = { transactionId: req.transactionId };
    try {
      const loc = await this.client.call<{ id?: unknown }>('POST', '/locrec', undefined, { retry: false });
      if (typeof loc?.id !== 'number' && typeof loc?.id !== 'string') throw new PixApiError('refused', 'location without an id');
      const devedor = { ...(req.payer.document.length === 11 ? { cpf: req.payer.document } : { cnpj: req.payer.document }), nome: req.payer.name.slice(0, 140) };
      const contract = auto.contract.slice(0, 35);
      const idRec = await this.createMandate(context, Number(loc.id), contract, txid, {
        vinculo: { contrato: contract, devedor, objeto: auto.object.slice(0, 35) },
        calendario: { dataInicial: auto.firstDebitDate, periodicidade: auto.periodicity },
        politicaRetentativa: 'PERMITE_3R_7D',
        loc: Number(loc.id),
        ativacao: { dadosJornada: { txid } },
      });
      const full = await this.client.call<{ dadosQR?: { jornada?: unknown; pixCopiaECola?: unknown } }>('GET', `/rec/${idRec}?txid=${txid}`);
      const code = full?.dadosQR?.pixCopiaECola;
      if (full?.dadosQR?.jornada !== 'JORNADA_3' || typeof code !== 'string' || !code) throw new PixApiError('refused', 'authorisation without the composite BR Code of journey 3');
      return { txid, brCode: code, recurrenceId: idRec };
    } catch (err) {
      // The charge just made is withdrawn (best effort): without its authorisation it is nobody's,
      // no transaction records it, and no expiry job would ever remove it.
      await this.client.call('PATCH', `/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }).catch((removal: unknown) => {
        this.log.error({ ...context, pixApi: removal instanceof PixApiError ? removal.toLog() : String(removal) }, 'pix-api: a Pix Automático first charge whose authorisation failed could not be withdrawn');
      });
      throw this.merchantError(err, { ...context, call: 'pix automatico journey 3' }, refusedCharge);
    }
  }

  /**
   * POST /rec on the location `loc`. The PSP chooses the idRec, so a lost answer (timeout,
   * connection reset, 5xx) cannot be retried blindly, and GET /rec filters by period, debtor and
   * status only (no contract or txid). But a location binds one authorisation (the standard refuses
   * a second rec on it), so the location finds what the lost POST made: GET /locrec/{id} names its
   * idRec, checked with GET /rec/{idRec} (our contract, our charge). None there yet: the POST is sent
   * again on the same location (at most 3 in all), which cannot make a second authorisation; one
   * refused because a late first one took the location is looked up again.
   */
  private async createMandate(context: object, loc: number, contract: string, txid: string, body: object): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        const rec = await this.client.call<{ idRec?: unknown }>('POST', '/rec', body, { retry: false });
        if (typeof rec?.idRec !== 'string' || !REC_ID.test(rec.idRec)) throw new PixApiError('refused', 'authorisation without a valid idRec');
        return rec.idRec;
      } catch (err) {
        if (!(err instanceof PixApiError) || (err.kind !== 'unavailable' && err.kind !== 'refused')) throw err;
        const found = await this.mandateAt(loc, contract, txid);
        if (found) {
          this.log.warn({ ...context, recurrenceId: found, pixApi: err.toLog() }, 'pix-api: the answer to POST /rec was lost; the authorisation was found by its location');
          return found;
        }
        if (err.kind === 'refused' || attempt >= 3) throw err;
      }
    }
  }

  /** The authorisation bound to the location `loc` (GET /locrec/{id}), if it is ours: our contract and charge. */
  private async mandateAt(loc: number, contract: string, txid: string): Promise<string | null> {
    const l = await this.client.call<{ idRec?: unknown }>('GET', `/locrec/${loc}`);
    if (typeof l?.idRec !== 'string' || !REC_ID.test(l.idRec)) return null;
    const r = await this.client.call<{ idRec?: unknown; vinculo?: { contrato?: unknown }; ativacao?: { dadosJornada?: { txid?: unknown } } }>('GET', `/rec/${l.idRec}`);
    if (r?.idRec !== l.idRec || r.vinculo?.contrato !== contract || r.ativacao?.dadosJornada?.txid !== txid) {
      this.log.error({ recurrenceId: l.idRec, loc }, 'pix-api: the location of a new authorisation is bound to another authorisation; not used');
      return null;
    }
    return l.idRec;
  }

  /**
   * A cycle's automatic debit: PUT /cobr/{txid} under the approved authorisation, due on the
   * cycle's date (moved to the next business day by the PSP when needed). A retry: POST
   * /cobr/{txid}/retentativa/{date} on the first attempt's charge; one refused because that
   * attempt already exists (a retry after a lost answer) is looked up instead.
   */
  private async automaticDebit(req: PixRequest, auto: Exclude<PixAutomaticoCharge, { kind: 'first' }>): Promise<PixCharge> {
    if (!this.pixAutomatico || !this.account) throw new AppError(503, 'Pix Automático is not available on this gateway (PIX_API_RECEIVER_ACCOUNT is not configured)');
    const context = { transactionId: req.transactionId, recurrenceId: auto.recurrenceId };
    if (auto.kind === 'retry') {
      try {
        await this.client.call('POST', `/cobr/${auto.txid}/retentativa/${auto.date}`, undefined, { retry: false });
      } catch (err) {
        const known = err instanceof PixApiError && err.kind === 'refused' ? await this.recurringCharge(auto.txid).catch(() => null) : null;
        if (!known?.attempts.some((a) => a.date === auto.date && (a.status === 'SOLICITADA' || a.status === 'AGENDADA'))) {
          throw this.merchantError(err, { ...context, call: 'POST cobr retentativa' }, refusedCharge);
        }
      }
      return { txid: null, brCode: null };
    }
    const txid = txidFor(req.transactionId);
    const { agencia, ...account } = this.account;
    const body = {
      idRec: auto.recurrenceId,
      infoAdicional: req.description.slice(0, 140),
      calendario: { dataDeVencimento: auto.dueDate },
      valor: { original: toMoney(req.amountCents) },
      ajusteDiaUtil: true,
      recebedor: { ...account, ...(agencia ? { agencia } : {}) },
    };
    let answer: { txid?: unknown; idRec?: unknown };
    try {
      answer = await this.client.call('PUT', `/cobr/${txid}`, body);
    } catch (err) {
      throw this.merchantError(err, { ...context, call: 'PUT cobr' }, refusedCharge);
    }
    if (answer?.txid !== txid || answer.idRec !== auto.recurrenceId) {
      this.log.error({ ...context, pixApi: { call: 'PUT cobr', answered: { txid: answer?.txid === txid, idRec: answer?.idRec === auto.recurrenceId } } }, 'pix-api: the PSP answered a recurring charge without its txid or idRec');
      throw refusedCharge();
    }
    return { txid, brCode: null };
  }

  /** GET /rec/{idRec}: the authorisation's state, or null when the PSP does not know it. */
  async mandate(recurrenceId: string): Promise<Mandate | null> {
    if (!REC_ID.test(recurrenceId)) return null;
    let r: any;
    try {
      r = await this.client.call('GET', `/rec/${recurrenceId}`);
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'not_found') return null;
      throw err;
    }
    if (r?.idRec !== recurrenceId || !MANDATE_STATUSES.includes(r.status)) return null;
    const end = r.encerramento ?? {};
    return {
      recurrenceId,
      status: r.status,
      contract: typeof r.vinculo?.contrato === 'string' ? r.vinculo.contrato : null,
      cancelledBy: typeof end.cancelamento?.solicitante === 'string' ? end.cancelamento.solicitante : null,
      code: typeof (end.cancelamento ?? end.rejeicao)?.codigo === 'string' ? (end.cancelamento ?? end.rejeicao).codigo : null,
    };
  }

  /** PATCH /rec/{idRec} to CANCELADA (the subscription ended here): no more debits. One already final there is fine. */
  async cancelMandate(recurrenceId: string): Promise<void> {
    try {
      await this.client.call('PATCH', `/rec/${recurrenceId}`, { status: 'CANCELADA' });
    } catch (err) {
      if (err instanceof PixApiError && (err.kind === 'refused' || err.kind === 'not_found')) {
        const now = await this.mandate(recurrenceId);
        if (!now || now.status !== 'CRIADA' && now.status !== 'APROVADA') return;
      }
      throw err;
    }
  }

  /** GET /cobr/{txid}: the recurring charge's state, or null when the PSP does not know it. */
  async recurringCharge(txid: string): Promise<RecurringCharge | null> {
    let c: any;
    try {
      c = await this.client.call('GET', `/cobr/${txid}`);
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'not_found') return null;
      throw err;
    }
    if (c?.txid !== txid || !COBR_STATUSES.includes(c.status)) return null;
    const attempts = (Array.isArray(c.tentativas) ? c.tentativas : [])
      .filter((t: any) => typeof t?.dataLiquidacao === 'string' && typeof t?.status === 'string')
      .map((t: any) => ({ date: t.dataLiquidacao, status: t.status, code: typeof t.rejeicao?.codigo === 'string' ? t.rejeicao.codigo : null }));
    const e2eids = (Array.isArray(c.pix) ? c.pix : []).map((p: any) => p?.endToEndId).filter((e: unknown): e is string => typeof e === 'string' && E2EID.test(e));
    const closing = c.encerramento?.cancelamento ?? c.encerramento?.rejeicao;
    const end = { by: typeof c.encerramento?.cancelamento?.solicitante === 'string' ? c.encerramento.cancelamento.solicitante : null, code: typeof closing?.codigo === 'string' ? closing.codigo : null };
    return { txid, recurrenceId: typeof c.idRec === 'string' ? c.idRec : null, status: c.status, attempts, e2eids, end };
  }

  /** PUT /webhookrec and /webhookcobr: the PSP notifies `{url}/rec` and `{url}/cobr` (idempotent). */
  async registerRecurringWebhooks(recUrl: string, cobrUrl: string): Promise<void> {
    await this.client.call('PUT', '/webhookrec', { webhookUrl: recUrl });
    await this.client.call('PUT', '/webhookcobr', { webhookUrl: cobrUrl });
  }

  async createBoleto(): Promise<never> {
    throw methodNotOffered('BOLETO');
  }

  async chargeCard(): Promise<never> {
    throw methodNotOffered('CARD');
  }

  /**
   * PUT /pix/{e2eid}/devolucao/{id}. The devolução is usually EM_PROCESSAMENTO when asked: the
   * refund stays PENDING until a notification or the refund sweep sees DEVOLVIDO or NAO_REALIZADO.
   * A PUT refused because its id was used before (a retry after a lost answer) is looked up instead.
   */
  async refund(req: RefundRequest): Promise<RefundResult> {
    if (req.paymentMethod !== 'PIX') return { ok: false, reason: 'METHOD_NOT_OFFERED', message: `${req.paymentMethod} refunds are not handled by the PIX provider` };
    if (!req.paymentReference || !E2EID.test(req.paymentReference)) return { ok: false, reason: 'PAYMENT_NOT_SETTLED', message: 'the payment has no end-to-end id to refund' };
    const id = devolucaoIdFor(req.refundId);
    const path = `/pix/${req.paymentReference}/devolucao/${id}`;
    let status: unknown;
    let motivo: unknown;
    try {
      ({ status, motivo } = await this.client.call<{ status?: unknown; motivo?: unknown }>('PUT', path, { valor: toMoney(req.amountCents), natureza: 'ORIGINAL' }));
    } catch (err) {
      if (!(err instanceof PixApiError) || err.kind !== 'refused') throw err;
      const known = await this.refundStatus(req.paymentReference, req.refundId);
      if (!known) {
        this.log.error({ refundId: req.refundId, pixApi: err.toLog() }, 'pix-api: the PSP refused the devolução');
        return { ok: false, reason: 'REFUND_REFUSED', message: 'the PIX provider refused the refund' };
      }
      ({ status, motivo } = known);
    }
    if (status === 'NAO_REALIZADO') return { ok: false, reason: 'NAO_REALIZADO', message: typeof motivo === 'string' ? motivo.slice(0, 140) : 'the refund was not made' };
    return { ok: true, reference: id, ...(status === 'DEVOLVIDO' ? {} : { pending: true }) };
  }

  /** GET /pix/{e2eid}/devolucao/{id}: the devolução's state, or null when the PSP has none. */
  async refundStatus(e2eid: string, refundId: string): Promise<{ status: DevolucaoStatus; motivo?: string } | null> {
    try {
      const d = await this.client.call<{ status?: unknown; motivo?: unknown }>('GET', `/pix/${e2eid}/devolucao/${devolucaoIdFor(refundId)}`);
      if (d?.status !== 'EM_PROCESSAMENTO' && d?.status !== 'DEVOLVIDO' && d?.status !== 'NAO_REALIZADO') throw new PixApiError('refused', 'devolução without a known status');
      return { status: d.status, ...(typeof d.motivo === 'string' ? { motivo: d.motivo.slice(0, 140) } : {}) };
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  /**
   * A notification ({pix: [...]} or a bare array, as some PSPs send) is a list of e2eids to look
   * up: nothing in it is believed. Each Pix is fetched from the PSP (GET /pix/{e2eid}) and must be
   * ours (a txid we derived), to our key; it is reported with its value, which the transactions
   * module compares with the amount charged. Unknown e2eids (a forged notification) are dropped.
   */
  async parseCallback(body: unknown): Promise<ProviderEvent[]> {
    const events: ProviderEvent[] = [];
    for (const e2eid of notifiedE2eids(body).slice(0, MAX_CONFIRMED)) {
      const pix = await this.confirmPix(e2eid);
      if (pix) events.push({ transactionId: pix.transactionId, outcome: 'PAID', reference: pix.e2eid, amountCents: pix.amountCents, paidAt: pix.settledAt });
    }
    return events;
  }

  /** GET /pix/{e2eid}, checked; null when the PSP does not know it or it is not a payment of ours. */
  async confirmPix(e2eid: string): Promise<ConfirmedPix | null> {
    let pix: unknown;
    try {
      pix = await this.client.call('GET', `/pix/${e2eid}`);
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'not_found') {
        this.log.warn({ e2eid }, 'pix-api: a notified Pix is unknown to the PSP (forged or mistaken notification); ignored');
        return null;
      }
      throw err;
    }
    const checked = this.check(pix);
    if (!checked || checked.e2eid !== e2eid) {
      this.log.warn({ e2eid }, 'pix-api: a notified Pix is not a payment of one of our charges to our key; ignored');
      return null;
    }
    return checked;
  }

  /** A Pix from the PSP's own answer: ours when its txid is one we derived and its key is ours. */
  private check(pix: unknown): ConfirmedPix | null {
    const p = pix as { endToEndId?: unknown; txid?: unknown; valor?: unknown; chave?: unknown; horario?: unknown } | null;
    const transactionId = transactionIdOf(p?.txid);
    const amountCents = toCents(p?.valor);
    if (!p || typeof p.endToEndId !== 'string' || !E2EID.test(p.endToEndId) || !transactionId || amountCents === null) return null;
    // chave is optional in the standard's Pix; when a PSP sends it, it must be the key we charge with.
    if (p.chave !== undefined && p.chave !== this.key) return null;
    const settledAt = typeof p.horario === 'string' && !Number.isNaN(Date.parse(p.horario)) ? new Date(p.horario) : new Date();
    return { e2eid: p.endToEndId, txid: String(p.txid).toLowerCase(), transactionId, amountCents, settledAt };
  }

  /** GET /pix?inicio&fim, every page: the Pix of our charges received in the period (reconciliation). */
  async received(from: Date, to: Date): Promise<ConfirmedPix[]> {
    const out: ConfirmedPix[] = [];
    for (let page = 0; page < 1000; page++) {
      const q = new URLSearchParams({ inicio: from.toISOString(), fim: to.toISOString(), txIdPresente: 'true', 'paginacao.paginaAtual': String(page), 'paginacao.itensPorPagina': '1000' });
      const answer = await this.client.call<{ pix?: unknown; parametros?: { paginacao?: { quantidadeDePaginas?: unknown } } }>('GET', `/pix?${q}`);
      for (const p of Array.isArray(answer?.pix) ? answer.pix : []) {
        const checked = this.check(p);
        if (checked) out.push(checked);
      }
      const pages = Number(answer?.parametros?.paginacao?.quantidadeDePaginas ?? 1);
      if (!(page + 1 < pages)) break;
    }
    return out;
  }

  /**
   * GET /cobv/{txid}: the charge with a due date's `valor.original` in cents, as the PSP holds it
   * (null when it has no such charge). A Pix that paid more than we charged is booked only when the
   * charge there is still for the amount we charged: the difference is then its fine and interest.
   */
  async dueChargeOriginal(transactionId: string): Promise<number | null> {
    try {
      const c = await this.client.call<{ txid?: unknown; valor?: { original?: unknown } }>('GET', `/cobv/${txidFor(transactionId)}`);
      return c?.txid === txidFor(transactionId) ? toCents(c.valor?.original) : null;
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  /** GET /cob/{txid}, then /cobv/{txid}: the charge's state at the PSP. */
  async chargeState(transactionId: string): Promise<ChargeState> {
    const txid = txidFor(transactionId);
    for (const kind of ['cob', 'cobv']) {
      try {
        const c = await this.client.call<{ status?: unknown; pix?: Array<{ endToEndId?: unknown }> }>('GET', `/${kind}/${txid}`);
        if (c?.status === 'ATIVA') return { status: 'ATIVA' };
        if (c?.status === 'CONCLUIDA') return { status: 'CONCLUIDA', e2eids: (c.pix ?? []).map((p) => p.endToEndId).filter((e): e is string => typeof e === 'string' && E2EID.test(e)) };
        return { status: 'REMOVIDA' };
      } catch (err) {
        if (!(err instanceof PixApiError) || err.kind !== 'not_found') throw err;
      }
    }
    return { status: 'MISSING' };
  }

  /**
   * PATCH /cob/{txid} (or /cobv) to REMOVIDA_PELO_USUARIO_RECEBEDOR: the code can no longer be
   * paid. A charge already paid there cannot be removed (ALREADY_PAID: it becomes PAID here through
   * its notification or the reconciliation); one already removed is fine. PSP unreachable: 503.
   */
  async cancelCharge(req: CancelRequest): Promise<ProviderResult> {
    const alreadyPaid = { ok: false as const, reason: 'ALREADY_PAID', message: 'the PIX was paid at the provider: it will show as PAID shortly; refund it instead' };
    const state = await this.chargeState(req.transactionId).catch((err) => {
      throw this.merchantError(err, { transactionId: req.transactionId, call: 'GET cob' }, unavailable);
    });
    if (state.status === 'CONCLUIDA') return alreadyPaid;
    const txid = txidFor(req.transactionId);
    if (state.status === 'MISSING' && this.pixAutomatico) return this.cancelRecurringCharge(req.transactionId, txid);
    if (state.status !== 'ATIVA') return { ok: true };
    for (const kind of ['cob', 'cobv']) {
      try {
        await this.client.call('PATCH', `/${kind}/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
        return { ok: true };
      } catch (err) {
        if (err instanceof PixApiError && err.kind === 'not_found') continue;
        // Refused: paid or removed in the meantime; the state decides.
        if (err instanceof PixApiError && err.kind === 'refused') {
          const now = await this.chargeState(req.transactionId).catch(() => null);
          if (now?.status === 'REMOVIDA') return { ok: true };
          if (now?.status === 'CONCLUIDA') return alreadyPaid;
        }
        throw this.merchantError(err, { transactionId: req.transactionId, call: `PATCH ${kind}` }, () => new AppError(502, 'The PIX provider refused to cancel this charge.'));
      }
    }
    return { ok: true };
  }

  /** PATCH /cobr/{txid} to CANCELADA (allowed before the day of its first debit attempt); paid there: ALREADY_PAID. */
  private async cancelRecurringCharge(transactionId: string, txid: string): Promise<ProviderResult> {
    const failed = (err: unknown) => this.merchantError(err, { transactionId, call: 'cobr cancel' }, () => new AppError(502, 'The PIX provider refused to cancel this automatic debit: it may already be under way.'));
    const c = await this.recurringCharge(txid).catch((err) => {
      throw failed(err);
    });
    if (!c || c.status === 'CANCELADA' || c.status === 'REJEITADA' || c.status === 'EXPIRADA') return { ok: true };
    if (c.status === 'CONCLUIDA') return { ok: false, reason: 'ALREADY_PAID', message: 'the automatic debit was made: it will show as PAID shortly; refund it instead' };
    try {
      await this.client.call('PATCH', `/cobr/${txid}`, { status: 'CANCELADA' });
      return { ok: true };
    } catch (err) {
      throw failed(err);
    }
  }

  async captureCard(): Promise<never> {
    throw methodNotOffered('CARD');
  }

  async voidCard(): Promise<never> {
    throw methodNotOffered('CARD');
  }

  /** PUT /webhook/{chave}: the PSP notifies `{url}/pix` of every Pix to our key (idempotent). */
  async registerWebhook(url: string): Promise<void> {
    await this.client.call('PUT', `/webhook/${encodeURIComponent(this.key)}`, { webhookUrl: url });
  }

  close() {
    this.client.close();
  }

  /** A PSP failure as a merchant may see it; the problem itself goes to the logs. */
  private merchantError(err: unknown, context: object, refused: () => AppError): AppError {
    if (err instanceof PixApiError) {
      this.log.error({ ...context, pixApi: err.toLog() }, `pix-api: ${err.message}`);
      return err.kind === 'unavailable' ? unavailable() : err.kind === 'auth' ? credentialsRefused() : refused();
    }
    this.log.error({ ...context, err }, 'pix-api: unexpected failure');
    return unavailable();
  }
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
