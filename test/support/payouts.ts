import { payouts, payoutSettlements } from '@/db/schema';
import { newBalanceTransactionId, recordAdjustment, recordPayoutEntry } from '@/server/balance/ledger';
import type { Services } from '@/server/context';
import { newId } from '@/server/ids';

/**
 * A pending payout written as a payout's creation writes it, for tests that need several at
 * chosen times and accounts without a week's hold for each (test/payouts/live.test.ts makes one
 * the real way): the balance it pays out (an adjustment it settles), the payout and its `payout`
 * entry, in one transaction, so ledger:verify holds.
 */
export async function seedPendingPayout(services: Pick<Services, 'db'>, payout: { storeId: string; livemode: boolean; amount: number; createdAt: Date; iban?: string; accountHolder?: string }) {
  const { storeId, livemode, amount, createdAt } = payout;
  const iban = payout.iban ?? 'DE89370400440532013000';
  const row = { id: newId('po', livemode), storeId, livemode, amount };
  await services.db.transaction(async (tx) => {
    const settled = await recordAdjustment(tx, { storeId, livemode }, { id: newBalanceTransactionId(livemode), amount, reason: 'Sales to pay out', now: createdAt });
    await tx.insert(payouts).values({ ...row, status: 'pending', iban, accountHolder: payout.accountHolder ?? 'Account holder', createdAt });
    await tx.insert(payoutSettlements).values({ balanceTransactionId: settled.id, payoutId: row.id });
    await recordPayoutEntry(tx, row, 'payout', createdAt);
  });
  return row;
}
