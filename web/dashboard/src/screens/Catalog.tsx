// Catálogo: products, payment links (the live link to copy, share or show as a QR code) and coupons,
// each created and edited with the same form (products' and links': catalog/), and clients. The
// forms show the API's field errors beside the fields.
import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { Link } from '../components/Link.tsx';
import { centsOf, fieldError } from '../components/MoneyField.tsx';
import { AsyncList, Collection, FormCard, SearchForm, useFields } from '../components/Resource.tsx';
import { Action, Badge, CopyButton, Field, Loading, Select } from '../components/ui.tsx';
import { TabbedScreen } from '../components/Tabs.tsx';
import { useAsync } from '../lib/async.ts';
import { brl, date, clientDocumentText, moneyInput, phoneText } from '../lib/format.ts';
import { STATUS_OPTIONS } from './catalog/common.ts';
import { linkFacts, type PaymentLink } from './catalog/link-draft.ts';
import { Checkouts } from './catalog/Checkouts.tsx';
import { LinkForm } from './catalog/LinkForm.tsx';
import type { Product } from './catalog/LinkProducts.tsx';
import { ProductForm } from './catalog/ProductForm.tsx';

type Coupon = paths['/api/v1/coupons/{id}']['get']['responses'][200]['content']['application/json']['coupon'];

const DISCOUNT_TYPES: [string, string][] = [['PERCENTAGE', 'Porcentagem (%)'], ['FIXED', 'Valor fixo (R$)']];

/** A product's SKU, stock and kind, as the list shows them. */
function productFacts(p: Product): string[] {
  return [p.sku ? `SKU ${p.sku}` : '', p.isDigital ? 'Digital' : p.stockEnabled ? `Estoque: ${p.stockQuantity ?? 0}` : 'Sem controle de estoque'].filter(Boolean);
}

function Products() {
  const list = useAsync(() => ok(api.GET('/api/v1/products', { params: { query: { page: 1, limit: 100 } } })), []);
  return (
    <Collection list={list} items={(d) => d.products} Form={ProductForm} name={(p) => p.name} empty="Nenhum produto ainda." hint="Cadastre acima o que você vende; depois crie um link de pagamento para ele.">
      {(p) => (
        <div class="grow">
          <strong>{p.name}</strong> <Badge status={p.status} /> <strong class="nowrap">{brl(p.price)}</strong>
          {p.description && <p class="muted">{p.description}</p>}
          <p class="muted">{productFacts(p).join(' · ')}</p>
          {p.imageUrl && (
            <p class="mono muted url">
              Imagem: <a href={p.imageUrl} target="_blank" rel="noopener">{p.imageUrl}</a>
            </p>
          )}
        </div>
      )}
    </Collection>
  );
}

function Qr({ url }: { url: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    import('qrcode').then((q) => q.toDataURL(url, { margin: 1, width: 200 })).then((s) => live && setSrc(s));
    return () => {
      live = false;
    };
  }, [url]);
  return src ? <img class="qr" src={src} width={200} height={200} alt={`QR code do link ${url}`} /> : <Loading label="Gerando QR code…" />;
}

function Links() {
  const list = useAsync(() => ok(api.GET('/api/v1/payment-links', { params: { query: { limit: 50 } } })), []);
  const [qr, setQr] = useState<string | null>(null);
  return (
    <Collection list={list} items={(d) => d.paymentLinks} Form={LinkForm} name={(l) => l.title} empty="Nenhum link ainda." hint="Crie um link acima e envie para seus clientes pagarem por PIX, cartão ou boleto." actions={(l) => <LinkActions l={l} qr={qr === l.id} toggle={() => setQr(qr === l.id ? null : l.id)} />}>
      {(l) => (
        <div class="grow">
          <strong>{l.title}</strong> <Badge status={l.status} /> <strong class="nowrap">{brl(l.totalCents)}</strong>
          <p class="mono">
            <a href={l.url} target="_blank" rel="noopener">
              {l.url}
            </a>
          </p>
          <ul class="facts-line">
            {linkFacts(l).map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
          <p class="muted">
            {l.salesCount} venda(s) · criado em {date(l.createdAt)}
          </p>
          {qr === l.id && <Qr url={l.url} />}
        </div>
      )}
    </Collection>
  );
}

function LinkActions({ l, qr, toggle }: { l: PaymentLink; qr: boolean; toggle: () => void }) {
  return (
    <>
      <CopyButton text={l.url} label="Copiar link" />
      <Action label={qr ? 'Esconder QR code' : 'QR code'} run={toggle} />
      {'share' in navigator && <Action label="Compartilhar" run={() => void navigator.share({ url: l.url, title: l.title }).catch(() => {})} />}
    </>
  );
}

function CouponForm({ item: coupon, done, cancel }: { item?: Coupon; done: () => void; cancel?: () => void }) {
  const { values: f, set, reset } = useFields({
    code: coupon?.code ?? '',
    type: coupon?.discountType ?? 'PERCENTAGE',
    value: coupon ? (coupon.discountType === 'FIXED' ? moneyInput(coupon.discountValue) : String(coupon.discountValue)) : '',
    status: coupon?.status ?? 'ACTIVE',
  });
  return (
    <FormCard title="Novo cupom" label="Criar cupom" busyLabel="Criando…" edit={coupon?.code} fields={['code', 'discountType', 'discountValue', 'status']} cancel={cancel}
      submit={async () => {
        const percent = /^\d{1,3}$/.test(f.value.trim()) ? Number(f.value) : NaN;
        if (f.type === 'PERCENTAGE' && !(percent >= 1 && percent <= 100)) throw fieldError('discountValue', 'Informe uma porcentagem inteira de 1 a 100.');
        const body = { code: f.code, discountType: f.type as 'FIXED', discountValue: f.type === 'FIXED' ? centsOf(f.value, 'discountValue') : percent };
        if (coupon) await ok(api.PATCH('/api/v1/coupons/{id}', { params: { path: { id: coupon.id } }, body: { ...body, status: f.status as 'ACTIVE' } }));
        else await ok(api.POST('/api/v1/coupons', { body }));
        reset();
        done();
      }}
    >
      {(error) => (
        <>
          <Field label="Código" name="code" value={f.code} onValue={(v) => set('code')(v.toUpperCase())} error={error} required placeholder="Ex.: BEMVINDO10" />
          <Select label="Tipo de desconto" name="discountType" value={f.type} onValue={set('type')} options={DISCOUNT_TYPES} error={error} />
          <Field label={f.type === 'FIXED' ? 'Desconto (R$)' : 'Desconto (%)'} name="discountValue" inputMode="decimal" value={f.value} onValue={set('value')} error={error} required />
          {coupon && <Select label="Situação" name="status" value={f.status} onValue={set('status')} options={STATUS_OPTIONS} error={error} />}
        </>
      )}
    </FormCard>
  );
}

function Coupons() {
  const list = useAsync(() => ok(api.GET('/api/v1/coupons', { params: { query: { page: 1, limit: 100, includeInactive: true } } })), []);
  return (
    <Collection list={list} items={(d) => d.coupons} Form={CouponForm} name={(c) => c.code} empty="Nenhum cupom ainda." hint="Crie um cupom acima para dar desconto no checkout.">
      {(c) => (
        <div class="grow">
          <strong class="mono">{c.code}</strong> <Badge status={c.status} />
          <p class="muted">
            {c.discountType === 'FIXED' ? `${brl(c.discountValue)} de desconto` : `${c.discountValue}% de desconto`} · usado {c.usedCount} vez(es)
            {c.validUntil ? ` · válido até ${date(c.validUntil)}` : ''}
          </p>
        </div>
      )}
    </Collection>
  );
}

function Clients() {
  const [query, setQuery] = useState('');
  const list = useAsync(() => ok(api.GET('/api/v1/clients', { params: { query: { page: 1, limit: 50, ...(query ? { search: query } : {}) } } })), [query]);
  const { values: f, set, reset } = useFields({ name: '', email: '', document: '', phone: '' });
  return (
    <div>
      <FormCard title="Novo cliente" fields={['name', 'email', 'document', 'phone']} label="Cadastrar cliente"
        submit={async () => {
          await ok(api.POST('/api/v1/clients', { body: { name: f.name, email: f.email, document: f.document, ...(f.phone ? { phone: f.phone } : {}) } }));
          reset();
          list.reload();
        }}
      >
        {(error) => (
          <>
            <Field label="Nome" name="name" value={f.name} onValue={set('name')} error={error} required />
            <Field label="E-mail" name="email" type="email" value={f.email} onValue={set('email')} error={error} required />
            <Field label="CPF ou CNPJ" name="document" inputMode="numeric" value={f.document} onValue={set('document')} error={error} required />
            <Field label="Telefone (opcional)" name="phone" type="tel" value={f.phone} onValue={set('phone')} error={error} placeholder="+5511999990000" />
          </>
        )}
      </FormCard>
      <SearchForm label="Buscar cliente" placeholder="Nome, e-mail ou CPF/CNPJ" search={setQuery} />
      <AsyncList list={list} items={(d) => d.clients} empty={query ? `Nenhum cliente encontrado para “${query}”.` : 'Nenhum cliente ainda.'} hint="Os clientes das suas vendas aparecem aqui; você também pode cadastrá-los acima.">
        {(c) => (
          <>
            <div class="grow">
              <strong>
                <Link to={`/clientes/${c.id}`}>{c.name}</Link>
              </strong>{' '}
              {c.erasedAt && <span class="badge badge-off">Dados apagados</span>}
              {!c.erasedAt && (
                <p class="muted">
                  {c.email} · {clientDocumentText(c.document)}
                  {c.phone ? ` · ${phoneText(c.phone)}` : ''}
                </p>
              )}
            </div>
            <Link class="btn btn-secondary btn-small" to={`/vendas?cliente=${c.id}&clienteNome=${encodeURIComponent(c.name)}`}>
              Ver vendas
            </Link>
          </>
        )}
      </AsyncList>
    </div>
  );
}

export function Catalog({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Catálogo"
      path="/catalogo"
      route={route}
      tabs={[
        ['produtos', 'Produtos', Products, 'kyc'],
        ['links', 'Links de pagamento', Links, 'kyc'],
        ['checkouts', 'Checkouts', Checkouts, 'kyc'],
        ['cupons', 'Cupons', Coupons, 'kyc'],
        ['clientes', 'Clientes', Clients, 'kyc'],
      ]}
    />
  );
}
