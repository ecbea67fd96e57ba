/** The withdrawal parts of the order object: the waiver given at checkout, and a withdrawal declared later. */
import { z } from 'zod';
import { WITHDRAWAL_STATUSES } from '@/db/schema';
import { EXAMPLE } from '../../kit/examples';
import { CURRENT_WAIVER_VERSION } from './waiver';

export const withdrawalWaiverSchema = z
  .object({
    accepted_at: z.number().int().describe('When the customer ticked both waiver checkboxes and paid, on the store’s clock.'),
    text_version: z.string().describe('Which wording of the two checkboxes the customer agreed to, so it can be reproduced.'),
  })
  .meta({
    id: 'WithdrawalWaiver',
    examples: [{ accepted_at: EXAMPLE.created + 9, text_version: CURRENT_WAIVER_VERSION }],
    description: 'The customer’s waiver of the right of withdrawal for a digital product; null when not given.',
  });
export type WithdrawalWaiver = z.infer<typeof withdrawalWaiverSchema>;

export const withdrawalSchema = z
  .object({
    status: z.enum(WITHDRAWAL_STATUSES).describe('`refunded` once the order is refunded in full.'),
    requested_at: z.number().int().describe('When the customer declared the withdrawal, on the store’s clock.'),
    refund_due_by: z.number().int().describe('14 days after `requested_at`: the payment must be refunded by then.'),
    reason: z.string().nullable().describe('The reason the customer gave, if any.'),
  })
  .meta({
    id: 'Withdrawal',
    examples: [{ status: 'requested', requested_at: EXAMPLE.created + 86_400, refund_due_by: EXAMPLE.created + 15 * 86_400, reason: 'Bought the wrong edition.' }],
    description: 'A withdrawal from the contract declared by the customer on /withdraw; null when none.',
  });
export type Withdrawal = z.infer<typeof withdrawalSchema>;
