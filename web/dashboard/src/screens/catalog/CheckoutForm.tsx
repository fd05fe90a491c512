// A checkout's form, to create one or edit it in place: its name and payment link, the payment
// settings that replace the link's, and the brand, with a live preview beside it (under it on a
// phone), and the split that replaces the link's. The API's errors (a colour that white text cannot be read on, an image it refused) show
// beside each field, in Portuguese.
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api/client.ts';
import { api, ok } from '../../api/client.ts';
import { Checkboxes, FormCard } from '../../components/Resource.tsx';
import { SplitEditor } from '../../components/SplitEditor.tsx';
import { Field, Select } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl } from '../../lib/format.ts';
import { splitFields } from '../../lib/split-rule.ts';
import { BANNER_LAYOUTS, CHECKOUT_FIELDS, checkoutBody, type Checkout, type CheckoutDraft, draftOf, FONTS, RADII, SCHEMES, SHOWN_OPTIONS } from './checkout-draft.ts';
import { CheckoutPreview } from './CheckoutPreview.tsx';
import { ASKED_OPTIONS, METHOD_OPTIONS } from './link-draft.ts';

type Set = <K extends keyof CheckoutDraft>(k: K) => (v: CheckoutDraft[K]) => void;
type Part = { d: CheckoutDraft; set: Set; error: ApiError | null };
const INSTALMENTS: [string, string][] = Array.from({ length: 12 }, (_, i) => [String(i + 1), `${i + 1}x`]);

function Payment({ d, set, error }: Part) {
  return (
    <fieldset>
      <legend>Pagamento (substitui o do link)</legend>
      <Checkboxes legend="Formas de pagamento aceitas" name="settings" options={METHOD_OPTIONS} value={d.methods} onValue={set('methods')} error={error} />
      <Select label="Parcelas no cartão (máximo)" name="settings.maxInstallments" value={d.maxInstallments} onValue={set('maxInstallments')} options={INSTALMENTS} error={error} />
      <Checkboxes legend="Pedir também ao cliente" name="asked" options={ASKED_OPTIONS} value={d.asked} onValue={set('asked')} error={error} />
    </fieldset>
  );
}

function Brand({ d, set, error }: Part) {
  const image = (label: string, name: string, k: 'logoUrl' | 'backgroundUrl' | 'bannerUrl') => (
    <Field label={label} name={name} type="url" inputMode="url" value={d[k]} onValue={set(k)} error={error} placeholder="https://…" hint="PNG, JPEG, WebP ou GIF de até 2 MB; o Cofre guarda uma cópia ao salvar." />
  );
  return (
    <fieldset>
      <legend>Sua marca</legend>
      <div class="grid-2">
        <Field label="Cor principal (#rrggbb)" name="checkoutConfig.theme.primaryColor" value={d.primaryColor} onValue={set('primaryColor')} error={error} placeholder="#0b6e4f" hint="Botões com texto branco: a cor precisa ser escura o bastante." />
        <Field label="Texto do botão" name="checkoutConfig.theme.buttonText" value={d.buttonText} onValue={set('buttonText')} error={error} placeholder="Pagar R$ …" />
      </div>
      {image('Logo (opcional)', 'customization.logoUrl', 'logoUrl')}
      {image('Banner (opcional)', 'checkoutConfig.theme.bannerUrl', 'bannerUrl')}
      {image('Imagem de fundo (opcional)', 'customization.backgroundUrl', 'backgroundUrl')}
      <div class="grid-2">
        <Select label="Banner" name="checkoutConfig.theme.bannerLayout" value={d.bannerLayout} onValue={(v) => set('bannerLayout')(v as CheckoutDraft['bannerLayout'])} options={BANNER_LAYOUTS} error={error} />
        <Select label="Fonte" name="checkoutConfig.theme.fontFamily" value={d.fontFamily} onValue={(v) => set('fontFamily')(v as CheckoutDraft['fontFamily'])} options={FONTS} error={error} />
        <Select label="Cantos" name="checkoutConfig.theme.borderRadius" value={d.borderRadius} onValue={(v) => set('borderRadius')(v as CheckoutDraft['borderRadius'])} options={RADII} error={error} />
        <Select label="Cores" name="checkoutConfig.theme.colorScheme" value={d.colorScheme} onValue={(v) => set('colorScheme')(v as CheckoutDraft['colorScheme'])} options={SCHEMES} error={error} />
      </div>
      <Checkboxes legend="Mostrar na página" name="shown" options={SHOWN_OPTIONS} value={d.shown} onValue={set('shown')} error={error} />
      <Field label="Termos de compra (opcional)" name="checkoutConfig.termsUrl" type="url" inputMode="url" value={d.termsUrl} onValue={set('termsUrl')} error={error} placeholder="https://sua-loja.com.br/termos" hint="Com o endereço, a página mostra o link “Termos de compra” no rodapé." />
    </fieldset>
  );
}

export function CheckoutForm({ item: checkout, done, cancel }: { item?: Checkout; done: () => void; cancel?: () => void }) {
  const [d, setD] = useState<CheckoutDraft>(() => draftOf(checkout));
  const set: Set = (k) => (v) => setD((s) => ({ ...s, [k]: v }));
  const links = useAsync(async () => (await ok(api.GET('/api/v1/payment-links', { params: { query: { limit: 100 } } }))).paymentLinks, []);
  const link = links.data?.find((l) => l.id === d.paymentLinkId);
  const options: [string, string][] = [['', 'Nenhum (escolha depois)'], ...(links.data ?? []).map((l): [string, string] => [l.id, `${l.title} (${brl(l.totalCents)})`])];
  return (
    <FormCard title="Novo checkout" label="Criar checkout" edit={checkout?.name} fields={[...CHECKOUT_FIELDS, ...splitFields(d.split)]} cancel={cancel}
      submit={async () => {
        const body = checkoutBody(d);
        if (checkout) await ok(api.PUT('/api/v1/checkouts/{id}', { params: { path: { id: checkout.id } }, body }));
        else await ok(api.POST('/api/v1/checkouts', { body }));
        if (!checkout) setD(draftOf());
        done();
      }}
    >
      {(error) => {
        const part = { d, set, error };
        return (
          <div class="checkout-editor">
            <div>
              <Field label="Nome" name="name" value={d.name} onValue={set('name')} error={error} required placeholder="Ex.: Página do curso" />
              <Select label="Link de pagamento" name="paymentLinkId" value={d.paymentLinkId} onValue={set('paymentLinkId')} options={options} error={error} />
              <Payment {...part} />
              <Brand {...part} />
              <SplitEditor rows={d.split} onRows={set('split')} error={error} intro="Repasse parte de cada venda deste checkout a subcontas e parceiros. Sem recebedores, vale a divisão do link de pagamento, se ele tiver uma." />
            </div>
            <CheckoutPreview d={d} title={link?.title ?? 'Seu produto'} priceText={link ? brl(link.totalCents) : 'R$ 97,00'} />
          </div>
        );
      }}
    </FormCard>
  );
}
