/**
 * The public contract of orders: every collected payment is one (a checkout session's, `pending`
 * until paid, and each paid subscription charge's), with its lines, amounts, refunds and license keys. Explicit allowlists: payment details such as
 * the gateway's payment id or the card never leave through this object.
 */
import { z } from 'zod';
import { BILLING_REASONS, ORDER_STATUSES } from '@/db/schema';
import { discountSchema } from '../kit/discount-schemas';
import { EXAMPLE } from '../kit/examples';
import { createdRangeFields, emailFilter, idFilter, listSchema, pageFields } from '../kit/list';
import { paidBuyerTaxFields, vatRateField } from '../kit/taxation-schemas';
import { refundExample, refundSchema } from './refunds/object';
import { withdrawalSchema, withdrawalWaiverSchema } from './withdrawals/object';

export const retrieveOrderInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('The order id, `ord_…`.')
    .meta({ examples: [EXAMPLE.orderId] }),
});

const orderLineExample = {
  object: 'order_line',
  product_id: EXAMPLE.productId,
  price_id: EXAMPLE.priceId,
  description: 'Ebook: Payments in practice',
  quantity: 1,
  unit_amount: 1999,
  amount_discount: 0,
  amount_subtotal: 1999,
  amount_tax: 380,
  amount_total: 2379,
  tax_rate: 19,
  tax_inclusive: false,
  download_count: 2,
};

export const orderLineSchema = z
  .object({
    object: z.literal('order_line'),
    product_id: z.string().nullable().describe('Null once the product has been deleted.'),
    price_id: z.string().nullable().describe('Null for amount-mode sales.'),
    description: z.string(),
    quantity: z.number().int(),
    unit_amount: z.number().int().describe('Cents, as priced when the session was created.'),
    amount_discount: z.number().int().describe('Cents of the discount taken off `unit_amount × quantity`, before tax; 0 outside the discount’s products or without one.'),
    amount_subtotal: z.number().int().describe('Cents before tax, after the discount.'),
    amount_tax: z.number().int(),
    amount_total: z.number().int(),
    tax_rate: vatRateField('VAT rate in percent, at most two decimals (`5.5`).').nullable(),
    tax_inclusive: z.boolean(),
    download_count: z.number().int().optional().describe('Downloads served of the file of the line’s product (at most DOWNLOAD_LIMIT); present only on lines of a product with a file.'),
  })
  .meta({ id: 'OrderLine', examples: [orderLineExample] });
export type OrderLine = z.infer<typeof orderLineSchema>;

/** Paid, then refunded in part. */
const orderExample = {
  id: EXAMPLE.orderId,
  object: 'order',
  livemode: false,
  status: 'partially_refunded',
  currency: 'eur',
  discount: null,
  amount_discount: 0,
  amount_subtotal: 1999,
  amount_tax: 380,
  amount_total: 2379,
  amount_refunded: 500,
  customer_id: EXAMPLE.customerId,
  customer_email: EXAMPLE.customerEmail,
  lines: [orderLineExample],
  refunds: [refundExample],
  license_keys: [EXAMPLE.licenseKey],
  invoice_id: EXAMPLE.invoiceId,
  withdrawal_waiver: null,
  withdrawal: null,
  billing_reason: 'purchase',
  subscription_id: null,
  dispute_id: null,
  customer_details: { name: 'Ada Lovelace', company: null, address: { line1: null, postal_code: null, city: null, country: 'DE' }, vat_id: null },
  tax_country: 'DE',
  tax_treatment: 'vat',
  tax_evidence: [
    { type: 'billing_country', country: 'DE' },
    { type: 'card_country', country: 'DE' },
  ],
  evidence_conflict: false,
  created: EXAMPLE.created + 8,
  paid_at: EXAMPLE.created + 9,
};

export const orderSchema = z
  .object({
    id: z.string(),
    object: z.literal('order'),
    livemode: z.boolean(),
    status: z.enum(ORDER_STATUSES),
    currency: z.literal('eur'),
    discount: discountSchema.nullable().describe('The discount the order is sold with, as redeemed; null without one.'),
    amount_discount: z.number().int().describe('Cents taken off the lines before tax: the sum of their `amount_discount`.'),
    amount_subtotal: z.number().int().describe('Cents, before tax, after the discount.'),
    amount_tax: z.number().int(),
    amount_total: z.number().int().describe('Cents charged.'),
    amount_refunded: z.number().int().describe('Cents refunded so far (succeeded and pending refunds).'),
    customer_id: z.string().nullable().describe('Set when the order is paid.'),
    customer_email: z.string().nullable(),
    lines: z.array(orderLineSchema),
    refunds: z.array(refundSchema).describe('Oldest first.'),
    license_keys: z.array(z.string()).describe('Keys issued for the lines of licensed products, in line order.'),
    invoice_id: z.string().nullable().describe('The invoice issued when the order was paid, `in_…`; null while pending.'),
    withdrawal_waiver: withdrawalWaiverSchema.nullable(),
    withdrawal: withdrawalSchema.nullable(),
    billing_reason: z.enum(BILLING_REASONS).describe('`purchase`: a checkout session; `subscription_create`: a subscription’s first charge; `subscription_cycle`: a renewal.'),
    subscription_id: z.string().nullable().describe('The subscription whose charge this order is, `sub_…`; null for a purchase.'),
    dispute_id: z.string().nullable().describe('The cardholder’s dispute of this order, `dp_…`; null when none was opened.'),
    ...paidBuyerTaxFields,
    created: z.number().int(),
    paid_at: z.number().int().nullable(),
  })
  .meta({ id: 'Order', examples: [orderExample] });
export type Order = z.infer<typeof orderSchema>;

/** The list query. Unknown parameters are refused so a mistyped filter never reads as "no filter". */
export const listOrdersInput = z.strictObject({
  ...pageFields,
  status: z.enum(ORDER_STATUSES).optional().describe('Only orders with this status.'),
  customer_id: idFilter('cus', 'Only orders of this customer, `cus_…`.'),
  customer_email: emailFilter('Only orders with this customer e-mail (case-insensitive).'),
  billing_reason: z.enum(BILLING_REASONS).optional().describe('Only orders paid for this reason.'),
  subscription_id: idFilter('sub', 'Only the orders of this subscription’s charges, `sub_…`.'),
  ...createdRangeFields,
});
export type ListOrdersQuery = z.infer<typeof listOrdersInput>;

/** The list's filters without the page fields: what an export of every matching order takes. */
export const orderListFilters = listOrdersInput.omit({ limit: true, starting_after: true });
export type OrderListFilters = z.infer<typeof orderListFilters>;

export const orderListSchema = listSchema(orderSchema, '/api/v1/orders', 'OrderList');
export type OrderList = z.infer<typeof orderListSchema>;
