import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { auditEvents, emails, stores, type DocumentLanguage, type MemberRole } from '@/db/schema';
import { newBalanceTransactionId, recordAdjustment } from '@/server/balance/ledger';
import { changePayoutSchedule } from '@/server/balance/service';
import { saveBankAccount, type BankAccountInput } from '@/server/bank-accounts/service';
import { scopeClock } from '@/server/dashboard/service';
import { randomBase62 } from '@/server/ids';
import type { Scope } from '@/server/kit/scope';
import { inviteUser } from '@/server/users/service';
import { actingAs, person } from '../support/dashboard';
import { createStore } from '../support/factories';
import { listOf } from '../support/lists';
import type { TestApi } from '../support/server';

/** A store's bank account, payouts and member e-mails, driven as the dashboard and the API drive them. */

export const DAY = 86_400;
export const TEST_IBAN = 'DE89370400440532013000';

/**
 * A store with two owners, an admin and an owner whose invitation is pending, each with an
 * address of their own; payouts only when asked in both modes, so the clock moves freely.
 */
export async function storeWithTeam(api: TestApi, options: { name: string; language?: DocumentLanguage; taxCalculation?: boolean; subscriptions?: boolean }) {
  const store = await createStore(api.services, { name: options.name, taxCalculation: options.taxCalculation, subscriptions: options.subscriptions });
  if (options.language) await api.services.db.update(stores).set({ language: options.language }).where(eq(stores.id, store.id));
  const tag = randomBase62(6).toLowerCase();
  const member = async (role: MemberRole, name: string, accepted = true) => {
    const email = `${name}-${tag}@example.com`;
    await inviteUser({ db: api.services.db, clock: api.services.clock }, { storeId: store.id, email, role, accepted });
    return email;
  };
  const owners = [await member('owner', 'olive'), await member('owner', 'otto')];
  const admin = await member('admin', 'ada');
  const pendingOwner = await member('owner', 'pia', false);
  const team = { id: store.id, key: store.keys.sk_test, liveKey: store.keys.sk_live, owners, admin, pendingOwner };
  for (const livemode of [false, true]) await changePayoutSchedule(await actingOwner(api, team, livemode), { storeId: store.id, livemode }, 'manual');
  return team;
}

export type TeamStore = Awaited<ReturnType<typeof storeWithTeam>>;

export const scopeOf = (store: { id: string }, livemode: boolean): Scope => ({ storeId: store.id, livemode });

const settingsPath = (livemode: boolean) => `/dashboard${livemode ? '' : '/test'}/settings`;

/** The services as the dashboard hands them to the store's first owner acting in that mode. */
export function actingOwner(api: TestApi, store: { id: string; owners: string[] }, livemode: boolean) {
  return actingAs(api.services, scopeOf(store, livemode), person({ email: store.owners[0]!, ip: '203.0.113.9', path: settingsPath(livemode) }, 'owner'));
}

/** An owner's save of the bank account in that mode, as the Settings form does it. */
export async function saveAs(api: TestApi, store: TeamStore, livemode: boolean, input: BankAccountInput) {
  return saveBankAccount(await actingOwner(api, store, livemode), scopeOf(store, livemode), input);
}

/** Cents available at once in that mode (an operator's adjustment). */
export async function fund(api: TestApi, store: { id: string }, livemode: boolean, amount: number) {
  const scope = scopeOf(store, livemode);
  const now = (await scopeClock(api.services, scope)).now();
  await api.services.db.transaction((tx) => recordAdjustment(tx, scope, { id: newBalanceTransactionId(livemode), amount, reason: 'Funds for a payout', now }));
}

export const createPayout = (api: TestApi, key: string) => api.request('POST', '/api/v1/payouts', { key, body: {} });

export async function holdOf(api: TestApi, key: string) {
  const response = await api.request('GET', '/api/v1/balance', { key });
  expect(response.status).toBe(200);
  return response.body.payout_hold;
}

/** The test outbox of one template, newest first. */
export async function testEmails(api: TestApi, key: string, template: string) {
  const response = await listOf(api, '/api/v1/test_helpers/emails', key, `template=${template}&limit=100`);
  expect(response.status).toBe(200);
  return response.body.data;
}

/** Every e-mail row of the store (both modes), for what the test outbox does not list. */
export const emailRows = (api: TestApi, store: { id: string }) => api.services.db.select().from(emails).where(eq(emails.storeId, store.id));

export const auditOf = (api: TestApi, store: { id: string }, action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, action)))
    .orderBy(auditEvents.id);
