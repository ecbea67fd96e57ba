/**
 * The public contract of orders: one per checkout session, `pending` until paid,
 * with its lines, amounts, refunds and license keys. Explicit allowlists: payment details such as
 * the gateway's payment id or the card never leave through this object.
 */
import { z } from 'zod';
import { ORDER_STATUSES } from '@/db/schema';
import { createdRangeFields, emailFilter, idFilter, listSchema, pageFields } from '../kit/list';
import { refundSchema } from '../refunds/schemas';

export const retrieveOrderInput = z.strictObject({ id: z.string().min(1).describe('The order id, `ord_…`.') });

export const orderLineSchema = z
  .object({
    object: z.literal('order_line'),
    product_id: z.string().nullable().describe('Null once the product has been deleted.'),
    price_id: z.string().nullable().describe('Null for amount-mode sales.'),
    description: z.string(),
    quantity: z.number().int(),
    unit_amount: z.number().int().describe('Cents, as priced when the session was created.'),
    amount_subtotal: z.number().int(),
    amount_tax: z.number().int(),
    amount_total: z.number().int(),
    tax_rate: z.number().int().nullable(),
    tax_inclusive: z.boolean(),
  })
  .meta({ id: 'OrderLine' });
export type OrderLine = z.infer<typeof orderLineSchema>;

export const orderSchema = z
  .object({
    id: z.string(),
    object: z.literal('order'),
    livemode: z.boolean(),
    status: z.enum(ORDER_STATUSES),
    currency: z.literal('eur'),
    amount_subtotal: z.number().int().describe('Cents, before tax.'),
    amount_tax: z.number().int(),
    amount_total: z.number().int().describe('Cents charged.'),
    amount_refunded: z.number().int().describe('Cents refunded so far (succeeded and pending refunds).'),
    customer_id: z.string().nullable().describe('Set when the order is paid.'),
    customer_email: z.string().nullable(),
    lines: z.array(orderLineSchema),
    refunds: z.array(refundSchema).describe('Oldest first.'),
    license_keys: z.array(z.string()).describe('Keys issued for the lines of licensed products, in line order.'),
    created: z.number().int(),
    paid_at: z.number().int().nullable(),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof orderSchema>;

/** The list query. Unknown parameters are refused so a mistyped filter never reads as "no filter". */
export const listOrdersInput = z.strictObject({
  ...pageFields,
  status: z.enum(ORDER_STATUSES).optional().describe('Only orders with this status.'),
  customer_id: idFilter('cus', 'Only orders of this customer, `cus_…`.'),
  customer_email: emailFilter('Only orders with this customer e-mail (case-insensitive).'),
  ...createdRangeFields,
});
export type ListOrdersQuery = z.infer<typeof listOrdersInput>;

/** The list's filters without the page fields: what an export of every matching order takes. */
export const orderListFilters = listOrdersInput.omit({ limit: true, starting_after: true });
export type OrderListFilters = z.infer<typeof orderListFilters>;

export const orderListSchema = listSchema(orderSchema, '/api/v1/orders', 'OrderList');
export type OrderList = z.infer<typeof orderListSchema>;
