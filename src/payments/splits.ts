// The arithmetic of a split (modules/splits): each recipient's share of a sale, from its rule and
// what the sale charged and paid in fees. Pure: the same numbers at creation (checked) and at PAID (booked).
import type { SplitRecipient } from '../db/types.ts';

export const MAX_SPLIT_RECIPIENTS = 10;

/** A recipient's share: what it is credited, and the part of the gateway fee it bore. */
export interface Share {
  amountCents: number;
  feeCents: number;
}

export interface SaleAmounts {
  chargedCents: number;
  feeCents: number;
}

/** A rule's own mistakes (before any sale): a field and a message, or null. */
export function ruleProblem(rule: readonly SplitRecipient[]): { field: string; message: string } | null {
  if (rule.length > MAX_SPLIT_RECIPIENTS) return { field: 'split', message: `at most ${MAX_SPLIT_RECIPIENTS} recipients` };
  const seen = new Set<string>();
  let percent = 0;
  for (const [i, r] of rule.entries()) {
    const at = `split.${i}`;
    if ((r.fixedCents === undefined) === (r.percentageBp === undefined)) return { field: at, message: 'give exactly one of fixedCents and percentageBp' };
    if (r.chargeFees && (r.basis ?? 'NET') === 'NET') return { field: `${at}.chargeFees`, message: 'applies with basis GROSS: a share of the net is already after the fee' };
    const wallet = r.walletId.toLowerCase();
    if (seen.has(wallet)) return { field: `${at}.walletId`, message: 'appears twice: one entry per recipient' };
    seen.add(wallet);
    percent += r.percentageBp ?? 0;
  }
  if (percent > 10_000) return { field: 'split', message: `the percentages add up to ${percent / 100}%, more than 100%` };
  return null;
}

/**
 * Each recipient's share of a sale, in the rule's order: a percentage of the net (charged less the
 * fee) or of the gross, rounded down, or a fixed amount; a share bearing fees (chargeFees) gives up
 * fee x share / gross of it. `clamp`: never more than the net left (a partial capture paid less
 * than the sale was created for); without it, `exceeds` says the rule asks for more than the net.
 */
export function splitShares(rule: readonly SplitRecipient[], sale: SaleAmounts): { shares: Share[]; exceeds: number } {
  const net = sale.chargedCents - sale.feeCents;
  let left = net;
  let asked = 0;
  const shares = rule.map((r) => {
    const base = (r.basis ?? 'NET') === 'GROSS' ? sale.chargedCents : net;
    const gross = r.fixedCents ?? Math.floor((Math.max(base, 0) * (r.percentageBp ?? 0)) / 10_000);
    const fee = r.chargeFees && sale.chargedCents > 0 ? Math.floor((sale.feeCents * gross) / sale.chargedCents) : 0;
    const wanted = gross - fee;
    asked += wanted;
    const amount = Math.max(0, Math.min(wanted, left));
    left -= amount;
    return { amountCents: amount, feeCents: fee };
  });
  return { shares, exceeds: Math.max(0, asked - net) };
}

/**
 * What a refund (or chargeback) takes back of a share: in proportion to the part of the sale
 * refunded so far, less what earlier refunds took, so a full refund takes the whole share back.
 */
export function shareReversal(share: { amountCents: number; reversedCents: number }, sale: { chargedCents: number; refundedCents: number }, amountCents: number): number {
  const refunded = Math.min(sale.refundedCents + amountCents, sale.chargedCents);
  const due = sale.chargedCents > 0 ? Math.floor((share.amountCents * refunded) / sale.chargedCents) : share.amountCents;
  return Math.max(0, due - share.reversedCents);
}
