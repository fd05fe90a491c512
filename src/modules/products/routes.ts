import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { CreateProductBody, ListProductsQuery, ProductListResponse, ProductResponse, UpdateProductBody } from './schemas.ts';
import { createProduct, deleteProduct, getProduct, listProducts, productView, updateProduct } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of productRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface ProductRouteDeps {
  db: Db;
  reads: ReadRouter;
}

export default async function productRoutes(app: HttpApp, deps: ProductRouteDeps) {
  const { db, reads } = deps;
  const tags = ['Products'];

  app.post(
    '/api/v1/products',
    {
      config: { auth: { key: 'products:write' } },
      schema: { tags, operationId: 'createProduct', summary: 'Create a product', body: CreateProductBody, response: { 201: ProductResponse, ...errors(400, 401, 403) } },
    },
    async (req, reply) => reply.code(201).send({ message: 'Product created', product: productView(await createProduct(db, req.auth, req.body)) }),
  );

  app.get(
    '/api/v1/products',
    {
      config: { auth: { key: 'products:read' } },
      schema: { tags, operationId: 'listProducts', summary: 'List products (page style)', querystring: ListProductsQuery, response: { 200: ProductListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listProducts(await reads.for(req.auth), req.auth, req.query);
      return { message: 'OK', products: rows.map(productView), pagination };
    },
  );

  app.get(
    '/api/v1/products/:id',
    {
      config: { auth: { key: 'products:read' } },
      schema: { tags, operationId: 'getProduct', summary: 'Get a product', params: IdParams, response: { 200: ProductResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', product: productView(await getProduct(db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/api/v1/products/:id',
    {
      config: { auth: { key: 'products:write' } },
      schema: { tags, operationId: 'updateProduct', summary: 'Update a product', params: IdParams, body: UpdateProductBody, response: { 200: ProductResponse, ...errors(400, 401, 403, 404) } },
    },
    async (req) => ({ message: 'Product updated', product: productView(await updateProduct(db, req.auth, req.params.id, req.body)) }),
  );

  app.delete(
    '/api/v1/products/:id',
    {
      config: { auth: { key: 'products:write' } },
      schema: {
        tags,
        operationId: 'archiveProduct',
        summary: 'Archive a product',
        description: 'The product disappears from lists and lookups; transactions keep their own copy of what was sold.',
        params: IdParams,
        response: { 200: Message, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await deleteProduct(db, req.auth, req.params.id);
      return { message: 'Product deleted' };
    },
  );
}
