// Why a payment failed (a transaction's failureReason), in pt-BR as a customer is told it: the
// hosted checkout's "Pagamento não aprovado: ..." and the dashboard's sale page. Pure, so the
// dashboard's bundle takes it as it is.
export const DECLINE_PT: Record<string, string> = {
  CARD_DECLINED: 'o cartão foi recusado pelo emissor',
  INSUFFICIENT_FUNDS: 'saldo ou limite insuficiente',
  EXPIRED_CARD: 'cartão vencido',
  INCORRECT_CVV: 'código de segurança incorreto',
  PROCESSING_ERROR: 'erro de processamento no emissor',
  STOLEN_CARD: 'o cartão foi bloqueado pelo emissor',
  SUSPECTED_FRAUD: 'o emissor suspeitou de fraude; use outro cartão ou fale com o seu banco',
  INVALID_CARD: 'dados do cartão inválidos; confira o número e a validade',
  OUT_OF_STOCK: 'o produto esgotou antes da confirmação; nenhum valor será cobrado',
  SIMULATED_FAILURE: 'falha simulada (ambiente de testes)',
  BOLETO_REFUSED: 'o banco não registrou o boleto; fale com o vendedor para pagar de outra forma',
};
