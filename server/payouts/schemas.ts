/**
 * The public contract of payouts: a transfer of the available balance to the store's bank
 * account, and the queries that list them. Explicit allowlists, as every object of the API.
 */
import { z } from 'zod';
import { PAYOUT_FAILURE_REASONS, PAYOUT_STATUSES } from '@/db/schema';
import { EXAMPLE } from '../kit/examples';
import { createdRangeFields, listSchema, pageFields } from '../kit/list';

/** The example store's test payout of the balance its examples leave available. */
const payoutExample = {
  id: EXAMPLE.payoutId,
  object: 'payout',
  amount: 1519,
  currency: 'eur',
  status: 'paid',
  failure_reason: null,
  arrival_date: EXAMPLE.created + 8 * 86_400,
  destination: { iban_last4: '3000', account_holder: 'Example Store' },
  created: EXAMPLE.created + 8 * 86_400,
  livemode: false,
};

export const payoutSchema = z
  .object({
    id: z.string(),
    object: z.literal('payout'),
    amount: z.number().int().describe('Cents paid out: the sum of the entries it settled.'),
    currency: z.literal('eur'),
    status: z.enum(PAYOUT_STATUSES).describe('`pending` → `in_transit` → `paid`; `failed` (from `in_transit` or `paid`); `canceled` (from `pending`).'),
    failure_reason: z.enum(PAYOUT_FAILURE_REASONS).nullable().describe('Why the bank returned it; null unless `failed`.'),
    arrival_date: z.number().int().nullable().describe('Null until sent; then the execution date plus one weekday, 00:00 UTC (epoch seconds). In test mode, `created`.'),
    destination: z.object({ iban_last4: z.string(), account_holder: z.string() }).describe('The bank account it is paid to, as it was when the payout was made.'),
    created: z.number().int().describe('When it was made, on the store’s clock.'),
    livemode: z.boolean(),
  })
  .meta({ id: 'Payout', examples: [payoutExample] });
export type Payout = z.infer<typeof payoutSchema>;

/** POST /payouts takes no parameters: a payout always pays out the whole available balance. */
export const createPayoutInput = z.strictObject({}).meta({ examples: [{}] });

export const retrievePayoutInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('The payout id, `po_…`.')
    .meta({ examples: [EXAMPLE.payoutId] }),
});

/** The list query; unknown parameters are refused. */
export const listPayoutsInput = z.strictObject({
  ...pageFields,
  status: z.enum(PAYOUT_STATUSES).optional().describe('Only payouts in this status.'),
  ...createdRangeFields,
});
export type ListPayoutsQuery = z.infer<typeof listPayoutsInput>;

export const payoutListSchema = listSchema(payoutSchema, '/api/v1/payouts', 'PayoutList');
export type PayoutList = z.infer<typeof payoutListSchema>;

/** GET /payouts/{id}/balance_transactions: the entries it settled, a page at a time. */
export const listPayoutBalanceTransactionsInput = z.strictObject({
  ...retrievePayoutInput.shape,
  ...pageFields,
});
