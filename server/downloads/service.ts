/**
 * Delivery of a product's file (`product:attach-file`) to the customer who paid for it: the receipt
 * and the portal show a signed link per order line, valid for a day on the store's clock; the link
 * streams the file through the service, so `file_url` itself never reaches the customer. Each
 * download is recorded and counted on its line, up to DOWNLOAD_LIMIT per line. An order refunded
 * in full, or whose dispute was lost, has no links, and its old links stop working.
 */
import { extname } from 'node:path';
import { and, asc, eq, inArray, isNotNull, lt, not, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { disputes, fileDownloads, orderLines, orders, products, stores, type OrderStatus } from '@/db/schema';
import { epochSeconds, storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { newId } from '../ids';
import { noticeResponse } from '../kit/hosted-page/invalid-link';
import { checkLink, signedLink, signingSecret } from '../kit/links';
import { ownedBy, type Scope } from '../kit/scope';
import { log } from '../observability/log';

/** How long a link works after the page showing it was rendered. */
export const DOWNLOAD_LINK_SECONDS = 24 * 60 * 60;
/** How long the file's host has to start answering. */
const FETCH_TIMEOUT_MS = 15_000;

/** Orders whose files are delivered: paid, or refunded in part (a full refund takes the purchase back). */
const DELIVERED: readonly OrderStatus[] = ['paid', 'partially_refunded'];

/** A lost dispute takes the purchase back as a full refund does: the card network reversed the payment. Needs the order's dispute joined. */
const reversedByDispute = sql<boolean>`coalesce(${disputes.status} = 'lost', false)`;

export interface DownloadLink {
  description: string;
  /** Downloads served so far, of at most `downloadLimit`. */
  downloadCount: number;
  downloadLimit: number;
  /** Null once the line's downloads reached DOWNLOAD_LIMIT. */
  url: string | null;
}

interface DownloadDeps {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'authSecret' | 'publicBaseUrl' | 'downloadLimit'>;
}

/**
 * The download links of some orders of one store and environment, by order id, in line order;
 * `testClockOffsetSeconds` is the store's, which dates the links' expiry in test mode.
 */
export async function downloadLinks(
  deps: DownloadDeps,
  store: { livemode: boolean; testClockOffsetSeconds: number },
  which: { id: string; status: OrderStatus }[],
): Promise<Map<string, DownloadLink[]>> {
  const links = new Map<string, DownloadLink[]>();
  const ids = which.filter((order) => DELIVERED.includes(order.status)).map((order) => order.id);
  if (ids.length === 0) return links;
  const lines = await deps.db
    .select({ id: orderLines.id, orderId: orderLines.orderId, description: orderLines.description, downloadCount: orderLines.downloadCount })
    .from(orderLines)
    .innerJoin(products, eq(products.id, orderLines.productId))
    .leftJoin(disputes, eq(disputes.orderId, orderLines.orderId))
    .where(and(inArray(orderLines.orderId, ids), isNotNull(products.fileUrl), not(reversedByDispute)))
    .orderBy(asc(orderLines.orderId), asc(orderLines.position));
  const expires = epochSeconds(storeClock(deps.clock, store).now()) + DOWNLOAD_LINK_SECONDS;
  const secret = signingSecret(deps.config);
  for (const line of lines) {
    const url = line.downloadCount < deps.config.downloadLimit ? signedLink(deps.config.publicBaseUrl, secret, 'download', line.id, expires) : null;
    links.set(line.orderId, [...(links.get(line.orderId) ?? []), { description: line.description, downloadCount: line.downloadCount, downloadLimit: deps.config.downloadLimit, url }]);
  }
  return links;
}

const NOTICES = {
  invalid: { site: 'Download', title: 'This download link is not valid', paragraphs: ['The link may have been copied incompletely or changed.'] },
  expired: {
    site: 'Download',
    title: 'This download link has expired',
    paragraphs: ['Download links work for a day. Open your receipt or your payment history again for a new one.'],
  },
  revoked: { site: 'Download', title: 'This download is no longer available', paragraphs: ['The order was refunded or its payment reversed, so its files are no longer delivered.'] },
  exhausted: (limit: number) => ({
    site: 'Download',
    title: 'This file’s download limit is reached',
    paragraphs: [`A purchase includes ${limit} downloads of each file, and all of them have been used. Please contact the store if you need the file again.`],
  }),
  unavailable: { site: 'Download', title: 'The file cannot be fetched right now', paragraphs: ['Nothing is wrong with your link. Please try again in a few minutes.'] },
};

/** The file's name as the browser saves it: the line's description, with the file's extension, in safe characters. */
function downloadName(description: string, fileUrl: string): { ascii: string; encoded: string } {
  const extension = extname(new URL(fileUrl).pathname).slice(0, 10);
  const name = `${description.trim().slice(0, 100) || 'download'}${/^\.[A-Za-z0-9]+$/.test(extension) ? extension : ''}`;
  return { ascii: name.replace(/[^A-Za-z0-9 ._-]/g, '_'), encoded: encodeURIComponent(name) };
}

/**
 * `GET /download/{line id}?expires&signature`: the order line's file, streamed from its host. A link
 * that does not verify is 404, one past its time 410, as is any link of an order refunded in full
 * or lost in a dispute; a download beyond the line's DOWNLOAD_LIMIT is 403; a host that fails is
 * 502 and counts no download.
 */
export async function serveDownload(deps: DownloadDeps, lineId: string, link: { expires: string | undefined; signature: string | undefined }): Promise<Response> {
  const [line] = await deps.db
    .select({
      id: orderLines.id,
      description: orderLines.description,
      status: orders.status,
      reversed: reversedByDispute,
      storeId: orders.storeId,
      livemode: orders.livemode,
      fileUrl: products.fileUrl,
      downloadCount: orderLines.downloadCount,
      testClockOffsetSeconds: stores.testClockOffsetSeconds,
    })
    .from(orderLines)
    .innerJoin(orders, eq(orders.id, orderLines.orderId))
    .innerJoin(stores, eq(stores.id, orders.storeId))
    .leftJoin(products, eq(products.id, orderLines.productId))
    .leftJoin(disputes, eq(disputes.orderId, orders.id))
    .where(eq(orderLines.id, lineId))
    .limit(1);
  const now = line ? storeClock(deps.clock, line).now() : deps.clock.now();
  const checked = checkLink(signingSecret(deps.config), 'download', lineId, link.expires, link.signature, epochSeconds(now));
  if (!line || checked === 'invalid') return noticeResponse(NOTICES.invalid, 404);
  if (checked === 'expired') return noticeResponse(NOTICES.expired, 410);
  if (!DELIVERED.includes(line.status) || line.reversed || line.fileUrl === null) return noticeResponse(NOTICES.revoked, 410);
  const limit = deps.config.downloadLimit;
  if (line.downloadCount >= limit) return noticeResponse(NOTICES.exhausted(limit), 403);

  let file: globalThis.Response;
  try {
    file = await fetch(line.fileUrl, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    // The line, never the URL: it is the operator's secret.
    log.warn({ orderLine: line.id, reason: error instanceof Error ? error.name : 'unknown' }, 'delivery file could not be fetched');
    return noticeResponse(NOTICES.unavailable, 502);
  }
  if (!file.ok || !file.body) {
    await file.body?.cancel();
    log.warn({ orderLine: line.id, status: file.status }, 'delivery file host answered with an error');
    return noticeResponse(NOTICES.unavailable, 502);
  }
  // Counted only below the limit, in one conditional statement: downloads at once never pass it.
  const counted = await deps.db.transaction(async (tx) => {
    const [raised] = await tx
      .update(orderLines)
      .set({ downloadCount: sql`${orderLines.downloadCount} + 1` })
      .where(and(eq(orderLines.id, line.id), lt(orderLines.downloadCount, limit)))
      .returning({ id: orderLines.id });
    if (raised) await tx.insert(fileDownloads).values({ id: newId('dl', line.livemode), storeId: line.storeId, livemode: line.livemode, orderLineId: line.id, createdAt: now });
    return raised !== undefined;
  });
  if (!counted) {
    await file.body.cancel();
    return noticeResponse(NOTICES.exhausted(limit), 403);
  }
  const name = downloadName(line.description, line.fileUrl);
  const headers: Record<string, string> = {
    'content-type': file.headers.get('content-type') ?? 'application/octet-stream',
    'content-disposition': `attachment; filename="${name.ascii}"; filename*=UTF-8''${name.encoded}`,
    'cache-control': 'private, no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-robots-tag': 'noindex, noarchive',
  };
  const length = file.headers.get('content-length');
  if (length !== null && /^\d+$/.test(length)) headers['content-length'] = length;
  return new Response(file.body, { status: 200, headers });
}

/** How often the files of an order of the scope were downloaded. */
export async function countDownloads(db: Database, scope: Scope, orderId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`coalesce(sum(${orderLines.downloadCount}), 0)::int` })
    .from(orderLines)
    .innerJoin(orders, eq(orders.id, orderLines.orderId))
    .where(and(eq(orderLines.orderId, orderId), ownedBy(orders, scope)));
  return row?.count ?? 0;
}
