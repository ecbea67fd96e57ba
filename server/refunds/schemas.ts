/** The public contract of refunds: full or partial, up to what remains of a paid order. */
import { z } from 'zod';
import { REFUND_STATUSES } from '@/db/schema';
import { strict } from '../kit/json-schema';
import { EXAMPLE } from '../kit/examples';
import { createdRangeFields, idFilter, listSchema, pageFields } from '../kit/list';

export const createRefundInput = z.strictObject({
  order_id: z.string().min(1).describe('The paid order to refund, `ord_…`.'),
  amount: strict(z.number().int().min(1))
    .optional()
    .describe('Cents to refund, at least 1 and at most what remains of the order; the whole remainder when omitted.'),
}).meta({ examples: [{ order_id: EXAMPLE.orderId, amount: 500 }] });
export type CreateRefundInput = z.infer<typeof createRefundInput>;

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

export const retrieveRefundInput = z.strictObject({
  id: z.string().min(1).describe('The refund id, `re_…`.').meta({ examples: [EXAMPLE.refundId] }),
});

/** The list query; unknown parameters are refused. */
export const listRefundsInput = z.strictObject({
  ...pageFields,
  order_id: idFilter('ord', 'Only refunds of this order, `ord_…`.'),
  status: z.enum(REFUND_STATUSES).optional().describe('Only refunds with this status.'),
  ...createdRangeFields,
});
export type ListRefundsQuery = z.infer<typeof listRefundsInput>;

export const refundListSchema = listSchema(refundSchema, '/api/v1/refunds', 'RefundList');
export type RefundList = z.infer<typeof refundListSchema>;
