// The floor: a bare Fastify route doing ONE INSERT into floor_tx, a table shaped like transactions
// (CREATE TABLE ... (LIKE transactions INCLUDING DEFAULTS), no foreign keys, only the primary key
// and the (user_id, livemode, created_at, id) index; bench/run.ts creates it). Same process
// layout as the gateway: its own process, a pg Pool of 50. Prints PORT=<n> once it listens.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { shortCode, uuidv7 } from '../src/db/ids.ts';
import { buildBrCode, newTxid } from '../src/payments/pix.ts';
import { countQueries, requireEnv, serveParent } from './child.ts';

countQueries();
const url = requireEnv('DATABASE_URL');
const schema = requireEnv('BENCH_SCHEMA');
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_SIZE ?? 50), options: `-c search_path=${schema}` });
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

// POST /floor-sql (optional scenario "floorsql"): the SQL that PIX creation sends, statement for
// statement, on the real tables, from raw pg with no query builder, validation or schemas. What is
// left between this and the gateway is the application's own cost.
const FLOOR_USER = process.env.FLOOR_USER_ID;
const TTL_MS = 24 * 3600_000;
app.post('/floor-sql', async (req, reply) => {
  if (!FLOOR_USER) return reply.code(500).send({ message: 'FLOOR_USER_ID not set' });
  const b = (req.body ?? {}) as Body;
  const key = String(req.headers['idempotency-key'] ?? uuidv7());
  const now = new Date();
  const claimed = await pool.query(
    `INSERT INTO idempotency_keys (user_id, livemode, key, fingerprint, created_at, expires_at) VALUES ($1, false, $2, $3, $4, $5)
     ON CONFLICT (user_id, livemode, key) DO UPDATE SET fingerprint = excluded.fingerprint, response_status = NULL, response_body = NULL,
       created_at = excluded.created_at, expires_at = excluded.expires_at WHERE idempotency_keys.expires_at < $4 RETURNING key`,
    [FLOOR_USER, key, 'f'.repeat(64), now, new Date(now.getTime() + TTL_MS)],
  );
  if (!claimed.rows.length) return reply.code(409).send({ message: 'in progress' });
  const client = await pool.connect();
  let tx: Record<string, unknown>;
  try {
    await client.query('BEGIN');
    const c = await client.query(
      `INSERT INTO clients (id, user_id, livemode, name, email, document, phone, created_at, updated_at) VALUES ($1, $2, false, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (user_id, livemode, document) WHERE deleted_at IS NULL
       DO UPDATE SET name = excluded.name, email = excluded.email, phone = coalesce(excluded.phone, clients.phone), updated_at = $7 RETURNING *`,
      [uuidv7(), FLOOR_USER, b.clientName ?? 'Cliente', b.clientEmail ?? 'cliente@example.com', b.clientDocument ?? '52998224725', b.clientPhone ?? null, now],
    );
    const amount = Number.isInteger(b.amountCents) ? b.amountCents! : 1990;
    const txid = newTxid();
    const code = buildBrCode({ pixKey: 'pix@cofre.com.br', merchantName: 'COFRE PAGAMENTOS', merchantCity: 'SAO PAULO', amountCents: amount, txid });
    const t = await client.query(
      `INSERT INTO transactions (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status,
         payment_method, client_id, client_name, client_email, client_document, client_phone, installments, pix_txid, pix_qr_code,
         expires_at, metadata, tracking_params, provider, created_at, updated_at)
       VALUES ($1, $2, false, $3, $4, $5, $5, $6, 'PENDING', 'PIX', $7, $8, $9, $10, $11, 1, $12, $13, $14, '{}', '{}', 'sandbox', $15, $15)
       ON CONFLICT (user_id, display_id) DO NOTHING RETURNING *`,
      [uuidv7(now.getTime()), FLOOR_USER, shortCode(10), b.product ?? 'Pagamento', amount, Math.round((amount * 99) / 10000), c.rows[0].id,
        c.rows[0].name, c.rows[0].email, c.rows[0].document, c.rows[0].phone, txid, code, new Date(now.getTime() + 86400_000), now],
    );
    tx = t.rows[0];
    await client.query(`INSERT INTO events (id, user_id, livemode, type, data, created_at) VALUES ($1, $2, false, 'transaction.created', $3, $4)`, [
      uuidv7(),
      FLOOR_USER,
      JSON.stringify(tx),
      now,
    ]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const body = JSON.stringify({ message: 'Transaction created', transaction: tx });
  await pool.query(`UPDATE idempotency_keys SET response_status = 201, response_body = $4 WHERE user_id = $1 AND livemode = $2 AND key = $3`, [
    FLOOR_USER,
    false,
    key,
    body,
  ]);
  return reply.code(201).type('application/json').send(body);
});

await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : 0;
serveParent(port, async () => {
  await app.close();
  await pool.end();
});
