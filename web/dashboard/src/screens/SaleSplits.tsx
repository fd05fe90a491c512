// A sale's Divisão (GET /api/v1/transactions/{id}/splits): what each recipient got of it, by which
// rule, what refunds and chargebacks took back; nothing when the sale was not split.
import { api, ok } from '../api/client.ts';
import { Link } from '../components/Link.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { ErrorState } from '../components/ui.tsx';
import { useAsync } from '../lib/async.ts';
import { brl } from '../lib/format.ts';
import { ACCOUNT_LABELS, ruleText } from './splits/common.ts';

/** `version` changes when the sale does (a refund reverses its shares): the list is read again. */
export function SaleSplits({ id, version }: { id: string; version: string }) {
  const shares = useAsync(() => ok(api.GET('/api/v1/transactions/{id}/splits', { params: { path: { id } } })), [id, version]);
  if (shares.error) return <ErrorState error={shares.error} retry={shares.reload} />;
  const list = shares.data?.data ?? [];
  if (!list.length) return null;
  const total = list.reduce((n, s) => n + s.amountCents - s.reversedCents, 0);
  return (
    <section class="card" aria-labelledby="sale-splits">
      <h2 id="sale-splits">Divisão</h2>
      <ul class="list splits">
        {list.map((s) => (
          <li key={s.id}>
            <div class="grow">
              <strong>{s.recipient.name}</strong> <StatusTag kind="share" status={s.status} />
              <span class="sub">
                {ruleText(s)} · {ACCOUNT_LABELS[s.account]}
              </span>
              {s.feeCents > 0 && <span class="sub">taxa proporcional: {brl(s.feeCents)}</span>}
            </div>
            <div class="num">
              <strong>{brl(s.amountCents)}</strong>
              {s.reversedCents > 0 && <span class="sub neg">estornado −{brl(s.reversedCents)}</span>}
            </div>
          </li>
        ))}
      </ul>
      <p class="muted">
        Repassado: <strong>{brl(total)}</strong> · <Link to="/divisoes?aba=enviadas">Ver todas as divisões</Link>
      </p>
    </section>
  );
}
