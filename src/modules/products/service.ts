// Product catalogue. DELETE archives (soft delete): see docs/decisions.md.
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { inTx, type Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Product } from '../../db/types.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { requiredText, sanitizeOptional } from '../../http/sanitize.ts';
import { likePattern, owned, ownedUpdate, type Scope } from '../../http/scope.ts';
import type { CreateProductBody, ListProductsQuery, UpdateProductBody } from './schemas.ts';

export function productView(p: Product) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    price: p.price_cents,
    currency: p.currency,
    stockQuantity: p.stock_quantity,
    stockEnabled: p.stock_enabled,
    isDigital: p.is_digital,
    imageUrl: p.image_url,
    sku: p.sku,
    status: p.status,
    createdAt: p.created_at,
    updatedAt: p.updated_at,
  };
}

function checkStock(state: { stock_enabled: boolean; stock_quantity: number | null; is_digital: boolean }) {
  if (state.stock_enabled && state.is_digital) {
    throw badRequest('VALIDATION_ERROR', 'Validation failed', [{ field: 'stockEnabled', message: 'digital products keep no stock' }]);
  }
  if (state.stock_enabled && state.stock_quantity == null) {
    throw badRequest('VALIDATION_ERROR', 'Validation failed', [{ field: 'stockQuantity', message: 'is required when stockEnabled is true' }]);
  }
}

export async function createProduct(db: Executor, scope: Scope, input: Static<typeof CreateProductBody>): Promise<Product> {
  const row = {
    stock_enabled: input.stockEnabled ?? false,
    stock_quantity: input.stockQuantity ?? null,
    is_digital: input.isDigital ?? false,
  };
  checkStock(row);
  const now = new Date();
  return skuTaken(() =>
    db
      .insertInto('products')
      .values({
        id: uuidv7(),
        user_id: scope.userId,
        livemode: scope.livemode,
        name: requiredText(input.name, 'name'),
        description: sanitizeOptional(input.description) ?? null,
        price_cents: input.price,
        currency: 'BRL',
        ...row,
        image_url: input.imageUrl ?? null,
        sku: input.sku ?? null,
        status: input.status ?? 'ACTIVE',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

/** The write, with a SKU used by another product of the environment answered as 400 SKU_ALREADY_EXISTS. */
async function skuTaken<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'products_user_sku') {
      throw badRequest('SKU_ALREADY_EXISTS', 'A product with this SKU already exists', [{ field: 'sku', message: 'is used by another product of this environment' }]);
    }
    throw err;
  }
}

export async function getProduct(db: Executor, scope: Scope, id: string): Promise<Product> {
  const p = await owned(db, 'products', scope)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!p) throw notFound('Product');
  return p;
}

export async function updateProduct(db: Executor, scope: Scope, id: string, input: Static<typeof UpdateProductBody>): Promise<Product> {
  // A SKU clash fails the statement, which aborts the database transaction: answered outside it.
  return skuTaken(() =>
    inTx(db, async (trx) => {
      const current = await owned(trx, 'products', scope)
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!current) throw notFound('Product');
      const next = {
        stock_enabled: input.stockEnabled ?? current.stock_enabled,
        stock_quantity: input.stockQuantity !== undefined ? input.stockQuantity : current.stock_quantity,
        is_digital: input.isDigital ?? current.is_digital,
      };
      checkStock(next);
      return ownedUpdate(trx, 'products', scope, id)
        .set({
          ...(input.name !== undefined && { name: requiredText(input.name, 'name') }),
          ...(input.description !== undefined && { description: sanitizeOptional(input.description) ?? null }),
          ...(input.price !== undefined && { price_cents: input.price }),
          ...(input.imageUrl !== undefined && { image_url: input.imageUrl }),
          ...(input.sku !== undefined && { sku: input.sku }),
          ...(input.status !== undefined && { status: input.status }),
          ...next,
          updated_at: new Date(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    }),
  );
}

export async function deleteProduct(db: Executor, scope: Scope, id: string): Promise<void> {
  const res = await ownedUpdate(db, 'products', scope, id)
    .set({ deleted_at: new Date(), status: 'INACTIVE', updated_at: new Date() })
    .executeTakeFirst();
  if (!res.numUpdatedRows) throw notFound('Product');
}

export async function listProducts(db: Executor, scope: Scope, q: Static<typeof ListProductsQuery>) {
  let base = owned(db, 'products', scope);
  if (q.status) base = base.where('status', '=', q.status);
  if (q.sku) base = base.where(sql`lower(sku)`, '=', q.sku.toLowerCase());
  if (q.search) {
    const pattern = likePattern(q.search);
    base = base.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('description', 'ilike', pattern)]));
  }
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { rows, pagination: pageInfo(q.page, q.limit, Number(total)) };
}
