/** The refund object: an order's `refunds`, and what the refunds API answers. */
import { z } from 'zod';
import { REFUND_STATUSES } from '@/db/schema';
import { EXAMPLE } from '../../kit/examples';

export const refundExample = {
  id: EXAMPLE.refundId,
  object: 'refund',
  livemode: false,
  order_id: EXAMPLE.orderId,
  amount: 500,
  currency: 'eur',
  status: 'succeeded',
  credit_note_id: EXAMPLE.creditNoteId,
  created: EXAMPLE.created + 9,
};

export const refundSchema = z
  .object({
    id: z.string(),
    object: z.literal('refund'),
    livemode: z.boolean(),
    order_id: z.string(),
    amount: z.number().int().describe('Cents.'),
    currency: z.literal('eur'),
    status: z.enum(REFUND_STATUSES).describe('`failed` refunds moved no money and do not count towards `amount_refunded`.'),
    credit_note_id: z.string().nullable().describe('The credit note issued when the refund succeeded, `cn_…`; null until then.'),
    created: z.number().int(),
  })
  .meta({ id: 'Refund', examples: [refundExample] });
export type Refund = z.infer<typeof refundSchema>;
