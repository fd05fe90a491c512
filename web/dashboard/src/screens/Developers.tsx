// Desenvolvedores: API keys (permissions as checkboxes, the value shown once), webhook
// subscriptions (create, rotate the secret, send a test), the delivery log (payload, attempts,
// retry) and the list of event types.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { DeliveryLog } from '../components/Deliveries.tsx';
import { Action, Badge, CopyButton, Empty, ErrorState, Field, FormError, Loading, Select, TabbedScreen } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { dateTime } from '../lib/format.ts';
import { session, SESSION_KEY_NAME } from '../lib/session.ts';
import { useCell } from '../lib/state.ts';

type Permission = NonNullable<paths['/api/credentials']['post']['requestBody']>['content']['application/json']['permissions'] extends (infer P)[] | undefined ? P : never;
type EventType = paths['/api/v1/webhooks/subscriptions']['post']['requestBody']['content']['application/json']['events'][number];

const RESOURCES: [string, string][] = [
  ['transactions', 'Vendas'],
  ['paymentLinks', 'Links de pagamento'],
  ['products', 'Produtos'],
  ['customers', 'Clientes'],
  ['coupons', 'Cupons'],
  ['webhooks', 'Webhooks'],
  ['withdrawals', 'Saques e antecipações'],
  ['subscriptions', 'Assinaturas'],
  ['affiliates', 'Afiliados'],
];
const ALL_PERMISSIONS = RESOURCES.flatMap(([r]) => [`${r}:read`, `${r}:write`]) as Permission[];

function NewKey({ created }: { created: () => void }) {
  const env = useCell(session.env);
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<'DEVELOPMENT' | 'PRODUCTION'>(env === 'production' ? 'PRODUCTION' : 'DEVELOPMENT');
  const [perms, setPerms] = useState<Set<Permission>>(new Set(ALL_PERMISSIONS));
  const [value, setValue] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit();
  const toggle = (p: Permission) => {
    const next = new Set(perms);
    if (next.has(p)) next.delete(p);
    else next.add(p);
    setPerms(next);
  };
  if (value)
    return (
      <div class="card key-shown" role="status">
        <h2>Chave criada</h2>
        <p>
          <strong>Copie agora:</strong> por segurança, este valor não será mostrado de novo.
        </p>
        <p class="mono secret" data-testid="api-key-value">
          {value}
        </p>
        <div class="actions">
          <CopyButton text={value} label="Copiar chave" />
          <button type="button" class="btn btn-ghost" onClick={() => (setValue(null), setName(''))}>
            Pronto, copiei
          </button>
        </div>
      </div>
    );
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        submit(async () => {
          const r = await ok(api.POST('/api/credentials', { body: { name, environment, permissions: [...perms] } }));
          setValue(r.key);
          created();
        });
      }}
    >
      <h2>Nova chave de API</h2>
      <FormError error={error} fields={['name', 'environment', 'permissions']} />
      <Field label="Nome" name="name" value={name} onValue={setName} error={error} placeholder="Ex.: loja virtual" required />
      <Select
        label="Ambiente"
        name="environment"
        value={environment}
        onValue={(v) => setEnvironment(v as 'DEVELOPMENT' | 'PRODUCTION')}
        options={[
          ['DEVELOPMENT', 'Desenvolvimento (sandbox)'],
          ['PRODUCTION', 'Produção'],
        ]}
        error={error}
      />
      <fieldset class="perms">
        <legend>Permissões</legend>
        <div class="perm-grid">
          {RESOURCES.map(([r, label]) => (
            <div key={r} class="perm-row">
              <span class="perm-name">{label}</span>
              {(['read', 'write'] as const).map((mode) => {
                const p = `${r}:${mode}` as Permission;
                return (
                  <label key={p} class="check">
                    <input type="checkbox" name="permissions" value={p} checked={perms.has(p)} onChange={() => toggle(p)} /> {mode === 'read' ? 'ler' : 'escrever'}
                  </label>
                );
              })}
            </div>
          ))}
        </div>
        {error?.fields.permissions && <small class="field-message">{error.fields.permissions}</small>}
      </fieldset>
      <button type="submit" class="btn btn-primary" disabled={busy}>
        {busy ? 'Criando…' : 'Criar chave'}
      </button>
    </form>
  );
}

function Keys() {
  // The keys the dashboard makes for its own sessions are counted apart, not listed.
  const list = useAsync(async () => {
    const all = (await ok(api.GET('/api/credentials', {}))).credentials;
    return { credentials: all.filter((c) => c.name !== SESSION_KEY_NAME), sessions: all.filter((c) => c.name === SESSION_KEY_NAME && !c.revokedAt).length };
  }, []);
  const { error, submit } = useSubmit();
  return (
    <div>
      <NewKey created={list.reload} />
      <h2 class="section-title">Suas chaves</h2>
      <FormError error={error} />
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {list.data && list.data.sessions > 0 && (
        <p class="muted">
          Além destas, {list.data.sessions} chave(s) “{SESSION_KEY_NAME}” estão ativas: o painel as cria para si ao entrar e as revoga ao sair.
        </p>
      )}
      {list.data && list.data.credentials.length === 0 && <Empty title="Nenhuma chave ainda.">Crie uma chave acima para integrar sua loja.</Empty>}
      {list.data && list.data.credentials.length > 0 && (
        <ul class="list cards-list">
          {list.data.credentials.map((c) => (
            <li key={c.id} class="card">
              <div>
                <strong>{c.name}</strong> <span class={c.environment === 'PRODUCTION' ? 'badge badge-ok' : 'badge badge-sandbox'}>{c.environment === 'PRODUCTION' ? 'Produção' : 'Desenvolvimento'}</span>
                {c.revokedAt && <span class="badge badge-off">Revogada</span>}
                <p class="mono muted">{c.prefix}…</p>
                <p class="muted">
                  Criada em {dateTime(c.createdAt)} · {c.permissions.length} permissões
                </p>
              </div>
              {!c.revokedAt && (
                <Action
                  label="Revogar"
                  tone="danger"
                  ariaLabel={`Revogar a chave ${c.name}`}
                  ask={`Revogar a chave “${c.name}”? Ela para de funcionar na hora.`}
                  run={() =>
                    submit(async () => {
                      await ok(api.DELETE('/api/credentials/{id}', { params: { path: { id: c.id } } }));
                      list.reload();
                    })
                  }
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function useEventTypes() {
  return useAsync(() => ok(api.GET('/api/v1/webhooks/events', {})), []);
}

function NewSubscription({ created }: { created: (secret: string) => void }) {
  const types = useEventTypes();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<Set<EventType>>(new Set(['transaction.completed', 'transaction.failed', 'transaction.refunded'] as EventType[]));
  const { busy, error, submit } = useSubmit();
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        submit(async () => {
          const r = await ok(api.POST('/api/v1/webhooks/subscriptions', { body: { url, events: [...events], ...(description ? { description } : {}) } }));
          setUrl('');
          setDescription('');
          created(r.subscription.secret);
        });
      }}
    >
      <h2>Novo webhook</h2>
      <FormError error={error} fields={['url', 'events', 'description']} />
      <Field label="URL (HTTPS) que recebe os eventos" name="url" type="url" inputMode="url" value={url} onValue={setUrl} error={error} placeholder="https://sua-loja.com.br/webhooks/cofre" required />
      <Field label="Descrição (opcional)" name="description" value={description} onValue={setDescription} error={error} />
      <fieldset class="events">
        <legend>Eventos</legend>
        {types.loading && <Loading />}
        {types.error && <ErrorState error={types.error} retry={types.reload} />}
        <div class="event-grid">
          {types.data?.events.map((ev) => (
            <label key={ev.type} class="check" title={ev.description}>
              <input
                type="checkbox"
                name="events"
                value={ev.type}
                checked={events.has(ev.type as EventType)}
                onChange={() => {
                  const next = new Set(events);
                  if (next.has(ev.type as EventType)) next.delete(ev.type as EventType);
                  else next.add(ev.type as EventType);
                  setEvents(next);
                }}
              />{' '}
              <code>{ev.type}</code>
            </label>
          ))}
        </div>
        {error?.fields.events && <small class="field-message">{error.fields.events}</small>}
      </fieldset>
      <button type="submit" class="btn btn-primary" disabled={busy}>
        {busy ? 'Criando…' : 'Criar webhook'}
      </button>
    </form>
  );
}

function Secret({ secret, close }: { secret: string; close: () => void }) {
  return (
    <div class="card key-shown" role="status">
      <h2>Segredo de assinatura</h2>
      <p>Use este segredo para verificar o cabeçalho X-Webhook-Signature. Ele não será mostrado de novo.</p>
      <p class="mono secret">{secret}</p>
      <div class="actions">
        <CopyButton text={secret} label="Copiar segredo" />
        <button type="button" class="btn btn-ghost" onClick={close}>
          Pronto, copiei
        </button>
      </div>
    </div>
  );
}

function Webhooks() {
  const list = useAsync(() => ok(api.GET('/api/v1/webhooks/subscriptions', { params: { query: { limit: 100 } } })), []);
  const [secret, setSecret] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit();
  return (
    <div>
      {secret ? <Secret secret={secret} close={() => setSecret(null)} /> : <NewSubscription created={(s) => (setSecret(s), list.reload())} />}
      <h2 class="section-title">Seus webhooks</h2>
      <FormError error={error} />
      {result && (
        <p class="notice" role="status">
          {result}
        </p>
      )}
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {list.data && list.data.subscriptions.length === 0 && <Empty title="Nenhum webhook neste ambiente.">Cadastre uma URL acima para receber os eventos das suas vendas.</Empty>}
      <ul class="list cards-list">
        {list.data?.subscriptions.map((s) => (
          <li key={s.id} class="card">
            <div class="grow">
              <strong class="mono">{s.url}</strong> <Badge status={s.status} />
              {s.description && <p>{s.description}</p>}
              {s.disabledReason && <p class="field-message">{s.disabledReason}</p>}
              <p class="muted">{s.events.join(', ')}</p>
            </div>
            <div class="actions">
              <Action
                label="Enviar teste"
                busy={busy}
                run={() =>
                  submit(async () => {
                    const r = await ok(api.POST('/api/v1/webhooks/subscriptions/{id}/test', { params: { path: { id: s.id } } }));
                    setResult(r.success ? `Teste entregue: a URL respondeu ${r.attempt.statusCode} em ${r.attempt.durationMs} ms.` : `O teste falhou: ${r.attempt.statusCode ? `a URL respondeu ${r.attempt.statusCode}` : (r.attempt.error ?? 'sem resposta')}.`);
                  })
                }
              />
              <Action
                label="Trocar segredo"
                busy={busy}
                ask="Trocar o segredo? O segredo atual deixa de assinar os próximos envios."
                run={() =>
                  submit(async () => {
                    const r = await ok(api.POST('/api/v1/webhooks/subscriptions/{id}/rotate-secret', { params: { path: { id: s.id } } }));
                    setSecret(r.subscription.secret);
                  })
                }
              />
              <Action
                label="Excluir"
                tone="danger"
                busy={busy}
                ask={`Excluir o webhook ${s.url}?`}
                run={() =>
                  submit(async () => {
                    await ok(api.DELETE('/api/v1/webhooks/subscriptions/{id}', { params: { path: { id: s.id } } }));
                    list.reload();
                  })
                }
              />
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Deliveries() {
  const [status, setStatus] = useState('');
  return (
    <div>
      <div class="filters card">
        <Select
          label="Situação"
          name="status"
          value={status}
          onValue={setStatus}
          options={[
            ['', 'Todas'],
            ['PENDING', 'Pendentes'],
            ['SUCCEEDED', 'Entregues'],
            ['FAILED', 'Falharam'],
          ]}
        />
      </div>
      <DeliveryLog query={status ? { status: status as 'PENDING' } : {}} empty="Nenhuma entrega ainda." hint="Quando um evento acontecer, cada envio para os seus webhooks aparece aqui." />
    </div>
  );
}

function Events() {
  const types = useEventTypes();
  if (types.loading) return <Loading />;
  if (types.error) return <ErrorState error={types.error} retry={types.reload} />;
  return (
    <div class="card table-wrap" tabIndex={0} role="region" aria-label="Tipos de evento">
      <table>
        <caption class="sr-only">Tipos de evento</caption>
        <thead>
          <tr>
            <th scope="col">Evento</th>
            <th scope="col">Quando acontece</th>
          </tr>
        </thead>
        <tbody>
          {types.data!.events.map((e) => (
            <tr key={e.type}>
              <td>
                <code>{e.type}</code>
              </td>
              <td>{e.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Developers({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Desenvolvedores"
      path="/desenvolvedores"
      route={route}
      tabs={[
        ['chaves', 'Chaves de API', Keys],
        ['webhooks', 'Webhooks', Webhooks],
        ['entregas', 'Entregas', Deliveries],
        ['eventos', 'Eventos', Events],
      ]}
      footer={
        <p class="muted">
          Documentação da API: <a href="/docs">/docs</a>
        </p>
      }
    />
  );
}
