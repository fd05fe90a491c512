// What a hosted checkout sold (GET /api/v1/transactions/{id}: items): the main product and the order
// bumps ticked, each with its quantity, price, discount (the bump's and the coupon's share) and total;
// and, for an accepted upsell or downsell, the sale it followed (parentTransactionId).
import { Link } from '../components/Link.tsx';
import { brl } from '../lib/format.ts';
import type { Tx } from './Sales.tsx';

export function SaleItems({ t }: { t: Tx }) {
  if (!t.items?.length && !t.parentTransactionId) return null;
  return (
    <section class="card" aria-labelledby="sale-items">
      <h2 id="sale-items">Itens do pedido</h2>
      {t.parentTransactionId && (
        <p>
          Oferta aceita depois da venda <Link to={`/vendas/${t.parentTransactionId}`}>que a originou</Link> (upsell ou downsell).
        </p>
      )}
      {t.items?.length ? (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Itens do pedido">
          <table>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col" class="num">Qtd.</th>
                <th scope="col" class="num">Preço</th>
                <th scope="col" class="num">Desconto</th>
                <th scope="col" class="num">Total</th>
              </tr>
            </thead>
            <tbody>
              {t.items.map((l, i) => (
                <tr key={i}>
                  <td data-label="Item">
                    {l.name}
                    {l.kind === 'BUMP' && (
                      <>
                        {' '}
                        <span class="badge badge-off">order bump</span>
                      </>
                    )}
                  </td>
                  <td data-label="Qtd." class="num">
                    {l.quantity}
                  </td>
                  <td data-label="Preço" class="num">
                    {brl(l.unitPriceCents)}
                  </td>
                  <td data-label="Desconto" class="num">
                    {l.discountCents ? `− ${brl(l.discountCents)}` : '—'}
                  </td>
                  <td data-label="Total" class="num">
                    {brl(l.totalCents)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
