// Pix Automático through the API Pix: the first charge that carries the payer's authorisation
// (journey 3: cob + locrec + rec), the cycles' automatic debits (cobr) and their retries, and the
// authorisations' and recurring charges' states as the PSP reports them.
import { AppError } from '../../http/errors.ts';
import type { PixAutomaticoCharge, PixCharge, PixRequest, ProviderResult } from '../connector.ts';
import { PixApiError } from './client.ts';
import { COBR_STATUSES, E2EID, MANDATE_STATUSES, REC_ID, refusedCharge, toMoney, txidFor, type Mandate, type PixApiParts, type RecurringCharge } from './mapping.ts';

const notConfigured = () => new AppError(503, 'Pix Automático is not available on this gateway (PIX_API_RECEIVER_ACCOUNT is not configured)');

/**
 * Pix Automático, journey 3: the immediate charge just made (`txid`) carries the authorisation.
 * POST /locrec (a location for the authorisation), POST /rec with `ativacao.dadosJornada.txid` =
 * the charge (politicaRetentativa PERMITE_3R_7D: up to 3 retries within 7 days of a due date),
 * then GET /rec/{idRec}?txid= for the composite BR Code (charge + authorisation: dadosQR,
 * JORNADA_3), which is what the payer scans. POST /locrec is sent once (a location lost with its
 * answer is an unused location, nothing more); POST /rec is recovered by its location (createMandate).
 */
export async function journey3(p: PixApiParts, req: PixRequest, auto: Extract<PixAutomaticoCharge, { kind: 'first' }>, txid: string): Promise<PixCharge> {
  if (!p.account) throw notConfigured();
  const context = { transactionId: req.transactionId };
  try {
    const loc = await p.client.call<{ id?: unknown }>('POST', '/locrec', undefined, { retry: false });
    if (typeof loc?.id !== 'number' && typeof loc?.id !== 'string') throw new PixApiError('refused', 'location without an id');
    const devedor = { ...(req.payer.document.length === 11 ? { cpf: req.payer.document } : { cnpj: req.payer.document }), nome: req.payer.name.slice(0, 140) };
    const contract = auto.contract.slice(0, 35);
    const idRec = await createMandate(p, context, Number(loc.id), contract, txid, {
      vinculo: { contrato: contract, devedor, objeto: auto.object.slice(0, 35) },
      calendario: { dataInicial: auto.firstDebitDate, periodicidade: auto.periodicity },
      politicaRetentativa: 'PERMITE_3R_7D',
      loc: Number(loc.id),
      ativacao: { dadosJornada: { txid } },
    });
    const full = await p.client.call<{ dadosQR?: { jornada?: unknown; pixCopiaECola?: unknown } }>('GET', `/rec/${idRec}?txid=${txid}`);
    const code = full?.dadosQR?.pixCopiaECola;
    if (full?.dadosQR?.jornada !== 'JORNADA_3' || typeof code !== 'string' || !code) throw new PixApiError('refused', 'authorisation without the composite BR Code of journey 3');
    return { txid, brCode: code, recurrenceId: idRec };
  } catch (err) {
    // The charge just made is withdrawn (best effort): without its authorisation it is nobody's,
    // no transaction records it, and no expiry job would ever remove it.
    await p.client.call('PATCH', `/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }).catch((removal: unknown) => {
      p.log.error({ ...context, pixApi: removal instanceof PixApiError ? removal.toLog() : String(removal) }, 'pix-api: a Pix Automático first charge whose authorisation failed could not be withdrawn');
    });
    throw p.merchantError(err, { ...context, call: 'pix automatico journey 3' }, refusedCharge);
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
async function createMandate(p: PixApiParts, context: object, loc: number, contract: string, txid: string, body: object): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const rec = await p.client.call<{ idRec?: unknown }>('POST', '/rec', body, { retry: false });
      if (typeof rec?.idRec !== 'string' || !REC_ID.test(rec.idRec)) throw new PixApiError('refused', 'authorisation without a valid idRec');
      return rec.idRec;
    } catch (err) {
      if (!(err instanceof PixApiError) || (err.kind !== 'unavailable' && err.kind !== 'refused')) throw err;
      const found = await mandateAt(p, loc, contract, txid);
      if (found) {
        p.log.warn({ ...context, recurrenceId: found, pixApi: err.toLog() }, 'pix-api: the answer to POST /rec was lost; the authorisation was found by its location');
        return found;
      }
      if (err.kind === 'refused' || attempt >= 3) throw err;
    }
  }
}

/** The authorisation bound to the location `loc` (GET /locrec/{id}), if it is ours: our contract and charge. */
async function mandateAt(p: PixApiParts, loc: number, contract: string, txid: string): Promise<string | null> {
  const l = await p.client.call<{ idRec?: unknown }>('GET', `/locrec/${loc}`);
  if (typeof l?.idRec !== 'string' || !REC_ID.test(l.idRec)) return null;
  const r = await p.client.call<{ idRec?: unknown; vinculo?: { contrato?: unknown }; ativacao?: { dadosJornada?: { txid?: unknown } } }>('GET', `/rec/${l.idRec}`);
  if (r?.idRec !== l.idRec || r.vinculo?.contrato !== contract || r.ativacao?.dadosJornada?.txid !== txid) {
    p.log.error({ recurrenceId: l.idRec, loc }, 'pix-api: the location of a new authorisation is bound to another authorisation; not used');
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
export async function automaticDebit(p: PixApiParts, req: PixRequest, auto: Exclude<PixAutomaticoCharge, { kind: 'first' }>): Promise<PixCharge> {
  if (!p.account) throw notConfigured();
  const context = { transactionId: req.transactionId, recurrenceId: auto.recurrenceId };
  if (auto.kind === 'retry') {
    try {
      await p.client.call('POST', `/cobr/${auto.txid}/retentativa/${auto.date}`, undefined, { retry: false });
    } catch (err) {
      const known = err instanceof PixApiError && err.kind === 'refused' ? await recurringCharge(p, auto.txid).catch(() => null) : null;
      if (!known?.attempts.some((a) => a.date === auto.date && (a.status === 'SOLICITADA' || a.status === 'AGENDADA'))) {
        throw p.merchantError(err, { ...context, call: 'POST cobr retentativa' }, refusedCharge);
      }
    }
    return { txid: null, brCode: null };
  }
  const txid = txidFor(req.transactionId);
  const { agencia, ...account } = p.account;
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
    answer = await p.client.call('PUT', `/cobr/${txid}`, body);
  } catch (err) {
    throw p.merchantError(err, { ...context, call: 'PUT cobr' }, refusedCharge);
  }
  if (answer?.txid !== txid || answer.idRec !== auto.recurrenceId) {
    p.log.error({ ...context, pixApi: { call: 'PUT cobr', answered: { txid: answer?.txid === txid, idRec: answer?.idRec === auto.recurrenceId } } }, 'pix-api: the PSP answered a recurring charge without its txid or idRec');
    throw refusedCharge();
  }
  return { txid, brCode: null };
}

/** GET /rec/{idRec}: the authorisation's state, or null when the PSP does not know it. */
export async function mandate(p: PixApiParts, recurrenceId: string): Promise<Mandate | null> {
  if (!REC_ID.test(recurrenceId)) return null;
  let r: any;
  try {
    r = await p.client.call('GET', `/rec/${recurrenceId}`);
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
export async function cancelMandate(p: PixApiParts, recurrenceId: string): Promise<void> {
  try {
    await p.client.call('PATCH', `/rec/${recurrenceId}`, { status: 'CANCELADA' });
  } catch (err) {
    if (err instanceof PixApiError && (err.kind === 'refused' || err.kind === 'not_found')) {
      const now = await mandate(p, recurrenceId);
      if (!now || now.status !== 'CRIADA' && now.status !== 'APROVADA') return;
    }
    throw err;
  }
}

/** GET /cobr/{txid}: the recurring charge's state, or null when the PSP does not know it. */
export async function recurringCharge(p: PixApiParts, txid: string): Promise<RecurringCharge | null> {
  let c: any;
  try {
    c = await p.client.call('GET', `/cobr/${txid}`);
  } catch (err) {
    if (err instanceof PixApiError && err.kind === 'not_found') return null;
    throw err;
  }
  if (c?.txid !== txid || !COBR_STATUSES.includes(c.status)) return null;
  const attempts = (Array.isArray(c.tentativas) ? c.tentativas : [])
    .filter((t: any) => typeof t?.dataLiquidacao === 'string' && typeof t?.status === 'string')
    .map((t: any) => ({ date: t.dataLiquidacao, status: t.status, code: typeof t.rejeicao?.codigo === 'string' ? t.rejeicao.codigo : null }));
  const e2eids = (Array.isArray(c.pix) ? c.pix : []).map((x: any) => x?.endToEndId).filter((e: unknown): e is string => typeof e === 'string' && E2EID.test(e));
  const closing = c.encerramento?.cancelamento ?? c.encerramento?.rejeicao;
  const end = { by: typeof c.encerramento?.cancelamento?.solicitante === 'string' ? c.encerramento.cancelamento.solicitante : null, code: typeof closing?.codigo === 'string' ? closing.codigo : null };
  return { txid, recurrenceId: typeof c.idRec === 'string' ? c.idRec : null, status: c.status, attempts, e2eids, end };
}

/** PATCH /cobr/{txid} to CANCELADA (allowed before the day of its first debit attempt); paid there: ALREADY_PAID. */
export async function cancelRecurringCharge(p: PixApiParts, transactionId: string, txid: string): Promise<ProviderResult> {
  const failed = (err: unknown) => p.merchantError(err, { transactionId, call: 'cobr cancel' }, () => new AppError(502, 'The PIX provider refused to cancel this automatic debit: it may already be under way.'));
  const c = await recurringCharge(p, txid).catch((err) => {
    throw failed(err);
  });
  if (!c || c.status === 'CANCELADA' || c.status === 'REJEITADA' || c.status === 'EXPIRADA') return { ok: true };
  if (c.status === 'CONCLUIDA') return { ok: false, reason: 'ALREADY_PAID', message: 'the automatic debit was made: it will show as PAID shortly; refund it instead' };
  try {
    await p.client.call('PATCH', `/cobr/${txid}`, { status: 'CANCELADA' });
    return { ok: true };
  } catch (err) {
    throw failed(err);
  }
}
