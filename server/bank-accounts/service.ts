/**
 * A store's bank account in each environment: where its payouts go. Only an owner saves it, in the
 * dashboard; no API key reads or sets it. A save that changes the IBAN or the holder (the first
 * save included) holds payouts for 7 days, and every save ends the hold of a failed payout. Every
 * save is audited and e-mailed to every owner, so one taken-over session cannot send the money
 * elsewhere unseen. Test mode pays to the test IBAN in the store's name until one is saved.
 */
import { eq } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { bankAccounts, stores } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { epochSeconds, type Clock } from '../clock';
import { ApiError } from '../errors';
import { checkedIban, ibanLast4 } from '../kit/iban';
import { ownedBy, type Scope } from '../kit/scope';
import { enqueueMemberEmails } from '../mail/members';

/** Test mode's bank account until one is saved. */
export const TEST_MODE_IBAN = 'DE89370400440532013000';
export const MAX_ACCOUNT_HOLDER_LENGTH = 70;
/** How long payouts wait after a save that changed the IBAN or the holder. */
export const DESTINATION_CHANGE_HOLD_MS = 7 * 86_400_000;

export type BankAccountRow = typeof bankAccounts.$inferSelect;

/** The scope's saved bank account; undefined until one is saved. */
export async function savedBankAccount(db: Executor, scope: Scope): Promise<BankAccountRow | undefined> {
  const [row] = await db.select().from(bankAccounts).where(ownedBy(bankAccounts, scope));
  return row;
}

export interface PayoutDestination {
  iban: string;
  accountHolder: string;
}

/** Where the scope's payouts go now; undefined in live mode until a bank account is saved. */
export async function payoutDestination(db: Executor, scope: Scope, storeName: string): Promise<PayoutDestination | undefined> {
  const saved = await savedBankAccount(db, scope);
  if (saved) return { iban: saved.iban, accountHolder: saved.accountHolder };
  return scope.livemode ? undefined : { iban: TEST_MODE_IBAN, accountHolder: storeName };
}

export interface BankAccountInput {
  iban: string;
  accountHolder: string;
}

export interface BankAccountDeps {
  db: Database;
  /** The store's clock (its test clock in test mode): the save's time. */
  clock: Clock;
  /** Real time: when the owners' e-mails fall due. */
  wallClock: Clock;
  actor: Actor;
}

/**
 * Saves the scope's bank account: the IBAN normalised and checked (400 naming `iban`), the holder
 * trimmed to 1–70 characters (400 naming `account_holder`). One transaction writes the row, its
 * audit entry (the IBAN's last four only) and an e-mail to each owner in the store's language.
 */
export async function saveBankAccount(deps: BankAccountDeps, scope: Scope, input: BankAccountInput): Promise<PayoutDestination> {
  const iban = checkedIban(input.iban);
  const accountHolder = input.accountHolder.trim();
  if (accountHolder.length < 1 || accountHolder.length > MAX_ACCOUNT_HOLDER_LENGTH) {
    throw new ApiError('parameter_invalid', `The account holder must have 1 to ${MAX_ACCOUNT_HOLDER_LENGTH} characters.`, { param: 'account_holder' });
  }
  return deps.db.transaction(async (tx) => {
    // The store's row as a payout locks it: saves follow one another, and a payout reads the account it holds for.
    await tx.select({ id: stores.id }).from(stores).where(eq(stores.id, scope.storeId)).for('no key update');
    const before = await savedBankAccount(tx, scope);
    const now = deps.clock.now();
    const ibanChanged = before?.iban !== iban;
    const holderChanged = before?.accountHolder !== accountHolder;
    const changed = ibanChanged || holderChanged;
    const changedAt = before && !changed ? before.changedAt : now;
    await tx
      .insert(bankAccounts)
      .values({ storeId: scope.storeId, livemode: scope.livemode, iban, accountHolder, changedAt, savedAt: now })
      .onConflictDoUpdate({ target: [bankAccounts.storeId, bankAccounts.livemode], set: { iban, accountHolder, changedAt, savedAt: now } });
    const last4 = ibanLast4(iban);
    await recordAudit(tx, actorAudit(scope, deps.actor, 'bank_account.update', { livemode: scope.livemode, iban_last4: last4, changed }));
    const resumeAt = Math.max(changedAt.getTime() + DESTINATION_CHANGE_HOLD_MS, now.getTime());
    await enqueueMemberEmails(
      tx,
      scope,
      ['owner'],
      {
        content: {
          template: 'bank_account_changed',
          data: { ibanLast4: last4, accountHolder, ibanChanged, holderChanged, savedAt: epochSeconds(now), payoutsResumeAt: epochSeconds(new Date(resumeAt)) },
        },
        related: {},
      },
      { now, wallNow: deps.wallClock.now() },
    );
    return { iban, accountHolder };
  });
}
