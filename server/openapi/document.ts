/**
 * The public OpenAPI 3.1 document: trpc-to-openapi generates paths and schemas from the
 * routers, then this file adds what the library cannot know: our
 * success statuses, the error envelope and per-operation error codes, the security schemes the
 * procedure bases enforce, `Idempotency-Key`, and the document's own metadata.
 */
import { forEachOpenApiProcedure, generateOpenApiDocument, getInputOutputParsers, normalizePath, type OpenApiProcedureRecord, type OpenApiRouter } from 'trpc-to-openapi';
import { ZodObject, type z } from 'zod';
import { createSchema } from 'zod-openapi';
import packageJson from '../../package.json';
import type { KeyAcceptance } from '../auth/service';
import { API_PREFIX } from '../http/api-handler';
import { EVENT_SCHEMAS, eventSchemaName } from '../events/schemas';
import { appRouter } from '../router';
import { EVENT_TYPES } from '../webhooks/events';
import type { ApiMeta } from '../trpc';
import { errorResponses, errorSchema, operationErrorCodes, retryAfterHeader, type OperationFacts } from './errors';
import { isReference, type HttpMethod, type OpenAPIObject, type OperationObject, type ParameterObject, type ResponseObject, type SchemaObject, type SecuritySchemeObject } from './types';

const API_DESCRIPTION = `The HTTP API of an open-source payments service that acts as merchant of record.

Send JSON with \`Content-Type: application/json\` and authenticate with your secret key in an \`Authorization: Bearer sk_test_…\` header (\`sk_live_…\` in live mode). Test and live mode are fully isolated: a key only ever sees its own store's objects of its own mode. Never put a key in a query string: such requests are refused with \`invalid_api_key\`.

- Amounts are integers in cents: 1999 means EUR 19.99. Floats and numeric strings are rejected. The currency is always \`eur\`.
- Timestamps are integer epoch seconds.
- Lists answer \`{ "object": "list", "data": […], "has_more": … }\`; pass the last id as \`starting_after\` to get the next page.
- Every error answers \`{ "error": { "type", "code", "message", "param"? } }\` with the HTTP status of its \`code\`. Match on \`code\`, not on \`message\`.
- Too many requests answer 429 \`rate_limited\` with a \`Retry-After\` header in seconds; an instance too busy to start a request in time answers 503 \`service_busy\`, also with \`Retry-After\`.`;

/** Shown beside each tag; a tag without an entry is still listed. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Products: 'The catalog. Each product carries exactly one price, which checkout sessions and subscriptions sell.',
  'Checkout sessions': 'One payment on the hosted page: for a catalog price, a cart of line items, or a free amount. Fulfil when `status` is `complete` and `payment_status` is `paid`.',
  'Test helpers': "Test mode only: move a store's test clock to make expiries and other deadlines happen now.",
  Orders: 'One order per checkout session: pending until paid, then with its customer, refunds and license keys.',
  Customers: 'Created or matched by email within a store and mode when a payment settles.',
  Licenses: 'License keys issued for paid lines of licensed products, and their validation.',
  Refunds: 'Full or partial refunds of paid orders, up to what remains, through the payment gateway.',
  Events: 'Everything that happens in a store, in the order it was recorded: the same events that webhooks deliver, kept at least 30 days; any event can be sent again to an endpoint.',
  Webhooks:
    'Endpoints that receive events as signed Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, in order per object; each can be disabled, have its secret rolled, and has a delivery log.',
  Subscriptions:
    'Recurring billing: a subscription checkout is a signed, single-use hosted link where the customer enters a card; the first charge creates the subscription, then the service bills every cycle. Creating and cancelling need SUBSCRIPTIONS_ENABLED and the account’s `subscriptions` flag.',
  Invoices:
    'Invoices and credit notes the operator issues as seller: one invoice for every paid order and subscription charge, one credit note for every succeeded refund and lost dispute, numbered without gaps per store and mode, never changed once issued; each as JSON and as a PDF in the customer’s language.',
  Balance:
    'The store’s money: an append-only ledger of signed entries (each payment with its VAT and the operator’s fee, each refund, each dispute, each adjustment), written with their cause, and the balance that sums them by availability: a payment can be paid out after the payout hold, everything else at once.',
  Payouts:
    'The available balance paid to the store’s bank account: on its schedule (weekly, monthly) or on request, each payout settling every available entry once, never below the minimum or under a hold; in test mode paid at once. Each payout lists the entries it settled, which sum to its amount.',
  Disputes:
    'A cardholder’s dispute of a paid order through their card issuer: the amount, its VAT and a dispute fee leave the balance when it opens; the store answers with evidence until `evidence_due_by`; won gives the amount back, lost credits the order and revokes its license keys, downloads and subscription. Each dispute has an evidence pack (PDF) of what the service recorded about the sale. In test mode, the cards 4000 0000 0000 0259 and 4000 0000 0000 2685 open one, decided by the evidence text when the test clock passes the deadline.',
  Coupons:
    'Discounts a store offers: a percentage or an amount off, once, for some months or forever on subscriptions, optionally limited to products, a number of redemptions or a date. A checkout names one directly, or a customer types one of its promotion codes. Deleting a coupon deactivates its codes; discounts already granted keep their terms.',
  'Promotion codes': 'Codes customers type for a coupon, unique in a store and mode in any case; each can be limited, expire, and be deactivated.',
  Portal: 'Expiring, read-only links through which a customer sees their orders, subscriptions and refunds without an account. The URL is returned once.',
};

const SECURITY_SCHEMES = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sk_test_… or sk_live_…',
    description: 'Your secret key as `Authorization: Bearer sk_test_…` (or `sk_live_…`). Server-side only: never in a browser, never in a query string.',
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: 'The same secret key in an `X-Api-Key` header instead of `Authorization`.',
  },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pk_test_… or pk_live_…',
    description: 'Your publishable key as `Authorization: Bearer pk_test_…` (or `pk_live_…`), for calls from the browser.',
  },
} satisfies Record<string, SecuritySchemeObject>;
type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

const IDEMPOTENCY_KEY_PARAMETER: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes a retry safe: a repeat with the same key and body replays the original answer with status 200; the same key with a different body is 409 `idempotency_key_reused`.',
  schema: { type: 'string', minLength: 1, maxLength: 191, examples: ['order-1042'] },
};

/** The Standard Webhooks headers of every delivery. */
const WEBHOOK_HEADER_PARAMETERS = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id, the same on every retry and resend: deduplicate on it.',
    schema: { type: 'string' },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Wall-clock time of this attempt, epoch seconds. Refuse messages far from your own clock.',
    schema: { type: 'string' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` keyed with the endpoint secret; while a rolled secret overlaps, two signatures separated by a space, the new one first.',
    schema: { type: 'string' },
  },
} satisfies Record<string, ParameterObject>;
const WEBHOOK_HEADERS = Object.keys(WEBHOOK_HEADER_PARAMETERS);

/** The keys the procedure base accepts (ApiMeta.auth), as OpenAPI alternatives. */
function securityOf(auth: KeyAcceptance | undefined): Record<string, string[]>[] {
  if (!auth) return [];
  const names: SecuritySchemeName[] = [];
  if (auth.kinds.includes('secret')) names.push('secretKey');
  if (auth.allowXApiKey) names.push('apiKeyHeader');
  if (auth.kinds.includes('publishable')) names.push('publishableKey');
  return names.map((name) => ({ [name]: [] }));
}

interface ProcedureFacts extends OperationFacts {
  input: z.ZodType;
}

function collectOperations(router: OpenApiRouter): ProcedureFacts[] {
  const operations: ProcedureFacts[] = [];
  forEachOpenApiProcedure(router._def.procedures as OpenApiProcedureRecord, ({ procedure, meta }) => {
    const { inputParser, hasInputsDefined } = getInputOutputParsers(procedure);
    operations.push({
      method: meta.openapi.method.toLowerCase(),
      path: normalizePath(meta.openapi.path),
      meta: meta as ApiMeta,
      hasInput: hasInputsDefined,
      input: inputParser as z.ZodType,
    });
  });
  return operations;
}

/** A body schema of `documentedBody` meta; it names no component, so it is the whole schema. */
function documentedBodySchema(schema: z.ZodType): SchemaObject {
  const { schema: converted, components } = createSchema(schema, { io: 'input', openapiVersion: '3.1.0' });
  if (Object.keys(components ?? {}).length > 0) throw new Error('OpenAPI document: a documentedBody must not name components');
  return converted as SchemaObject;
}

/**
 * The body's schema as `documentedBody` states it, with the examples of that schema or of the
 * input. zod leaves out the examples of a schema that transforms (they would describe its
 * output); our bodies' transforms return their input (server/kit/json-schema.ts), so they stand.
 */
function documentBody(operation: OperationObject, facts: ProcedureFacts): void {
  const content = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content['application/json'] : undefined;
  if (!content) return;
  if (facts.meta.documentedBody) content.schema = documentedBodySchema(facts.meta.documentedBody);
  const examples = (facts.meta.documentedBody ?? facts.input).meta()?.examples;
  if (Array.isArray(examples) && content.schema && !isReference(content.schema)) content.schema.examples = examples;
}

/** Success statuses from `successStatus` meta (the library always says 200), then our errors. */
function responsesOf(generated: OperationObject, facts: OperationFacts): Record<string, ResponseObject> {
  const success = generated.responses?.['200'] as ResponseObject;
  const status = facts.meta.successStatus ?? 200;
  const responses: Record<string, ResponseObject> = {};
  const description = facts.meta.openapi?.successDescription ?? (status === 201 ? 'Created.' : 'OK.');
  // A file operation answers the file itself over REST (server/http/api-handler.ts).
  responses[String(status)] = facts.meta.file ? { description: 'The file.', content: { [facts.meta.file]: { schema: { type: 'string', format: 'binary' } } } } : { ...success, description };
  if (status === 201 && facts.meta.idempotent) {
    responses['200'] = { ...success, description: 'Replay of an earlier request with the same `Idempotency-Key`: the original object.' };
  }
  return { ...responses, ...errorResponses(operationErrorCodes(facts)) };
}

function postProcessOperation(operation: OperationObject, facts: ProcedureFacts): void {
  operation.security = securityOf(facts.meta.auth);
  operation.responses = responsesOf(operation, facts);
  documentBody(operation, facts);
  // The library describes a parameter only inside its schema, and not at all when it is optional
  // (it unwraps `.optional()`, which carries the description): tools read the parameter's own.
  const shape = facts.input instanceof ZodObject ? (facts.input.shape as Record<string, z.ZodType>) : {};
  const parameters = (operation.parameters ?? []).map((parameter) => {
    if (isReference(parameter) || parameter.description) return parameter;
    const description = (parameter.schema && !isReference(parameter.schema) ? parameter.schema.description : undefined) ?? shape[parameter.name]?.description;
    return description ? { ...parameter, description } : parameter;
  });
  if (facts.meta.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (parameters.length > 0) operation.parameters = parameters;
  else delete operation.parameters;
}

/**
 * Builds the document for a service reachable at `baseUrl` (its origin, `PUBLIC_BASE_URL`).
 * Paths are the procedures' (`/products`) and the server URL carries `/api/v1`, which is
 * exactly how app/api/v1/[...path] strips the prefix before routing.
 */
export function buildOpenApiDocument(baseUrl: string, router: OpenApiRouter = appRouter): OpenAPIObject {
  const operations = collectOperations(router);
  const document = generateOpenApiDocument(router, {
    title: 'Payments service API',
    version: packageJson.version,
    description: API_DESCRIPTION,
    license: { name: 'MIT', identifier: 'MIT' },
    baseUrl: `${baseUrl.replace(/\/+$/, '')}${API_PREFIX}`,
    securitySchemes: SECURITY_SCHEMES,
  });

  const usedSchemes = new Set<string>();
  for (const facts of operations) {
    const operation = document.paths?.[facts.path]?.[facts.method as HttpMethod];
    if (!operation) throw new Error(`OpenAPI document: no operation for ${facts.method.toUpperCase()} ${facts.path}`);
    postProcessOperation(operation, facts);
    for (const requirement of operation.security ?? []) Object.keys(requirement).forEach((name) => usedSchemes.add(name));
  }

  const components = document.components ?? {};
  // The library's own error schemas (`error.BAD_REQUEST`, …) are replaced by our envelope.
  const schemas = Object.fromEntries(Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  document.components = {
    schemas: { ...schemas, Error: errorSchema },
    headers: { RetryAfter: retryAfterHeader },
    parameters: {
      ...(operations.some((facts) => facts.meta.idempotent) ? { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER } : {}),
      ...WEBHOOK_HEADER_PARAMETERS,
    },
    securitySchemes: Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => usedSchemes.has(name))),
  };
  document.webhooks = eventWebhooks();
  const tags = [...new Set(operations.flatMap((facts) => facts.meta.openapi?.tags ?? []))];
  document.tags = tags.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
  return document;
}

/**
 * Each event type as an OpenAPI webhook, so a client generated from the document types the
 * payloads too. Their schemas are the members of `Event`, already among the components.
 */
function eventWebhooks(): NonNullable<OpenAPIObject['webhooks']> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook-${type}`,
          summary: type,
          description: EVENT_SCHEMAS[type].meta()?.description,
          tags: ['Webhooks'],
          // Sent by the service to the merchant: authenticated by its signature, not a key.
          security: [],
          parameters: WEBHOOK_HEADERS.map((name) => ({ $ref: `#/components/parameters/${name}` })),
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(type)}` } } } },
          responses: { '200': { description: 'Any 2xx within 15 s counts as delivered; anything else is retried.' } },
        },
      },
    ]),
  );
}

const documents = new Map<string, OpenAPIObject>();

/** Built once per process (and base URL): generation walks every schema and costs milliseconds. */
export function getOpenApiDocument(baseUrl: string): OpenAPIObject {
  let document = documents.get(baseUrl);
  if (!document) {
    document = buildOpenApiDocument(baseUrl);
    documents.set(baseUrl, document);
  }
  return document;
}
