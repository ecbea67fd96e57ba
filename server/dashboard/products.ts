/**
 * Products changed by a signed-in person: the API's services (so its validation and delete guards
 * apply), each change audited with the person in the change's transaction.
 */
import type { Services } from '../context';
import type { IdempotentRequest } from '../kit/idempotency';
import type { Scope } from '../kit/scope';
import type { CreateProductInput, DeletedProduct, Product, UpdateProductBody } from '../products/schemas';
import { createProduct, deleteProduct, updateProduct, type ProductDeps } from '../products/service';
import { auditedChange } from './audited';
import type { DashboardActor } from '../audit/service';
import { scopeClock } from './service';

async function productDeps(services: Services, scope: Scope): Promise<ProductDeps> {
  return { db: services.db, clock: await scopeClock(services, scope), wallClock: services.clock, maxProductsPerStore: services.config.maxProductsPerStore };
}

/** Creates once per form key: a double submit answers the first product. */
export async function createProductAs(services: Services, scope: Scope, actor: DashboardActor, input: CreateProductInput, idempotencyKey: string): Promise<Product> {
  const deps = await productDeps(services, scope);
  const idempotency: IdempotentRequest = { key: idempotencyKey, body: input, replayed: false };
  return auditedChange(services, scope, actor, {
    action: 'product.create',
    change: (db) => createProduct({ ...deps, db }, scope, input, idempotency),
    details: (product) => ({ product: product.id }),
    idempotency,
  });
}

export async function updateProductAs(services: Services, scope: Scope, actor: DashboardActor, id: string, input: UpdateProductBody): Promise<Product> {
  const deps = await productDeps(services, scope);
  return auditedChange(services, scope, actor, {
    action: 'product.update',
    change: (db) => updateProduct({ ...deps, db }, scope, id, input),
    details: () => ({ product: id, fields: Object.keys(input) }),
  });
}

/** `force` also revokes the product's license keys, as the API's `force=true` does. */
export async function deleteProductAs(services: Services, scope: Scope, actor: DashboardActor, id: string, options: { force: boolean }): Promise<DeletedProduct> {
  const deps = await productDeps(services, scope);
  return auditedChange(services, scope, actor, {
    action: 'product.delete',
    change: (db) => deleteProduct({ ...deps, db }, scope, id, options),
    details: () => ({ product: id, force: options.force }),
  });
}
