// A checkout's offers: up to 5 order bumps (boxes the shopper ticks, paid with the order) and the
// upsell with its downsell (offered after the payment, one click). One form makes each: a product,
// a discount in reais or in percent, an optional title and description.
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { centsOf, MoneyField } from '../../components/MoneyField.tsx';
import { ApiAction, FormCard } from '../../components/Resource.tsx';
import { Field, Select } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl } from '../../lib/format.ts';
import type { Checkout, Offer } from './checkout-draft.ts';

type Body = { productId: string; title?: string; description?: string; discountCents?: number; discountPercentage?: number };
const KINDS: [string, string][] = [['none', 'Sem desconto'], ['cents', 'Em reais'], ['percent', 'Em porcentagem']];

function OfferForm({ title, label, send }: { title: string; label: string; send: (body: Body) => Promise<unknown> }) {
  const products = useAsync(async () => (await ok(api.GET('/api/v1/products', { params: { query: { page: 1, limit: 100, status: 'ACTIVE' } } }))).products, []);
  const empty = { productId: '', kind: 'none', cents: '', percent: '', title: '', description: '' };
  const [f, setF] = useState(empty);
  const set = (k: keyof typeof empty) => (v: string) => setF((s) => ({ ...s, [k]: v }));
  const options: [string, string][] = [['', 'Escolha o produto'], ...(products.data ?? []).map((p): [string, string] => [p.id, `${p.name} (${brl(p.price)})`])];
  return (
    <FormCard title={title} label={label} embedded fields={['productId', 'discountCents', 'discountPercentage', 'title', 'description']}
      submit={async () => {
        const body: Body = { productId: f.productId, ...(f.title.trim() && { title: f.title.trim() }), ...(f.description.trim() && { description: f.description.trim() }) };
        if (f.kind === 'cents') body.discountCents = centsOf(f.cents, 'discountCents');
        if (f.kind === 'percent') body.discountPercentage = Number(f.percent.replace(',', '.'));
        await send(body);
        setF(empty);
      }}
    >
      {(error) => (
        <>
          <Select label="Produto" name="productId" value={f.productId} onValue={set('productId')} options={options} error={error} />
          <Select label="Desconto" name="discountKind" value={f.kind} onValue={set('kind')} options={KINDS} error={error} />
          {f.kind === 'cents' && <MoneyField label="Desconto (R$)" name="discountCents" value={f.cents} onValue={set('cents')} error={error} required />}
          {f.kind === 'percent' && <Field label="Desconto (%)" name="discountPercentage" inputMode="decimal" value={f.percent} onValue={set('percent')} error={error} required />}
          <Field label="Título na página (opcional)" name="title" value={f.title} onValue={set('title')} error={error} placeholder="O nome do produto" />
          <Field label="Descrição (opcional)" name="description" value={f.description} onValue={set('description')} error={error} />
        </>
      )}
    </FormCard>
  );
}

function OfferLine({ o, children }: { o: Offer; children?: preact.ComponentChildren }) {
  return (
    <li>
      <span class="grow">
        <strong>{o.title}</strong> · {brl(o.priceCents)}
        {o.priceCents < o.product.price && <span class="muted"> (de {brl(o.product.price)})</span>}
        {o.title !== o.product.name && <span class="muted"> · {o.product.name}</span>}
      </span>
      {children}
    </li>
  );
}

export function CheckoutOffers({ checkout: c, reload }: { checkout: Checkout; reload: () => void }) {
  const path = { params: { path: { id: c.id } } };
  const upsell = c.upsell;
  return (
    <div class="checkout-offers">
      <h3>Order bumps ({c.orderBumps.length} de 5)</h3>
      <ul class="offer-list">
        {c.orderBumps.map((b) => (
          <OfferLine key={b.id} o={b}>
            <ApiAction label="Excluir" ariaLabel={`Excluir o order bump ${b.title}`} ask={`Excluir o order bump “${b.title}”?`} call={() => ok(api.DELETE('/api/v1/checkouts/{id}/order-bumps/{bumpId}', { params: { path: { id: c.id, bumpId: b.id } } }))} done={reload} />
          </OfferLine>
        ))}
      </ul>
      {c.orderBumps.length < 5 && <OfferForm title="Novo order bump" label="Adicionar order bump" send={async (body) => (await ok(api.POST('/api/v1/checkouts/{id}/order-bumps', { ...path, body })), reload())} />}
      <h3>Upsell e downsell</h3>
      {upsell ? (
        <ul class="offer-list">
          <OfferLine o={upsell}>
            <ApiAction label="Excluir" ariaLabel="Excluir o upsell" ask="Excluir o upsell (e o downsell)?" call={() => ok(api.DELETE('/api/v1/checkouts/{id}/upsell', path))} done={reload} />
          </OfferLine>
          {upsell.downsell && (
            <OfferLine o={upsell.downsell}>
              <ApiAction label="Excluir" ariaLabel="Excluir o downsell" ask="Excluir o downsell?" call={() => ok(api.DELETE('/api/v1/checkouts/{id}/upsell/downsell', path))} done={reload} />
            </OfferLine>
          )}
        </ul>
      ) : (
        <p class="muted">Depois de um pagamento aprovado, o cliente vê o upsell e compra com um clique.</p>
      )}
      <OfferForm title={upsell ? 'Trocar o upsell' : 'Upsell'} label={upsell ? 'Trocar upsell' : 'Definir upsell'} send={async (body) => (await ok(api.POST('/api/v1/checkouts/{id}/upsell', { ...path, body })), reload())} />
      {upsell && <OfferForm title={upsell.downsell ? 'Trocar o downsell' : 'Downsell (se recusarem o upsell)'} label={upsell.downsell ? 'Trocar downsell' : 'Definir downsell'} send={async (body) => (await ok(api.POST('/api/v1/checkouts/{id}/upsell/downsell', { ...path, body })), reload())} />}
    </div>
  );
}
