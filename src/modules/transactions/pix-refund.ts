// Refunds by Pix: a paid boleto cannot be reversed at its bank, so where its connector says so
// (refundsByPix) the money goes back as a Pix payout to a key of the payer the merchant gives
// (refund {pixKey}), through the environment's payout connector, with the refund id as the
// payout's reference (never paid twice). The ledger is the refund's, as for any other refund; the
// payout's outcome settles the refund row (SUCCEEDED, or FAILED and undone).
import type { PixKeyType, Transaction } from '../../db/types.ts';
import { AppError, validation } from '../../http/errors.ts';
import type { PayoutState, RefundRequest, RefundResult } from '../../payments/connector.ts';
import { inferPixKeyType, validatePixKey } from '../../payments/pix-keys.ts';
import type { TransactionDeps } from './types.ts';

export interface PixDestination {
  pixKeyType: PixKeyType;
  pixKey: string;
  /** The payout connector that sends it (the environment's, when the refund is made). */
  payoutProvider: string;
}

/** What refunds a payment: its own connector, or a payout to the payer's key. */
export interface Refunder {
  refund(req: RefundRequest): Promise<RefundResult>;
  findRefund(req: RefundRequest): Promise<RefundResult | null>;
}

/**
 * The payer's key of a refund request, checked: required when the payment's connector cannot
 * reverse it (and a payout connector must exist then), refused where it is not used.
 */
export function pixDestination(deps: Pick<TransactionDeps, 'connectors'>, tx: Transaction, body: { pixKey?: string; pixKeyType?: PixKeyType }): PixDestination | null {
  const byPix = deps.connectors.find(tx.provider)?.refundsByPix === true;
  if (!body.pixKey) {
    if (byPix) throw validation('pixKey', "is required: a boleto cannot be reversed, so its refund is a Pix to the payer's key");
    if (body.pixKeyType) throw validation('pixKeyType', 'goes with pixKey');
    return null;
  }
  if (!byPix) throw validation('pixKey', "is only for payments refunded by Pix (production boletos): this payment's refund goes back the way it was paid");
  if (!deps.connectors.offers(tx.livemode, 'PAYOUT')) throw new AppError(503, 'Refunds of boletos are sent by Pix, and this gateway has no automatic payouts configured (PAYOUT_PROVIDER)');
  const type = body.pixKeyType ?? inferPixKeyType(body.pixKey);
  if (!type) throw validation('pixKeyType', 'is required: pixKey is none of a CPF, CNPJ, e-mail, +55 phone or random key');
  const checked = validatePixKey(type, body.pixKey);
  if (!checked.ok) throw validation('pixKey', checked.reason);
  return { pixKeyType: type, pixKey: checked.normalized, payoutProvider: deps.connectors.forNew(tx.livemode, 'PAYOUT').name };
}

/** The payout reference of a refund: its id's 32 hex digits (letters and digits, at most 35). */
export const payoutReferenceOf = (refundId: string) => refundId.replace(/-/g, '');

const resultOf = (ref: string, state: PayoutState): RefundResult =>
  state.status === 'FAILED' ? { ok: false, reason: state.reason, message: state.message } : { ok: true, reference: ref, pending: state.status === 'PROCESSING' };

/** A refund row as refunderOf needs it. */
export interface RefundRoute {
  provider: string;
  payment_method: Transaction['payment_method'];
  pix_key_type: string | null;
  pix_key: string | null;
  payout_provider: string | null;
  display_id: string;
}

/** Who refunds a refund row: the payout connector that sends it when it carries a payer's key, else the payment's connector. */
export function refunderOf(deps: Pick<TransactionDeps, 'connectors'>, r: RefundRoute): Refunder {
  if (!r.pix_key || !r.pix_key_type || !r.payout_provider) return deps.connectors.of(r.provider, r.payment_method);
  const payout = deps.connectors.of(r.payout_provider, 'PAYOUT');
  const description = `Estorno do pedido ${r.display_id}`;
  const destination = { type: 'pix_key' as const, pixKeyType: r.pix_key_type as PixKeyType, pixKey: r.pix_key };
  return {
    async refund(req) {
      const ref = payoutReferenceOf(req.refundId);
      const sent = await payout.sendPayout({ externalId: ref, amountCents: req.amountCents, destination, description });
      if (sent.status === 'FAILED') return { ok: false, reason: sent.reason, message: sent.message };
      // HELD (the platform's funds): not sent; the refund stays PENDING and is sent again by the janitor.
      if (sent.status === 'HELD') throw new AppError(503, sent.message);
      return { ok: true, reference: ref, pending: true };
    },
    async findRefund(req) {
      const ref = payoutReferenceOf(req.refundId);
      const state = await payout.findPayout(ref);
      return state ? resultOf(ref, state) : null;
    },
  };
}
