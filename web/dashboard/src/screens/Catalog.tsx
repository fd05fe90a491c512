// Catálogo: products, payment links (with the link to copy and a QR code), coupons and clients.
// Each tab: a form to create (the API's field errors beside the fields) and the list.
import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { Link } from '../components/Link.tsx';
import { centsOf, MoneyField } from '../components/MoneyField.tsx';
import { Action, Badge, CopyButton, Empty, ErrorState, Field, FormError, Loading, Select, TabbedScreen } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { brl, date } from '../lib/format.ts';

function Products() {
  const list = useAsync(() => ok(api.GET('/api/v1/products', { params: { query: { page: 1, limit: 100 } } })), []);
  const [name, setName] = useState('');
  const [price, setPrice] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, submit } = useSubmit();
  return (
    <div>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          submit(async () => {
            await ok(api.POST('/api/v1/products', { body: { name, price: centsOf(price, 'price'), ...(description ? { description } : {}) } }));
            setName('');
            setPrice('');
            setDescription('');
            list.reload();
          });
        }}
      >
        <h2>Novo produto</h2>
        <FormError error={error} fields={['name', 'price', 'description']} />
        <Field label="Nome" name="name" value={name} onValue={setName} error={error} required />
        <MoneyField label="Preço (R$)" name="price" value={price} onValue={setPrice} error={error} required />
        <Field label="Descrição (opcional)" name="description" value={description} onValue={setDescription} error={error} />
        <button class="btn btn-primary" type="submit" disabled={busy}>
          {busy ? 'Salvando…' : 'Criar produto'}
        </button>
      </form>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {list.data && list.data.products.length === 0 && <Empty title="Nenhum produto ainda.">Cadastre acima o que você vende; depois crie um link de pagamento para ele.</Empty>}
      <ul class="list cards-list">
        {list.data?.products.map((p) => (
          <li key={p.id} class="card">
            <div class="grow">
              <strong>{p.name}</strong> <Badge status={p.status} />
              {p.description && <p class="muted">{p.description}</p>}
            </div>
            <strong>{brl(p.price)}</strong>
          </li>
        ))}
      </ul>
    </div>
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
  const [title, setTitle] = useState('');
  const [amount, setAmount] = useState('');
  const [description, setDescription] = useState('');
  const [qr, setQr] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit();
  const share = async (url: string, title: string) => {
    if (navigator.share) await navigator.share({ url, title }).catch(() => {});
  };
  return (
    <div>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          submit(async () => {
            await ok(api.POST('/api/v1/payment-links', { body: { title, amountCents: centsOf(amount, 'amountCents'), ...(description ? { description } : {}) } }));
            setTitle('');
            setAmount('');
            setDescription('');
            list.reload();
          });
        }}
      >
        <h2>Novo link de pagamento</h2>
        <FormError error={error} fields={['title', 'amountCents', 'description']} />
        <Field label="Título" name="title" value={title} onValue={setTitle} error={error} required placeholder="Ex.: Consultoria de 1 hora" />
        <MoneyField label="Valor (R$)" name="amountCents" value={amount} onValue={setAmount} error={error} required />
        <Field label="Descrição (opcional)" name="description" value={description} onValue={setDescription} error={error} />
        <button class="btn btn-primary" type="submit" disabled={busy}>
          {busy ? 'Criando…' : 'Criar link'}
        </button>
      </form>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {list.data && list.data.paymentLinks.length === 0 && <Empty title="Nenhum link ainda.">Crie um link acima e envie para seus clientes pagarem por PIX, cartão ou boleto.</Empty>}
      <ul class="list cards-list">
        {list.data?.paymentLinks.map((l) => (
          <li key={l.id} class="card">
            <div class="grow">
              <strong>{l.title}</strong> <Badge status={l.status} /> <strong class="nowrap">{brl(l.totalCents)}</strong>
              <p class="mono">
                <a href={l.url}>{l.url}</a>
              </p>
              <p class="muted">
                {l.salesCount} venda(s) · criado em {date(l.createdAt)}
              </p>
              {qr === l.id && <Qr url={l.url} />}
            </div>
            <div class="actions">
              <CopyButton text={l.url} label="Copiar link" />
              <Action label={qr === l.id ? 'Esconder QR code' : 'QR code'} run={() => setQr(qr === l.id ? null : l.id)} />
              {'share' in navigator && <Action label="Compartilhar" run={() => void share(l.url, l.title)} />}
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Coupons() {
  const list = useAsync(() => ok(api.GET('/api/v1/coupons', { params: { query: { page: 1, limit: 100, includeInactive: true } } })), []);
  const [code, setCode] = useState('');
  const [type, setType] = useState<'PERCENTAGE' | 'FIXED'>('PERCENTAGE');
  const [value, setValue] = useState('');
  const { busy, error, submit } = useSubmit();
  return (
    <div>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          submit(async () => {
            const discountValue = type === 'FIXED' ? centsOf(value, 'discountValue') : Math.round(Number(value.replace(',', '.')));
            await ok(api.POST('/api/v1/coupons', { body: { code, discountType: type, discountValue } }));
            setCode('');
            setValue('');
            list.reload();
          });
        }}
      >
        <h2>Novo cupom</h2>
        <FormError error={error} fields={['code', 'discountType', 'discountValue']} />
        <Field label="Código" name="code" value={code} onValue={(v) => setCode(v.toUpperCase())} error={error} required placeholder="Ex.: BEMVINDO10" />
        <Select
          label="Tipo de desconto"
          name="discountType"
          value={type}
          onValue={(v) => setType(v as 'PERCENTAGE' | 'FIXED')}
          options={[
            ['PERCENTAGE', 'Porcentagem (%)'],
            ['FIXED', 'Valor fixo (R$)'],
          ]}
          error={error}
        />
        <Field label={type === 'FIXED' ? 'Desconto (R$)' : 'Desconto (%)'} name="discountValue" inputMode="decimal" value={value} onValue={setValue} error={error} required />
        <button class="btn btn-primary" type="submit" disabled={busy}>
          {busy ? 'Criando…' : 'Criar cupom'}
        </button>
      </form>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {list.data && list.data.coupons.length === 0 && <Empty title="Nenhum cupom ainda.">Crie um cupom acima para dar desconto no checkout.</Empty>}
      <ul class="list cards-list">
        {list.data?.coupons.map((c) => (
          <li key={c.id} class="card">
            <div class="grow">
              <strong class="mono">{c.code}</strong> <Badge status={c.status} />
              <p class="muted">
                {c.discountType === 'FIXED' ? `${brl(c.discountValue)} de desconto` : `${c.discountValue}% de desconto`} · usado {c.usedCount} vez(es)
                {c.validUntil ? ` · válido até ${date(c.validUntil)}` : ''}
              </p>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Clients() {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const list = useAsync(() => ok(api.GET('/api/v1/clients', { params: { query: { page: 1, limit: 50, ...(query ? { search: query } : {}) } } })), [query]);
  const [form, setForm] = useState({ name: '', email: '', document: '', phone: '' });
  const { busy, error, submit } = useSubmit();
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  return (
    <div>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          submit(async () => {
            await ok(api.POST('/api/v1/clients', { body: { name: form.name, email: form.email, document: form.document, ...(form.phone ? { phone: form.phone } : {}) } }));
            setForm({ name: '', email: '', document: '', phone: '' });
            list.reload();
          });
        }}
      >
        <h2>Novo cliente</h2>
        <FormError error={error} fields={['name', 'email', 'document', 'phone']} />
        <Field label="Nome" name="name" value={form.name} onValue={set('name')} error={error} required />
        <Field label="E-mail" name="email" type="email" value={form.email} onValue={set('email')} error={error} required />
        <Field label="CPF ou CNPJ" name="document" inputMode="numeric" value={form.document} onValue={set('document')} error={error} required />
        <Field label="Telefone (opcional)" name="phone" type="tel" value={form.phone} onValue={set('phone')} error={error} placeholder="+5511999990000" />
        <button class="btn btn-primary" type="submit" disabled={busy}>
          {busy ? 'Salvando…' : 'Cadastrar cliente'}
        </button>
      </form>
      <form
        class="inline-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(search.trim());
        }}
      >
        <Field label="Buscar cliente" name="search" value={search} onValue={setSearch} placeholder="Nome, e-mail ou CPF/CNPJ" />
        <button class="btn btn-secondary" type="submit">
          Buscar
        </button>
      </form>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {list.data && list.data.clients.length === 0 && <Empty title={query ? `Nenhum cliente encontrado para “${query}”.` : 'Nenhum cliente ainda.'}>Os clientes das suas vendas aparecem aqui; você também pode cadastrá-los acima.</Empty>}
      <ul class="list cards-list">
        {list.data?.clients.map((c) => (
          <li key={c.id} class="card">
            <div class="grow">
              <strong>{c.name}</strong>
              <p class="muted">
                {c.email} · {c.document}
                {c.phone ? ` · ${c.phone}` : ''}
              </p>
            </div>
            <Link class="btn btn-secondary btn-small" to={`/vendas?cliente=${c.id}&clienteNome=${encodeURIComponent(c.name)}`}>
              Ver vendas
            </Link>
          </li>
        ))}
      </ul>
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
        ['produtos', 'Produtos', Products],
        ['links', 'Links de pagamento', Links],
        ['cupons', 'Cupons', Coupons],
        ['clientes', 'Clientes', Clients],
      ]}
    />
  );
}
