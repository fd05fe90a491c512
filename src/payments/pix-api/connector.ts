// Production PIX through any PSP that implements the Banco Central's API Pix (v2.9.0): immediate
// charges (cob) and charges with a due date (cobv) under a txid derived from our transaction id,
// confirmation of every notified Pix with the PSP's own GET /pix/{e2eid}, the received-Pix list
// for reconciliation, devoluções (refunds) under an id derived from our refund id, removal of a
// charge the merchant cancels, Pix Automático (automatico.ts), and the webhook registration. Its
// notifications and sweeps are in inbound.ts and sweeps.ts, mounted by the registry (edges).
import type { PixApiConfig } from '../../config.ts';
import { AppError } from '../../http/errors.ts';
import { spDate } from '../calendar.ts';
import type {
  CancelRequest,
  ChargeLookup,
  Connector,
  ConnectorCore,
  ConnectorEdges,
  PixCharge,
  PixRequest,
  ProviderResult,
  Rail,
  RefundRequest,
  RefundResult,
} from '../connector.ts';
import { automaticDebit, cancelMandate, cancelRecurringCharge, journey3, mandate, recurringCharge } from './automatico.ts';
import { PixApiClient, PixApiError, type ClientOptions } from './client.ts';
import { pixApiEdges } from './edges.ts';
import {
  cobvValor,
  devolucaoIdFor,
  E2EID,
  merchantError,
  PIX_API_PROVIDER,
  REFUND_WINDOW_DAYS,
  refusedCharge,
  toCents,
  toMoney,
  transactionIdOf,
  txidFor,
  unavailable,
  type ChargeState,
  type ConfirmedPix,
  type DevolucaoStatus,
  type Mandate,
  type PixApiParts,
  type RecurringCharge,
} from './mapping.ts';
import type { ConnectorLog } from '../connector.ts';

export class PixApiConnector implements Connector {
  readonly name = PIX_API_PROVIDER;
  readonly rails: readonly Rail[];
  readonly refundWindowDays = REFUND_WINDOW_DAYS;
  readonly expiresOwnCharges = true;
  readonly client: PixApiClient;
  /** The receiving account of Pix Automático debits; null: Pix Automático is off (PIX_API_RECEIVER_ACCOUNT). */
  readonly account: PixApiConfig['receiverAccount'];
  private key: string;
  private log: ConnectorLog;
  private parts: PixApiParts;

  constructor(config: PixApiConfig, pixKey: string, log: ConnectorLog, opts: ClientOptions = {}) {
    this.client = new PixApiClient(config, opts);
    this.key = pixKey;
    this.log = log;
    this.account = config.receiverAccount;
    this.rails = this.account ? ['PIX', 'PIX_AUTOMATICO'] : ['PIX'];
    this.parts = { client: this.client, log, account: this.account, merchantError: (err, context, refused) => merchantError(log, err, context, refused) };
  }

  /**
   * PUT /cob/{txid} (or /cobv/{txid} when the merchant gave a due date after today): the same
   * transaction always sends the same txid and body, so a retried request finds the charge it
   * created instead of making a second one.
   */
  async createPix(req: PixRequest): Promise<PixCharge> {
    if (req.automatic && req.automatic.kind !== 'first') return automaticDebit(this.parts, req, req.automatic);
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
      throw merchantError(this.log, err, { transactionId: req.transactionId, call: `PUT ${path.split('/')[1]}` }, refusedCharge);
    }
    if (answer?.txid !== txid || typeof answer.pixCopiaECola !== 'string' || !answer.pixCopiaECola) {
      this.log.error({ transactionId: req.transactionId, pixApi: { call: 'PUT cob', answered: { txid: answer?.txid === txid, pixCopiaECola: typeof answer?.pixCopiaECola } } }, 'pix-api: the PSP answered a charge without its txid or BR Code');
      throw refusedCharge();
    }
    if (req.automatic?.kind === 'first') return journey3(this.parts, req, req.automatic, txid);
    return { txid, brCode: answer.pixCopiaECola };
  }

  /**
   * Pix Automático, journey 3: the immediate charge just made (`txid`) carries the authorisation.
   * POST /locrec (a location for the authorisation), POST /rec with `ativacao.dadosJornada.txid` =

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
  async listSince(from: Date, to: Date): Promise<ConfirmedPix[]> {
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
      throw merchantError(this.log, err, { transactionId: req.transactionId, call: 'GET cob' }, unavailable);
    });
    if (state.status === 'CONCLUIDA') return alreadyPaid;
    const txid = txidFor(req.transactionId);
    if (state.status === 'MISSING' && this.account) return cancelRecurringCharge(this.parts, req.transactionId, txid);
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
        throw merchantError(this.log, err, { transactionId: req.transactionId, call: `PATCH ${kind}` }, () => new AppError(502, 'The PIX provider refused to cancel this charge.'));
      }
    }
    return { ok: true };
  }

  /** Withdraws a Pix Automático authorisation (PATCH /rec to CANCELADA). */
  cancelMandate(recurrenceId: string): Promise<void> {
    return cancelMandate(this.parts, recurrenceId);
  }

  /** GET /rec/{idRec}: the authorisation's state, or null when the PSP does not know it. */
  mandate(recurrenceId: string): Promise<Mandate | null> {
    return mandate(this.parts, recurrenceId);
  }

  /** GET /cobr/{txid}: the recurring charge's state, or null when the PSP does not know it. */
  recurringCharge(txid: string): Promise<RecurringCharge | null> {
    return recurringCharge(this.parts, txid);
  }

  /**
   * The charge of a transaction (its txid) as the PSP holds it: CONCLUIDA -> PAID with the first of
   * its Pix that is confirmed ours, ATIVA -> PENDING, removed -> CANCELLED; null: the PSP has none.
   */
  async findCharge(reference: string): Promise<ChargeLookup | null> {
    const state = await this.chargeState(reference);
    if (state.status !== 'CONCLUIDA') return state.status === 'MISSING' ? null : { status: state.status === 'ATIVA' ? 'PENDING' : 'CANCELLED' };
    for (const e2eid of state.e2eids) {
      const pix = await this.confirmPix(e2eid);
      if (pix?.transactionId === reference) return { status: 'PAID', reference: pix.e2eid };
    }
    return { status: 'PENDING' };
  }

  /** The devolução of a refund (GET /pix/{e2eid}/devolucao/{id}) as a refund answer; null when the PSP has none. */
  async findRefund(req: RefundRequest): Promise<RefundResult | null> {
    if (!req.paymentReference) return null;
    const d = await this.refundStatus(req.paymentReference, req.refundId);
    if (!d) return null;
    if (d.status === 'NAO_REALIZADO') return { ok: false, reason: 'NAO_REALIZADO', message: d.motivo ?? 'the refund was not made' };
    return { ok: true, reference: devolucaoIdFor(req.refundId), ...(d.status === 'DEVOLVIDO' ? {} : { pending: true }) };
  }

  /** PUT /webhookrec and /webhookcobr: the PSP notifies `{url}/rec` and `{url}/cobr` (idempotent). */
  async registerRecurringWebhooks(recUrl: string, cobrUrl: string): Promise<void> {
    await this.client.call('PUT', '/webhookrec', { webhookUrl: recUrl });
    await this.client.call('PUT', '/webhookcobr', { webhookUrl: cobrUrl });
  }

  edges(core: ConnectorCore): ConnectorEdges {
    return pixApiEdges(this, core);
  }

  /** PUT /webhook/{chave}: the PSP notifies `{url}/pix` of every Pix to our key (idempotent). */
  async registerWebhook(url: string): Promise<void> {
    await this.client.call('PUT', `/webhook/${encodeURIComponent(this.key)}`, { webhookUrl: url });
  }

  close() {
    this.client.close();
  }
}
