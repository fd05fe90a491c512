// The floor: a bare Fastify route doing ONE INSERT into floor_tx, a table shaped like transactions
// (CREATE TABLE ... (LIKE transactions INCLUDING DEFAULTS), no foreign keys, only the primary key
// and the (user_id, livemode, created_at, id) index; bench/run.ts creates it). Same process
// layout as the gateway: its own process, a pg Pool of 50. Prints PORT=<n> once it listens.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { shortCode, uuidv7 } from '../src/db/ids.ts';
import { preparedName } from '../src/db/index.ts';
import type { DB, Transaction } from '../src/db/types.ts';
import type { RequestKey } from '../src/http/idempotency.ts';
import { EventLog } from '../src/modules/events/service.ts';
import { creationStatement } from '../src/modules/transactions/creation.ts';
import { webhookFanout } from '../src/modules/webhooks/enqueue.ts';
import { buildBrCode, newTxid } from '../src/payments/pix.ts';
import { tuneRuntime } from '../src/runtime.ts';
import { countQueries, requireEnv, serveParent } from './child.ts';

tuneRuntime(); // the gateway's V8 settings, so that the two compare on the same runtime
countQueries();
// The gateway's event log, with the webhook fan-out deps.ts gives it.
const events = new EventLog([webhookFanout]);
const url = requireEnv('DATABASE_URL');
const schema = requireEnv('BENCH_SCHEMA');
// Its connections stay open between bursts (H): reopening them is not the cost of an INSERT.
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_SIZE ?? 50), idleTimeoutMillis: 0, options: `-c search_path=${schema}` });
pool.on('error', () => {});

const USER_ID = randomUUID();
const CLIENT_ID = randomUUID();
// A BR Code of the usual length, built once: the floor measures the database write, not the payload.
const QR = buildBrCode({ pixKey: 'pix@cofre.com.br', merchantName: 'COFRE PAGAMENTOS', merchantCity: 'SAO PAULO', amountCents: 1990, txid: newTxid() });

const INSERT = `INSERT INTO floor_tx (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status,
  payment_method, client_id, client_name, client_email, client_document, client_phone, installments, pix_txid, pix_qr_code,
  expires_at, metadata, tracking_params, provider, created_at, updated_at)
  VALUES ($1, $2, false, $3, $4, $5, $5, $6, 'PENDING', 'PIX', $7, $8, $9, $10, $11, 1, $12, $13, $14, $15, $16, 'sandbox', $17, $17)
  RETURNING id`;

interface Body {
  product?: string;
  amountCents?: number;
  clientName?: string;
  clientEmail?: string;
  clientDocument?: string;
  clientPhone?: string;
}

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.post('/floor', async (req, reply) => {
  const b = (req.body ?? {}) as Body;
  const now = new Date();
  const amount = Number.isInteger(b.amountCents) ? b.amountCents! : 1990;
  const { rows } = await pool.query(INSERT, [
    uuidv7(now.getTime()),
    USER_ID,
    shortCode(10),
    b.product ?? 'Pagamento',
    amount,
    Math.round((amount * 99) / 10000),
    CLIENT_ID,
    b.clientName ?? 'Cliente',
    b.clientEmail ?? 'cliente@example.com',
    b.clientDocument ?? '52998224725',
    b.clientPhone ?? null,
    newTxid(),
    QR,
    new Date(now.getTime() + 86400_000),
    '{}',
    '{}',
    now,
  ]);
  return reply.code(201).send({ id: rows[0].id });
});

// POST /floor-sql (optional scenario "floorsql"): the SQL that PIX creation sends, on the real
// tables, from raw pg with no validation, schemas or hooks: the one creation statement, which also
// stores the idempotency key with its response (built by the gateway's own code, so it cannot
// drift; compiling it is the only query building here). What is left between this and
// the gateway is the application's own cost. Named (prepared) statements, as the gateway sends them.
const named = (text: string, values: unknown[]) => pool.query({ name: preparedName(text), text, values });
const FLOOR_USER = process.env.FLOOR_USER_ID;
const compiler = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
app.post('/floor-sql', async (req, reply) => {
  if (!FLOOR_USER) return reply.code(500).send({ message: 'FLOOR_USER_ID not set' });
  const b = (req.body ?? {}) as Body;
  const key: RequestKey = {
    userId: FLOOR_USER,
    livemode: false,
    key: String(req.headers['idempotency-key'] ?? uuidv7()),
    fingerprint: 'f'.repeat(64),
    createdAt: new Date(),
    state: 'inline',
  };
  const now = key.createdAt;
  const amount = Number.isInteger(b.amountCents) ? b.amountCents! : 1990;
  const txid = newTxid();
  const row: Transaction = {
    id: uuidv7(now.getTime()),
    user_id: FLOOR_USER,
    livemode: false,
    display_id: shortCode(10),
    product: b.product ?? 'Pagamento',
    amount_cents: amount,
    charged_cents: amount,
    fee_cents: Math.round((amount * 99) / 10000),
    refunded_cents: 0,
    status: 'PENDING',
    payment_method: 'PIX',
    client_id: uuidv7(now.getTime()),
    client_name: b.clientName ?? 'Cliente',
    client_email: b.clientEmail ?? 'cliente@example.com',
    client_document: b.clientDocument ?? '52998224725',
    client_phone: b.clientPhone ?? null,
    installments: 1,
    installment_cents: null,
    card_brand: null,
    card_last4: null,
    pix_txid: txid,
    pix_qr_code: buildBrCode({ pixKey: 'pix@cofre.com.br', merchantName: 'COFRE PAGAMENTOS', merchantCity: 'SAO PAULO', amountCents: amount, txid }),
    boleto_barcode: null,
    boleto_line: null,
    boleto_ref: null,
    boleto_pix: null,
    paid_with: null,
    due_date: null,
    late_payment: null,
    expires_at: new Date(now.getTime() + 86400_000),
    payment_link_id: null,
    coupon_id: null,
    affiliate_link_id: null,
    discount_cents: 0,
    address: null,
    items: null,
    split: null,
    parent_transaction_id: null,
    metadata: {},
    tracking_params: {},
    postback_url: null,
    subscription_id: null,
    subscription_cycle_id: null,
    provider: 'sandbox',
    provider_ref: null,
    failure_reason: null,
    authorized_at: null,
    captured_at: null,
    cancelled_at: null,
    paid_at: null,
    failed_at: null,
    expired_at: null,
    refunded_at: null,
    created_at: now,
    updated_at: now,
  };
  const render = (tx: Transaction) => JSON.stringify({ message: 'Transaction created', transaction: tx });
  const statement = creationStatement(events, [{ draft: row, attach: { key, status: 201, render } }]);
  const q = statement.compile(compiler);
  const t = await named(q.sql, q.parameters as unknown[]);
  const [written] = statement.written(t.rows);
  if (!('attached' in written)) return reply.code(409).send({ message: 'Idempotency-Key taken' });
  return reply.code(201).type('application/json').send(written.attached);
});

await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : 0;
serveParent(port, async () => {
  await app.close();
  await pool.end();
});
