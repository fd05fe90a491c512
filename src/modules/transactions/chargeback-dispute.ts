// The merchant's side of a chargeback: its answer (accept, or contest with evidence) forwarded to the
// acquirer through the payment's connector, and the sandbox's simulation of the acquirer (opening a
// case, deciding a contested one) for development keys.
import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Chargeback, Transaction } from '../../db/types.ts';
import { AppError, badRequest, forbidden, notFound, validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import type { DisputeRequest } from '../../payments/connector.ts';
import { sniffContentType } from '../kyc/files.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import { applyChargeback, closeChargeback, latestChargeback } from './chargeback.ts';
import { DISPUTE_LIMITS, type DisputeBody } from './chargeback-schemas.ts';
import { lockTransaction } from './changed-rows.ts';
import { getTransaction } from './queries.ts';
import type { TransactionDeps } from './types.ts';
import { chargebackView } from './view.ts';

/** How long the sandbox's acquirer waits for an answer (real ones give 7 to 20 days). */
const SANDBOX_RESPOND_DAYS = 7;

const noOpenCase = (status: string) =>
  badRequest('INVALID_STATE_TRANSITION', 'This transaction has no open chargeback to answer', [{ field: 'status', message: `the latest chargeback is ${status}: only an OPEN one can be accepted or contested` }]);

/** The files of a contest, decoded and checked (the schema bounds count and encoded size). */
function evidenceFiles(body: Static<typeof DisputeBody>): NonNullable<DisputeRequest['files']> {
  return (body.files ?? []).map((f, i) => {
    const content = Buffer.from(f.contentBase64, 'base64');
    if (content.length === 0 || content.length > DISPUTE_LIMITS.fileBytes) throw validation(`files.${i}.contentBase64`, `a file is 1 byte to ${DISPUTE_LIMITS.fileBytes / 1024} KiB`);
    // Judged by its first bytes, as KYC documents are: a mislabelled file is the merchant's to fix, not the acquirer's to refuse.
    if (sniffContentType(content) !== f.contentType) throw validation(`files.${i}.contentBase64`, `is not a ${f.contentType} file (judged by its content)`);
    return { name: f.name, contentType: f.contentType, content };
  });
}

/**
 * Answers the transaction's open chargeback. The answer goes to the acquirer first (nothing is
 * recorded if it cannot be delivered: the merchant sends it again), then is stored: ACCEPT makes
 * the case LOST (final); CONTEST makes it CONTESTED until the acquirer's outcome is reported.
 */
export async function disputeChargeback(deps: TransactionDeps, scope: Scope, id: string, body: Static<typeof DisputeBody>, actor: Actor): Promise<Transaction> {
  if (body.action === 'CONTEST' && !body.text) throw validation('text', 'required to contest: what was sold, delivered and agreed');
  if (body.action === 'ACCEPT' && (body.text || body.files?.length)) throw validation(body.text ? 'text' : 'files', 'only sent to contest');
  const files = evidenceFiles(body);
  const tx = await getTransaction(deps.db, scope, id);
  const open = await latestChargeback(deps.db, scope, tx.id);
  if (open?.status !== 'OPEN') throw noOpenCase(open?.status ?? 'none');
  const connector = deps.connectors.of(open.provider, 'CARD');
  if (!connector.disputeChargeback) throw new AppError(503, `Chargebacks of this payment's provider (${open.provider}) are answered at the acquirer, not through this gateway`);
  const sent = await connector.disputeChargeback({ transactionId: tx.id, caseId: open.case_id, paymentReference: tx.provider_ref, action: body.action, text: body.text, files });
  if (!sent.ok) throw new AppError(502, `The acquirer refused the answer: ${sent.message}`);
  return deps.changes.run(scope, async (trx) => {
    const locked = await lockTransaction(trx, scope, tx.id);
    const cb = locked && (await trx.selectFrom('chargebacks').selectAll().where('id', '=', open.id).forUpdate().executeTakeFirst());
    if (!locked || !cb) throw notFound('Transaction');
    // The acquirer decided meanwhile (its report came first): that outcome stands.
    if (cb.status !== 'OPEN') return locked;
    const now = new Date();
    let answered = locked;
    if (body.action === 'ACCEPT') answered = await closeChargeback(deps, trx, locked, cb, 'LOST', now, { response: 'ACCEPTED', responded_at: now });
    else {
      const evidence = files.map((f) => ({ name: f.name, contentType: f.contentType, bytes: f.content.length }));
      await trx
        .updateTable('chargebacks')
        .set({ status: 'CONTESTED', response: 'CONTESTED', evidence_text: body.text ?? '', evidence_files: JSON.stringify(evidence), responded_at: now, updated_at: now })
        .where('id', '=', cb.id)
        .execute();
    }
    const after = await trx.selectFrom('chargebacks').selectAll().where('id', '=', cb.id).executeTakeFirstOrThrow();
    const entry = { userId: scope.userId, livemode: scope.livemode, objectType: 'chargeback', objectId: cb.id };
    await recordAudit(trx, actor, { ...entry, action: body.action === 'ACCEPT' ? 'chargeback.accepted' : 'chargeback.contested', before: chargebackView(cb), after: chargebackView(after) });
    return answered;
  });
}

export type ChargebackOutcome = 'CHARGEBACK' | 'CHARGEBACK_WON' | 'CHARGEBACK_LOST';

/**
 * Sandbox: the merchant plays the acquirer (development keys only). CHARGEBACK opens a case on a
 * paid card payment for all that is left of it; CHARGEBACK_WON decides a CONTESTED case for the
 * merchant (no win without evidence); CHARGEBACK_LOST decides an OPEN or CONTESTED one against it.
 * Each goes through the same report path as a real acquirer's (applyChargeback).
 */
export async function simulateChargeback(deps: TransactionDeps, scope: Scope, id: string, outcome: ChargebackOutcome): Promise<Transaction> {
  if (scope.livemode) throw forbidden('Simulation is only available with development (test) keys');
  const sandbox = deps.connectors.sandbox.name;
  if (outcome === 'CHARGEBACK') {
    const report = {
      transactionId: id,
      caseId: `sbx_cb_${randomBytes(10).toString('hex')}`,
      status: 'OPENED' as const,
      reasonCode: '10.4',
      reason: 'Fraude em compra sem cartão presente (simulada)',
      respondBy: new Date(Date.now() + SANDBOX_RESPOND_DAYS * DAY_MS),
    };
    return applyChargeback(deps, sandbox, report, scope);
  }
  const tx = await getTransaction(deps.db, scope, id);
  const cb: Chargeback | undefined = await latestChargeback(deps.db, scope, tx.id);
  const decidable = outcome === 'CHARGEBACK_WON' ? cb?.status === 'CONTESTED' : cb?.status === 'OPEN' || cb?.status === 'CONTESTED';
  if (!cb || !decidable) {
    throw badRequest('INVALID_STATE_TRANSITION', `No chargeback the acquirer could decide ${outcome === 'CHARGEBACK_WON' ? 'for' : 'against'} you`, [
      { field: 'outcome', message: outcome === 'CHARGEBACK_WON' ? 'only a CONTESTED chargeback can be won: contest it first (POST .../dispute)' : 'only an OPEN or CONTESTED chargeback can be lost' },
    ]);
  }
  return applyChargeback(deps, cb.provider, { transactionId: tx.id, caseId: cb.case_id, status: outcome === 'CHARGEBACK_WON' ? 'WON' : 'LOST' }, scope);
}
