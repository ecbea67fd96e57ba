/**
 * The public contract of events: each event type with the object it carries, the list query
 * with its filters, and the list envelope. The same schemas describe webhook payloads.
 */
import { z } from 'zod';
import { checkoutSessionSchema } from '../checkout/schemas';
import { couponSchema, deletedCouponSchema, promotionCodeSchema } from '../coupons/schemas';
import { customerSchema, deletedCustomerSchema } from '../customers/schemas';
import { creditNoteSchema, invoiceSchema } from '../invoices/schemas';
import { EXAMPLE, exampleOf } from '../kit/examples';
import { orderSchema } from '../orders/schemas';
import { portalSessionSchema } from '../portal/schemas';
import { payoutSchema } from '../payouts/schemas';
import { disputeSchema } from '../disputes/schemas';
import { deletedProductSchema, productSchema } from '../products/schemas';
import { refundSchema } from '../orders/refunds/object';
import { subscriptionSchema } from '../subscriptions/schemas';
import { EVENT_TYPES, type EventType } from '../webhooks/events';

/** The object each event type carries in `data.object`. */
const EVENT_OBJECTS = {
  'product.created': productSchema,
  'product.updated': productSchema,
  'product.deleted': deletedProductSchema,
  'checkout.session.completed': checkoutSessionSchema,
  'checkout.session.payment_failed': checkoutSessionSchema,
  'checkout.session.expired': checkoutSessionSchema,
  'order.paid': orderSchema,
  'order.refunded': orderSchema,
  'order.withdrawal_requested': orderSchema,
  'refund.created': refundSchema,
  'refund.updated': refundSchema,
  'customer.created': customerSchema,
  'customer.deleted': deletedCustomerSchema,
  'portal.session.created': portalSessionSchema,
  'portal.session.revoked': portalSessionSchema,
  'subscription.created': subscriptionSchema,
  'subscription.updated': subscriptionSchema,
  'subscription.payment_succeeded': subscriptionSchema,
  'subscription.payment_failed': subscriptionSchema,
  'subscription.past_due': subscriptionSchema,
  'subscription.canceled': subscriptionSchema,
  'subscription.expired': subscriptionSchema,
  'subscription.trial_will_end': subscriptionSchema,
  'invoice.issued': invoiceSchema,
  'credit_note.issued': creditNoteSchema,
  'payout.created': payoutSchema,
  'payout.updated': payoutSchema,
  'payout.paid': payoutSchema,
  'payout.failed': payoutSchema,
  'dispute.created': disputeSchema,
  'dispute.updated': disputeSchema,
  'dispute.closed': disputeSchema,
  'coupon.created': couponSchema,
  'coupon.deleted': deletedCouponSchema,
  'promotion_code.created': promotionCodeSchema,
  'promotion_code.updated': promotionCodeSchema,
} satisfies Record<EventType, z.ZodType>;

/** `checkout.session.payment_failed` → `CheckoutSessionPaymentFailedEvent`. */
export function eventSchemaName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')}Event`;
}

/** A change of status: `*.updated`, and the payout's and dispute's own status events. */
const carriesPreviousAttributes = (type: EventType) => type.endsWith('.updated') || type === 'payout.paid' || type === 'payout.failed' || type === 'dispute.closed';

/** Events of a change also carry what changed. */
function previousAttributesOf(type: EventType) {
  return carriesPreviousAttributes(type) ? { previous_attributes: z.record(z.string(), z.unknown()).describe('Each top-level field that changed, with its value before.') } : {};
}

/**
 * How each event's example object differs from its schema's example (which shows the object as
 * a read usually finds it), and what `*.updated` examples changed.
 */
const EVENT_EXAMPLE_CHANGES: Partial<Record<EventType, { object?: Record<string, unknown>; previous_attributes?: Record<string, unknown> }>> = {
  'product.updated': { object: { description: 'Second edition, with a chapter on refunds.' }, previous_attributes: { description: 'A practical guide to taking payments online.' } },
  'checkout.session.payment_failed': { object: { status: 'open', payment_status: 'failed', order_id: EXAMPLE.orderId } },
  'checkout.session.expired': { object: { status: 'expired', payment_status: 'unpaid' } },
  'order.paid': { object: { status: 'paid', amount_refunded: 0, refunds: [] } },
  'refund.created': { object: { status: 'pending' } },
  'refund.updated': { previous_attributes: { status: 'pending' } },
  'payout.created': { object: { status: 'pending', arrival_date: null } },
  'payout.updated': { object: { status: 'canceled', arrival_date: null }, previous_attributes: { status: 'pending' } },
  'payout.paid': { previous_attributes: { status: 'pending', arrival_date: null } },
  'payout.failed': { object: { status: 'failed', failure_reason: 'account_closed' }, previous_attributes: { status: 'paid', failure_reason: null } },
  'dispute.updated': {
    object: {
      status: 'under_review',
      evidence: { customer_communication: null, product_description: 'An e-book (PDF), downloaded twice on the day of purchase.', uncategorized_text: null },
      evidence_submitted_at: EXAMPLE.created + 3600,
    },
    previous_attributes: { status: 'needs_response', evidence: { customer_communication: null, product_description: null, uncategorized_text: null }, evidence_submitted_at: null },
  },
  'dispute.closed': { object: { status: 'won', evidence_submitted_at: EXAMPLE.created + 3600 }, previous_attributes: { status: 'under_review' } },
  'portal.session.revoked': { object: { status: 'revoked' } },
  'promotion_code.updated': { object: { active: false }, previous_attributes: { active: true } },
  'subscription.created': { object: { metadata: {} } },
  'subscription.updated': { previous_attributes: { metadata: {} } },
  'subscription.payment_failed': { object: { failure_count: 1 } },
  'subscription.past_due': { object: { status: 'past_due', failure_count: 3 } },
  'subscription.canceled': { object: { status: 'canceled', canceled_at: EXAMPLE.created + 20, ended_at: EXAMPLE.created + 20 } },
  'subscription.expired': { object: { status: 'expired', ended_at: EXAMPLE.created + 20 } },
  'subscription.trial_will_end': {
    object: {
      status: 'trialing',
      trial_start: EXAMPLE.created + 14,
      trial_end: EXAMPLE.created + 14 + 14 * 86_400,
      current_period_end: EXAMPLE.created + 14 + 14 * 86_400,
      next_billing_at: EXAMPLE.created + 14 + 14 * 86_400,
    },
  },
};

function eventExampleOf(type: EventType) {
  const changes = EVENT_EXAMPLE_CHANGES[type] ?? {};
  const object = { ...(exampleOf(EVENT_OBJECTS[type]) as object), ...changes.object };
  const updated = carriesPreviousAttributes(type);
  return {
    id: EXAMPLE.eventId,
    object: 'event',
    type,
    created: EXAMPLE.created + 10,
    livemode: false,
    sequence: updated ? 2 : 1,
    data: { object, ...(updated ? { previous_attributes: changes.previous_attributes ?? {} } : {}) },
  };
}

function eventSchemaOf<T extends EventType>(type: T) {
  return z
    .object({
      id: z.string().describe('`evt_test_…` or `evt_live_…`; also the `webhook-id` header of its deliveries.'),
      object: z.literal('event'),
      type: z.literal(type),
      created: z.number().int().describe('When the change happened, on the store’s clock (its test clock in test mode).'),
      livemode: z.boolean(),
      sequence: z.number().int().describe('The events of this object counted from 1 with no gap: a gap means an event is still to come, a repeat is a duplicate.'),
      // The object's schema is not described here: a method call on it would lose its type per event type.
      data: z.object({ object: EVENT_OBJECTS[type], ...previousAttributesOf(type) }).describe('`object`: the object as the API returned it right after the change.'),
    })
    .meta({ id: eventSchemaName(type), description: `Sent as \`${type}\`.`, examples: [eventExampleOf(type)] });
}

/** Each type's event schema: the members of `Event`, and the payloads of the document's webhooks. */
export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((type) => [type, eventSchemaOf(type)])) as unknown as {
  [T in EventType]: ReturnType<typeof eventSchemaOf<T>>;
};

const [firstType, ...otherTypes] = EVENT_TYPES;
export const eventSchema = z
  .discriminatedUnion('type', [EVENT_SCHEMAS[firstType], ...otherTypes.map((type) => EVENT_SCHEMAS[type])])
  .meta({ id: 'Event', examples: [eventExampleOf('order.refunded')] });
export type Event = z.infer<typeof eventSchema>;

export const eventIdParam = z
  .string()
  .min(1)
  .describe('The event id, `evt_…`.')
  .meta({ examples: [EXAMPLE.eventId] });

/** One type, or a prefix of types ending in `.*` (`checkout.session.*`). */
export function isEventTypeFilter(value: string): boolean {
  if (!value.endsWith('.*')) return (EVENT_TYPES as readonly string[]).includes(value);
  const prefix = value.slice(0, -1);
  return EVENT_TYPES.some((type) => type.startsWith(prefix));
}

const epochSeconds = z.number().int().min(0);

export const listEventsInput = z.strictObject({
  limit: z.number().int().min(1).max(100).default(10).describe('Page size, 1–100; default 10.'),
  starting_after: z.string().min(1).describe('An event id: the page of events recorded before it (the next page of the list).').optional(),
  ending_before: z.string().min(1).describe('An event id: the page of events recorded right after it, still newest first. Pass the newest event you have to follow the stream.').optional(),
  type: z
    .string()
    .refine(isEventTypeFilter, 'must be an event type, or a prefix of types ending in `.*` such as `checkout.session.*`')
    .describe('One event type, or a prefix ending in `.*` (`checkout.session.*`).')
    .optional(),
  object_id: z.string().min(1).describe('Only the events of this object.').optional(),
  created_gte: epochSeconds.describe('Only events created at or after this time (epoch seconds).').optional(),
  created_lte: epochSeconds.describe('Only events created at or before this time (epoch seconds).').optional(),
});
export type ListEventsQuery = z.infer<typeof listEventsInput>;

export const retrieveEventInput = z.strictObject({ id: eventIdParam });

export const eventListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(eventSchema).describe('Newest first, in the order the events were recorded.'),
    has_more: z.boolean().describe('Whether more events follow in the direction of the page (older with `starting_after`, newer with `ending_before`).'),
    url: z.string(),
    livemode: z.boolean(),
  })
  .meta({
    id: 'EventList',
    examples: [
      {
        object: 'list',
        data: [eventExampleOf('order.refunded'), { ...eventExampleOf('refund.updated'), id: 'evt_test_PITtvhp0hxwPi8zzq7cl94LA' }],
        has_more: true,
        url: '/api/v1/events',
        livemode: false,
      },
    ],
  });
export type EventList = z.infer<typeof eventListSchema>;
