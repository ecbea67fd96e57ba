import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { lockUntilCommit, type Database } from '@/db/client';
import { stores } from '@/db/schema';
import { ADMIN_TOKEN_FILE } from './admin/constants';
import { OPERATOR } from './audit/service';
import type { Clock } from './clock';
import type { Config } from './config';
import { randomBase62 } from './ids';
import { attachLicense } from './products/operator-service';
import { createProduct } from './products/service';
import { createStore, type StoreKeys, type StoreView } from './stores/service';
import { acceptLinkUrl, inviteUser } from './users/service';

const AUTH_SECRET_FILE = 'auth-secret';

export interface Secrets {
  adminToken: string;
  authSecret: string;
}

/**
 * Reads a secret kept in the data dir, or creates it. The new value is written to a private
 * temporary file and published with link(), which fails when the name exists: of two instances
 * starting at once exactly one creates the file, and no reader ever sees it half written.
 */
async function readOrCreateSecret(dataDir: string, name: string, generate: () => string): Promise<string> {
  const file = path.join(dataDir, name);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBase62(8)}.tmp`;
  await writeFile(temporary, `${generate()}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
  return (await readFile(file, 'utf8')).trim();
}

/** The operator token and the session/link signing secret: from the env, else generated once. */
export async function ensureSecrets(config: Pick<Config, 'dataDir' | 'adminToken'>, env: Record<string, string | undefined> = process.env): Promise<Secrets> {
  const adminToken = config.adminToken ?? (await readOrCreateSecret(config.dataDir, ADMIN_TOKEN_FILE, () => `adm_${randomBase62(40)}`));
  const authSecret = env.AUTH_SECRET || (await readOrCreateSecret(config.dataDir, AUTH_SECRET_FILE, () => randomBytes(32).toString('base64url')));
  return { adminToken, authSecret };
}

const DEMO_STORE_NAME = 'Demo Store';
/** The demo store's owner, who signs in to the dashboard after following the printed link. */
export const DEMO_OWNER_EMAIL = 'owner@example.com';

export type DemoStore = StoreView & { keys: StoreKeys; ownerLinkToken: string };

const DEMO_PRODUCTS = [
  { name: 'Demo ebook', description: 'A downloadable book; each purchase issues a license key.', amount: 1999, license: true },
  { name: 'Demo video course', description: 'Six hours of video lessons.', amount: 4900, license: false },
  { name: 'Demo monthly membership', description: 'Billed every month.', amount: 999, mode: 'recurring', interval: 'month', license: false },
] as const;

/**
 * On an empty database: the demo store with a few test-mode products and its owner. Returns its
 * keys and the owner's password link, which exist nowhere else (only hashes are stored), or
 * undefined when the database already has stores.
 * The transaction-scoped advisory lock makes a second instance starting at the same moment wait
 * and then find the store, so exactly one demo store is ever created.
 */
export async function bootstrapDemoStore(deps: { db: Database; clock: Clock; maxProductsPerStore: number }): Promise<DemoStore | undefined> {
  return deps.db.transaction(async (tx) => {
    await lockUntilCommit(tx, 'payments-service:bootstrap');
    const [existing] = await tx.select({ id: stores.id }).from(stores).limit(1);
    if (existing) return undefined;
    // Tax and subscriptions on, as the README's examples use them (subscriptions still need the
    // platform switch SUBSCRIPTIONS_ENABLED=true).
    const store = await createStore(tx, { name: DEMO_STORE_NAME, taxCalculation: true, subscriptions: true });
    const subject = { storeId: store.id, livemode: false };
    for (const { license, ...product } of DEMO_PRODUCTS) {
      const created = await createProduct({ db: tx, clock: deps.clock, wallClock: deps.clock, maxProductsPerStore: deps.maxProductsPerStore, actor: OPERATOR }, subject, product);
      if (license) await attachLicense({ db: tx, clock: deps.clock }, created.id);
    }
    const owner = await inviteUser({ db: tx, clock: deps.clock }, { storeId: store.id, email: DEMO_OWNER_EMAIL, role: 'owner', accepted: true });
    return { ...store, ownerLinkToken: owner.token };
  });
}

const DEMO_KEYS_FILE = 'demo-store-test-keys.json';

export interface DemoStoreTestKeys {
  storeId: string;
  sk_test: string;
  pk_test: string;
}

/**
 * The demo merchant page (app/demo) plays the demo store's server, so it needs that store's
 * test-mode keys, which exist nowhere else. Only the test pair is kept (test mode moves no
 * money; the live keys never touch the disk), mode 0600 beside the admin token. Deleting the
 * file turns the demo page off.
 */
export async function saveDemoStoreTestKeys(dataDir: string, store: StoreView & { keys: StoreKeys }): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DEMO_KEYS_FILE);
  const temporary = `${file}.${process.pid}.${randomBase62(8)}.tmp`;
  const keys: DemoStoreTestKeys = { storeId: store.id, sk_test: store.keys.sk_test, pk_test: store.keys.pk_test };
  await writeFile(temporary, `${JSON.stringify(keys)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temporary, file);
}

/** The demo store's test keys, or undefined when this data dir did not create the demo store. */
export async function readDemoStoreTestKeys(dataDir: string): Promise<DemoStoreTestKeys | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, DEMO_KEYS_FILE), 'utf8')) as DemoStoreTestKeys;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The one place keys are ever printed: the demo store's, right after they were created. */
export function formatDemoStoreBanner(store: DemoStore, publicBaseUrl: string): string {
  const rule = '─'.repeat(72);
  return [
    rule,
    `Created "${store.name}" (${store.id}) with demo products. Its API keys, shown only this once:`,
    '',
    `  sk_test  ${store.keys.sk_test}`,
    `  pk_test  ${store.keys.pk_test}`,
    `  sk_live  ${store.keys.sk_live}`,
    `  pk_live  ${store.keys.pk_live}`,
    '',
    `Try: curl ${publicBaseUrl}/api/v1/products -H "Authorization: Bearer ${store.keys.sk_test}"`,
    '',
    `Dashboard: set the password of ${DEMO_OWNER_EMAIL} (link valid 24 hours, once): ${acceptLinkUrl(publicBaseUrl, store.ownerLinkToken)}`,
    rule,
  ].join('\n');
}
