/**
 * What only the operator may change on a product (these fields are refused from merchants).
 * Operator scope: the product is found by id alone, whatever its store or environment.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { products, stores } from '@/db/schema';
import { storeClock, type Clock } from '../clock';
import { ApiError } from '../errors';
import type { Product } from './schemas';
import { productView } from './service';

interface OperatorDeps {
  db: Executor;
  clock: Clock;
}

/** Unlike the public answer, which must not depend on the id, the operator is told which id. */
const productMissing = (id: string) => new ApiError('resource_missing', `No product with id '${id}' in any store.`, { param: 'id' });

/**
 * Now on the clock of the product's store (its test clock in test mode): an operator's change is
 * stamped like the merchant's own, so `updated` never reads before `created`.
 */
async function productStoreNow(deps: OperatorDeps, id: string): Promise<Date> {
  const [row] = await deps.db
    .select({ livemode: products.livemode, testClockOffsetSeconds: stores.testClockOffsetSeconds })
    .from(products)
    .innerJoin(stores, eq(stores.id, products.storeId))
    .where(eq(products.id, id));
  if (!row) throw productMissing(id);
  return storeClock(deps.clock, row).now();
}

/** Marks the product as issuing a license key per paid order line. */
export async function attachLicense(deps: OperatorDeps, id: string): Promise<Product> {
  const [row] = await deps.db
    .update(products)
    .set({ hasLicense: true, updatedAt: await productStoreNow(deps, id) })
    .where(eq(products.id, id))
    .returning();
  if (!row) throw productMissing(id);
  return productView(row);
}

/** Sets the delivery file. The url is kept for delivery only; productView never returns it. */
export async function attachFile(deps: OperatorDeps, id: string, url: string): Promise<Product> {
  const [row] = await deps.db
    .update(products)
    .set({ fileUrl: url, updatedAt: await productStoreNow(deps, id) })
    .where(eq(products.id, id))
    .returning();
  if (!row) throw productMissing(id);
  return productView(row);
}
