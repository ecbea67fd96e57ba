import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileDownloads, type OrderStatus } from '@/db/schema';
import { countDownloads, downloadLinks, serveDownload } from '@/server/downloads/service';
import { openPortal } from '@/server/portal/page';
import { attachFile } from '@/server/products/operator-service';
import { epoch, insertOrder, T0 } from '../orders/fixtures';
import { createdPortal, tokenOf } from '../portal/support';
import { serveFetchHandler, useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

/**
 * A product's delivery file reaching the customer who paid: signed links on the receipt and in
 * the portal, each download streamed through the service from the file's host (a local HTTP
 * server here, which counts what it was asked), recorded, and refused once the order is refunded
 * in full. The host's address never reaches the customer.
 */
const ORIGIN = 'https://pay.example.test';
/** DOWNLOAD_LIMIT, small enough to reach. */
const LIMIT = 4;
const api = useTestApi({ publicBaseUrl: ORIGIN, downloadLimit: LIMIT });
const store = useTestStore(api);
const FILE = Buffer.from('%PDF-1.7 field guide bytes\n'.repeat(200));
const DAY = 86_400;

let host: Server;
let hostUrl = '';
const hits: string[] = [];
let service: { baseUrl: string; close(): Promise<void> };
let guide: { id: string; price_id: string };
let stickers: { id: string; price_id: string };
let broken: { id: string; price_id: string };

beforeAll(async () => {
  host = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/files/guide-v3.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(FILE.length), 'x-host-secret': 'internal' });
      res.end(FILE);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('no such file');
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  service = await serveFetchHandler(async (request) => {
    const url = new URL(request.url);
    const id = decodeURIComponent(url.pathname.replace(/^\/download\//, ''));
    return serveDownload(api.services, id, { expires: url.searchParams.get('expires') ?? undefined, signature: url.searchParams.get('signature') ?? undefined });
  });
  const product = async (name: string) => (await api.request('POST', '/api/v1/products', { key: store.key, body: { name, amount: 1500 } })).body;
  guide = await product('Field guide');
  stickers = await product('Stickers');
  broken = await product('Lost album');
  const deps = { db: api.services.db, clock: api.clock };
  await attachFile(deps, guide.id, `${hostUrl}/files/guide-v3.pdf`);
  await attachFile(deps, broken.id, `${hostUrl}/files/gone.zip`);
});

afterAll(async () => {
  await service.close();
  await new Promise((resolve) => host.close(resolve));
});

function paidOrder(email: string, lines = [guide, stickers]) {
  return insertOrder(api, store, {
    customerEmail: email,
    lines: lines.map((product) => ({
      productId: product.id,
      priceId: product.price_id,
      description: product === guide ? 'Field guide' : product === broken ? 'Lost album' : 'Stickers',
      unitAmount: 1500,
    })),
  });
}

async function linksOf(order: { id: string }, status: OrderStatus = 'paid') {
  return (await downloadLinks(api.services, { livemode: false, testClockOffsetSeconds: 0 }, [{ id: order.id, status }])).get(order.id) ?? [];
}

/** The link as a browser follows it, against the test's server instead of PUBLIC_BASE_URL. */
function download(link: string) {
  const url = new URL(link);
  return fetch(`${service.baseUrl}${url.pathname}${url.search}`, { redirect: 'manual' });
}

const countOf = (order: { id: string }) => countDownloads(api.services.db, { storeId: store.id, livemode: false }, order.id);

describe('the links', () => {
  it('one per line whose product has a file, signed for a day on the store’s clock; none for an unpaid or fully refunded order', async () => {
    const order = await paidOrder('links@example.com');
    const links = await linksOf(order);
    expect(links).toEqual([
      {
        description: 'Field guide',
        downloadCount: 0,
        downloadLimit: LIMIT,
        url: expect.stringMatching(new RegExp(`^${ORIGIN}/download/${order.lines[0]!.id}\\?expires=${epoch(T0) + DAY}&signature=[A-Za-z0-9_-]{43}$`)),
      },
    ]);
    expect(JSON.stringify(links)).not.toContain(hostUrl);
    expect(await linksOf(order, 'partially_refunded')).toHaveLength(1);
    expect(await linksOf(order, 'refunded')).toEqual([]);
    const pending = await insertOrder(api, store, { status: 'pending', lines: [{ productId: guide.id, priceId: guide.price_id }] });
    expect(await linksOf(pending, 'pending')).toEqual([]);
  });

  it('the portal shows them on the order, with a count that follows the downloads', async () => {
    const order = await paidOrder('portal@example.com');
    const session = await createdPortal(api, store.key, { order_id: order.id });
    const page = await openPortal(api.services, tokenOf(session.url));
    expect(page!.orders[0]!.downloads).toEqual(await linksOf(order));
    expect(page!.orders[0]!.downloads).toMatchObject([{ description: 'Field guide', downloadCount: 0 }]);
    expect((await download(page!.orders[0]!.downloads[0]!.url!)).status).toBe(200);
    const again = await openPortal(api.services, tokenOf(session.url));
    expect(again!.orders[0]!.downloads).toMatchObject([{ description: 'Field guide', downloadCount: 1, downloadLimit: LIMIT, url: expect.any(String) }]);
  });
});

describe('download_count on the order line', () => {
  it('lines of a product with a file carry it in GET /orders/{id}, the list and order events; other lines do not; each served download counts', async () => {
    const order = await paidOrder('count@example.com');
    const lines = async () => (await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key })).body.lines;
    expect((await lines())[0]).toMatchObject({ description: 'Field guide', download_count: 0 });
    expect((await lines())[1]).not.toHaveProperty('download_count');
    const [link] = await linksOf(order);
    expect((await download(link!.url!)).status).toBe(200);
    expect((await download(link!.url!)).status).toBe(200);
    expect((await lines())[0].download_count).toBe(2);
    expect((await lines())[1]).not.toHaveProperty('download_count');
    const listed = await api.request('GET', '/api/v1/orders?customer_email=count@example.com', { key: store.key });
    expect(listed.body.data[0].lines.map((line: { download_count?: number }) => line.download_count)).toEqual([2, undefined]);
    expect(await countOf(order)).toBe(2);
    // An order event carries the count as it was then.
    expect((await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id } })).status).toBe(201);
    const event = (await api.request('GET', `/api/v1/events?type=order.refunded&object_id=${order.id}&limit=1`, { key: store.key })).body.data[0];
    expect(event.data.object.lines.map((line: { download_count?: number }) => line.download_count)).toEqual([2, undefined]);
  });
});

describe('GET /download/{line}', () => {
  it('streams the file under the line’s name, never naming its host, and records each download', async () => {
    const order = await paidOrder('stream@example.com');
    const [link] = await linksOf(order);
    const before = hits.length;
    const response = await download(link!.url!);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(FILE)).toBe(true);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(FILE.length),
      'content-disposition': `attachment; filename="Field guide.pdf"; filename*=UTF-8''Field%20guide.pdf`,
      'cache-control': 'private, no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-robots-tag': 'noindex, noarchive',
    });
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('x-host-secret')).toBeNull();
    expect([...response.headers.values()].join(' ')).not.toContain('127.0.0.1');
    expect(hits.slice(before)).toEqual(['/files/guide-v3.pdf']);
    expect(await countOf(order)).toBe(1);

    expect((await download(link!.url!)).status).toBe(200);
    expect(await countOf(order)).toBe(2);
    const rows = await api.services.db.select().from(fileDownloads).where(eq(fileDownloads.orderLineId, order.lines[0]!.id));
    expect(rows.map((row) => ({ id: row.id.slice(0, 8), storeId: row.storeId, livemode: row.livemode, createdAt: row.createdAt }))).toEqual([
      { id: 'dl_test_', storeId: store.id, livemode: false, createdAt: T0 },
      { id: 'dl_test_', storeId: store.id, livemode: false, createdAt: T0 },
    ]);
  });

  it('a changed signature, expiry or line, or no query: 404, and the host is never asked', async () => {
    const order = await paidOrder('tamper@example.com');
    const other = await paidOrder('tamper-other@example.com');
    const url = new URL((await linksOf(order))[0]!.url!);
    const signature = url.searchParams.get('signature')!;
    const expires = url.searchParams.get('expires')!;
    const before = hits.length;
    for (const changed of [
      `/download/${order.lines[0]!.id}?expires=${expires}&signature=${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`,
      `/download/${order.lines[0]!.id}?expires=${Number(expires) + 1}&signature=${signature}`,
      `/download/${other.lines[0]!.id}?expires=${expires}&signature=${signature}`,
      `/download/${order.lines[1]!.id}?expires=${expires}&signature=${signature}`,
      `/download/${order.lines[0]!.id}`,
    ]) {
      const response = await download(`${ORIGIN}${changed}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('This download link is not valid');
    }
    expect(hits.length).toBe(before);
    expect(await countOf(order)).toBe(0);
  });

  it('past its day: 410, a new link from the receipt or portal works', async () => {
    const order = await paidOrder('late@example.com');
    const [old] = await linksOf(order);
    api.clock.advance(DAY);
    const expired = await download(old!.url!);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('This download link has expired');
    expect((await download((await linksOf(order))[0]!.url!)).status).toBe(200);
  });

  it('revoked with the order’s full refund: a link handed out before answers 410; a partial refund keeps it', async () => {
    const order = await paidOrder('refund@example.com', [guide]);
    const [link] = await linksOf(order);
    expect((await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id, amount: 500 } })).status).toBe(201);
    expect((await download(link!.url!)).status).toBe(200);
    expect((await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id } })).status).toBe(201);
    const before = hits.length;
    const revoked = await download(link!.url!);
    expect(revoked.status).toBe(410);
    expect(await revoked.text()).toContain('This download is no longer available');
    expect(hits.length).toBe(before);
    expect(await countOf(order)).toBe(1);
  });

  it(`at most DOWNLOAD_LIMIT (${LIMIT}) per line, also when asked at once: the rest are refused with 403 and a page that says so, and the links go`, async () => {
    const order = await paidOrder('limit@example.com', [guide]);
    const [link] = await linksOf(order);
    const answers = await Promise.all(Array.from({ length: LIMIT + 3 }, () => download(link!.url!)));
    const statuses = answers.map((answer) => answer.status).sort();
    await Promise.all(answers.map((answer) => answer.arrayBuffer()));
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 403, 403, 403]);
    expect(await countOf(order)).toBe(LIMIT);
    expect(await api.services.db.$count(fileDownloads, eq(fileDownloads.orderLineId, order.lines[0]!.id))).toBe(LIMIT);

    const before = hits.length;
    const refused = await download(link!.url!);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const text = await refused.text();
    expect(text).toContain('This file’s download limit is reached');
    expect(text).toContain(`A purchase includes ${LIMIT} downloads of each file`);
    expect(hits.length).toBe(before);
    expect(await linksOf(order)).toEqual([{ description: 'Field guide', downloadCount: LIMIT, downloadLimit: LIMIT, url: null }]);
    expect((await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key })).body.lines[0].download_count).toBe(LIMIT);
  });

  it('a host that fails: 502, nothing recorded, nothing of the host in the answer', async () => {
    const order = await paidOrder('broken@example.com', [broken]);
    const [link] = await linksOf(order);
    const response = await download(link!.url!);
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).toContain('The file cannot be fetched right now');
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('gone.zip');
    expect(await countOf(order)).toBe(0);
  });
});
