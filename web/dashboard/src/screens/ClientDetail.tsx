// A client's page: its contact details (the document masked), its sales, and its data rights
// (LGPD): download everything stored about it, or erase its personal data after a confirmation.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { ApiAction } from '../components/Resource.tsx';
import { Link } from '../components/Link.tsx';
import { ErrorState, Loading, PageHeader } from '../components/ui.tsx';
import { useAsync } from '../lib/async.ts';
import { saveBlob } from '../lib/download.ts';
import { clientDocumentText, dateTime, phoneText } from '../lib/format.ts';

function ExportButton({ id }: { id: string }) {
  const [state, setState] = useState<'idle' | 'busy' | 'done'>('idle');
  return (
    <span class="api-action">
      <ApiAction
        label={state === 'busy' ? 'Exportando…' : 'Exportar dados'}
        tone="secondary"
        call={async () => {
          setState('busy');
          try {
            const r = await ok(api.GET('/api/v1/clients/{id}/export', { params: { path: { id } } }));
            saveBlob(new Blob([JSON.stringify(r.export, null, 2)], { type: 'application/json' }), `cliente-${id}.json`);
            setState('done');
          } catch (err) {
            setState('idle');
            throw err;
          }
        }}
      />
      {state === 'done' && <small class="muted" role="status">Arquivo baixado: tudo o que guardamos sobre este cliente (JSON).</small>}
    </span>
  );
}

export function ClientDetail({ id }: { id: string }) {
  const client = useAsync(() => ok(api.GET('/api/v1/clients/{id}', { params: { path: { id } } })), [id]);
  if (client.loading && !client.data) return <Loading />;
  if (client.error) return <ErrorState error={client.error} retry={client.reload} />;
  const c = client.data!.client;
  const erased = c.erasedAt !== null;
  return (
    <div>
      <p>
        <Link to="/catalogo?aba=clientes">← Clientes</Link>
      </p>
      <PageHeader title={c.name}>{erased && <span class="badge badge-off">Dados apagados</span>}</PageHeader>
      <section class="card">
        <h2>Dados do cliente</h2>
        {erased ? (
          <p class="muted">Os dados pessoais deste cliente foram apagados em {dateTime(c.erasedAt!)}. As vendas continuam no histórico, com valores e datas, sem nome, e-mail, documento, telefone ou endereço.</p>
        ) : (
          <dl class="facts">
            <dt>E-mail</dt>
            <dd>{c.email}</dd>
            <dt>Documento</dt>
            <dd>{clientDocumentText(c.document)}</dd>
            <dt>Telefone</dt>
            <dd>{phoneText(c.phone)}</dd>
            <dt>Cliente desde</dt>
            <dd>{dateTime(c.createdAt)}</dd>
          </dl>
        )}
        <div class="actions">
          <Link class="btn btn-secondary btn-small" to={`/vendas?cliente=${c.id}&clienteNome=${encodeURIComponent(c.name)}`}>
            Ver vendas
          </Link>
        </div>
      </section>
      <section class="card">
        <h2>Privacidade (LGPD)</h2>
        <p class="muted">O cliente pode pedir uma cópia dos dados dele ou que sejam apagados. A cópia traz o cadastro, as vendas, assinaturas, cartões salvos (só bandeira e final), e-mails enviados e webhooks que o citaram.</p>
        <div class="actions">
          <ExportButton id={c.id} />
          {!erased && (
            <ApiAction
              label="Apagar dados do cliente"
              tone="danger"
              ask={`Apagar os dados pessoais de “${c.name}”? Nome, e-mail, documento, telefone e endereço somem de todas as vendas, assinaturas, e-mails e webhooks, e não será possível cobrar este cliente de novo. Valores e datas das vendas continuam. Isso não pode ser desfeito.`}
              call={() => ok(api.POST('/api/v1/clients/{id}/erase', { params: { path: { id: c.id } } }))}
              done={client.reload}
            />
          )}
        </div>
      </section>
    </div>
  );
}
