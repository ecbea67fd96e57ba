/**
 * The public contract of the merchant's money: the balance and the ledger entries it sums.
 * Amounts in signed cents from the store's side. Explicit allowlists, as every object of the API.
 */
import { z } from 'zod';
import { BALANCE_SOURCE_TYPES, BALANCE_TRANSACTION_TYPES, PAYOUT_SCHEDULES } from '@/db/schema';
import { EXAMPLE } from '../kit/examples';
import { createdRangeFields, idFilter, listSchema, MAX_EPOCH_SECONDS, pageFields } from '../kit/list';

/** Why no payout is made, the first that applies. */
export const PAYOUT_HOLD_REASONS = ['account_suspended', 'destination_missing', 'payout_failed', 'destination_changed'] as const;

export const BALANCE_TRANSACTION_STATUSES = ['pending', 'available'] as const;

const balanceExample = {
  object: 'balance',
  available: 1519,
  pending: 1624,
  currency: 'eur',
  livemode: false,
  payout_schedule: 'weekly',
  next_payout_at: 1795996800,
  payout_hold: null,
};

export const balanceSchema = z
  .object({
    object: z.literal('balance'),
    available: z.number().int().describe('Cents that can be paid out now: the entries available by now. May be negative, and is then carried forward.'),
    pending: z.number().int().describe('Cents of entries not available yet (payments within their hold).'),
    currency: z.literal('eur'),
    livemode: z.boolean(),
    payout_schedule: z.enum(PAYOUT_SCHEDULES).describe('`weekly`: Mondays, 00:00 UTC; `monthly`: the 1st, 00:00 UTC; `manual`: only when asked.'),
    next_payout_at: z.number().int().nullable().describe('The next schedule date (epoch seconds, on the store’s clock); null for `manual`.'),
    payout_hold: z
      .object({
        reason: z.enum(PAYOUT_HOLD_REASONS),
        until: z.number().int().nullable().describe('When the hold ends by itself (epoch seconds); null until its cause is removed.'),
      })
      .nullable()
      .describe('Why no payout is made now; null when none applies.'),
  })
  .meta({ id: 'Balance', examples: [balanceExample] });
export type Balance = z.infer<typeof balanceSchema>;

/** The fee of the order of the examples: 5% of 23.79 EUR, rounded half up, plus 0.50 EUR. */
const balanceTransactionExample = {
  id: EXAMPLE.balanceTransactionId,
  object: 'balance_transaction',
  type: 'fee',
  amount: -169,
  currency: 'eur',
  source: { type: 'order', id: EXAMPLE.orderId },
  description: `Fee 5% + 0.50 EUR on ${EXAMPLE.invoiceNumber}`,
  created: EXAMPLE.created + 9,
  available_on: EXAMPLE.created + 9 + 7 * 86_400,
  status: 'pending',
  payout_id: null,
  livemode: false,
};

export const balanceTransactionSchema = z
  .object({
    id: z.string(),
    object: z.literal('balance_transaction'),
    type: z.enum(BALANCE_TRANSACTION_TYPES),
    amount: z.number().int().describe('Signed cents from the store’s side: a payment is positive, its VAT and fee negative.'),
    currency: z.literal('eur'),
    source: z
      .object({ type: z.enum(BALANCE_SOURCE_TYPES), id: z.string() })
      .nullable()
      .describe('The object the entry comes from; null for an operator’s adjustment.'),
    description: z.string(),
    created: z.number().int().describe('When its cause was recorded, on the store’s clock.'),
    available_on: z.number().int().describe('From then on it can be paid out: a payment’s entries after the payout hold, every other entry at once.'),
    status: z.enum(BALANCE_TRANSACTION_STATUSES).describe('`available` once the store’s clock (the test clock in test mode) reaches `available_on`.'),
    payout_id: z.string().nullable().describe('The payout that settled the entry; null until one does.'),
    livemode: z.boolean(),
  })
  .meta({ id: 'BalanceTransaction', examples: [balanceTransactionExample] });
export type BalanceTransaction = z.infer<typeof balanceTransactionSchema>;

export const retrieveBalanceTransactionInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('The balance transaction id, `btx_…`.')
    .meta({ examples: [EXAMPLE.balanceTransactionId] }),
});

/** The list query. Unknown parameters are refused so a mistyped filter never reads as "no filter". */
export const listBalanceTransactionsInput = z.strictObject({
  ...pageFields,
  type: z.enum(BALANCE_TRANSACTION_TYPES).optional().describe('Only entries of this type.'),
  payout_id: idFilter('po', 'Only the entries this payout settled, `po_…`.'),
  source_id: z
    .string()
    .regex(/^(ord|re|dp|po)_(test|live)_[0-9A-Za-z]{1,64}$/, 'must be the id of an order, refund, dispute or payout')
    .optional()
    .describe('Only the entries of this order, refund, dispute or payout.'),
  ...createdRangeFields,
  available_on_gte: z.number().int().min(0).max(MAX_EPOCH_SECONDS).optional().describe('Only entries available at or after this time (epoch seconds).'),
  available_on_lte: z.number().int().min(0).max(MAX_EPOCH_SECONDS).optional().describe('Only entries available at or before this time (epoch seconds).'),
});
export type ListBalanceTransactionsQuery = z.infer<typeof listBalanceTransactionsInput>;

/** The list's filters without the page fields: what an export of every matching entry takes. */
export const balanceTransactionListFilters = listBalanceTransactionsInput.omit({ limit: true, starting_after: true });
export type BalanceTransactionListFilters = z.infer<typeof balanceTransactionListFilters>;

export const balanceTransactionListSchema = listSchema(balanceTransactionSchema, '/api/v1/balance_transactions', 'BalanceTransactionList');
export type BalanceTransactionList = z.infer<typeof balanceTransactionListSchema>;

export const retrieveBalanceInput = z.strictObject({});
