// Where a withdrawal goes: a Pix key, or an account's data (a Pix by account data, not a TED). Checked
// at request time, so a payout connector only ever sees a normalised, valid destination; and what a
// merchant reads when a payout fails, in pt-BR words.
import type { Static } from '@sinclair/typebox';
import type { PixKeyType, Withdrawal } from '../../db/types.ts';
import { badRequest, validation } from '../../http/errors.ts';
import { sanitizeText } from '../../http/sanitize.ts';
import type { BankAccount, PayoutDestination, PayoutFailureReason } from '../../payments/connector.ts';
import { maskDocument, validateDocument } from '../../payments/documents.ts';
import { validatePixKey } from '../../payments/pix-keys.ts';
import type { CreateWithdrawalBody } from './schemas.ts';

/** The destination's columns: exactly one of the key and the account is set. */
export type DestinationColumns = { pix_key_type: PixKeyType; pix_key: string; bank_account: null } | { pix_key_type: null; pix_key: null; bank_account: BankAccount };

const documentError = (field: string, reason: string) => badRequest('INVALID_DOCUMENT', 'Invalid CPF or CNPJ', [{ field, message: reason }]);

export function checkDestination(input: Static<typeof CreateWithdrawalBody>): DestinationColumns {
  if (input.bankAccount) {
    if (input.pixKey !== undefined || input.pixKeyType !== undefined) throw validation('bankAccount', 'give either pixKey or bankAccount, not both');
    const a = input.bankAccount;
    const doc = validateDocument(a.holderDocument);
    if (!doc.ok) throw documentError('bankAccount.holderDocument', doc.reason);
    const holderName = sanitizeText(a.holderName);
    if (!holderName) throw validation('bankAccount.holderName', 'must contain text');
    return { pix_key_type: null, pix_key: null, bank_account: { ispb: a.ispb, branch: a.branch, account: a.account, accountType: a.accountType, holderName, holderDocument: doc.normalized } };
  }
  if (input.pixKey === undefined || input.pixKeyType === undefined) throw validation('pixKey', 'is required (or give bankAccount)');
  const key = validatePixKey(input.pixKeyType, input.pixKey);
  if (!key.ok) {
    if (input.pixKeyType === 'cpf' || input.pixKeyType === 'cnpj') throw documentError('pixKey', key.reason);
    throw validation('pixKey', key.reason);
  }
  return { pix_key_type: input.pixKeyType, pix_key: key.normalized, bank_account: null };
}

export function destinationOf(w: Withdrawal): PayoutDestination {
  if (w.bank_account) return { type: 'bank_account', account: w.bank_account };
  return { type: 'pix_key', pixKeyType: w.pix_key_type!, pixKey: w.pix_key! };
}

/** For ledger descriptions and logs: the kind of destination, never the key or the account. */
export const destinationLabel = (w: Withdrawal): string => (w.bank_account ? 'bank account (Pix by account data)' : `PIX key (${w.pix_key_type})`);

/** The destination as event payloads carry it: CPF/CNPJ keys and the holder's document masked. */
export function maskedDestination(w: Withdrawal) {
  const pixKey = w.pix_key && (w.pix_key_type === 'cpf' || w.pix_key_type === 'cnpj') ? maskDocument(w.pix_key) : w.pix_key;
  return { pixKey, bankAccount: w.bank_account && { ...w.bank_account, holderDocument: maskDocument(w.bank_account.holderDocument) } };
}

const FAILURE_MESSAGES: Record<PayoutFailureReason, string> = {
  PIX_KEY_NOT_FOUND: 'A chave Pix não foi encontrada: confira a chave e peça o saque de novo.',
  ACCOUNT_NOT_FOUND: 'A conta de destino não existe: confira banco, agência e conta.',
  ACCOUNT_CLOSED: 'A conta de destino está encerrada ou bloqueada para receber.',
  DOCUMENT_MISMATCH: 'O CPF/CNPJ informado não é o do titular da conta de destino.',
  PAYOUT_REJECTED: 'A instituição recebedora recusou a transferência.',
};

/** The merchant's words for a stored failure (a connector's code); an operator's own reason is shown as written. */
export function failureWords(stored: string | null): string | null {
  const code = failureCode(stored);
  return code ? FAILURE_MESSAGES[code] : stored;
}

/** The code of a stored failure; null for an operator's own words. */
export const failureCode = (stored: string | null): PayoutFailureReason | null => (stored !== null && Object.hasOwn(FAILURE_MESSAGES, stored) ? (stored as PayoutFailureReason) : null);
