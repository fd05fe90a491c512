// A sub-account's form: to create one (name, e-mail, CPF/CNPJ, phone, address, Pix key and, in
// development, its API key, shown once) or to change what can change (name, phone, address, Pix key).
import { useState } from 'preact/hooks';
import { api, ok, type ApiError } from '../../api/client.ts';
import { FormCard } from '../../components/Resource.tsx';
import { ShownOnce } from '../../components/ShownOnce.tsx';
import { CheckField, Field } from '../../components/ui.tsx';
import { session } from '../../lib/session.ts';
import { useCell } from '../../lib/state.ts';
import type { Account, AccountBody, AccountChanges } from './common.ts';

const ADDRESS = ['zipCode', 'street', 'number', 'complement', 'neighborhood', 'city', 'state'] as const;
type Draft = Record<'name' | 'email' | 'document' | 'phone' | 'pixKey' | (typeof ADDRESS)[number], string>;

function draftOf(a?: Account): Draft {
  return { name: a?.name ?? '', email: a?.email ?? '', document: a?.document ?? '', phone: a?.phone ?? '', pixKey: a?.pixKey ?? '', zipCode: '', street: '', number: '', complement: '', neighborhood: '', city: '', state: '', ...a?.address };
}

const addressOf = (d: Draft): AccountBody['address'] => {
  const { complement, ...rest } = Object.fromEntries(ADDRESS.map((k) => [k, d[k].trim()])) as Record<(typeof ADDRESS)[number], string>;
  return { ...rest, ...(complement && { complement }) };
};

/** What an edit changes (the API wants at least one field; the e-mail and document never change). */
function changesOf(d: Draft, a: Account): AccountChanges {
  const out: AccountChanges = {};
  if (d.name.trim() !== a.name) out.name = d.name.trim();
  if (d.phone.trim() !== a.phone) out.phone = d.phone.trim();
  if ((d.pixKey.trim() || null) !== a.pixKey) out.pixKey = d.pixKey.trim() || null;
  const address = addressOf(d);
  if (JSON.stringify(address) !== JSON.stringify(addressOf(draftOf(a)))) out.address = address;
  return out;
}

const FIELDS = ['name', 'email', 'document', 'phone', 'pixKey', 'createApiKey', 'address', ...ADDRESS.map((k) => `address.${k}`)];

function AddressFields({ d, set, error }: { d: Draft; set: (k: keyof Draft) => (v: string) => void; error: ApiError | null }) {
  return (
    <fieldset>
      <legend>Endereço</legend>
      <div class="grid-2">
        <Field label="CEP" name="address.zipCode" inputMode="numeric" value={d.zipCode} onValue={set('zipCode')} error={error} required placeholder="01001-000" />
        <Field label="Rua" name="address.street" value={d.street} onValue={set('street')} error={error} required />
        <Field label="Número" name="address.number" value={d.number} onValue={set('number')} error={error} required />
        <Field label="Complemento (opcional)" name="address.complement" value={d.complement} onValue={set('complement')} error={error} />
        <Field label="Bairro" name="address.neighborhood" value={d.neighborhood} onValue={set('neighborhood')} error={error} required />
        <Field label="Cidade" name="address.city" value={d.city} onValue={set('city')} error={error} required />
        <Field label="UF" name="address.state" value={d.state} onValue={(v) => set('state')(v.toUpperCase())} error={error} required maxLength={2} placeholder="SP" />
      </div>
    </fieldset>
  );
}

/** Without `account` it creates one (its API key, when asked, shown once after); with it, it edits that one. */
export function AccountForm({ account, done, cancel }: { account?: Account; done: () => void; cancel?: () => void }) {
  const env = useCell(session.env);
  const [d, setD] = useState<Draft>(() => draftOf(account));
  const [withKey, setWithKey] = useState(false);
  const [key, setKey] = useState<{ value: string; name: string } | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const set = (k: keyof Draft) => (v: string) => setD((s) => ({ ...s, [k]: v }));
  if (key) return <ShownOnce title={`Chave de API de ${key.name}`} note={<><strong>Copie agora:</strong> com ela você vende em nome desta subconta pela API; por segurança, ela não será mostrada de novo.</>} value={key.value} copyLabel="Copiar chave" close={() => (setKey(null), done())} />;
  return (
    <FormCard
      title="Nova subconta"
      label="Criar subconta"
      busyLabel="Criando…"
      edit={account?.name}
      fields={FIELDS}
      cancel={cancel}
      submit={async () => {
        if (account) {
          const changes = changesOf(d, account);
          if (Object.keys(changes).length) await ok(api.PATCH('/api/v1/accounts/{id}', { params: { path: { id: account.id } }, body: changes }));
          return done();
        }
        const body: AccountBody = { name: d.name.trim(), email: d.email.trim(), document: d.document.trim(), phone: d.phone.trim(), address: addressOf(d), ...(d.pixKey.trim() && { pixKey: d.pixKey.trim() }), ...(withKey && { createApiKey: true }) };
        const r = await ok(api.POST('/api/v1/accounts', { body }));
        setD(draftOf());
        setWithKey(false);
        setSent(`Subconta “${r.account.name}” criada. Enviamos a ${r.account.email} o convite para criar a senha e entrar no painel.`);
        if (r.apiKey) setKey({ value: r.apiKey.key, name: r.account.name });
        done();
      }}
    >
      {(error) => (
        <>
          {sent && !error && (
            <p class="notice" role="status">
              {sent}
            </p>
          )}
          <Field label="Nome" name="name" value={d.name} onValue={set('name')} error={error} required placeholder="Nome do vendedor ou da empresa" />
          {!account && (
            <div class="grid-2">
              <Field label="E-mail" name="email" type="email" inputMode="email" value={d.email} onValue={set('email')} error={error} required hint="Recebe o convite para criar a senha e entrar no painel." />
              <Field label="CPF ou CNPJ" name="document" inputMode="numeric" value={d.document} onValue={set('document')} error={error} required />
            </div>
          )}
          <div class="grid-2">
            <Field label="Celular" name="phone" type="tel" inputMode="tel" value={d.phone} onValue={set('phone')} error={error} required placeholder="+5511999990000" />
            <Field label="Chave PIX para saques (opcional)" name="pixKey" value={d.pixKey} onValue={set('pixKey')} error={error} hint="CPF, CNPJ, e-mail, celular com +55 ou chave aleatória." />
          </div>
          <AddressFields d={d} set={set} error={error} />
          {!account && env === 'development' && <CheckField label="Criar chave de API desta subconta (mostrada uma vez)" name="createApiKey" checked={withKey} onChecked={setWithKey} error={error} />}
        </>
      )}
    </FormCard>
  );
}
