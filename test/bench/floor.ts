/**
 * The reference floor of `npm run bench`: the two benchmarked endpoints as a minimal
 * `node:http` + `postgres` program, with no framework, no validation library, no rate limits and
 * no ORM. It does the same SQL work as the service, in the fewest round trips we know:
 *
 * - POST /api/v1/checkout/sessions (price mode): key lookup by SHA-256 hash, price read, then the
 *   order, its line and the session in one statement (a CTE). 3 round trips.
 * - GET /api/v1/products?limit=10: key lookup, then the page (limit + 1 rows). 2 round trips.
 *
 * and answers the same JSON (signed URL and derived client secret included). It exists to show
 * what the hardware allows, so the service's figures can be read as a ratio to it.
 *
 * Run by test/bench/run.ts: `DATABASE_URL=… PORT=… AUTH_SECRET=… tsx test/bench/floor.ts`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { clientSecretFor, clientSecretHash, signedLink } from '@/server/kit/links';

const port = Number(process.env.PORT ?? 3999);
const secret = process.env.AUTH_SECRET ?? 'bench-floor-secret';
const baseUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
const sql = postgres(process.env.DATABASE_URL!, {
  max: 10,
  onnotice: () => {},
  connection: { plan_cache_mode: 'force_generic_plan' },
});

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
  const [row] = await sql<(Subject & { kind: string })[]>`
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
  const [price] = await sql<{ id: string; name: string; amount: number; price_mode: string; price_active: boolean; has_license: boolean }[]>`
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
  const [session] = await sql<{ created_at: Date; expires_at: Date }[]>`
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
    values (${sessionId}, ${subject.store_id}, ${subject.livemode}, 'open', 'unpaid', ${clientSecretHash(clientSecretFor(secret, sessionId))},
      ${orderId}, 'price', ${quantity}, ${priceId}, ${price.id}, null, ${total}, 0, ${total}, null, null, null,
      ${sql.json({})}, ${now}, ${expiresAt})
    returning created_at, expires_at`;
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
  const rows = await sql<ProductRow[]>`
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
  const route =
    req.method === 'POST' && url.pathname === '/api/v1/checkout/sessions'
      ? createSession(req, res)
      : req.method === 'GET' && url.pathname === '/api/v1/products'
        ? listProducts(req, res, url)
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
  void sql.end({ timeout: 2 }).then(() => process.exit(0));
});
