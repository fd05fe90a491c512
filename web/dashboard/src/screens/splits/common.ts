// What the split screens share (Divisões de pagamento, a sale's Divisão): the API's share type, a
// share's rule (lib/split-rule.ts) and where its money landed in pt-BR.
import type { Json } from '../../api/json.ts';

export { ruleText } from '../../lib/split-rule.ts';

export type Share = Json<'listSplitShares'>['data'][number];
export type SplitSummary = Json<'getSplitSummary'>['data'];

/** Where a share landed: at once, or receivable with the sale's card instalments. */
export const ACCOUNT_LABELS: Record<Share['account'], string> = {
  available: 'no saldo disponível',
  receivable: 'a receber com as parcelas',
};
