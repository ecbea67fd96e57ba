/**
 * The public contract of disputes: a cardholder's dispute of a paid order, the evidence the store
 * answers with, and the queries that list them. Explicit allowlists, as every object of the API.
 */
import { z } from 'zod';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from '@/db/schema';
import { EXAMPLE } from '../kit/examples';
import { strictBoolean } from '../kit/json-schema';
import { createdRangeFields, idFilter, listSchema, pageFields } from '../kit/list';

/** The most characters an evidence field holds. */
export const EVIDENCE_MAX_LENGTH = 20_000;

/** The evidence fields, as the API names them. */
export const EVIDENCE_FIELDS = ['customer_communication', 'product_description', 'uncategorized_text'] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];

const evidenceText = (description: string) => z.string().max(EVIDENCE_MAX_LENGTH).nullable().describe(`${description} At most 20,000 characters; null when not given.`);

const evidenceFields = {
  customer_communication: evidenceText('What the customer and the store wrote each other about the purchase.'),
  product_description: evidenceText('What was sold, and how and when it was delivered.'),
  uncategorized_text: evidenceText('Anything else the card network should weigh.'),
};

export const evidenceSchema = z.object(evidenceFields).describe('The store’s answer to the cardholder’s claim, field by field.');
export type Evidence = z.infer<typeof evidenceSchema>;

/** The example order's dispute, just opened. */
const disputeExample = {
  id: EXAMPLE.disputeId,
  object: 'dispute',
  order_id: EXAMPLE.orderId,
  amount: 2379,
  currency: 'eur',
  reason: 'fraudulent',
  status: 'needs_response',
  evidence_due_by: EXAMPLE.created + 20 + 7 * 86_400,
  evidence: {
    customer_communication: null,
    product_description: null,
    uncategorized_text: null,
  },
  evidence_submitted_at: null,
  created: EXAMPLE.created + 20,
  livemode: false,
};

export const disputeSchema = z
  .object({
    id: z.string().describe('`dp_test_…` or `dp_live_…`.'),
    object: z.literal('dispute'),
    order_id: z.string().describe('The order disputed: an order has at most one dispute.'),
    amount: z.number().int().describe('Cents the card network took back: the order’s total less what was refunded by then.'),
    currency: z.literal('eur'),
    reason: z.enum(DISPUTE_REASONS).describe('Why the cardholder disputed the payment.'),
    status: z.enum(DISPUTE_STATUSES).describe('`needs_response` → `under_review` (evidence submitted) → `won` | `lost`; or `needs_response` → `lost` when the deadline passes without evidence.'),
    evidence_due_by: z
      .number()
      .int()
      .describe('Until when evidence can be saved and submitted (epoch seconds, the store’s clock). Saved evidence is submitted then; without any, the dispute is lost.'),
    evidence: evidenceSchema,
    evidence_submitted_at: z.number().int().nullable().describe('When the evidence was submitted; null before.'),
    created: z.number().int().describe('When the dispute opened, on the store’s clock.'),
    livemode: z.boolean(),
  })
  .meta({ id: 'Dispute', examples: [disputeExample] });
export type Dispute = z.infer<typeof disputeSchema>;

export const retrieveDisputeInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('The dispute id, `dp_…`.')
    .meta({ examples: [EXAMPLE.disputeId] }),
});

/** POST /disputes/{id}: evidence saved, and submitted when asked. */
export const updateDisputeInput = z
  .strictObject({
    ...retrieveDisputeInput.shape,
    evidence: z
      .strictObject({
        customer_communication: evidenceFields.customer_communication.optional(),
        product_description: evidenceFields.product_description.optional(),
        uncategorized_text: evidenceFields.uncategorized_text.optional(),
      })
      .optional()
      .describe('A field sent replaces the stored one (null clears it); a field left out stays as it is.'),
    submit: strictBoolean().optional().describe('`true` submits the evidence as it then stands: the dispute goes `under_review` and its evidence can no longer change.'),
  })
  .meta({
    examples: [
      {
        evidence: {
          product_description: 'An e-book (PDF), downloaded twice on the day of purchase.',
        },
        submit: true,
      },
    ],
  });
export type UpdateDisputeInput = z.infer<typeof updateDisputeInput>;

/** The list query; unknown parameters are refused. */
export const listDisputesInput = z.strictObject({
  ...pageFields,
  status: z.enum(DISPUTE_STATUSES).optional().describe('Only disputes in this status.'),
  order_id: idFilter('ord', 'Only the dispute of this order.'),
  ...createdRangeFields,
});
export type ListDisputesQuery = z.infer<typeof listDisputesInput>;

export const disputeListSchema = listSchema(disputeSchema, '/api/v1/disputes', 'DisputeList');
export type DisputeList = z.infer<typeof disputeListSchema>;
