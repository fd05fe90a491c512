// Desenvolvedores: API keys (permissions as checkboxes, the value shown once), webhook
// subscriptions (create, rotate the secret, send a test), the delivery log (payload, attempts,
// retry) and the list of event types (named in Portuguese and grouped: lib/events.ts).
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { DeliveryLog } from '../components/Deliveries.tsx';
import { EventName, EventPicker } from '../components/Events.tsx';
import { Link } from '../components/Link.tsx';
import { useKycStatus } from '../components/NeedsKyc.tsx';
import { ApiAction, AsyncList, Checkboxes, FormCard, useFields } from '../components/Resource.tsx';
import { Badge, ErrorState, Field, Loading, Select } from '../components/ui.tsx';
import { AuditLog } from '../components/AuditLog.tsx';
import { ShownOnce } from '../components/ShownOnce.tsx';
import { TabbedScreen } from '../components/Tabs.tsx';
import { useAsync } from '../lib/async.ts';
import { groupedEvents } from '../lib/events.ts';
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
  ['checkouts', 'Checkouts (página de pagamento)'],
  ['accounts', 'Subcontas e parceiros de divisão'],
];
const ALL_PERMISSIONS = RESOURCES.flatMap(([r]) => [`${r}:read`, `${r}:write`]) as Permission[];
/** The permission that moves money out (withdrawals and advances): off unless the merchant ticks it. */
const CAN_WITHDRAW: Permission = 'withdrawals:write' as Permission;
const DEFAULT_PERMISSIONS = ALL_PERMISSIONS.filter((p) => p !== CAN_WITHDRAW);

const PERMISSION_ROWS = RESOURCES.map(([r, label]): [string, [Permission, string][]] => [label, [[`${r}:read` as Permission, 'ler'], [`${r}:write` as Permission, 'escrever']]]);

function NewKey({ created }: { created: () => void }) {
  const env = useCell(session.env);
  const { values: f, set, reset } = useFields({ name: '', environment: env === 'production' ? 'PRODUCTION' : 'DEVELOPMENT' });
  const [perms, setPerms] = useState<Permission[]>(DEFAULT_PERMISSIONS);
  const [value, setValue] = useState<string | null>(null);
  // Production keys only once the account is verified (403 before): until then, development only.
  const kyc = useKycStatus();
  const closed = kyc.data !== undefined && kyc.data !== 'APPROVED';
  const environment = closed ? 'DEVELOPMENT' : f.environment;
  if (value) return <ShownOnce title="Chave criada" note={<><strong>Copie agora:</strong> por segurança, este valor não será mostrado de novo.</>} value={value} copyLabel="Copiar chave" close={() => (setValue(null), reset(), setPerms(DEFAULT_PERMISSIONS))} />;
  return (
    <FormCard title="Nova chave de API" label="Criar chave" busyLabel="Criando…" fields={['name', 'environment', 'permissions']}
      submit={async () => {
        const r = await ok(api.POST('/api/credentials', { body: { name: f.name, environment: environment as 'DEVELOPMENT', permissions: perms } }));
        setValue(r.key);
        created();
      }}
    >
      {(error) => (
        <>
          <Field label="Nome" name="name" value={f.name} onValue={set('name')} error={error} placeholder="Ex.: loja virtual" required />
          <Select label="Ambiente" name="environment" value={environment} onValue={set('environment')} options={closed ? ENVIRONMENTS.slice(0, 1) : ENVIRONMENTS} error={error} />
          {closed && (
            <p class="muted">
              Chaves de produção são liberadas quando seu cadastro (KYC) for aprovado: envie-o em <Link to="/conta">Conta</Link>.
            </p>
          )}
          <Checkboxes legend="Permissões" name="permissions" class="perms" rows={PERMISSION_ROWS} value={perms} onValue={setPerms} error={error} />
          <p class={perms.includes(CAN_WITHDRAW) ? 'hold' : 'muted'} role="note">
            {perms.includes(CAN_WITHDRAW)
              ? 'Atenção: com “Saques e antecipações: escrever”, esta chave pode sacar o seu saldo. Dê essa permissão só a um sistema que precise sacar.'
              : 'Esta chave não poderá sacar: marque “Saques e antecipações: escrever” só se a sua integração precisar pedir saques.'}
          </p>
        </>
      )}
    </FormCard>
  );
}

const ENVIRONMENTS: [string, string][] = [
  ['DEVELOPMENT', 'Desenvolvimento (sandbox)'],
  ['PRODUCTION', 'Produção'],
];

function Keys() {
  // The keys the dashboard makes for its own sessions are counted apart, not listed.
  const list = useAsync(async () => {
    const all = (await ok(api.GET('/api/credentials', {}))).credentials;
    return { credentials: all.filter((c) => c.name !== SESSION_KEY_NAME), sessions: all.filter((c) => c.name === SESSION_KEY_NAME && !c.revokedAt).length };
  }, []);
  return (
    <div>
      <NewKey created={list.reload} />
      <h2 class="section-title">Suas chaves</h2>
      {list.data && list.data.sessions > 0 && (
        <p class="muted">
          Além destas, {list.data.sessions} chave(s) “{SESSION_KEY_NAME}” estão ativas: o painel as cria para si ao entrar e as revoga ao sair.
        </p>
      )}
      <AsyncList list={list} items={(d) => d.credentials} empty="Nenhuma chave ainda." hint="Crie uma chave acima para integrar sua loja.">
        {(c) => (
          <>
            <div>
              <strong>{c.name}</strong> <span class={c.environment === 'PRODUCTION' ? 'badge badge-ok' : 'badge badge-sandbox'}>{c.environment === 'PRODUCTION' ? 'Produção' : 'Desenvolvimento'}</span>
              {c.permissions.includes(CAN_WITHDRAW) && !c.revokedAt && (
                <span class="badge badge-bad" title="Esta chave pode pedir saques e antecipações">
                  Pode sacar
                </span>
              )}
              {c.revokedAt && <span class="badge badge-off">Revogada</span>}
              <p class="mono muted">{c.prefix}…</p>
              <p class="muted">
                Criada em {dateTime(c.createdAt)} · {c.permissions.length} permissões
              </p>
            </div>
            {!c.revokedAt && <ApiAction label="Revogar" tone="danger" ariaLabel={`Revogar a chave ${c.name}`} ask={`Revogar a chave “${c.name}”? Ela para de funcionar na hora.`} call={() => ok(api.DELETE('/api/credentials/{id}', { params: { path: { id: c.id } } }))} done={list.reload} />}
          </>
        )}
      </AsyncList>
    </div>
  );
}

function useEventTypes() {
  return useAsync(() => ok(api.GET('/api/v1/webhooks/events', {})), []);
}

function NewSubscription({ created }: { created: (secret: string) => void }) {
  const types = useEventTypes();
  const { values: f, set, reset } = useFields({ url: '', description: '' });
  const [events, setEvents] = useState<EventType[]>(['transaction.completed', 'transaction.failed', 'transaction.refunded']);
  return (
    <FormCard title="Novo webhook" label="Criar webhook" busyLabel="Criando…" fields={['url', 'events', 'description']}
      submit={async () => {
        const r = await ok(api.POST('/api/v1/webhooks/subscriptions', { body: { url: f.url, events, ...(f.description ? { description: f.description } : {}) } }));
        reset();
        created(r.subscription.secret);
      }}
    >
      {(error) => (
        <>
          <Field label="URL (HTTPS) que recebe os eventos" name="url" type="url" inputMode="url" value={f.url} onValue={set('url')} error={error} placeholder="https://sua-loja.com.br/webhooks/cofre" required />
          <Field label="Descrição (opcional)" name="description" value={f.description} onValue={set('description')} error={error} />
          {types.loading && <Loading />}
          {types.error && <ErrorState error={types.error} retry={types.reload} />}
          <EventPicker types={types.data?.events ?? []} value={events} onValue={setEvents} error={error} />
        </>
      )}
    </FormCard>
  );
}

type Outcome = { success: boolean; attempt: { statusCode?: number | null; durationMs?: number | null; error?: string | null } };

function testOutcome(r: Outcome) {
  return r.success ? `Teste entregue: a URL respondeu ${r.attempt.statusCode} em ${r.attempt.durationMs} ms.` : `O teste falhou: ${r.attempt.statusCode ? `a URL respondeu ${r.attempt.statusCode}` : (r.attempt.error ?? 'sem resposta')}.`;
}

function Webhooks() {
  const list = useAsync(() => ok(api.GET('/api/v1/webhooks/subscriptions', { params: { query: { limit: 100 } } })), []);
  const [secret, setSecret] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  return (
    <div>
      {secret ? (
        <ShownOnce title="Segredo de assinatura" note="Use este segredo para verificar o cabeçalho X-Webhook-Signature. Ele não será mostrado de novo." value={secret} copyLabel="Copiar segredo" close={() => setSecret(null)} />
      ) : (
        <NewSubscription created={(s) => (setSecret(s), list.reload())} />
      )}
      <h2 class="section-title">Seus webhooks</h2>
      {result && (
        <p class="notice" role="status">
          {result}
        </p>
      )}
      <AsyncList list={list} items={(d) => d.subscriptions} empty="Nenhum webhook neste ambiente." hint="Cadastre uma URL acima para receber os eventos das suas vendas.">
        {(s) => (
          <>
            <div class="grow">
              <strong class="mono">{s.url}</strong> <Badge status={s.status} />
              {s.description && <p>{s.description}</p>}
              {s.disabledReason && <p class="field-message">{s.disabledReason}</p>}
              <ul class="facts-line" aria-label="Eventos deste webhook">
                {s.events.map((type) => (
                  <li key={type}>
                    <EventName type={type} />
                  </li>
                ))}
              </ul>
            </div>
            <div class="actions">
              <ApiAction label="Enviar teste" call={async () => setResult(testOutcome(await ok(api.POST('/api/v1/webhooks/subscriptions/{id}/test', { params: { path: { id: s.id } } }))))} />
              <ApiAction label="Trocar segredo" ask="Trocar o segredo? O segredo atual deixa de assinar os próximos envios." call={async () => setSecret((await ok(api.POST('/api/v1/webhooks/subscriptions/{id}/rotate-secret', { params: { path: { id: s.id } } }))).subscription.secret)} />
              <ApiAction label="Excluir" tone="danger" ask={`Excluir o webhook ${s.url}?`} call={() => ok(api.DELETE('/api/v1/webhooks/subscriptions/{id}', { params: { path: { id: s.id } } }))} done={list.reload} />
            </div>
          </>
        )}
      </AsyncList>
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
        {groupedEvents(types.data!.events).map(([group, events]) => (
          <tbody key={group}>
            <tr>
              <th scope="colgroup" colSpan={2} class="group-row">
                {group}
              </th>
            </tr>
            {events.map(([type, , when]) => (
              <tr key={type}>
                <td>
                  <EventName type={type} />
                </td>
                <td>{when}</td>
              </tr>
            ))}
          </tbody>
        ))}
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
        ['webhooks', 'Webhooks', Webhooks, 'kyc'],
        ['entregas', 'Entregas', Deliveries, 'kyc'],
        ['eventos', 'Eventos', Events, 'kyc'],
        ['atividades', 'Registro de atividades', () => <AuditLog />],
      ]}
      footer={
        <p class="muted">
          Documentação da API: <a href="/docs">/docs</a>
        </p>
      }
    />
  );
}
