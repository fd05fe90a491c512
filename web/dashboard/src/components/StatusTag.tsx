// Status badges of the Assinaturas, Afiliados and Divisões screens: each kind of thing has its own words
// (a plan is "Ativo", a subscription "Ativa", a commission "Paga") and its own tone.
type Tone = 'ok' | 'wait' | 'bad' | 'off';

const KINDS: Record<string, Record<string, [string, Tone]>> = {
  plan: { ACTIVE: ['Ativo', 'ok'], INACTIVE: ['Desativado', 'off'] },
  subscription: {
    TRIALING: ['Em teste grátis', 'wait'],
    INCOMPLETE: ['Aguardando 1º pagamento', 'wait'],
    ACTIVE: ['Ativa', 'ok'],
    PAST_DUE: ['Em atraso', 'bad'],
    PAUSED: ['Pausada', 'off'],
    CANCELLED: ['Cancelada', 'off'],
    EXPIRED: ['Expirada', 'off'],
  },
  mandate: { CRIADA: ['Aguardando autorização', 'wait'], APROVADA: ['Autorizada', 'ok'], REJEITADA: ['Recusada', 'bad'], EXPIRADA: ['Expirada', 'off'], CANCELADA: ['Cancelada', 'off'] },
  cycle: { OPEN: ['Em aberto', 'wait'], PAID: ['Paga', 'ok'], PAST_DUE: ['Em atraso', 'bad'], VOID: ['Anulada', 'off'], UNCOLLECTIBLE: ['Não recebida', 'bad'] },
  program: { ACTIVE: ['Aberto', 'ok'], INACTIVE: ['Pausado', 'off'] },
  affiliate: { PENDING: ['Aguardando aprovação', 'wait'], ACTIVE: ['Ativo', 'ok'], REFUSED: ['Recusado', 'bad'], BLOCKED: ['Bloqueado', 'bad'] },
  commission: { PENDING: ['A liberar', 'wait'], PAID: ['Liberada', 'ok'], CANCELLED: ['Cancelada', 'off'] },
  partner: { PENDING: ['Aguardando resposta', 'wait'], ACCEPTED: ['Ativa', 'ok'], DECLINED: ['Recusada', 'bad'], REVOKED: ['Encerrada', 'off'] },
  share: { PAID: ['Creditada', 'ok'], PARTIALLY_REVERSED: ['Estornada em parte', 'wait'], REVERSED: ['Estornada', 'off'] },
};

export type TagKind = keyof typeof KINDS;

/** The pt-BR words of a status, for filters and messages. */
export function statusLabel(kind: TagKind, status: string): string {
  return KINDS[kind][status]?.[0] ?? status;
}

/** The statuses of a kind as select options, after an "all" option. */
export function statusOptions(kind: TagKind, all: string): [string, string][] {
  return [['', all], ...Object.entries(KINDS[kind]).map(([k, [label]]) => [k, label] as [string, string])];
}

export function StatusTag({ kind, status }: { kind: TagKind; status: string }) {
  const [label, tone] = KINDS[kind][status] ?? [status, 'off'];
  return <span class={`badge badge-${tone}`}>{label}</span>;
}
