/**
 * What only the operator may change on a product (these fields are refused from merchants).
 * Operator scope: the product is found by id alone, whatever its store or environment.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { products } from '@/db/schema';
import type { Clock } from '../clock';
import { ApiError } from '../errors';
import type { Product } from './schemas';
import { productView } from './service';

interface OperatorDeps {
  db: Executor;
  clock: Clock;
}

/** Unlike the public answer, which must not depend on the id, the operator is told which id. */
const productMissing = (id: string) => new ApiError('resource_missing', `No product with id '${id}' in any store.`, { param: 'id' });

/** Marks the product as issuing a license key per paid order line. */
export async function attachLicense(deps: OperatorDeps, id: string): Promise<Product> {
  const [row] = await deps.db
    .update(products)
    .set({ hasLicense: true, updatedAt: deps.clock.now() })
    .where(eq(products.id, id))
    .returning();
  if (!row) throw productMissing(id);
  return productView(row);
}

/** Sets the delivery file. The url is kept for delivery only; productView never returns it. */
export async function attachFile(deps: OperatorDeps, id: string, url: string): Promise<Product> {
  const [row] = await deps.db
    .update(products)
    .set({ fileUrl: url, updatedAt: deps.clock.now() })
    .where(eq(products.id, id))
    .returning();
  if (!row) throw productMissing(id);
  return productView(row);
}
