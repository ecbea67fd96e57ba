/**
 * The reference floor of `npm run bench`: the two benchmarked endpoints as a minimal
 * `node:http` + `postgres` program, with no framework, no validation library, no rate limits and
 * no ORM. It does the same SQL work as the service, in the fewest round trips we know:
 *
 * - POST /api/v1/checkout/sessions (price mode): key lookup by SHA-256 hash, price read, then the
 *   order, its line and the session in one statement (a CTE). 3 round trips. With an
 *   `Idempotency-Key` the same statement first claims the key (idempotency_keys' primary key is
 *   the unique index) and writes the rows only when it did: still 3 round trips.
 * - GET /api/v1/products?limit=10: key lookup, then the page (limit + 1 rows). 2 round trips.
 * - POST /api/v1/subscriptions (price mode) with an `Idempotency-Key`: key lookup, then the live
 *   idempotency key with its checkout beside the price read, then the key claim, the checkout
 *   and its audit line in one statement. 3 round trips; a replay answers from the lookup: 2.
 * - GET /api/v1/subscriptions/checkout/{id}: key lookup, then the checkout. 2 round trips.
 * - POST /api/v1/portal/sessions (`order_id`) with an `Idempotency-Key`: key lookup, then the live
 *   idempotency key with its session beside the order read, then the key claim, the session, its
 *   `portal.session.created` event and the event's deliveries in one statement. 3 round trips.
 *
 * and answers the same JSON (signed URL and derived client secret included). It exists to show
 * what the hardware allows, so the service's figures can be read as a ratio to it.
 *
 * Run by test/bench/run.ts: `DATABASE_URL=… PORT=… AUTH_SECRET=… tsx test/bench/floor.ts`, or with
 * `PGLITE_DIR=…` instead of DATABASE_URL on embedded PGlite (the service's data directory, once it
 * has stopped), with the same SQL through PGlite's `query`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { withPreparedStatements } from '@/db/pglite-statements';
import postgres from 'postgres';
import { clientSecretFor, clientSecretHash, signedLink } from '@/server/kit/links';
import { encryptPortalToken } from '@/server/portal/token';

const port = Number(process.env.PORT ?? 3999);
const secret = process.env.AUTH_SECRET ?? 'bench-floor-secret';
const baseUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;

/** A query as a tagged template, on PostgreSQL (DATABASE_URL) or on PGlite in PGLITE_DIR. */
type Query = <T extends object>(strings: TemplateStringsArray, ...values: unknown[]) => Promise<T[]>;
const postgresClient = process.env.DATABASE_URL ? postgres(process.env.DATABASE_URL, { max: 10, onnotice: () => {}, connection: { plan_cache_mode: 'force_generic_plan' } }) : undefined;
// Prepared statements on PGlite too, as postgres.js prepares them on PostgreSQL.
const pglite = postgresClient ? undefined : withPreparedStatements(await PGlite.create(process.env.PGLITE_DIR!));
const sql: Query = postgresClient
  ? (strings, ...values) => postgresClient(strings, ...(values as postgres.ParameterOrFragment<never>[])) as never
  : async <T extends object>(strings: TemplateStringsArray, ...values: unknown[]) =>
      (
        await pglite!.query<T>(
          strings.reduce((text, part, index) => `${text}$${index}${part}`),
          values,
        )
      ).rows;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function newId(prefix: string, livemode: boolean): string {
  let out = '';
  for (const byte of randomBytes(32)) {
    if (byte < 248) out += BASE62[byte % 62];
    if (out.length === 24) break;
  }
  return `${prefix}_${livemode ? 'live' : 'test'}_${out}`;
}

const epoch = (date: Date) => Math.floor(date.getTime() / 1000);
function amountDecimal(amount: number): string {
  return `${Math.trunc(amount / 100)}.${String(amount % 100).padStart(2, '0')}`;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

const fail = (res: ServerResponse, status: number, code: string) => send(res, status, { error: { type: 'invalid_request_error', code, message: code } });

interface Subject {
  store_id: string;
  livemode: boolean;
}

async function authenticate(req: IncomingMessage): Promise<Subject | undefined> {
  const header = req.headers.authorization ?? '';
  const key = header.startsWith('Bearer ') ? header.slice(7) : '';
  const hash = createHash('sha256').update(key).digest('hex');
  const [row] = await sql<Subject & { kind: string }>`
    select s.id as store_id, k.livemode, k.kind
    from api_keys k join stores s on s.id = k.store_id
    where k.key_hash = ${hash} and k.revoked_at is null
    limit 1`;
  return row && row.kind === 'secret' ? row : undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

async function createSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [body, subject] = await Promise.all([readBody(req), authenticate(req)]);
  if (!subject) return fail(res, 401, 'invalid_api_key');
  const input = JSON.parse(body) as { price_id?: string; quantity?: number };
  const priceId = input.price_id?.startsWith('price_') ? input.price_id : `price_${input.price_id}`;
  const quantity = input.quantity ?? 1;
  const [price] = await sql<{ id: string; name: string; amount: number; price_mode: string; price_active: boolean; has_license: boolean }>`
    select id, name, amount, price_mode, price_active, has_license from products
    where price_id = ${priceId} and store_id = ${subject.store_id} and livemode = ${subject.livemode}`;
  if (!price) return fail(res, 404, 'resource_missing');
  if (price.price_mode !== 'one_time') return fail(res, 400, 'price_mode_unsupported');
  if (!price.price_active) return fail(res, 400, 'price_inactive');

  const now = new Date();
  const expiresAt = new Date(now.getTime() + 24 * 3600 * 1000);
  const sessionId = newId('cs', subject.livemode);
  const orderId = newId('ord', subject.livemode);
  const total = price.amount * quantity;
  const secretHash = clientSecretHash(clientSecretFor(secret, sessionId));
  const key = req.headers['idempotency-key'];
  let session: { created_at: Date; expires_at: Date } | undefined;
  if (typeof key === 'string') {
    // The key claimed in the same statement: the rows are written only when the key row was.
    const requestHash = createHash('sha256').update(body).digest('hex');
    [session] = await sql<{ created_at: Date; expires_at: Date }>`
      with claimed as (
        insert into idempotency_keys (store_id, livemode, operation, key, request_hash, resource_id, created_at)
        values (${subject.store_id}, ${subject.livemode}, 'checkout_session.create', ${key}, ${requestHash}, ${sessionId}, ${now})
        on conflict do nothing
        returning key
      ), new_order as (
        insert into orders (id, store_id, livemode, status, customer_email, amount_subtotal, amount_tax, amount_total, created_at)
        select ${orderId}::text, ${subject.store_id}::text, ${subject.livemode}::boolean, 'pending', null, ${total}::integer, 0, ${total}::integer, ${now}::timestamptz
        from claimed
        returning id
      ), new_line as (
        insert into order_lines (id, order_id, position, product_id, price_id, description, quantity, unit_amount,
          amount_subtotal, amount_tax, amount_total, tax_rate, tax_inclusive, has_license)
        select ${`${orderId}_l0`}::text, id, 0, ${price.id}::text, ${priceId}::text, ${price.name}::text, ${quantity}::integer, ${price.amount}::integer,
          ${total}::integer, 0, ${total}::integer, null, false, ${price.has_license}::boolean
        from new_order
        returning id
      )
      insert into checkout_sessions (id, store_id, livemode, status, payment_status, client_secret_hash, order_id, mode, quantity,
        price_id, product_id, description, amount_subtotal, amount_tax, amount_total, customer_email, success_url, cancel_url,
        metadata, created_at, expires_at)
      select ${sessionId}::text, ${subject.store_id}::text, ${subject.livemode}::boolean, 'open', 'unpaid', ${secretHash}::text,
        id, 'price', ${quantity}::integer, ${priceId}::text, ${price.id}::text, null, ${total}::integer, 0, ${total}::integer, null, null, null,
        '{}'::json, ${now}::timestamptz, ${expiresAt}::timestamptz
      from new_order
      returning created_at, expires_at`;
    // The key was taken: the benchmark sends a fresh one each time, so this is a failure here.
    if (!session) return fail(res, 409, 'idempotency_key_reused');
  } else {
    [session] = await sql<{ created_at: Date; expires_at: Date }>`
      with new_order as (
        insert into orders (id, store_id, livemode, status, customer_email, amount_subtotal, amount_tax, amount_total, created_at)
        values (${orderId}, ${subject.store_id}, ${subject.livemode}, 'pending', null, ${total}, 0, ${total}, ${now})
        returning id
      ), new_line as (
        insert into order_lines (id, order_id, position, product_id, price_id, description, quantity, unit_amount,
          amount_subtotal, amount_tax, amount_total, tax_rate, tax_inclusive, has_license)
        values (${`${orderId}_l0`}, ${orderId}, 0, ${price.id}, ${priceId}, ${price.name}, ${quantity}, ${price.amount},
          ${total}, 0, ${total}, null, false, ${price.has_license})
        returning id
      )
      insert into checkout_sessions (id, store_id, livemode, status, payment_status, client_secret_hash, order_id, mode, quantity,
        price_id, product_id, description, amount_subtotal, amount_tax, amount_total, customer_email, success_url, cancel_url,
        metadata, created_at, expires_at)
      values (${sessionId}, ${subject.store_id}, ${subject.livemode}, 'open', 'unpaid', ${secretHash},
        ${orderId}, 'price', ${quantity}, ${priceId}, ${price.id}, null, ${total}, 0, ${total}, null, null, null,
        '{}', ${now}, ${expiresAt})
      returning created_at, expires_at`;
  }
  const expires = epoch(session!.expires_at);
  send(res, 201, {
    id: sessionId,
    object: 'checkout.session',
    url: signedLink(baseUrl, secret, 'checkout', sessionId, expires),
    client_secret: clientSecretFor(secret, sessionId),
    status: 'open',
    payment_status: 'unpaid',
    livemode: subject.livemode,
    currency: 'eur',
    amount_subtotal: total,
    amount_tax: 0,
    amount_total: total,
    quantity,
    price_id: priceId,
    product_id: price.id,
    description: null,
    order_id: orderId,
    customer_email: null,
    success_url: null,
    cancel_url: null,
    metadata: {},
    created: epoch(session!.created_at),
    expires_at: expires,
  });
}

/** SHA-256 of the body as the service hashes it (canonical JSON, keys sorted), so either one replays the other's key. */
function requestHashOf(body: string): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify(sorted(JSON.parse(body))))
    .digest('hex');
}

/** The idempotency key's row when it is live (24 hours), with the object it created. */
function liveKey<T extends object>(subject: Subject, operation: string, key: string, table: 'subscription_checkouts' | 'portal_sessions', now: Date) {
  const cutoff = new Date(now.getTime() - 24 * 3600 * 1000);
  return table === 'subscription_checkouts'
    ? sql<T & { request_hash: string }>`
        select k.request_hash, o.* from idempotency_keys k join subscription_checkouts o on o.id = k.resource_id
        where k.store_id = ${subject.store_id} and k.livemode = ${subject.livemode} and k.operation = ${operation} and k.key = ${key} and k.created_at >= ${cutoff}`
    : sql<T & { request_hash: string }>`
        select k.request_hash, o.* from idempotency_keys k join portal_sessions o on o.id = k.resource_id
        where k.store_id = ${subject.store_id} and k.livemode = ${subject.livemode} and k.operation = ${operation} and k.key = ${key} and k.created_at >= ${cutoff}`;
}

interface SubscriptionCheckoutRow {
  id: string;
  livemode: boolean;
  status: string;
  amount: number;
  interval: string;
  interval_count: number;
  total_payments: number;
  plan_name: string;
  price_id: string | null;
  product_id: string | null;
  customer_email: string;
  customer_name: string | null;
  success_url: string | null;
  metadata: Record<string, string>;
  subscription_id: string | null;
  created_at: Date;
  expires_at: Date;
}

function subscriptionCheckoutView(row: SubscriptionCheckoutRow) {
  const expires = epoch(row.expires_at);
  return {
    id: row.id,
    object: 'subscription.checkout',
    status: row.status,
    livemode: row.livemode,
    url: row.status === 'open' ? signedLink(baseUrl, secret, 'subscription_checkout', row.id, expires) : null,
    subscription: row.subscription_id,
    amount: row.amount,
    currency: 'eur',
    interval: row.interval,
    interval_count: row.interval_count,
    total_payments: row.total_payments,
    plan_name: row.plan_name,
    price_id: row.price_id,
    product_id: row.product_id,
    customer_email: row.customer_email,
    customer_name: row.customer_name,
    success_url: row.success_url,
    metadata: row.metadata,
    created: epoch(row.created_at),
    expires_at: expires,
  };
}

async function createSubscriptionCheckout(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [body, subject] = await Promise.all([readBody(req), authenticate(req)]);
  if (!subject) return fail(res, 401, 'invalid_api_key');
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string') return fail(res, 400, 'idempotency_key_required');
  const input = JSON.parse(body) as { price_id: string; total_payments: number; customer_email: string };
  const priceId = input.price_id.startsWith('price_') ? input.price_id : `price_${input.price_id}`;
  const now = new Date();
  const requestHash = requestHashOf(body);
  const [[existing], [price]] = await Promise.all([
    liveKey<SubscriptionCheckoutRow>(subject, 'subscription_checkout.create', key, 'subscription_checkouts', now),
    sql<{ id: string; name: string; amount: number; price_mode: string; price_active: boolean; price_interval: string; price_interval_count: number | null }>`
      select id, name, amount, price_mode, price_active, price_interval, price_interval_count from products
      where price_id = ${priceId} and store_id = ${subject.store_id} and livemode = ${subject.livemode}`,
  ]);
  if (existing) {
    if (existing.request_hash !== requestHash) return fail(res, 409, 'idempotency_key_reused');
    return send(res, 200, subscriptionCheckoutView(existing));
  }
  if (!price) return fail(res, 404, 'resource_missing');
  if (price.price_mode !== 'recurring') return fail(res, 400, 'price_mode_unsupported');
  if (!price.price_active) return fail(res, 400, 'price_inactive');
  const id = newId('subchk', subject.livemode);
  const expiresAt = new Date(now.getTime() + 24 * 3600 * 1000);
  const details = JSON.stringify({ subscription_checkout: id, price_id: priceId, amount: price.amount });
  const [row] = await sql<SubscriptionCheckoutRow>`
    with claimed as (
      insert into idempotency_keys (store_id, livemode, operation, key, request_hash, resource_id, created_at)
      values (${subject.store_id}, ${subject.livemode}, 'subscription_checkout.create', ${key}, ${requestHash}, ${id}, ${now})
      on conflict do nothing
      returning key
    ), new_audit as (
      insert into audit_events (action, store_id, livemode, ip, method, path, details)
      select 'subscription_checkout.create', ${subject.store_id}::text, ${subject.livemode}::boolean, ${req.socket.remoteAddress ?? 'unknown'}::text,
        'POST', '/api/v1/subscriptions', ${details}::json
      from claimed
    )
    insert into subscription_checkouts (id, store_id, livemode, status, amount, interval, interval_count, total_payments, plan_name,
      price_id, product_id, customer_email, customer_name, success_url, metadata, created_at, expires_at)
    select ${id}::text, ${subject.store_id}::text, ${subject.livemode}::boolean, 'open', ${price.amount}::integer, ${price.price_interval}::text,
      ${price.price_interval_count ?? 1}::integer, ${input.total_payments}::integer, ${price.name}::text, ${priceId}::text, ${price.id}::text,
      ${input.customer_email}::text, null, null, '{}'::json, ${now}::timestamptz, ${expiresAt}::timestamptz
    from claimed
    returning *`;
  // The key was taken meanwhile: the benchmark never races its keys, so this is a failure here.
  if (!row) return fail(res, 409, 'idempotency_key_reused');
  send(res, 201, subscriptionCheckoutView(row));
}

async function getSubscriptionCheckout(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
  const subject = await authenticate(req);
  if (!subject) return fail(res, 401, 'invalid_api_key');
  const [row] = await sql<SubscriptionCheckoutRow>`
    select * from subscription_checkouts where id = ${id} and store_id = ${subject.store_id} and livemode = ${subject.livemode}`;
  if (!row) return fail(res, 404, 'resource_missing');
  send(res, 200, subscriptionCheckoutView(row));
}

interface PortalSessionRow {
  id: string;
  livemode: boolean;
  scope: string;
  customer_id: string | null;
  order_id: string | null;
  subscription_id: string | null;
  metadata: Record<string, string>;
  access_count: number;
  created_at: Date;
  expires_at: Date;
}

function portalSessionView(row: PortalSessionRow, url?: string) {
  return {
    id: row.id,
    object: 'portal.session',
    status: 'active',
    scope: row.scope,
    livemode: row.livemode,
    customer_id: row.customer_id,
    order_id: row.order_id,
    subscription_id: row.subscription_id,
    ...(url === undefined ? {} : { url }),
    metadata: row.metadata,
    access_count: row.access_count,
    last_accessed_at: null,
    created: epoch(row.created_at),
    expires_at: epoch(row.expires_at),
  };
}

async function createPortalSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [body, subject] = await Promise.all([readBody(req), authenticate(req)]);
  if (!subject) return fail(res, 401, 'invalid_api_key');
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string') return fail(res, 400, 'idempotency_key_required');
  const input = JSON.parse(body) as { order_id: string };
  const now = new Date();
  const requestHash = requestHashOf(body);
  const [[existing], [order]] = await Promise.all([
    liveKey<PortalSessionRow>(subject, 'portal_session.create', key, 'portal_sessions', now),
    sql<{ id: string; customer_id: string | null; customer_deleted_at: Date | null }>`
      select o.id, o.customer_id, c.deleted_at as customer_deleted_at from orders o left join customers c on c.id = o.customer_id
      where o.id = ${input.order_id} and o.store_id = ${subject.store_id} and o.livemode = ${subject.livemode}`,
  ]);
  // The floor answers a replay without its url (the service decrypts the kept token).
  if (existing) return existing.request_hash === requestHash ? send(res, 200, portalSessionView(existing)) : fail(res, 409, 'idempotency_key_reused');
  if (!order || order.customer_deleted_at !== null) return fail(res, 404, 'resource_missing');
  const id = newId('portal', subject.livemode);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + 24 * 3600 * 1000);
  const session: PortalSessionRow = {
    id,
    livemode: subject.livemode,
    scope: 'order',
    customer_id: order.customer_id,
    order_id: order.id,
    subscription_id: null,
    metadata: {},
    access_count: 0,
    created_at: now,
    expires_at: expiresAt,
  };
  const eventId = newId('evt', subject.livemode);
  const payload = JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'portal.session.created',
    created: epoch(now),
    livemode: subject.livemode,
    sequence: 1,
    data: { object: portalSessionView(session) },
  });
  const [row] = await sql<PortalSessionRow>`
    with claimed as (
      insert into idempotency_keys (store_id, livemode, operation, key, request_hash, resource_id, created_at)
      values (${subject.store_id}, ${subject.livemode}, 'portal_session.create', ${key}, ${requestHash}, ${id}, ${now})
      on conflict do nothing
      returning key
    ), new_event as (
      insert into webhook_events (id, store_id, livemode, type, object_id, object_sequence, payload, created_at)
      select ${eventId}::text, ${subject.store_id}::text, ${subject.livemode}::boolean, 'portal.session.created', ${id}::text, 1, ${payload}::json, ${now}::timestamptz
      from claimed
      returning id, sequence
    ), new_deliveries as (
      insert into webhook_deliveries (id, event_id, endpoint_id, store_id, livemode, object_id, sequence, status, next_attempt_at, created_at)
      select 'whd_' || left(encode(sha256(convert_to(new_event.id || e.id, 'UTF8')), 'hex'), 24), new_event.id, e.id, ${subject.store_id}::text,
        ${subject.livemode}::boolean, ${id}::text, new_event.sequence, 'pending', ${now}::timestamptz, ${now}::timestamptz
      from new_event join webhook_endpoints e on e.store_id = ${subject.store_id} and e.livemode = ${subject.livemode} and e.deleted_at is null
        and (e.events is null or e.events::jsonb @> '["portal.session.created"]'::jsonb)
    ), new_audit as (
      insert into audit_events (action, store_id, livemode, ip, method, path, details)
      select 'portal_session.create', ${subject.store_id}::text, ${subject.livemode}::boolean, ${req.socket.remoteAddress ?? 'unknown'}::text,
        'POST', '/api/v1/portal/sessions', ${JSON.stringify({ portal_session: id, customer: order.customer_id, order: order.id })}::json
      from claimed
    )
    insert into portal_sessions (id, store_id, livemode, scope, customer_id, order_id, subscription_id, token_hash, token_ciphertext, metadata, created_at, expires_at)
    select ${id}::text, ${subject.store_id}::text, ${subject.livemode}::boolean, 'order', ${order.customer_id}::text, ${order.id}::text, null,
      ${createHash('sha256').update(token).digest('hex')}::text, ${encryptPortalToken({ authSecret: secret }, id, token)}::text, '{}'::json,
      ${now}::timestamptz, ${expiresAt}::timestamptz
    from claimed
    returning *`;
  if (!row) return fail(res, 409, 'idempotency_key_reused');
  send(res, 201, portalSessionView(row, `${baseUrl}/portal/${token}`));
}

interface ProductRow {
  id: string;
  livemode: boolean;
  name: string;
  description: string | null;
  sku: string;
  type: string;
  show_in_store: boolean;
  images: string[];
  amount: number;
  tax_rate: number | null;
  tax_inclusive: boolean;
  has_license: boolean;
  file_url: string | null;
  license_duration: string | null;
  price_id: string;
  price_mode: string;
  price_interval: string | null;
  price_interval_count: number | null;
  price_active: boolean;
  price_created_at: Date;
  price_updated_at: Date;
  created_at: Date;
  updated_at: Date;
}

function productView(row: ProductRow) {
  return {
    id: row.id,
    object: 'product',
    livemode: row.livemode,
    name: row.name,
    description: row.description,
    sku: row.sku,
    type: row.type,
    show_in_store: row.show_in_store,
    images: row.images,
    amount: row.amount,
    amount_decimal: amountDecimal(row.amount),
    currency: 'eur',
    tax_rate: row.tax_rate,
    tax_inclusive: row.tax_inclusive,
    has_license: row.has_license,
    has_file: row.file_url !== null,
    license_duration: row.license_duration,
    price_id: row.price_id,
    price: {
      id: row.price_id,
      object: 'price',
      amount: row.amount,
      amount_decimal: amountDecimal(row.amount),
      currency: 'eur',
      mode: row.price_mode,
      interval: row.price_interval,
      interval_count: row.price_interval_count,
      active: row.price_active,
      created: epoch(row.price_created_at),
      updated: epoch(row.price_updated_at),
    },
    created: epoch(row.created_at),
    updated: epoch(row.updated_at),
  };
}

async function listProducts(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const subject = await authenticate(req);
  if (!subject) return fail(res, 401, 'invalid_api_key');
  const limit = Number(url.searchParams.get('limit') ?? 10);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(res, 400, 'parameter_invalid');
  const rows = await sql<ProductRow>`
    select * from products where store_id = ${subject.store_id} and livemode = ${subject.livemode}
    order by created_at desc nulls last, id desc nulls last
    limit ${limit + 1}`;
  send(res, 200, {
    object: 'list',
    data: rows.slice(0, limit).map(productView),
    has_more: rows.length > limit,
    url: '/api/v1/products',
    livemode: subject.livemode,
  });
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  const checkoutId = /^\/api\/v1\/subscriptions\/checkout\/([^/]+)$/.exec(url.pathname)?.[1];
  const route =
    req.method === 'POST' && url.pathname === '/api/v1/checkout/sessions'
      ? createSession(req, res)
      : req.method === 'GET' && url.pathname === '/api/v1/products'
        ? listProducts(req, res, url)
        : req.method === 'POST' && url.pathname === '/api/v1/subscriptions'
          ? createSubscriptionCheckout(req, res)
          : req.method === 'GET' && checkoutId !== undefined
            ? getSubscriptionCheckout(req, res, checkoutId)
            : req.method === 'POST' && url.pathname === '/api/v1/portal/sessions'
              ? createPortalSession(req, res)
              : Promise.resolve(fail(res, 404, 'resource_missing'));
  route.catch((error: unknown) => {
    console.error(error);
    if (!res.headersSent) fail(res, 500, 'internal_error');
  });
});

server.listen(port, '127.0.0.1', () => console.log(`floor ready on http://127.0.0.1:${port}`));

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void (postgresClient ? postgresClient.end({ timeout: 2 }) : pglite!.close()).then(() => process.exit(0));
});
