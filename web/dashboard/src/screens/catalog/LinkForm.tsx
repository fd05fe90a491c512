// A payment link's form, to create one or edit it in place: title and price (an amount, the sum of
// the products picked, or both), the accepted methods and instalments ("3x sem juros"), what the
// checkout asks, stock and expiry, the split of each sale, the page's extras (product description,
// redirect, Meta pixel).
// The API's field errors show beside each field, in Portuguese.
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api/client.ts';
import { api, ok } from '../../api/client.ts';
import { MoneyField } from '../../components/MoneyField.tsx';
import { SplitEditor } from '../../components/SplitEditor.tsx';
import { Checkboxes, FormCard } from '../../components/Resource.tsx';
import { CheckField, DateField, Field, Select } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { splitFields } from '../../lib/split-rule.ts';
import { STATUS_OPTIONS } from './common.ts';
import { ASKED_OPTIONS, type LinkDraft, linkBody, draftOf, METHOD_OPTIONS, type PaymentLink } from './link-draft.ts';
import { LinkProducts } from './LinkProducts.tsx';

const INSTALMENTS: [string, string][] = Array.from({ length: 12 }, (_, i) => [String(i + 1), i === 0 ? '1x (só à vista)' : `${i + 1}x`]);

type Set = <K extends keyof LinkDraft>(k: K) => (v: LinkDraft[K]) => void;
type Part = { d: LinkDraft; set: Set; error: ApiError | null; isNew: boolean };

/** Every field the form shows, for the API's errors to sit beside them instead of above. */
function fieldsOf(d: LinkDraft): string[] {
  const rows = d.products.flatMap((_, i) => [`products.${i}.productId`, `products.${i}.quantity`]);
  return ['title', 'amountCents', 'description', 'status', 'products', ...rows, 'settings', 'settings.maxInstallments', 'settings.interestFreeInstallments', 'settings.interestRate', 'stockEnabled', 'stockQuantity', 'expiresAt', 'expiresTime', 'productDescription', 'redirectUrl', 'metaPixelCode', ...splitFields(d.split)];
}

function CardTerms({ d, set, error, isNew }: Part) {
  const max = Number(d.maxInstallments);
  // Up to the maximum; a link saved through the API with more interest-free instalments keeps its value on offer.
  const upTo = Math.max(max, Number(d.interestFree) || 1);
  const free: [string, string][] = [...(isNew ? [['', 'Padrão da plataforma'] as [string, string]] : []), ['1', 'Nenhuma: juros a partir de 2x'], ...INSTALMENTS.slice(1, upTo).map(([v]): [string, string] => [v, `Até ${v}x sem juros`])];
  return (
    <div class="grid-2">
      <Select
        label="Parcelas no cartão (máximo)"
        name="settings.maxInstallments"
        value={d.maxInstallments}
        // Fewer instalments: the interest-free ones follow down.
        onValue={(v) => (set('maxInstallments')(v), d.interestFree && Number(d.interestFree) > Number(v) && set('interestFree')(v))}
        options={INSTALMENTS}
        error={error}
      />
      <Select label="Parcelas sem juros" name="settings.interestFreeInstallments" value={d.interestFree} onValue={set('interestFree')} options={free} error={error} />
      {max > 1 && (
        <Field
          label="Juros ao mês nas outras parcelas (%)"
          name="settings.interestRate"
          inputMode="decimal"
          value={d.interestRate}
          onValue={set('interestRate')}
          error={error}
          placeholder={isNew ? 'Padrão da plataforma' : '0,00'}
          hint="Tabela Price, pagos pelo cliente. 0 = nenhuma parcela tem juros."
        />
      )}
    </div>
  );
}

function Methods(p: Part) {
  const { d, set, error } = p;
  return (
    <>
      <Checkboxes legend="Formas de pagamento aceitas" name="settings" options={METHOD_OPTIONS} value={d.methods} onValue={set('methods')} error={error} />
      {d.methods.includes('creditCardEnabled') && <CardTerms {...p} />}
      <Checkboxes legend="Pedir também ao cliente" name="asked" options={ASKED_OPTIONS} value={d.asked} onValue={set('asked')} error={error} />
    </>
  );
}

function StockAndExpiry({ d, set, error }: Part) {
  return (
    <fieldset>
      <legend>Estoque e validade</legend>
      <CheckField label="Controlar o estoque deste link" name="stockEnabled" checked={d.stockEnabled} onChecked={set('stockEnabled')} error={error} />
      {d.stockEnabled && <Field label="Quantidade em estoque" name="stockQuantity" inputMode="numeric" value={d.stockQuantity} onValue={set('stockQuantity')} error={error} hint="Cada venda paga desconta; em zero, o link mostra “esgotado”." required />}
      <div class="grid-2">
        <DateField label="Expira em (opcional)" name="expiresAt" value={d.expiresDay} onValue={set('expiresDay')} error={error} />
        <Field label="Hora em que expira" name="expiresTime" inputMode="numeric" value={d.expiresTime} onValue={set('expiresTime')} error={error} placeholder="23:59" hint="Horário de Brasília. Em branco: 23:59." />
      </div>
    </fieldset>
  );
}

function PageExtras({ d, set, error }: Part) {
  return (
    <fieldset>
      <legend>Página de pagamento</legend>
      <Field label="Descrição do produto na página (opcional)" name="productDescription" value={d.productDescription} onValue={set('productDescription')} error={error} />
      <Field label="Redirecionar depois do pagamento (opcional)" name="redirectUrl" type="url" inputMode="url" value={d.redirectUrl} onValue={set('redirectUrl')} error={error} placeholder="https://sua-loja.com.br/obrigado" />
      <Field label="ID do Meta Pixel (opcional)" name="metaPixelCode" inputMode="numeric" value={d.metaPixelCode} onValue={set('metaPixelCode')} error={error} hint="Só os números do ID do pixel do Facebook/Instagram." />
    </fieldset>
  );
}

export function LinkForm({ item: link, done, cancel }: { item?: PaymentLink; done: () => void; cancel?: () => void }) {
  const [d, setD] = useState<LinkDraft>(() => draftOf(link));
  const set: Set = (k) => (v) => setD((s) => ({ ...s, [k]: v }));
  const catalog = useAsync(async () => (await ok(api.GET('/api/v1/products', { params: { query: { page: 1, limit: 100, status: 'ACTIVE' } } }))).products, []);
  return (
    <FormCard title="Novo link de pagamento" label="Criar link" busyLabel="Criando…" edit={link?.title} fields={fieldsOf(d)} cancel={cancel}
      submit={async () => {
        const body = linkBody(d, link);
        if (link) await ok(api.PATCH('/api/v1/payment-links/{id}', { params: { path: { id: link.id } }, body: { ...body, status: d.status } }));
        else await ok(api.POST('/api/v1/payment-links', { body }));
        if (!link) setD(draftOf());
        done();
      }}
    >
      {(error) => {
        const part = { d, set, error, isNew: !link };
        return (
          <>
            <Field label="Título" name="title" value={d.title} onValue={set('title')} error={error} required placeholder="Ex.: Consultoria de 1 hora" />
            <MoneyField label="Valor (R$)" name="amountCents" value={d.amount} onValue={set('amount')} error={error} required={!d.products.length} hint={d.products.length ? 'Em branco: o cliente paga a soma dos produtos.' : undefined} />
            <Field label="Descrição (opcional)" name="description" value={d.description} onValue={set('description')} error={error} />
            <LinkProducts items={d.products} onItems={set('products')} catalog={catalog} link={link} amountTyped={!!d.amount.trim()} error={error} />
            <Methods {...part} />
            <StockAndExpiry {...part} />
            <SplitEditor rows={d.split} onRows={set('split')} error={error} intro="Repasse parte de cada venda deste link a subcontas e parceiros que aceitaram seu convite. Sem recebedores, tudo fica com você." />
            <PageExtras {...part} />
            {link && <Select label="Situação" name="status" value={d.status} onValue={(v) => set('status')(v as LinkDraft['status'])} options={STATUS_OPTIONS} error={error} />}
          </>
        );
      }}
    </FormCard>
  );
}
