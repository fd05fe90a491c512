// Where a sale came from (GET /api/v1/transactions/{id}: paymentLinkId, trackingParams): the payment
// link it was paid through, by its title and address, and the UTM parameters of the visit, each
// labelled in Portuguese with the parameter's own name beside it. Absent when the sale has neither.
import { Fragment } from 'preact';
import { api, ok } from '../api/client.ts';
import { Link } from '../components/Link.tsx';
import { useAsync } from '../lib/async.ts';
import type { Tx } from './Sales.tsx';

/** The tracking parameters the API keeps (src/modules/transactions/schemas.ts TRACKING_KEYS), in that order. */
const TRACKING_LABELS: [string, string][] = [
  ['utm_source', 'Origem'],
  ['utm_medium', 'Mídia'],
  ['utm_campaign', 'Campanha'],
  ['utm_content', 'Conteúdo'],
  ['utm_term', 'Termo'],
  ['src', 'Código de origem'],
  ['sck', 'Código de checkout'],
];

function PaymentLinkFact({ id }: { id: string }) {
  const link = useAsync(() => ok(api.GET('/api/v1/payment-links/{id}', { params: { path: { id } } })), [id]);
  const l = link.data?.paymentLink;
  return (
    <>
      <dt>Link de pagamento</dt>
      <dd>
        {link.loading && <span class="muted">Carregando…</span>}
        {/* An archived link answers 404: the sale keeps its reference. */}
        {link.error && <span class="mono">{link.error.status === 404 ? `Link removido (${id})` : id}</span>}
        {l && (
          <>
            <strong>{l.title}</strong>
            <span class="sub mono url">
              <a href={l.url} target="_blank" rel="noopener">
                /pay/{l.slug}
              </a>
            </span>
            <span class="sub">
              <Link to="/catalogo?aba=links">Ver links de pagamento</Link>
            </span>
          </>
        )}
      </dd>
    </>
  );
}

export function SaleOrigin({ t }: { t: Tx }) {
  const known = new Set(TRACKING_LABELS.map(([k]) => k));
  const params: [string, string][] = [...TRACKING_LABELS.filter(([k]) => t.trackingParams[k]), ...Object.keys(t.trackingParams).filter((k) => !known.has(k)).map((k): [string, string] => [k, k])];
  if (!t.paymentLinkId && !params.length) return null;
  return (
    <section class="card" aria-labelledby="sale-origin">
      <h2 id="sale-origin">Origem da venda</h2>
      <dl class="facts">
        {t.paymentLinkId && <PaymentLinkFact id={t.paymentLinkId} />}
        {params.map(([key, label]) => (
          <Fragment key={key}>
            <dt>
              {label}
              {label !== key && <code class="sub">{key}</code>}
            </dt>
            <dd class="url">{t.trackingParams[key]}</dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}
