// Production PIX through any PSP that implements the Banco Central's API Pix (v2.9.0): immediate
// charges (cob) and charges with a due date (cobv) under a txid derived from our transaction id,
// confirmation of every notified Pix with the PSP's own GET /pix/{e2eid}, the received-Pix list
// for reconciliation, devoluções (refunds) under an id derived from our refund id, removal of a
// charge the merchant cancels, and the webhook registration. What a merchant sees of a PSP failure
// is a Cofre error (503 unavailable, 502 refused); the PSP's problem goes to the logs only.
import { AppError } from '../../http/errors.ts';
import type { PixApiConfig } from '../../config.ts';
import { spDate } from '../calendar.ts';
import { methodNotOffered, type CancelRequest, type PaymentProvider, type ProviderResult, type PixCharge, type PixRequest, type ProviderEvent, type RefundRequest, type RefundResult } from '../provider.ts';
import { PixApiClient, PixApiError, type ClientOptions } from './client.ts';

export const PIX_API_PROVIDER = 'bcb-api';

/** The standard allows a devolução within 90 days of the original Pix's settlement. */
export const REFUND_WINDOW_DAYS = 90;

/** A notification carrying more e2eids than this is cut: each one costs a call to the PSP. */
const MAX_NOTIFIED = 100;

const E2EID = /^[a-zA-Z0-9]{32}$/;
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

/** A Pix as the PSP reports it, checked: ours (txid), to our key, with its value in cents. */
export interface ConfirmedPix {
  e2eid: string;
  txid: string;
  transactionId: string;
  amountCents: number;
  settledAt: Date;
}

export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

/** What a charge's state at the PSP means for the transaction here. */
export type ChargeState = { status: 'ATIVA' | 'REMOVIDA' | 'MISSING' } | { status: 'CONCLUIDA'; e2eids: string[] };

export interface ProviderLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const unavailable = () => new AppError(503, 'The PIX provider is unavailable right now. Try again in a few minutes.');
const refusedCharge = () => new AppError(502, 'The PIX provider refused to create this charge. Check the payer data and try again, or contact support with the X-Request-Id.');

export class PixApiProvider implements PaymentProvider {
  readonly name = PIX_API_PROVIDER;
  readonly refundWindowDays = REFUND_WINDOW_DAYS;
  readonly expiresOwnCharges = true;
  readonly client: PixApiClient;
  private key: string;
  private log: ProviderLog;

  constructor(config: PixApiConfig, pixKey: string, log: ProviderLog, opts: ClientOptions = {}) {
    this.client = new PixApiClient(config, opts);
    this.key = pixKey;
    this.log = log;
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
    const txid = txidFor(req.transactionId);
    const devedor = { ...(req.payer.document.length === 11 ? { cpf: req.payer.document } : { cnpj: req.payer.document }), nome: req.payer.name.slice(0, 200) };
    const solicitacaoPagador = req.description.slice(0, 140);
    const withDueDate = req.dueDate !== undefined && req.dueDate > spDate(new Date());
    const [path, body] = withDueDate
      ? [`/cobv/${txid}`, { calendario: { dataDeVencimento: req.dueDate, validadeAposVencimento: 0 }, devedor, valor: { original: toMoney(req.amountCents) }, chave: this.key, solicitacaoPagador }]
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
    return { txid, brCode: answer.pixCopiaECola };
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
    for (const e2eid of notifiedE2eids(body)) {
      const pix = await this.confirmPix(e2eid);
      if (pix) events.push({ transactionId: pix.transactionId, outcome: 'PAID', reference: pix.e2eid, amountCents: pix.amountCents });
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
    if (state.status !== 'ATIVA') return { ok: true };
    const txid = txidFor(req.transactionId);
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
      return err.kind === 'unavailable' ? unavailable() : refused();
    }
    this.log.error({ ...context, err }, 'pix-api: unexpected failure');
    return unavailable();
  }
}

/** The e2eids a notification names ({pix: [...]} or a bare array), well-formed, deduplicated, at most MAX_NOTIFIED. */
export function notifiedE2eids(body: unknown): string[] {
  const items = Array.isArray(body) ? body : Array.isArray((body as { pix?: unknown } | null)?.pix) ? (body as { pix: unknown[] }).pix : [];
  const out = new Set<string>();
  for (const item of items) {
    const e2eid = (item as { endToEndId?: unknown } | null)?.endToEndId;
    if (typeof e2eid === 'string' && E2EID.test(e2eid)) out.add(e2eid);
    if (out.size >= MAX_NOTIFIED) break;
  }
  return [...out];
}
