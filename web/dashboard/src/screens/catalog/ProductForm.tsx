// A product's form, to create one or edit it in place: name, price, description, SKU, image URL,
// digital or not, and its stock (a digital product keeps none: the API refuses stock on it).
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { intOf } from '../../components/ListParts.tsx';
import { centsOf, MoneyField } from '../../components/MoneyField.tsx';
import { FormCard } from '../../components/Resource.tsx';
import { CheckField, Field, Select } from '../../components/ui.tsx';
import { moneyInput } from '../../lib/format.ts';
import { STATUS_OPTIONS } from './common.ts';
import type { Product } from './LinkProducts.tsx';

const FIELDS = ['name', 'price', 'description', 'sku', 'imageUrl', 'isDigital', 'stockEnabled', 'stockQuantity', 'status'];

function draftOf(p?: Product) {
  return {
    name: p?.name ?? '',
    price: p ? moneyInput(p.price) : '',
    description: p?.description ?? '',
    sku: p?.sku ?? '',
    imageUrl: p?.imageUrl ?? '',
    isDigital: p?.isDigital ?? false,
    stockEnabled: p?.stockEnabled ?? false,
    stockQuantity: p?.stockQuantity != null ? String(p.stockQuantity) : '',
    status: p?.status ?? 'ACTIVE',
  };
}
type Draft = ReturnType<typeof draftOf>;

/** The body of a creation or an edit; empty optional fields are cleared (null). */
function bodyOf(f: Draft) {
  const stockEnabled = !f.isDigital && f.stockEnabled;
  return {
    name: f.name,
    price: centsOf(f.price, 'price'),
    description: f.description.trim() || null,
    sku: f.sku.trim() || null,
    imageUrl: f.imageUrl.trim() || null,
    isDigital: f.isDigital,
    stockEnabled,
    stockQuantity: stockEnabled ? intOf(f.stockQuantity, 'stockQuantity') : null,
  };
}

export function ProductForm({ item: product, done, cancel }: { item?: Product; done: () => void; cancel?: () => void }) {
  const [f, setF] = useState<Draft>(() => draftOf(product));
  const set = <K extends keyof Draft>(k: K) => (v: Draft[K]) => setF((s) => ({ ...s, [k]: v }));
  return (
    <FormCard title="Novo produto" label="Criar produto" edit={product?.name} fields={FIELDS} cancel={cancel}
      submit={async () => {
        const body = bodyOf(f);
        if (product) await ok(api.PATCH('/api/v1/products/{id}', { params: { path: { id: product.id } }, body: { ...body, status: f.status as 'ACTIVE' } }));
        else await ok(api.POST('/api/v1/products', { body }));
        if (!product) setF(draftOf());
        done();
      }}
    >
      {(error) => (
        <>
          <Field label="Nome" name="name" value={f.name} onValue={set('name')} error={error} required />
          <MoneyField label="Preço (R$)" name="price" value={f.price} onValue={set('price')} error={error} required />
          <Field label="Descrição (opcional)" name="description" value={f.description} onValue={set('description')} error={error} />
          <div class="grid-2">
            <Field label="SKU (opcional)" name="sku" value={f.sku} onValue={set('sku')} error={error} hint="Seu código de estoque; não se repete entre produtos." />
            <Field label="URL da imagem (opcional)" name="imageUrl" type="url" inputMode="url" value={f.imageUrl} onValue={set('imageUrl')} error={error} placeholder="https://…" />
          </div>
          <CheckField label="Produto digital (curso, e-book, acesso): sem estoque nem entrega" name="isDigital" checked={f.isDigital} onChecked={set('isDigital')} error={error} />
          {!f.isDigital && <CheckField label="Controlar estoque" name="stockEnabled" checked={f.stockEnabled} onChecked={set('stockEnabled')} error={error} />}
          {!f.isDigital && f.stockEnabled && <Field label="Quantidade em estoque" name="stockQuantity" inputMode="numeric" value={f.stockQuantity} onValue={set('stockQuantity')} error={error} required />}
          {product && <Select label="Situação" name="status" value={f.status} onValue={(v) => set('status')(v as Draft['status'])} options={STATUS_OPTIONS} error={error} />}
        </>
      )}
    </FormCard>
  );
}
