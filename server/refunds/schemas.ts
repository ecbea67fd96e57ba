/** The public contract of refunds: full or partial, up to what remains of a paid order. */
import { z } from 'zod';
import { REFUND_STATUSES } from '@/db/schema';
import { strict } from '../http/json-schema';

export const createRefundInput = z.strictObject({
  order_id: z.string().min(1).describe('The paid order to refund, `ord_…`.'),
  amount: strict(z.number().int().min(1))
    .optional()
    .describe('Cents to refund, at least 1 and at most what remains of the order; the whole remainder when omitted.'),
});
export type CreateRefundInput = z.infer<typeof createRefundInput>;

export const refundSchema = z
  .object({
    id: z.string(),
    object: z.literal('refund'),
    livemode: z.boolean(),
    order_id: z.string(),
    amount: z.number().int().describe('Cents.'),
    currency: z.literal('eur'),
    status: z.enum(REFUND_STATUSES).describe('`failed` refunds moved no money and do not count towards `amount_refunded`.'),
    created: z.number().int(),
  })
  .meta({ id: 'Refund' });
export type Refund = z.infer<typeof refundSchema>;
