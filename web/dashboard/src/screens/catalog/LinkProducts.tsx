// The products a payment link sells, picked from the merchant's active products with a quantity
// each; the sum they make (the link's price when no amount is typed).
import type { ApiError } from '../../api/client.ts';
import type { paths } from '../../api/schema.d.ts';
import { Link } from '../../components/Link.tsx';
import { ErrorState, Field, Loading, Select } from '../../components/ui.tsx';
import type { Async } from '../../lib/async.ts';
import { brl } from '../../lib/format.ts';
import type { LinkItem, PaymentLink } from './link-draft.ts';

export type Product = paths['/api/v1/products/{id}']['get']['responses'][200]['content']['application/json']['product'];

/** What a row can pick: the active products, and those the link already has that are no longer active. */
function choices(catalog: Product[], link?: PaymentLink): { id: string; label: string; price: number }[] {
  const active = catalog.map((p) => ({ id: p.id, label: `${p.name} · ${brl(p.price)}`, price: p.price }));
  const gone = (link?.products ?? []).filter((p) => !catalog.some((c) => c.id === p.productId)).map((p) => ({ id: p.productId, label: `${p.name} (inativo)`, price: p.unitPriceCents }));
  return [...active, ...gone];
}

export function LinkProducts({ items, onItems, catalog, link, amountTyped, error }: { items: LinkItem[]; onItems: (v: LinkItem[]) => void; catalog: Async<Product[]>; link?: PaymentLink; amountTyped: boolean; error: ApiError | null }) {
  const options = choices(catalog.data ?? [], link);
  const price = new Map(options.map((o) => [o.id, o.price]));
  const sum = items.reduce((s, it) => s + (price.get(it.productId) ?? 0) * (/^\d+$/.test(it.quantity.trim()) ? Number(it.quantity) : 0), 0);
  const setItem = (i: number, patch: Partial<LinkItem>) => onItems(items.map((it, j) => (j === i ? { ...it, ...patch } : it)));
  const message = error?.fields.products;
  return (
    <fieldset class={message ? 'field-invalid' : undefined}>
      <legend>Produtos do link (opcional)</legend>
      {catalog.loading && <Loading label="Carregando seus produtos…" />}
      {catalog.error && <ErrorState error={catalog.error} retry={catalog.reload} />}
      {items.map((it, i) => (
        <div class="product-row" key={i}>
          <Select label={`Produto ${i + 1}`} name={`products.${i}.productId`} value={it.productId} onValue={(v) => setItem(i, { productId: v })} options={[['', 'Escolha um produto'], ...options.map((o): [string, string] => [o.id, o.label])]} error={error} />
          <Field label={<>Quantidade<span class="sr-only"> do produto {i + 1}</span></>} name={`products.${i}.quantity`} inputMode="numeric" value={it.quantity} onValue={(v) => setItem(i, { quantity: v })} error={error} />
          <button type="button" class="btn btn-ghost btn-small" aria-label={`Remover o produto ${i + 1}`} onClick={() => onItems(items.filter((_, j) => j !== i))}>
            Remover
          </button>
        </div>
      ))}
      {catalog.data && !options.length ? (
        <p class="muted">
          Nenhum produto ativo: cadastre-os em <Link to="/catalogo?aba=produtos">Produtos</Link> para vendê-los por este link.
        </p>
      ) : (
        <button type="button" class="btn btn-secondary btn-small" disabled={!options.length} onClick={() => onItems([...items, { productId: '', quantity: '1' }])}>
          Adicionar produto
        </button>
      )}
      {items.length > 0 && (
        <p class="hint" aria-live="polite">
          Soma dos produtos: {brl(sum)}. {amountTyped ? 'O cliente paga o valor informado acima; os produtos descrevem o pedido.' : 'Sem valor informado acima, o cliente paga esta soma.'}
        </p>
      )}
      {message && <small class="field-message">{message}</small>}
    </fieldset>
  );
}
