// Catálogo › Checkouts: each checkout shapes one payment link's page (settings, brand, preview) and
// holds its order bumps, upsell and downsell (docs/checkouts.md).
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { ApiAction, Collection } from '../../components/Resource.tsx';
import { useAsync } from '../../lib/async.ts';
import { splitText } from '../../lib/split-rule.ts';
import type { Checkout } from './checkout-draft.ts';
import { CheckoutForm } from './CheckoutForm.tsx';
import { CheckoutOffers } from './CheckoutOffers.tsx';

export function Checkouts() {
  const list = useAsync(() => ok(api.GET('/api/v1/checkouts', { params: { query: { page: 1, limit: 50 } } })), []);
  const links = useAsync(async () => (await ok(api.GET('/api/v1/payment-links', { params: { query: { limit: 100 } } }))).paymentLinks, []);
  const [open, setOpen] = useState<string | null>(null);
  const linkTitle = (id: string | null) => (id ? (links.data?.find((l) => l.id === id)?.title ?? 'link removido') : 'nenhum link');
  const actions = (c: Checkout) => (
    <>
      <button type="button" class="btn btn-secondary btn-small" aria-expanded={open === c.id} onClick={() => setOpen(open === c.id ? null : c.id)}>
        Ofertas
      </button>
      <ApiAction label="Excluir" tone="danger" ariaLabel={`Excluir ${c.name}`} ask={`Excluir o checkout “${c.name}”? O link volta à página padrão.`} call={() => ok(api.DELETE('/api/v1/checkouts/{id}', { params: { path: { id: c.id } } }))} done={list.reload} />
    </>
  );
  return (
    <Collection list={list} items={(d) => d.checkouts} Form={CheckoutForm} name={(c) => c.name} empty="Nenhum checkout ainda." hint="Crie um checkout para dar a cara da sua marca a um link, com order bumps e upsell." actions={actions}>
      {(c: Checkout) => (
        <div class="grow">
          <strong>{c.name}</strong> <span class="muted">· {linkTitle(c.paymentLinkId)}</span>
          <p class="muted">
            {c.orderBumps.length} order bump(s){c.upsell ? ` · upsell: ${c.upsell.title}` : ''}
            {c.upsell?.downsell ? ` · downsell: ${c.upsell.downsell.title}` : ''}
          </p>
          {c.split && <p class="muted">{splitText(c.split)}</p>}
          {open === c.id && <CheckoutOffers checkout={c} reload={list.reload} />}
        </div>
      )}
    </Collection>
  );
}
