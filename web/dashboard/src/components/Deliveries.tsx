// The webhook delivery log: each delivery (event, status, attempts, last HTTP status, URL) opens to
// its attempts and payload, with "Reenviar agora". Desenvolvedores › Entregas lists every delivery;
// a sale's page lists the deliveries of its events (transactionId).
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { useAsync, useSubmit } from '../lib/async.ts';
import { dateTime } from '../lib/format.ts';
import { EventName } from './Events.tsx';
import { AsyncList } from './Resource.tsx';
import { Badge, ErrorState, FormError, Loading } from './ui.tsx';

type DeliveryQuery = Omit<NonNullable<paths['/api/v1/webhooks/deliveries']['get']['parameters']['query']>, 'limit' | 'cursor'>;

function DeliveryDetail({ id, changed }: { id: string; changed: () => void }) {
  const d = useAsync(() => ok(api.GET('/api/v1/webhooks/deliveries/{id}', { params: { path: { id } } })), [id]);
  const { busy, error, submit } = useSubmit();
  const [note, setNote] = useState<string | null>(null);
  if (d.loading) return <Loading />;
  if (d.error) return <ErrorState error={d.error} retry={d.reload} />;
  const del = d.data!.delivery;
  return (
    <div class="delivery-detail">
      <h3>Tentativas</h3>
      {del.attempts.length === 0 ? (
        <p class="muted">Nenhuma tentativa ainda.</p>
      ) : (
        <ol class="attempts">
          {del.attempts.map((a) => (
            <li key={a.attempt}>
              {dateTime(a.createdAt)} · {a.statusCode ? `HTTP ${a.statusCode}` : (a.error ?? 'sem resposta')} · {a.durationMs} ms
            </li>
          ))}
        </ol>
      )}
      <h3>Payload</h3>
      <pre class="payload" tabIndex={0}>
        {JSON.stringify(del.payload, null, 2)}
      </pre>
      <FormError error={error} />
      {note && (
        <p class="notice" role="status">
          {note}
        </p>
      )}
      <button
        type="button"
        class="btn btn-secondary"
        disabled={busy}
        onClick={() =>
          submit(async () => {
            const r = await ok(api.POST('/api/v1/webhooks/deliveries/{id}/retry', { params: { path: { id } } }));
            setNote(r.success ? `Reenviado: a URL respondeu ${r.attempt.statusCode}.` : `O reenvio falhou: ${r.attempt.statusCode ? `HTTP ${r.attempt.statusCode}` : (r.attempt.error ?? 'sem resposta')}.`);
            d.reload();
            changed();
          })
        }
      >
        {busy ? 'Reenviando…' : 'Reenviar agora'}
      </button>
    </div>
  );
}

export function DeliveryLog({ query, empty, hint }: { query: DeliveryQuery; empty: string; hint?: string }) {
  const list = useAsync(() => ok(api.GET('/api/v1/webhooks/deliveries', { params: { query: { limit: 50, orderDirection: 'desc', ...query } } })), [JSON.stringify(query)]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <AsyncList list={list} items={(d) => d.deliveries} empty={empty} hint={hint} itemClass="card delivery">
      {(d) => (
        <>
          <button type="button" class="delivery-head" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
            <EventName type={d.eventType} /> <Badge status={d.status} />
            <span class="muted">
              {dateTime(d.createdAt)} · {d.attemptCount} tentativa(s){d.lastStatusCode ? ` · HTTP ${d.lastStatusCode}` : ''}
            </span>
            <span class="mono muted url">{d.kind === 'postback' ? `postback · ${d.url}` : d.url}</span>
          </button>
          {open === d.id && <DeliveryDetail id={d.id} changed={list.reload} />}
        </>
      )}
    </AsyncList>
  );
}
