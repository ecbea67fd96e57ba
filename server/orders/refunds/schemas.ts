/** The public contract of refunds: full or partial, up to what remains of a paid order. */
import { z } from 'zod';
import { REFUND_STATUSES } from '@/db/schema';
import { refundSchema } from './object';
import { strict } from '../../kit/json-schema';
import { EXAMPLE } from '../../kit/examples';
import { createdRangeFields, idFilter, listSchema, pageFields } from '../../kit/list';

export const createRefundInput = z
  .strictObject({
    order_id: z.string().min(1).describe('The paid order to refund, `ord_…`.'),
    amount: strict(z.number().int().min(1)).optional().describe('Cents to refund, at least 1 and at most what remains of the order; the whole remainder when omitted.'),
  })
  .meta({ examples: [{ order_id: EXAMPLE.orderId, amount: 500 }] });
export type CreateRefundInput = z.infer<typeof createRefundInput>;

export const retrieveRefundInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('The refund id, `re_…`.')
    .meta({ examples: [EXAMPLE.refundId] }),
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
