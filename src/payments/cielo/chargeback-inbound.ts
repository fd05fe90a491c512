// Cielo's two chargeback webhooks (Chargeback API manual, "Webhooks"): a new case (the body is a
// pending case, as the PENDING query shows it) to /api/psp/cielo/chargebacks, and a lifecycle step
// ({ establishmentNumber, caseId, message, executionDate, ActionCicleDate }) to
// /api/psp/cielo/chargebacks/lifecycle. The manual documents no authentication for them, so they
// must carry the header the Notification Post carries (X-Notification-Secret), else 401. Nothing in
// them is believed: the case is read from the Chargeback API (chargeback-cases.ts), its payment
// confirmed through the E-commerce API, and only then reported to the core (OPENED, WON, LOST by
// idCase): repeated, late or out-of-order notices change nothing. Cielo unreachable: 503 (it sends again).
import { AppError } from '../../http/errors.ts';
import type { ChargebackReport, ConnectorCore } from '../connector.ts';
import { ChargebackApiError } from './chargeback-client.ts';
import { CASE_ID, findCase, openedReport, outcomeOf, transactionOf, type CaseParts } from './chargeback-cases.ts';
import { CieloError } from './client.ts';
import { secretMatches, type Headers } from './inbound.ts';
import { CIELO_PROVIDER } from './mapping.ts';

export interface ChargebackContext {
  parts: CaseParts;
  core: ConnectorCore;
  secret: string;
}

type Notice = 'new' | 'lifecycle';

export async function receiveChargebackNotice(ctx: ChargebackContext, kind: Notice, body: unknown, headers: Headers): Promise<void> {
  if (!secretMatches(headers['x-notification-secret'], ctx.secret)) throw new AppError(401, 'This notification lacks the X-Notification-Secret header registered with Cielo, or carries another value');
  const b = body as { idCase?: unknown; caseId?: unknown } | null;
  const idCase = String((kind === 'new' ? b?.idCase : b?.caseId) ?? '');
  if (!CASE_ID.test(idCase)) return;
  try {
    await confirm(ctx, kind, idCase);
  } catch (err) {
    if ((err instanceof ChargebackApiError || err instanceof CieloError) && err.kind === 'unavailable') throw new AppError(503, 'Cielo cannot be reached to confirm this chargeback notice; send it again later');
    throw err;
  }
}

async function confirm(ctx: ChargebackContext, kind: Notice, idCase: string): Promise<void> {
  const { core, parts } = ctx;
  const known = await parts.db.selectFrom('chargebacks').select(['transaction_id', 'status']).where('provider', '=', CIELO_PROVIDER).where('case_id', '=', idCase).executeTakeFirst();
  // A new-case notice of a case already open here, or any notice of a closed one: nothing can change.
  if (known && (kind === 'new' || known.status === 'WON' || known.status === 'LOST')) return;
  if (known) {
    const outcome = await outcomeOf(parts, idCase);
    if (outcome) await apply(ctx, [{ transactionId: known.transaction_id, caseId: idCase, status: outcome }]);
    return;
  }
  const found = await findCase(parts, idCase);
  if (!found) {
    core.log.warn({ cielo: { idCase, kind } }, "cielo: a chargeback notice names a case Cielo's Chargeback API does not show; ignored");
    return;
  }
  const transactionId = await transactionOf(parts, found.item);
  if (!transactionId) {
    core.log.warn({ cielo: { idCase, kind } }, 'cielo: a chargeback case disputes no card payment of ours that Cielo confirms; ignored');
    return;
  }
  const opened = openedReport(transactionId, idCase, found.item);
  // A lifecycle notice, or a case already treated, may carry a decision (its own notice lost or late).
  const outcome = kind === 'lifecycle' || !found.pending ? await outcomeOf(parts, idCase) : null;
  await apply(ctx, [opened, ...(outcome ? [{ ...opened, status: outcome }] : [])]);
}

async function apply(ctx: ChargebackContext, reports: ChargebackReport[]): Promise<void> {
  for (const report of reports) {
    try {
      await ctx.core.applyChargeback(report);
    } catch (err) {
      // The payment cannot take it (refunded in full, not a sale of ours): a person looks, Cielo is not asked to resend.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      ctx.core.log.error({ transactionId: report.transactionId, cielo: { idCase: report.caseId, status: report.status }, error: err.message }, 'cielo: a chargeback Cielo reports could not be applied; check it by hand');
      return;
    }
  }
}
