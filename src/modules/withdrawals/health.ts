// What an operator needs to know about automatic payouts (GET /api/admin/payouts/health): whether
// the PSP answers, the platform's balance there, the last payout it completed, and what waits
// (for review, for the platform's funds, for the PSP's answer).
import { sql } from 'kysely';
import type { WithdrawalDeps } from './service.ts';

export async function payoutHealth(deps: Pick<WithdrawalDeps, 'db' | 'connectors'>) {
  const connector = deps.connectors.chosen('PAYOUT')[0] ?? null;
  const [psp, counts] = await Promise.all([connector ? askPsp(deps, connector.name) : null, waiting(deps, connector?.name ?? null)]);
  const problems = [
    ...(psp && !psp.reachable ? ['the payout provider does not answer'] : []),
    ...(counts.heldForFunds > 0 ? ["the platform's account at the payout provider lacks funds"] : []),
    ...(!connector && counts.pending > 0 ? ['no payout provider: production withdrawals wait for an operator'] : []),
  ];
  return { status: problems.length ? ('attention' as const) : ('ok' as const), problems, provider: connector?.name ?? null, ...(psp ?? { reachable: null, balanceCents: null, error: null }), ...counts };
}

async function askPsp(deps: Pick<WithdrawalDeps, 'connectors'>, name: string) {
  const c = deps.connectors.of(name, 'PAYOUT');
  try {
    if (c.payoutHealth) return { reachable: true, balanceCents: (await c.payoutHealth()).balanceCents, error: null };
    await c.findPayout('healthcheck'); // any answer, found or not, means it is reachable
    return { reachable: true, balanceCents: null, error: null };
  } catch (err) {
    return { reachable: false, balanceCents: null, error: (err as Error).message };
  }
}

async function waiting(deps: Pick<WithdrawalDeps, 'db'>, provider: string | null) {
  const row = await deps.db
    .selectFrom('withdrawals')
    .where('livemode', '=', true)
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .select([
      sql<string>`count(*) filter (where status = 'PENDING')`.as('pending'),
      sql<string>`count(*) filter (where status = 'PENDING' and hold is not null)`.as('held_for_review'),
      sql<string>`count(*) filter (where status = 'PENDING' and next_attempt_at is not null)`.as('held_for_funds'),
      sql<string>`count(*) filter (where status = 'PROCESSING')`.as('processing'),
      sql<Date | null>`min(created_at) filter (where status = 'PENDING' and hold is null)`.as('oldest_pending_at'),
    ])
    .executeTakeFirstOrThrow();
  const last = provider
    ? await deps.db.selectFrom('withdrawals').select((eb) => eb.fn.max('completed_at').as('at')).where('livemode', '=', true).where('provider', '=', provider).where('status', '=', 'COMPLETED').executeTakeFirst()
    : null;
  return {
    lastCompletedAt: (last?.at as Date | null | undefined) ?? null,
    pending: Number(row.pending),
    heldForReview: Number(row.held_for_review),
    heldForFunds: Number(row.held_for_funds),
    processing: Number(row.processing),
    oldestPendingAt: row.oldest_pending_at,
  };
}
