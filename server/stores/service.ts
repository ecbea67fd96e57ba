import { asc, eq } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { apiKeys, stores } from '@/db/schema';
import { epochSeconds } from '../clock';
import { resourceMissing } from '../errors';
import { newPlatformId } from '../ids';
import { KEY_TYPES, newApiKey } from '../keys/service';

export interface StoreFlagsInput {
  suspended?: boolean;
  liveApi?: boolean;
  amountMode?: boolean;
  taxCalculation?: boolean;
  subscriptions?: boolean;
}

export interface StoreKeys {
  sk_test: string;
  pk_test: string;
  sk_live: string;
  pk_live: string;
}

export interface StoreView {
  id: string;
  name: string;
  flags: { suspended: boolean; live_api: boolean; amount_mode: boolean; tax_calculation: boolean; subscriptions: boolean };
  created: number;
}

type StoreRow = typeof stores.$inferSelect;

export function storeView(row: StoreRow): StoreView {
  return {
    id: row.id,
    name: row.name,
    flags: {
      suspended: row.suspended,
      live_api: row.liveApi,
      amount_mode: row.amountMode,
      tax_calculation: row.taxCalculation,
      subscriptions: row.subscriptions,
    },
    created: epochSeconds(row.createdAt),
  };
}

/** Every store, oldest first, without keys (only their hashes exist). */
export async function listStores(db: Database): Promise<StoreView[]> {
  return (await db.select().from(stores).orderBy(asc(stores.createdAt), asc(stores.id))).map(storeView);
}

/** Creates a store with its four keys. The keys are returned here once; only hashes are kept. */
export async function createStore(db: Database, input: { name: string } & StoreFlagsInput): Promise<StoreView & { keys: StoreKeys }> {
  const storeId = newPlatformId('acct');
  const made = KEY_TYPES.map(({ type: slot, kind, livemode }) => ({ slot, ...newApiKey(storeId, kind, livemode) }));
  const keys = Object.fromEntries(made.map(({ slot, key }) => [slot, key])) as unknown as StoreKeys;
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(stores)
      .values({ id: storeId, name: input.name, ...flagColumns(input) })
      .returning();
    await tx.insert(apiKeys).values(made.map(({ row: keyRow }) => keyRow));
    return created!;
  });
  return { ...storeView(row), keys };
}

function flagColumns(input: StoreFlagsInput): Partial<StoreRow> {
  const columns: Partial<StoreRow> = {};
  if (input.suspended !== undefined) columns.suspended = input.suspended;
  if (input.liveApi !== undefined) columns.liveApi = input.liveApi;
  if (input.amountMode !== undefined) columns.amountMode = input.amountMode;
  if (input.taxCalculation !== undefined) columns.taxCalculation = input.taxCalculation;
  if (input.subscriptions !== undefined) columns.subscriptions = input.subscriptions;
  return columns;
}

/** Locks a store's row for the caller's transaction (its keys change one roll at a time); false when there is no such store. */
export async function lockStore(tx: Executor, id: string): Promise<boolean> {
  const [row] = await tx.select({ id: stores.id }).from(stores).where(eq(stores.id, id)).for('update');
  return row !== undefined;
}

/** Switches store flags (operator only). Takes effect on the next request: auth reads them each time. */
export async function updateStore(db: Database, id: string, input: StoreFlagsInput & { name?: string }): Promise<StoreView> {
  const changes = { ...flagColumns(input), ...(input.name !== undefined ? { name: input.name } : {}), updatedAt: new Date() };
  const [row] = await db.update(stores).set(changes).where(eq(stores.id, id)).returning();
  if (!row) throw resourceMissing('store', id);
  return storeView(row);
}
