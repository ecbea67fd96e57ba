/**
 * `npm run bench`: webhook delivery throughput on PostgreSQL. A store with 100 endpoints, events
 * of distinct objects fanned out to each of them, and one delivery pass (server/webhooks/delivery.ts,
 * as the background job runs it) sending them to local receivers:
 *
 * 1. every endpoint on a receiver that answers at once,
 * 2. every endpoint on a receiver that takes 200 ms,
 * 3. 99 endpoints on the quick receiver and one on the slow one: the quick endpoints' rate,
 *    which the slow one must not lower (compared with 1).
 *
 * Each delivery must arrive exactly once (by endpoint and `webhook-id`) and end `succeeded`.
 * BENCH_WEBHOOK_EVENTS (default 20) sets the events per scenario.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, count, eq } from 'drizzle-orm';
import postgres from 'postgres';
import { openMigratedDatabase, type Database } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema';
import { systemClock } from '@/server/clock';
import { newId, randomBase62 } from '@/server/ids';
import { deliverDueWebhooks } from '@/server/webhooks/delivery';
import { recordEvent } from '@/server/webhooks/events';
import { createStore } from '../support/factories';

const ENDPOINTS = 100;
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20);
const SLOW_MS = 200;

/** A receiver counting what it got per endpoint path and `webhook-id`; the time of its last arrival per path. */
async function startReceiver(delayMs: number) {
  const received = new Map<string, number>();
  const lastAt = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = `${req.url} ${String(req.headers['webhook-id'])}`;
      received.set(id, (received.get(id) ?? 0) + 1);
      const answer = () => {
        lastAt.set(req.url!, performance.now());
        res.writeHead(200).end();
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    lastAt,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A store whose endpoints point at the given receivers, and EVENTS events fanned out to all of them. */
async function prepareStore(db: Database, receivers: Receiver[]): Promise<{ storeId: string; paths: string[] }> {
  const store = await createStore({ db });
  const now = new Date();
  const paths = receivers.map((receiver, index) => `${receiver.origin}/endpoint/${index}`);
  await db.insert(webhookEndpoints).values(paths.map((url) => ({ id: newId('we', false), storeId: store.id, livemode: false, url, createdAt: now })));
  for (let i = 0; i < EVENTS; i++) {
    await db.transaction((tx) =>
      recordEvent(tx, { storeId: store.id, livemode: false, type: 'product.created', object: { id: `prod_bench_${randomBase62(12)}`, object: 'product' }, now, wallNow: now }),
    );
  }
  return { storeId: store.id, paths };
}

async function deliverAll(db: Database, storeId: string): Promise<number> {
  const started = performance.now();
  await deliverDueWebhooks({ db, clock: systemClock, config: { authSecret: 'bench-webhooks-secret', webhooksAllowPrivate: true } });
  const seconds = (performance.now() - started) / 1000;
  const [left] = await db
    .select({ total: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.storeId, storeId), eq(webhookDeliveries.status, 'succeeded')));
  if (left!.total !== ENDPOINTS * EVENTS) throw new Error(`webhook bench: ${left!.total} of ${ENDPOINTS * EVENTS} deliveries succeeded`);
  return seconds;
}

/** Every delivery arrived once, none twice. */
function checkOnce(receivers: Receiver[], expected: number): void {
  const all = receivers.flatMap((receiver) => [...receiver.received.values()]);
  const total = all.reduce((sum, times) => sum + times, 0);
  if (total !== expected || all.some((times) => times !== 1)) throw new Error(`webhook bench: ${total} arrivals for ${expected} deliveries, or a duplicate`);
}

/** Runs on its own database `bench_webhooks_<random>`, dropped afterwards; false when a check failed. */
export async function printWebhookDelivery(serverUrl: string): Promise<boolean> {
  const name = `bench_webhooks_${randomBase62(10).toLowerCase()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openMigratedDatabase({ url: url.toString(), poolSize: 10 });
  const receivers: Receiver[] = [];
  try {
    const { db } = handle;
    const scenario = async (delays: number[]) => {
      const own = await Promise.all(delays.map((delay) => startReceiver(delay)));
      receivers.push(...own);
      const { storeId, paths } = await prepareStore(db, own);
      const started = performance.now();
      const seconds = await deliverAll(db, storeId);
      checkOnce(own, ENDPOINTS * EVENTS);
      // When each quick endpoint had its last delivery, from the start of the pass.
      const quickSeconds = Math.max(...paths.map((path, index) => (delays[index] === 0 ? own[index]!.lastAt.get(new URL(path).pathname)! - started : 0))) / 1000;
      return { rate: (ENDPOINTS * EVENTS) / seconds, quickRate: (delays.filter((delay) => delay === 0).length * EVENTS) / quickSeconds };
    };
    const quick = await scenario(Array.from({ length: ENDPOINTS }, () => 0));
    const slow = await scenario(Array.from({ length: ENDPOINTS }, () => SLOW_MS));
    const mixed = await scenario(Array.from({ length: ENDPOINTS }, (_, index) => (index === 0 ? SLOW_MS : 0)));
    console.log(
      `\nWebhook delivery on PostgreSQL (one delivery pass, ${ENDPOINTS} endpoints, ${EVENTS} events each, every delivery arrived exactly once): ` +
        `${quick.rate.toFixed(0)} deliveries/s to a receiver answering at once; ${slow.rate.toFixed(0)} deliveries/s to one taking ${SLOW_MS} ms; ` +
        `with one of the ${ENDPOINTS} endpoints on the slow receiver, the other ${ENDPOINTS - 1} got ${mixed.quickRate.toFixed(0)} deliveries/s ` +
        `(${(mixed.quickRate / quick.rate).toFixed(2)}× their rate without it).`,
    );
    return true;
  } catch (error) {
    console.log(`\nWebhook delivery bench failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  } finally {
    for (const receiver of receivers) await receiver.close();
    await handle.close();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end({ timeout: 5 });
  }
}
