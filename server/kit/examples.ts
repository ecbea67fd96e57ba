/**
 * What the examples of the API reference share: one test-mode store selling the quick start's
 * ebook to ada@example.com, who is partly refunded, subscribes and gets a portal link. The ids
 * and times are those of a real run of the service, so every example reads as an answer would.
 * Each schema states its example in `.meta({ examples })`; the OpenAPI document carries them to
 * /docs and to generated clients, and test/openapi/examples.test.ts parses each with its schema.
 */
import type { z } from 'zod';

export const EXAMPLE = {
  origin: 'http://localhost:3000',
  productId: 'prod_test_iOu2y96F3aIFDX1oRMJXBlZg',
  priceId: 'price_test_mbYeAdz5bRAOdqeMx2irLX54',
  checkoutSessionId: 'cs_test_kDJVzVeVFgFldAPhN4vfhymI',
  orderId: 'ord_test_4VSgSdhriA90Vgu2sRQHB9qr',
  customerId: 'cus_test_bUeLXlr4n3RMi1KDUe4e4o24',
  customerEmail: 'ada@example.com',
  licenseKey: 'LK-SBNP3-VJMD7-DIUHN-TTDSN',
  refundId: 're_test_8j1nPmTgBXnPKuupQWXHNtk9',
  webhookEndpointId: 'we_test_bdXPSR849DJbOlZ1zxvzvGEj',
  eventId: 'evt_test_XCxQF5jQmBGP7EUFPgfSXT4N',
  subscriptionCheckoutId: 'subchk_test_8aPVI7XvgHXontulxuEMuPVE',
  subscriptionId: 'sub_test_HLNAUcfjXGa6gkFCtkTAsPSd',
  portalSessionId: 'portal_test_TM5SdSFf07C9SADe8eKYIngi',
  invoiceId: 'in_test_Qm2VbX7tLc4RkP9sWd1HyZ3e',
  invoiceNumber: 'TEST-INV-7KQ2MX-000001',
  creditNoteId: 'cn_test_Fh8NwT2jKq5YbL0xVr6DsM4u',
  creditNoteNumber: 'TEST-CN-7KQ2MX-000001',
  emailId: 'em_test_Zp3GkW9mRt6QvN1cJy8BfH2s',
  balanceTransactionId: 'btx_test_Wq7LmR2xKd9VbN4pTs6YhJ1c',
  payoutId: 'po_test_Rk4HcN8vLw2QsJ6yTf0XpB3m',
  disputeId: 'dp_test_Nc5TqW8hLm2XzR7kVb4JsG0d',
  /** 2026-11-25 12:32:05 UTC, when the product was made; the rest followed within seconds. */
  created: 1795660325,
} as const;

/** The first example a schema states, if any: lists and events build theirs from their items'. */
export function exampleOf<T extends z.ZodType>(schema: T): z.output<T> | undefined {
  const examples = schema.meta()?.examples;
  return Array.isArray(examples) ? (examples[0] as z.output<T>) : undefined;
}

/**
 * The schema documented with its example changed: for an operation that answers the object in
 * another state than its usual example (a create that shows its secret, a cancel). The document
 * gets `{ $ref, examples }`, so the object stays one component.
 */
export function answeredAs<T extends z.ZodType>(schema: T, changes: Partial<z.output<T>>): T {
  const example = exampleOf(schema);
  if (typeof example !== 'object' || example === null) throw new Error('answeredAs: the schema states no example to change');
  return schema.meta({ examples: [{ ...example, ...changes }] });
}
