// A connector's lookup of a card charge (by our reference) read as the charge's result.
import type { CardDeclineReason, CardResult, ChargeLookup } from '../../payments/connector.ts';

/** A connector's lookup as a card charge's result; null when the charge is not (or not yet) decided there. */
export function lookupResult(found: ChargeLookup | null): CardResult | null {
  if (found?.status === 'PAID' || found?.status === 'AUTHORIZED') return { approved: true, reference: found.reference };
  if (found?.status === 'FAILED') return { approved: false, reason: found.reason as CardDeclineReason, message: found.message };
  return null;
}
