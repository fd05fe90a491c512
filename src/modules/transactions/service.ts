// The payment core's operations, one file each: create (create.ts), charge a card (card.ts),
// capture, cancel, refund, apply what connectors report (provider-events.ts), the time-based sweeps
// (sweeps.ts), the janitor of unknown outcomes (janitor.ts) and chargebacks (chargeback.ts). Rules without I/O are in draft.ts
// and states.ts, the SQL in queries.ts and creation.ts. Other modules import the core from here.
export type { CheckoutExtras, CreateInput } from './draft.ts';
export type { CardGuard, CreateOptions, TransactionDeps } from './types.ts';
export { createTransaction, createTransactionWith } from './create.ts';
export { chargeStoredCard, noStoredCards, payPendingCard, redriveStoredCharge } from './card.ts';
export { captureTransaction } from './capture.ts';
export { cancelTransaction } from './cancel.ts';
export { recordRefund, refundTransaction } from './refund.ts';
export { applyProviderEvents, changeStatus, simulate } from './provider-events.ts';
export { expireAuthorizations, expireDue, settleDue } from './sweeps.ts';
export { settleUnknownCharges, settleUnknownRefunds } from './janitor.ts';
export { getTransaction, listTransactions } from './queries.ts';
export { applyChargeback } from './chargeback.ts';
