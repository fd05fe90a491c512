// Withdrawals in pt-BR words, for the merchant's Saques and the operators' queue: where one goes (a
// PIX key, or an account's data with its bank), why it waits for the team, and what the payout
// health check reports.
import type { paths } from '../api/schema.d.ts';

type Withdrawal = paths['/api/v1/withdraws']['get']['responses'][200]['content']['application/json']['data'][number];
export type BankAccount = NonNullable<Withdrawal['bankAccount']>;
export type AccountType = BankAccount['accountType'];
export type HoldReason = NonNullable<Withdrawal['holdReason']>;

/**
 * The largest banks and payment institutions a merchant is likely to pick, by ISPB (the 8 digits the
 * Pix directory names an institution by; the 3-digit code in brackets is the one people know).
 * Anything else: "Outro banco", typing the ISPB.
 */
export const BANKS: [ispb: string, name: string][] = [
  ['00000000', 'Banco do Brasil (001)'],
  ['00360305', 'Caixa Econômica Federal (104)'],
  ['60701190', 'Itaú Unibanco (341)'],
  ['60746948', 'Bradesco (237)'],
  ['90400888', 'Santander (033)'],
  ['18236120', 'Nubank (260)'],
  ['00416968', 'Banco Inter (077)'],
  ['31872495', 'C6 Bank (336)'],
  ['30306294', 'BTG Pactual (208)'],
  ['10573521', 'Mercado Pago (323)'],
  ['22896431', 'PicPay (380)'],
  ['08561701', 'PagBank (290)'],
  ['02038232', 'Sicoob (756)'],
  ['01181521', 'Sicredi (748)'],
];

/** The bank's name (without its code) when it is one of BANKS. */
export function bankName(ispb: string): string | undefined {
  return BANKS.find(([i]) => i === ispb)?.[1].replace(/ \(\d{3}\)$/, '');
}

export const ACCOUNT_TYPES: [AccountType, string][] = [
  ['checking', 'Corrente'],
  ['savings', 'Poupança'],
  ['payment', 'Pagamento'],
  ['salary', 'Salário'],
];

export const accountTypeText = (t: AccountType) => ACCOUNT_TYPES.find(([k]) => k === t)?.[1].toLowerCase() ?? t;

export const PIX_KEY_TYPES: [string, string][] = [
  ['cpf', 'CPF'],
  ['cnpj', 'CNPJ'],
  ['email', 'E-mail'],
  ['phone', 'Telefone'],
  ['random', 'Chave aleatória'],
];

/** "Chave PIX (CPF) 52998224725", or "Banco 60701190 (Itaú Unibanco) · ag 0001 · conta 123456". */
export function destinationText(w: Pick<Withdrawal, 'pixKey' | 'pixKeyType' | 'bankAccount'>): string {
  const a = w.bankAccount;
  if (a) {
    const name = bankName(a.ispb);
    return `Banco ${a.ispb}${name ? ` (${name})` : ''} · ag ${a.branch} · conta ${a.account}`;
  }
  const type = PIX_KEY_TYPES.find(([k]) => k === w.pixKeyType)?.[1] ?? w.pixKeyType ?? '';
  return `Chave PIX (${type}) ${w.pixKey ?? ''}`.trim();
}

/** Why a production withdrawal waits for the team, as the merchant reads it. */
export const HOLD_TEXT: Record<HoldReason, string> = {
  ABOVE_REVIEW_THRESHOLD: 'Em análise pela equipe (valor acima do limite de revisão)',
  DAILY_LIMIT: 'Em análise pela equipe (limite diário)',
  NEW_DESTINATION: 'Destino novo: por segurança, o envio espera',
};

/** The merchant's line for a held withdrawal: a new destination says when it goes and what to do if it was not them. */
export function holdText(w: Pick<Withdrawal, 'holdReason' | 'holdUntil'>, when: (at: string) => string): string | null {
  if (!w.holdReason) return null;
  if (w.holdReason === 'NEW_DESTINATION' && w.holdUntil) return `Destino novo: por segurança, será enviado em ${when(w.holdUntil)}. Se não foi você, cancele o saque e troque sua senha.`;
  return HOLD_TEXT[w.holdReason];
}

/** The same, as operators read it in their queue. */
export const HOLD_OPERATOR_TEXT: Record<HoldReason, string> = {
  ABOVE_REVIEW_THRESHOLD: 'Retido para revisão: acima do limite de revisão',
  DAILY_LIMIT: 'Retido para revisão: passa do limite diário do lojista',
  NEW_DESTINATION: 'Retido: primeiro saque para este destino (sai sozinho ao fim da espera; aprovar envia antes)',
};

/** GET /api/admin/payouts/health's problems (English, src/modules/withdrawals/health.ts) in pt-BR. */
const PROBLEMS: [RegExp, string][] = [
  [/does not answer/, 'O provedor de pagamentos não responde: os saques esperam na fila até ele voltar.'],
  [/lacks funds/, 'A conta da plataforma no provedor está sem saldo: os saques ficam na fila e são reenviados sozinhos quando houver saldo.'],
  [/no payout provider/, 'Não há provedor de pagamentos configurado: os saques de produção esperam alguém da equipe pagá-los à mão.'],
];

export function problemText(problem: string): string {
  return PROBLEMS.find(([re]) => re.test(problem))?.[1] ?? 'Há um problema nos pagamentos automáticos: veja os registros (logs) do servidor.';
}
