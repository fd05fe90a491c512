// Conta: the profile and invite code, the KYC form (identity, address, documents uploaded as files)
// with its status, and the password change (the API answers a new token; the old ones stop working).
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { Json } from '../api/json.ts';
import type { paths } from '../api/schema.d.ts';
import { fieldError } from '../components/MoneyField.tsx';
import { Badge, CopyButton, DateField, ErrorState, Field, FormError, Loading, PageHeader, Select } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { date, dateTime } from '../lib/format.ts';
import { session } from '../lib/session.ts';
import { useCell } from '../lib/state.ts';

type KycBody = paths['/api/kyc']['post']['requestBody']['content']['application/json'];
type KycDoc = KycBody['documents'][number];
type KycForm = { personType: string; legalName: string; document: string; birthDate: string; street: string; number: string; complement: string; district: string; city: string; state: string; zipCode: string };
type FormErrors = ReturnType<typeof useSubmit>['error'];

const DOC_TYPES: [KycDoc['type'], string][] = [
  ['IDENTITY_FRONT', 'Documento de identidade (frente)'],
  ['IDENTITY_BACK', 'Documento de identidade (verso)'],
  ['SELFIE', 'Selfie com o documento'],
  ['PROOF_OF_ADDRESS', 'Comprovante de endereço'],
  ['COMPANY_REGISTRATION', 'Cartão CNPJ'],
  ['ARTICLES_OF_ASSOCIATION', 'Contrato social'],
];
const TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/pdf'];
const MAX_FILE = 5 * 1024 * 1024;

function readBase64(file: File, progress: (p: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onprogress = (e) => e.lengthComputable && progress(e.loaded / e.total);
    r.onload = () => resolve(String(r.result).split(',')[1] ?? '');
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

function Kyc() {
  const status = useAsync(() => ok(api.GET('/api/kyc', {})), []);
  const [f, setF] = useState<KycForm>({ personType: 'PF', legalName: '', document: '', birthDate: '', street: '', number: '', complement: '', district: '', city: '', state: '', zipCode: '' });
  const [files, setFiles] = useState<Partial<Record<KycDoc['type'], File>>>({});
  const [progress, setProgress] = useState<number | null>(null);
  const { busy, error, submit } = useSubmit();
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  if (status.loading) return <Loading />;
  if (status.error) return <ErrorState error={status.error} retry={status.reload} />;
  const s = status.data!;
  const canSubmit = s.status === 'NOT_SUBMITTED' || s.status === 'REJECTED';
  return (
    <section class="card">
      <h2>
        Verificação da conta (KYC) <Badge status={s.status} />
      </h2>
      <KycStatusText s={s} />
      {canSubmit && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit(async () => {
              const body = await kycBody(f, files, setProgress);
              try {
                await ok(api.POST('/api/kyc', { body }));
              } finally {
                setProgress(null);
              }
              status.reload();
            });
          }}
        >
          <FormError error={error} fields={['personType', 'legalName', 'document', 'birthDate', 'foundingDate', 'address.street', 'address.number', 'address.district', 'address.city', 'address.state', 'address.zipCode', 'address.complement', 'documents']} />
          <Select
            label="Tipo de conta"
            name="personType"
            value={f.personType}
            onValue={set('personType')}
            options={[
              ['PF', 'Pessoa física (CPF)'],
              ['PJ', 'Empresa (CNPJ)'],
            ]}
            error={error}
          />
          <Field label={f.personType === 'PF' ? 'Nome completo' : 'Razão social'} name="legalName" value={f.legalName} onValue={set('legalName')} error={error} required />
          <Field label={f.personType === 'PF' ? 'CPF' : 'CNPJ'} name="document" inputMode="numeric" value={f.document} onValue={set('document')} error={error} required />
          <DateField label={f.personType === 'PF' ? 'Data de nascimento' : 'Data de fundação'} name="birthDate" value={f.birthDate} onValue={set('birthDate')} />
          <AddressFields f={f} set={set} error={error} />
          <DocumentInputs personType={f.personType} files={files} setFiles={setFiles} error={error} />
          {progress !== null && (
            <p role="status">
              Enviando documentos… <progress max={1} value={progress} aria-label="Envio dos documentos" /> {Math.round(progress * 100)}%
            </p>
          )}
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {busy ? 'Enviando…' : 'Enviar para análise'}
          </button>
        </form>
      )}
    </section>
  );
}

/** Where the account's verification stands, in a sentence. */
function KycStatusText({ s }: { s: Json<'getKyc'> }) {
  return (
    <>
      {s.status === 'APPROVED' && <p>Conta verificada em {date(s.kyc?.reviewedAt)}: produção, chaves de produção e saques liberados.</p>}
      {s.status === 'SUBMITTED' && <p>Recebemos seus dados em {dateTime(s.kyc?.createdAt)}. A análise costuma levar até 2 dias úteis.</p>}
      {s.status === 'REJECTED' && (
        <p class="field-message">
          Cadastro recusado{s.kyc?.reviewReason ? `: ${s.kyc.reviewReason}` : ''}. Corrija e envie de novo.
        </p>
      )}
      {s.status === 'NOT_SUBMITTED' && <p>Para vender em produção e sacar, envie seus dados e documentos.</p>}
    </>
  );
}

/** The API's body of the form: the chosen files read as base64 (`progress` from 0 to 1 as they are read). */
async function kycBody(f: KycForm, files: Partial<Record<KycDoc['type'], File>>, progress: (p: number) => void): Promise<KycBody> {
  const chosen = Object.entries(files) as [KycDoc['type'], File][];
  if (!chosen.length) throw fieldError('documents', 'Envie pelo menos um documento.');
  const documents: KycDoc[] = [];
  for (const [i, [type, file]] of chosen.entries()) {
    progress(i / chosen.length);
    const contentBase64 = await readBase64(file, (p) => progress((i + p) / chosen.length));
    documents.push({ type, fileName: file.name, contentType: file.type as KycDoc['contentType'], contentBase64 });
  }
  progress(1);
  const { street, number, complement, district, city, state, zipCode } = f;
  const body: KycBody = {
    personType: f.personType as 'PF',
    legalName: f.legalName,
    document: f.document,
    ...(f.birthDate ? (f.personType === 'PF' ? { birthDate: f.birthDate } : { foundingDate: f.birthDate }) : {}),
    address: { street, number, district, city, state, zipCode, ...(complement ? { complement } : {}) },
    documents,
  };
  return body;
}

function AddressFields({ f, set, error }: { f: KycForm; set: (k: keyof KycForm) => (v: string) => void; error: FormErrors }) {
  return (
    <fieldset>
      <legend>Endereço</legend>
      <Field label="CEP" name="address.zipCode" inputMode="numeric" value={f.zipCode} onValue={set('zipCode')} error={error} required />
      <Field label="Rua" name="address.street" value={f.street} onValue={set('street')} error={error} required />
      <Field label="Número" name="address.number" value={f.number} onValue={set('number')} error={error} required />
      <Field label="Complemento (opcional)" name="address.complement" value={f.complement} onValue={set('complement')} error={error} />
      <Field label="Bairro" name="address.district" value={f.district} onValue={set('district')} error={error} required />
      <Field label="Cidade" name="address.city" value={f.city} onValue={set('city')} error={error} required />
      <Field label="UF" name="address.state" value={f.state} onValue={(v) => set('state')(v.toUpperCase())} error={error} required maxLength={2} />
    </fieldset>
  );
}

/** A file input per document the account's type needs; a file of another type or over 5 MB is refused at once. */
function DocumentInputs({ personType, files, setFiles, error }: { personType: string; files: Partial<Record<KycDoc['type'], File>>; setFiles: (f: Partial<Record<KycDoc['type'], File>>) => void; error: FormErrors }) {
  return (
    <fieldset>
      <legend>Documentos (PNG, JPEG, WebP ou PDF, até 5 MB cada)</legend>
      {DOC_TYPES.filter(([t]) => (personType === 'PF' ? !['COMPANY_REGISTRATION', 'ARTICLES_OF_ASSOCIATION'].includes(t) : true)).map(([type, label]) => (
        <div class="field" key={type}>
          <label for={`doc-${type}`}>{label}</label>
          <input
            id={`doc-${type}`}
            type="file"
            accept={TYPES.join(',')}
            onChange={(e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              const next = { ...files };
              if (file && TYPES.includes(file.type) && file.size <= MAX_FILE) next[type] = file;
              else delete next[type];
              if (file && (!TYPES.includes(file.type) || file.size > MAX_FILE)) alert('Arquivo não aceito: envie PNG, JPEG, WebP ou PDF de até 5 MB.');
              setFiles(next);
            }}
          />
        </div>
      ))}
      {error?.fields.documents && <small class="field-message">{error.fields.documents}</small>}
    </fieldset>
  );
}

function Password() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit();
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(false);
        submit(async () => {
          const r = await ok(api.POST('/api/auth/password', { body: { currentPassword: current, newPassword: next } }));
          session.start(r.token, r.user);
          setCurrent('');
          setNext('');
          setDone(true);
        });
      }}
    >
      <h2>Trocar a senha</h2>
      <p class="muted">As outras sessões abertas com a senha antiga são encerradas.</p>
      <FormError error={error} fields={['currentPassword', 'newPassword']} />
      {done && (
        <p class="notice" role="status">
          Senha trocada.
        </p>
      )}
      <Field label="Senha atual" name="currentPassword" type="password" autoComplete="current-password" value={current} onValue={setCurrent} error={error} required />
      <Field label="Nova senha" name="newPassword" type="password" autoComplete="new-password" hint="Pelo menos 8 caracteres; evite senhas comuns." value={next} onValue={setNext} error={error} required />
      <button type="submit" class="btn btn-primary" disabled={busy}>
        {busy ? 'Trocando…' : 'Trocar senha'}
      </button>
    </form>
  );
}

export function Account() {
  const user = useCell(session.user);
  const invite = `${location.origin}/dashboard/cadastro?convite=${user?.referralCode ?? ''}`;
  return (
    <div>
      <PageHeader title="Conta" />
      <section class="card">
        <h2>Perfil</h2>
        <dl class="facts">
          <dt>Nome</dt>
          <dd>{user?.name}</dd>
          <dt>E-mail</dt>
          <dd>{user?.email}</dd>
          <dt>Cliente desde</dt>
          <dd>{date(user?.createdAt)}</dd>
          <dt>Código de convite</dt>
          <dd>
            <span class="mono">{user?.referralCode}</span> <CopyButton text={invite} label="Copiar link de convite" />
          </dd>
        </dl>
      </section>
      <Kyc />
      <Password />
    </div>
  );
}
