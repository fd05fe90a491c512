// What the API Pix's rejection and cancellation codes of Pix Automático mean for Cofre: the reason a
// merchant sees (a failed debit's `failureReason`, an ended subscription's `cancelReason`) and
// whether a retry can still collect. The standard lists the codes (rec `encerramento`, cobr
// `encerramento` and `tentativas[].rejeicao`); their meanings are the Pix message catalogue's, as
// PSPs document them. A code not listed here keeps its generic outcome (docs/providers.md has the table).

/**
 * Rejection codes of a debit attempt (`tentativas[].rejeicao.codigo`): the reason the merchant sees,
 * and whether it is final. The standard says AC05, AM09, DENC, DS27, DTED, MIDI, MSUC, NITX and RC09
 * reject the whole recurring charge: no retry can collect it.
 */
const ATTEMPT_CODES: Record<string, { reason: string; final: boolean }> = {
  AB10: { reason: 'PIX_AUTOMATICO_PAYER_BANK_ERROR', final: false }, // an error at the payer's PSP
  AC06: { reason: 'PIX_AUTOMATICO_ACCOUNT_BLOCKED', final: false }, // the payer's account is blocked
  AM02: { reason: 'PIX_AUTOMATICO_ABOVE_PAYER_LIMIT', final: false }, // above the maximum the payer set
  AC05: { reason: 'PIX_AUTOMATICO_ACCOUNT_CLOSED', final: true }, // the payer's account is closed
  AM09: { reason: 'PIX_AUTOMATICO_AMOUNT_MISMATCH', final: true }, // not the authorisation's fixed value
  DENC: { reason: 'PIX_AUTOMATICO_PAYER_MISMATCH', final: true }, // the payer's CPF/CNPJ is not the authorisation's
  DS27: { reason: 'PIX_AUTOMATICO_PAYER_BANK_NOT_IN_PIX', final: true }, // the payer's PSP does not operate it
  DTED: { reason: 'PIX_AUTOMATICO_DUE_DATE_MISMATCH', final: true }, // the due date does not fit the periodicity
};

/** The other codes the standard says reject the whole charge (meaning not mapped: the generic final reason). */
const FINAL_ATTEMPT_CODES: ReadonlySet<string> = new Set(['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09']);

/** A debit the PSP rejected for good, for a reason not mapped above (the charge REJEITADA, EXPIRADA, or a final code). */
export const DEBIT_REJECTED = 'PIX_AUTOMATICO_REJECTED';
/** The payer (or their PSP) cancelled the debit or its authorisation. */
export const DEBIT_CANCELLED_BY_PAYER = 'PIX_AUTOMATICO_CANCELLED_BY_PAYER';
/**
 * An attempt that EXPIRADA without a code: the payer's bank could not debit on the date, which is
 * how Pix Automático reports a lack of funds (a rejection code is for everything else). The same
 * reason as a card's and the sandbox's.
 */
export const INSUFFICIENT_FUNDS = 'INSUFFICIENT_FUNDS';

/** The reasons no retry can change (see HARD_DECLINES). */
export const FINAL_DEBIT_REASONS: ReadonlySet<string> = new Set([
  DEBIT_REJECTED,
  DEBIT_CANCELLED_BY_PAYER,
  ...Object.values(ATTEMPT_CODES)
    .filter((f) => f.final)
    .map((f) => f.reason),
]);

/** The payer's side of a cancellation (the standard's `solicitante`). */
const PAYER_SIDE = new Set(['USUARIO_PAGADOR', 'PSP_PAGADOR']);

/**
 * Why a recurring charge failed (the failureReason of its transaction), from its state at the PSP,
 * or null while it has not (an attempt still scheduled, or none failed). Final (no retry can
 * collect it) exactly when the reason is in FINAL_DEBIT_REASONS. `end`: the charge's own
 * `encerramento` (who cancelled it).
 */
export function debitFailure(c: { status: string; attempts: Array<{ status: string; code: string | null }>; end?: { by: string | null } }): string | null {
  if (c.status === 'CANCELADA') return c.end?.by && PAYER_SIDE.has(c.end.by) ? DEBIT_CANCELLED_BY_PAYER : DEBIT_REJECTED;
  const last = c.attempts.at(-1);
  const lastFailed = last !== undefined && (last.status === 'REJEITADA' || last.status === 'EXPIRADA' || last.status === 'CANCELADA');
  if (c.status === 'REJEITADA' || c.status === 'EXPIRADA') {
    // Rejected for good: the attempt's own reason when it says why and is final, else the generic one.
    const mapped = lastFailed && last.code ? ATTEMPT_CODES[last.code] : undefined;
    return mapped?.final ? mapped.reason : DEBIT_REJECTED;
  }
  if (!lastFailed) return null;
  if (last.status === 'CANCELADA') return DEBIT_CANCELLED_BY_PAYER;
  if (!last.code) return INSUFFICIENT_FUNDS;
  const mapped = ATTEMPT_CODES[last.code];
  if (mapped) return mapped.reason;
  // Not mapped: final ones generic, the others keep the standard's code (retried).
  return FINAL_ATTEMPT_CODES.has(last.code) ? DEBIT_REJECTED : `PIX_AUTOMATICO_${last.code.replace(/[^A-Z0-9]/g, '').slice(0, 4)}`;
}

/**
 * Why a subscription ends because of its authorisation (its cancelReason), from the state the PSP
 * reports (or the sandbox plays): REJEITADA (refused at the payer's bank: AP13/AP14), EXPIRADA
 * (never answered), CANCELADA by whom (the standard's `solicitante`). The cancellation's code
 * (ACCL, FRUD, SLDB, ...) is logged, not mapped: the standard lists the codes without their
 * meanings, and who asked already decides what the merchant can do.
 */
export function mandateEndReason(status: string, cancelledBy?: string | null): string {
  if (status === 'REJEITADA') return 'PIX_AUTOMATICO_REJECTED';
  if (status === 'EXPIRADA') return 'PIX_AUTOMATICO_EXPIRED';
  if (cancelledBy === 'PSP_PAGADOR') return 'PIX_AUTOMATICO_CANCELLED_BY_PAYER_BANK';
  if (cancelledBy === 'PSP_RECEBEDOR') return 'PIX_AUTOMATICO_CANCELLED_BY_PSP';
  return DEBIT_CANCELLED_BY_PAYER;
}
