// The webhook event types in Portuguese, grouped by what they are about: a short name for lists and
// checkboxes and when each is sent (the API's catalogue, GET /api/v1/webhooks/events, is English).
// The raw type stays beside the name on every screen, for developers. A type the API adds before it
// is named here is listed under "Outros" by its raw name.

/** [type, name, when it is sent]. */
type Described = [string, string, string];

export const EVENT_GROUPS: [string, Described[]][] = [
  [
    'Transações (vendas)',
    [
      ['transaction.created', 'Venda criada', 'Uma venda é criada (PENDING)'],
      ['transaction.updated', 'Venda alterada', 'O status de uma venda muda'],
      ['transaction.completed', 'Pagamento confirmado', 'Pagamento confirmado e saldo creditado (PAID)'],
      ['transaction.failed', 'Pagamento recusado', 'O pagamento falhou (FAILED)'],
      ['transaction.authorized', 'Cartão autorizado', 'Um cartão foi autorizado sem captura (AUTHORIZED; nada creditado ainda)'],
      ['transaction.captured', 'Autorização capturada', 'Uma autorização foi capturada (PAID)'],
      ['transaction.cancelled', 'Venda cancelada', 'Uma autorização foi cancelada ou um pagamento pendente cancelado (CANCELLED)'],
      ['transaction.refunded', 'Venda estornada', 'Um estorno foi feito (o valor saiu do saldo)'],
      ['transaction.refund_failed', 'Estorno não realizado', 'Um estorno não foi realizado pelo provedor (devolução PIX): o valor volta ao seu saldo'],
      ['transaction.chargeback', 'Chargeback aberto', 'A operadora abriu um chargeback num pagamento com cartão: o valor saiu do saldo (CHARGEBACK)'],
      ['transaction.chargeback_won', 'Chargeback revertido', 'Um chargeback foi decidido a seu favor: o valor voltou ao saldo (PAID)'],
      ['transaction.chargeback_lost', 'Chargeback perdido', 'Um chargeback foi perdido ou aceito (final)'],
    ],
  ],
  [
    'Divisões de pagamento',
    [
      ['transaction.split_received', 'Divisão recebida', 'A venda de outro lojista pagou uma parte a você (ou essa parte voltou após um estorno não realizado ou um chargeback revertido)'],
      ['transaction.split_reversed', 'Divisão estornada', 'Um estorno ou chargeback dessa venda levou de volta parte da sua divisão (o saldo pode ficar negativo)'],
    ],
  ],
  [
    'Links de pagamento',
    [
      ['payment_link.created', 'Link criado', 'Um link de pagamento é criado'],
      ['payment_link.updated', 'Link alterado', 'Um link de pagamento é alterado'],
    ],
  ],
  ['Saldo', [['balance.updated', 'Saldo alterado', 'O saldo da carteira muda']]],
  [
    'Saques',
    [
      ['withdrawal.requested', 'Saque solicitado', 'Um saque é solicitado'],
      ['withdrawal.completed', 'Saque pago', 'Um saque chegou ao destino'],
      ['withdrawal.failed', 'Saque falhou', 'Um saque falhou (valor devolvido)'],
    ],
  ],
  [
    'Antecipações',
    [
      ['advance.created', 'Antecipação solicitada', 'Uma antecipação é solicitada'],
      ['advance.approved', 'Antecipação aprovada', 'Uma antecipação é aprovada (e creditada)'],
      ['advance.rejected', 'Antecipação rejeitada', 'Uma antecipação é rejeitada'],
    ],
  ],
  [
    'Assinaturas',
    [
      ['subscription.created', 'Assinatura criada', 'Um cliente assinou'],
      ['subscription.trial_will_end', 'Teste grátis terminando', 'Um teste grátis termina em 3 dias'],
      ['subscription.renewed', 'Assinatura renovada', 'Um período da assinatura foi pago (renovada)'],
      ['subscription.past_due', 'Assinatura em atraso', 'Uma cobrança da assinatura falhou ou não foi paga (em atraso)'],
      ['subscription.paused', 'Assinatura pausada', 'Uma assinatura é pausada'],
      ['subscription.resumed', 'Assinatura retomada', 'Uma assinatura é retomada'],
      ['subscription.cancel_scheduled', 'Cancelamento agendado', 'Uma assinatura é agendada para cancelar no fim do período'],
      ['subscription.cancelled', 'Assinatura cancelada', 'Uma assinatura é cancelada'],
      ['subscription.expired', 'Assinatura expirada', 'Uma assinatura expira sem ter sido paga'],
      ['subscription.mandate_updated', 'Pix Automático alterado', 'A autorização de Pix Automático mudou no banco do pagador (aprovada, recusada, expirada, cancelada)'],
      ['plan.created', 'Plano criado', 'Um plano de assinatura é criado'],
      ['plan.updated', 'Plano alterado', 'Um plano de assinatura é alterado ou desativado'],
    ],
  ],
  [
    'Afiliados e comissões',
    [
      ['affiliate.joined', 'Afiliado entrou', 'Um afiliado entrou num programa (ao dono do programa e ao afiliado)'],
      ['affiliate.approved', 'Afiliado aprovado', 'Um afiliado foi aprovado num programa'],
      ['commission.created', 'Comissão separada', 'Uma comissão foi separada de uma venda (a liberar)'],
      ['commission.paid', 'Comissão liberada', 'Uma comissão foi liberada ao afiliado (disponível)'],
      ['commission.cancelled', 'Comissão cancelada', 'Uma comissão foi cancelada (estorno antes da liberação, ou compra do próprio afiliado)'],
    ],
  ],
  [
    'Verificação da conta (KYC)',
    [
      ['kyc.submitted', 'Verificação enviada', 'Verificação da conta (KYC) enviada para análise'],
      ['kyc.approved', 'Verificação aprovada', 'Verificação da conta (KYC) aprovada'],
      ['kyc.rejected', 'Verificação rejeitada', 'Verificação da conta (KYC) rejeitada'],
    ],
  ],
];

const BY_TYPE = new Map(EVENT_GROUPS.flatMap(([, events]) => events.map((e) => [e[0], e] as const)));

/** An event type's name in Portuguese ("Pagamento confirmado"); the test delivery's and an unknown type's as they are. */
export function eventName(type: string): string {
  if (type === 'webhook.test') return 'Teste';
  return BY_TYPE.get(type)?.[1] ?? type;
}

/** The types the API lists, in the groups above and their order (name and when, the API's description for an unknown one). */
export function groupedEvents(types: { type: string; description: string }[]): [string, Described[]][] {
  const listed = new Set(types.map((t) => t.type));
  const groups = EVENT_GROUPS.map(([group, events]): [string, Described[]] => [group, events.filter(([type]) => listed.has(type))]);
  const others = types.filter((t) => !BY_TYPE.has(t.type)).map((t): Described => [t.type, t.type, t.description]);
  return [...groups, ['Outros', others] as [string, Described[]]].filter(([, events]) => events.length > 0);
}
