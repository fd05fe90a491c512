// Failover between card connectors (CARD_PROVIDER=a,b,...): a production card charge goes to the
// connector its transaction names; when that one cannot answer (it throws: timeout, 5xx, network) and
// its findCharge confirms it made no sale under our reference, the next one is tried, the
// transaction's provider switched to it first. A sale the lookup finds is adopted (never charged
// twice); a decline is an answer and never fails over; a lookup that fails or finds the charge still
// undecided stops the chain (the janitor asks that connector later). A connector whose circuit is
// open (payments/breaker.ts) is skipped without a call unless it is the last. Every try is a row of
// card_attempts, written before the call and finished after it: a try that answered is finished by
// the caller in the transaction that records its outcome (one commit fewer per charge).
import type { Transaction } from '../../db/types.ts';
import type { CardChargeRequest, CardResult } from '../../payments/connector.ts';
import type { RailConnector } from '../../payments/registry.ts';
import { ADOPTED, finishAttempt, heartbeat, skippedAttempt, switchProvider, type AttemptEnd } from './attempts.ts';
import { lookupResult } from './lookup.ts';
import type { TransactionDeps } from './types.ts';

/** Why a call failed, for the attempt row: the error's message only (connectors never put card data in one). */
const failure = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 200);

/** A charge's answer, and the try that gave it, still to be finished (`finishAttempt`) by whoever records the outcome. */
export interface Charged {
  result: CardResult;
  attempt?: { id: string; end: AttemptEnd };
}

/**
 * Charges `req` over the chain starting at the transaction's connector; throws when no answer could
 * be had (the transaction stays PENDING for the janitor, its provider naming the last one called).
 * `firstTry`: the try at the transaction's connector, already recorded PENDING with the transaction.
 */
export async function chargeOverChain(deps: TransactionDeps, tx: Transaction, req: CardChargeRequest, firstTry?: string): Promise<Charged> {
  const chain = deps.connectors.cardChain(tx.livemode, tx.provider);
  if (!tx.livemode) return { result: await chain[0].chargeCard(req) };
  let current = tx.provider;
  let lastError: unknown = new Error('no card connector could be called');
  for (const [i, c] of chain.entries()) {
    const last = i === chain.length - 1;
    const breaker = deps.connectors.breaker(c.name);
    const recorded = i === 0 ? firstTry : undefined;
    if (!last && !breaker.allows()) {
      await skippedAttempt(deps.db, tx.id, c.name, recorded);
      continue;
    }
    if (c.name !== current) {
      if (!(await switchProvider(deps.db, tx, current, c.name))) throw new Error('the card charge was settled by another process meanwhile');
      current = c.name;
    }
    const outcome = await tryConnector(deps, tx, c, req, recorded);
    if (outcome.charged) return outcome.charged;
    lastError = outcome.error;
    if (!outcome.noSale || last) break;
    deps.log.warn({ transactionId: tx.id, connector: c.name, next: chain[i + 1].name }, 'card charge: the connector did not answer and made no sale; failing over to the next');
  }
  throw lastError;
}

type TryOutcome = { charged: Charged; error?: undefined; noSale?: undefined } | { charged?: undefined; error: unknown; noSale: boolean };

/** One try at `c` (recorded before, or now): its answer, or its lookup's when it did not answer; `noSale`: it confirmed it made none. */
async function tryConnector(deps: TransactionDeps, tx: Transaction, c: RailConnector<'CARD'>, req: CardChargeRequest, recorded?: string): Promise<TryOutcome> {
  const breaker = deps.connectors.breaker(c.name);
  const attempt = recorded ?? (await deps.attempts.start(tx.id, c.name));
  const started = Date.now();
  let error: unknown;
  try {
    const result = await c.chargeCard(req);
    breaker.success();
    return { charged: { result, attempt: { id: attempt, end: endOf(result, Date.now() - started) } } };
  } catch (err) {
    error = err;
    breaker.failure();
    await finish(deps, attempt, { outcome: 'UNAVAILABLE', reason: failure(err), latencyMs: Date.now() - started });
  }
  try {
    // The charge was just recorded or switched to this connector; its lookup restarts the janitor's wait.
    await heartbeat(deps.db, tx);
    const found = await c.findCharge(tx.id, 'CARD');
    const adopted = lookupResult(found);
    if (adopted) {
      deps.log.warn({ transactionId: tx.id, connector: c.name }, 'card charge: no answer, but the connector made the charge; its outcome is adopted');
      return { charged: { result: adopted, attempt: { id: attempt, end: { ...endOf(adopted, Date.now() - started), reason: `${ADOPTED} (${failure(error)})` } } } };
    }
    return { error, noSale: found === null };
  } catch (lookupErr) {
    deps.log.error({ err: lookupErr, transactionId: tx.id, connector: c.name }, 'card charge: the connector can neither answer nor be asked; no failover (it may have charged)');
    return { error, noSale: false };
  }
}

function endOf(result: CardResult, latencyMs: number): AttemptEnd {
  return result.approved ? { outcome: 'APPROVED', code: result.code, latencyMs } : { outcome: 'DECLINED', code: result.code, reason: result.reason, latencyMs };
}

/** An attempt row that cannot be finished must not lose the answer: logged, the charge goes on. */
export async function finish(deps: TransactionDeps, attempt: string, end: AttemptEnd): Promise<void> {
  await finishAttempt(deps.db, attempt, end).catch((err: unknown) => deps.log.error({ err, attempt }, 'card charge: could not record the attempt'));
}
