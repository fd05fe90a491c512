// What the split screens share (Divisões de pagamento, a sale's Divisão): the API's share type, a
// share's rule and where its money landed in pt-BR.
import type { Json } from '../../api/json.ts';
import { brl } from '../../lib/format.ts';
import { bp } from '../../lib/fees.ts';

export type Share = Json<'listSplitShares'>['data'][number];
export type SplitSummary = Json<'getSplitSummary'>['data'];

/** "20% do líquido", "R$ 15,00 fixo", "10% do bruto, com a taxa proporcional". */
export function ruleText(s: Pick<Share, 'fixedCents' | 'percentageBp' | 'basis' | 'chargeFees'>): string {
  const what = s.fixedCents != null ? `${brl(s.fixedCents)} fixo` : `${bp(s.percentageBp ?? 0)} do ${s.basis === 'GROSS' ? 'bruto' : 'líquido'}`;
  return s.chargeFees ? `${what}, paga a taxa proporcional` : what;
}

/** Where a share landed: at once, or receivable with the sale's card instalments. */
export const ACCOUNT_LABELS: Record<Share['account'], string> = {
  available: 'no saldo disponível',
  receivable: 'a receber com as parcelas',
};
