/**
 * The public contract of portal sessions: request schemas with
 * their field rules, and the response schema as an explicit allowlist.
 *
 * Check order of a create, first failure wins: the key, the `Idempotency-Key` format, then
 * `metadata` (its own code, `metadata_invalid`), then the shape (`parameter_invalid`), then
 * exactly one selector, then the lookup of what it names (404 `resource_missing`).
 */
import { z } from 'zod';
import { metadataInputSchema, metadataOutputSchema, metadataProblem, METADATA_MAX_KEYS } from '../kit/metadata';
import { answeredAs, EXAMPLE } from '../kit/examples';
import { MAX_EMAIL_LENGTH } from '../kit/fields';
import { strict } from '../kit/json-schema';
import { createdRangeFields, idFilter, listSchema, pageFields } from '../kit/list';

export const PORTAL_STATUSES = ['active', 'expired', 'revoked'] as const;
export const PORTAL_SCOPES = ['customer', 'order', 'subscription'] as const;

export const PORTAL_SELECTORS = ['customer_id', 'customer_email', 'order_id', 'subscription_id'] as const;

const selectorId = (what: string) => z.string().min(1).max(255).optional().describe(what);

const createFields = z.strictObject({
  customer_id: selectorId('Customer scope: the customer, `cus_…`.'),
  customer_email: z.email().max(MAX_EMAIL_LENGTH).optional().describe("Customer scope: the store's customer with this email in this mode (case-insensitive)."),
  order_id: selectorId('Order scope: the order, `ord_…`.'),
  subscription_id: selectorId('Subscription scope: the subscription, `sub_…`.'),
  expires_at: strict(z.number().int()).optional().describe('Epoch seconds; clamped to between 5 minutes and 30 days from now (never rejected). Default: 24 hours.'),
  metadata: metadataInputSchema
    .nullable()
    .optional()
    .describe(
      `Up to ${METADATA_MAX_KEYS} keys of 1–40 characters; values are strings of at most 500 characters (numbers and booleans are turned into strings, as on checkout sessions). Echoed verbatim.`,
    ),
});

type IssueSink = { issues: z.core.$ZodRawIssue[] };

/** `metadata` has its own code, judged before the shape as on checkout sessions. */
function checkingMetadata<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx: IssueSink) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const problem = metadataProblem((value as Record<string, unknown>).metadata);
    if (problem) {
      const path = problem.key ? ['metadata', problem.key] : ['metadata'];
      ctx.issues.push({ code: 'custom', message: problem.message, path, input: value, params: { apiCode: 'metadata_invalid' } });
    }
    return value;
  }, schema);
}

/** Exactly one of the four selectors. */
function checkOneSelector(body: z.infer<typeof createFields>, ctx: IssueSink): void {
  const given = PORTAL_SELECTORS.filter((field) => body[field] !== undefined);
  if (given.length === 1) return;
  const names = PORTAL_SELECTORS.map((field) => `\`${field}\``).join(', ');
  ctx.issues.push({
    code: 'custom',
    message: given.length === 0 ? `Send exactly one of ${names}.` : `Send exactly one of ${names}, not ${given.map((field) => `\`${field}\``).join(' and ')}.`,
    path: given.length === 0 ? [] : [given[1]!],
    input: body,
    params: { apiCode: 'parameter_invalid' },
  });
}

export const createPortalSessionInput = checkingMetadata(createFields.superRefine(checkOneSelector)).meta({
  examples: [{ customer_email: EXAMPLE.customerEmail, metadata: { ticket: 'T-1042' } }],
});
export type CreatePortalSessionInput = z.infer<typeof createPortalSessionInput>;

export const portalSessionIdParam = z
  .string()
  .min(1)
  .max(255)
  .describe('The portal session id, `portal_…`.')
  .meta({ examples: [EXAMPLE.portalSessionId] });
export const retrievePortalSessionInput = z.strictObject({ id: portalSessionIdParam });
export const revokePortalSessionInput = z.strictObject({ id: portalSessionIdParam });

const portalSessionExample = {
  id: EXAMPLE.portalSessionId,
  object: 'portal.session',
  status: 'active',
  scope: 'customer',
  livemode: false,
  customer_id: EXAMPLE.customerId,
  order_id: null,
  subscription_id: null,
  metadata: { ticket: 'T-1042' },
  access_count: 0,
  last_accessed_at: null,
  created: EXAMPLE.created + 14,
  expires_at: EXAMPLE.created + 14 + 86_400,
};

export const portalSessionSchema = z
  .object({
    id: z.string().describe('`portal_test_…` or `portal_live_…`.'),
    object: z.literal('portal.session'),
    status: z.enum(PORTAL_STATUSES).describe('`expired` once the store clock reaches `expires_at`; `revoked` is permanent.'),
    scope: z.enum(PORTAL_SCOPES),
    livemode: z.boolean(),
    customer_id: z.string().nullable().describe('The customer whose data the portal shows; set for every scope when known.'),
    order_id: z.string().nullable(),
    subscription_id: z.string().nullable(),
    url: z
      .string()
      .optional()
      .describe(
        'The portal link, `<base>/portal/<43-character token>`. Present only in the creation response (and its idempotent replay while the link is active); absent on every read. Treat it as a password.',
      ),
    metadata: metadataOutputSchema.describe('As sent, values as strings; `{}` when none.'),
    access_count: z.number().int().describe('Page views so far.'),
    last_accessed_at: z.number().int().nullable(),
    created: z.number().int(),
    expires_at: z.number().int(),
  })
  .meta({ id: 'PortalSession', examples: [portalSessionExample] });
export type PortalSession = z.infer<typeof portalSessionSchema>;

/** The create's answer, the only one that carries `url`. */
export const createdPortalSessionSchema = answeredAs(portalSessionSchema, { url: `${EXAMPLE.origin}/portal/33ZNNOeVwF9tyXjjvDx0Gpl7Scw-6fFNL7l-op0U118` });
export const revokedPortalSessionSchema = answeredAs(portalSessionSchema, { status: 'revoked' });

/** The list query; unknown parameters are refused. */
export const listPortalSessionsInput = z.strictObject({
  ...pageFields,
  status: z.enum(PORTAL_STATUSES).optional().describe('Only sessions with this status (as of the store clock).'),
  scope: z.enum(PORTAL_SCOPES).optional().describe('Only sessions of this scope.'),
  customer_id: idFilter('cus', 'Only sessions showing this customer, `cus_…`.'),
  ...createdRangeFields,
});
export type ListPortalSessionsQuery = z.infer<typeof listPortalSessionsInput>;

export const portalSessionListSchema = listSchema(portalSessionSchema, '/api/v1/portal/sessions', 'PortalSessionList');
export type PortalSessionList = z.infer<typeof portalSessionListSchema>;
