// A production card sale's tries at the acquirers (GET /api/v1/transactions/{id}: attempts), present
// only when the charge took more than one answered try: a connector that did not answer and the next
// one that took the sale (src/modules/transactions/failover.ts), one skipped, or a sale adopted after
// its answer was lost. One line per try, oldest first.
import { dateTimeSeconds, failureText, integer } from '../lib/format.ts';
import type { Tx } from './Sales.tsx';

type Attempt = NonNullable<Tx['attempts']>[number];

/** The card connectors by their CARD_PROVIDER names; another name is shown as it is. */
const CONNECTORS: Record<string, string> = { cielo: 'Cielo', erede: 'e.Rede', sandbox: 'Sandbox' };

/** Each outcome in words (a try, "tentativa", is feminine) and its badge's tone; typed by the API's own list. */
const OUTCOMES: Record<Attempt['outcome'], [string, 'ok' | 'wait' | 'bad' | 'off']> = {
  APPROVED: ['Aprovada', 'ok'],
  DECLINED: ['Recusada', 'bad'],
  UNAVAILABLE: ['Sem resposta', 'bad'],
  SKIPPED: ['Não enviada', 'off'],
  PENDING: ['Aguardando resposta', 'wait'],
};

// The reasons the API writes itself (src/modules/transactions/attempts.ts: ADOPTED, skippedAttempt);
// a reason is cut at 200 characters, so the adopted one's closing parenthesis may be gone.
const ADOPTED = /^found by reference after no answer(?: \((.*?)\)?)?$/s;
const SKIPPED = /^circuit open\b/;

/** Why, in pt-BR where the text is known; `detail`: the connector's own error text (English), shown as it is. */
function reasonOf(a: Attempt): { text?: string; detail?: string } {
  const r = a.reason;
  if (!r) return {};
  const adopted = ADOPTED.exec(r);
  if (adopted) return { text: 'Sem resposta, mas a venda foi encontrada no adquirente e aproveitada (sem nova cobrança)', detail: adopted[1] };
  if (SKIPPED.test(r)) return { text: 'O adquirente falhou seguidamente e está em pausa' };
  if (a.outcome === 'UNAVAILABLE') return { detail: r };
  return { text: failureText(r) };
}

function Try({ a }: { a: Attempt }) {
  const [label, tone] = OUTCOMES[a.outcome] ?? [a.outcome, 'off'];
  const { text, detail } = reasonOf(a);
  return (
    <li>
      <span class="try-head">
        <strong>{CONNECTORS[a.connector] ?? a.connector}</strong> <span class={`badge badge-${tone}`}>{label}</span>
      </span>{' '}
      <span class="try-meta">
        {a.latencyMs != null && <>{integer(a.latencyMs)} ms · </>}
        <time dateTime={a.createdAt}>{dateTimeSeconds(a.createdAt)}</time>
      </span>
      {(a.returnCode || text || detail) && (
        <span class="try-why">
          {a.returnCode && <>Código {a.returnCode}</>}
          {a.returnCode && (text || detail) && ' · '}
          {text}
          {text && detail && ' · '}
          {detail && (
            <>
              Erro: <q lang="en">{detail}</q>
            </>
          )}
        </span>
      )}
    </li>
  );
}

export function SaleAttempts({ attempts }: { attempts: Attempt[] }) {
  return (
    <section class="card" aria-labelledby="sale-attempts">
      <h2 id="sale-attempts">Tentativas no adquirente</h2>
      <ol class="tries">
        {attempts.map((a, i) => (
          <Try key={`${i}-${a.createdAt}`} a={a} />
        ))}
      </ol>
    </section>
  );
}
