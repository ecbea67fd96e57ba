import { asc, eq } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { apiKeys, stores, type DocumentLanguage, type TaxMode } from '@/db/schema';
import { byActor, recordAudit, type Actor } from '../audit/service';
import { epochSeconds } from '../clock';
import { resourceMissing } from '../errors';
import { newPlatformId } from '../ids';
import { KEY_TYPES, newApiKey } from '../keys/service';

/** The operator's switches: the flags and the tax mode. */
export interface StoreFlagsInput {
  suspended?: boolean;
  liveApi?: boolean;
  amountMode?: boolean;
  taxCalculation?: boolean;
  subscriptions?: boolean;
  taxMode?: TaxMode;
}

export interface StoreKeys {
  sk_test: string;
  pk_test: string;
  sk_live: string;
  pk_live: string;
}

/** What a store shows customers on its hosted pages besides its name: its logo and its terms and privacy pages (absolute URLs), each null when unset. */
export interface StoreLinks {
  logoUrl: string | null;
  termsUrl: string | null;
  privacyUrl: string | null;
}

/** The store's links as a select's nested object (`storeLinks: storeLinkColumns`). */
export const storeLinkColumns = { logoUrl: stores.logoUrl, termsUrl: stores.termsUrl, privacyUrl: stores.privacyUrl };

export interface StoreView {
  id: string;
  name: string;
  flags: { suspended: boolean; live_api: boolean; amount_mode: boolean; tax_calculation: boolean; subscriptions: boolean };
  /** Whose VAT rate applies: the product's (`product_rate`) or the buyer's member state's (`buyer_country`). */
  tax_mode: TaxMode;
  logo_url: string | null;
  terms_url: string | null;
  privacy_url: string | null;
  /** What its members read from us: their e-mails and payout statements. */
  language: DocumentLanguage;
  /** The store's own fee rates, null where the environment's defaults apply (the operator's view resolves them). */
  feeRates: StoreFeeRates;
  created: number;
}

/** Hundredths of a percent and cents; null takes PLATFORM_FEE_PERCENT / PLATFORM_FEE_FIXED. */
export interface StoreFeeRates {
  basisPoints: number | null;
  fixed: number | null;
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
    tax_mode: row.taxMode,
    logo_url: row.logoUrl,
    terms_url: row.termsUrl,
    privacy_url: row.privacyUrl,
    language: row.language,
    feeRates: { basisPoints: row.feeBasisPoints, fixed: row.feeFixed },
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
  if (input.taxMode !== undefined) columns.taxMode = input.taxMode;
  return columns;
}

/** Locks a store's row for the caller's transaction (its keys change one roll at a time); false when there is no such store. */
export async function lockStore(tx: Executor, id: string): Promise<boolean> {
  const [row] = await tx.select({ id: stores.id }).from(stores).where(eq(stores.id, id)).for('update');
  return row !== undefined;
}

/** The columns of a store's links; null removes one. */
export type StoreLinkChanges = Partial<StoreLinks>;

export const MAX_STORE_NAME_LENGTH = 255;

/**
 * Renames the store, audited with the actor in the same transaction (no mode: the name is the
 * store's in both); false when the name is empty or too long once trimmed (nothing changed).
 */
export async function renameStore(db: Database, id: string, actor: Actor, rawName: string): Promise<boolean> {
  const name = rawName.trim();
  if (name === '' || name.length > MAX_STORE_NAME_LENGTH) return false;
  await db.transaction(async (tx) => {
    await updateStore(tx, id, { name });
    await recordAudit(tx, { action: 'store.rename', storeId: id, ...byActor(actor), details: { name } });
  });
  return true;
}

/** The language the store's members read its e-mails and payout statements in. */
export async function storeLanguage(db: Executor, id: string): Promise<DocumentLanguage> {
  const [row] = await db.select({ language: stores.language }).from(stores).where(eq(stores.id, id));
  if (!row) throw resourceMissing('store', id);
  return row.language;
}

/** Sets the store's language, audited with the actor in the same transaction (no mode: one language for both). */
export async function changeStoreLanguage(db: Database, id: string, actor: Actor, language: DocumentLanguage): Promise<void> {
  await db.transaction(async (tx) => {
    await updateStore(tx, id, { language });
    await recordAudit(tx, { action: 'store.language_update', storeId: id, ...byActor(actor), details: { language } });
  });
}

/**
 * Switches store flags or its tax mode, renames it, sets its links, its fee rates or its language (the operator,
 * or the name and language from the dashboard); fee rates apply to orders paid afterwards. Takes effect on the next request: auth and the hosted pages read them each time.
 * Links are checked by the caller (customerPageUrlProblem).
 */
export async function updateStore(
  db: Database,
  id: string,
  input: StoreFlagsInput & StoreLinkChanges & { name?: string; feeBasisPoints?: number; feeFixed?: number; language?: DocumentLanguage },
): Promise<StoreView> {
  const links: StoreLinkChanges = {};
  for (const key of ['logoUrl', 'termsUrl', 'privacyUrl'] as const) if (input[key] !== undefined) links[key] = input[key];
  const fees: Partial<StoreRow> = {};
  if (input.feeBasisPoints !== undefined) fees.feeBasisPoints = input.feeBasisPoints;
  if (input.feeFixed !== undefined) fees.feeFixed = input.feeFixed;
  const changes = {
    ...flagColumns(input),
    ...links,
    ...fees,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.language !== undefined ? { language: input.language } : {}),
    updatedAt: new Date(),
  };
  const [row] = await db.update(stores).set(changes).where(eq(stores.id, id)).returning();
  if (!row) throw resourceMissing('store', id);
  return storeView(row);
}
