import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '@/db/client';
import { verifyLedger } from '@/server/balance/verify';
import { randomBase62 } from '@/server/ids';
import { DISPUTE_CARDS } from '../disputes/support';
import { CARDS, PLAN } from '../subscriptions/support';
import { uniqueSku } from '../support/factories';
import {
  adminClient,
  callService,
  freePort,
  groupAlive,
  START_TIMEOUT_MS,
  startService,
  startWorker,
  stopService,
  stopWorker,
  serviceEnv,
  type Service,
  type WorkerProcess,
} from '../support/production-server';
import { startReceiver, type Receiver } from '../webhooks/support';

/**
 * Several processes on one PostgreSQL act as one service: three `npm start` instances with
 * BACKGROUND_WORK=false and two `npm run worker` processes, while customers pay, merchants refund
 * and ask for payouts, and the test clock bills renewals and makes weekly payouts through all of
 * them, and a random one of the five is killed with SIGKILL (its whole process group) every few
 * seconds and started again. Some payments use a card test mode disputes at once. Then: every
 * acknowledged payment is recorded once (and disputed in full when paid with a dispute card), the
 * gateway (the simulator's ledger) took no charge and no refund twice, one Idempotency-Key made
 * one payout at most, the ledger follows from the documents (no entry paid out twice), every event
 * reached its endpoint, the rate limits were counted once for all instances, and no row is left
 * leased.
 *
 * On the PostgreSQL server DATABASE_URL names, in a database of its own: PGlite is one process,
 * so the suite's PGlite run leaves this file out (vitest.config.ts). Seeded (CHAOS_SEED);
 * CHAOS_SECONDS long (20 s here, `npm run chaos` for more).
 */
const SERVER_URL = process.env.DATABASE_URL!;
const SEED = Number(process.env.CHAOS_SEED ?? 20261126);
const CHAOS_MS = Number(process.env.CHAOS_SECONDS ?? 20) * 1000;
const KILL_EVERY_MS = 2_000;
/** Short leases: a killed holder's rows are free again within seconds. */
const LEASE_MS = 3_000;
const AUTH_SECRET = 'chaos-e2e-auth-secret-0123456789abcdef';
const ADMIN_TOKEN = 'chaos-e2e-admin-token';
/** Product writes one key may make in a window, counted across all instances. */
const PRODUCT_WRITES = 6;
const THANKS = 'https://merchant.example/thanks';

/** mulberry32: the same kills and operations for the same seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

type Member = { kind: 'web'; port: number; process?: Service } | { kind: 'worker'; process?: WorkerProcess };

const dataDirs: string[] = [];
/** Every process group this file started, killed or not. */
const spawned: ChildProcess[] = [];
const members: Member[] = [];
let databaseUrl = '';
let sql: postgres.Sql;
let admin: postgres.Sql;
let databaseName = '';
let receiver: Receiver;
let key = '';
let otherKey = '';
let endpointSecret = '';
const counts = { killed: 0, payments: 0, subscriptions: 0, refunds: 0, payouts: 0, renewalMoves: 0, unanswered: 0 };
/** Each payout Idempotency-Key sent, with the payouts its acknowledged answers named. */
const payoutsByKey = new Map<string, Set<string>>();
/**
 * Keys whose two sends the test clock may have moved 32 days between: a key expires after 24
 * hours by the store's clock, so the second send may make a payout of its own.
 */
const expiredKeys = new Set<string>();
const clockMoves = { started: 0, inFlight: 0 };
const acknowledgedSessions: string[] = [];
/** Of those, the ones paid with a dispute card: each answered only once its dispute was open. */
const disputedSessions: string[] = [];
const paidOrders: string[] = [];

async function commonEnv(): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'chaos-e2e-'));
  dataDirs.push(dataDir);
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    AUTH_SECRET,
    SUBSCRIPTIONS_ENABLED: 'true',
    WEBHOOK_DELIVERY_INTERVAL_MS: '200',
    BACKGROUND_LEASE_MS: String(LEASE_MS),
    RATE_LIMIT_WINDOW_SECONDS: '600',
    RATE_LIMIT_PRODUCT_WRITES_PER_KEY: String(PRODUCT_WRITES),
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_KEY: '1000000',
    // Every payment comes from this one address.
    RATE_LIMIT_PAY_PER_IP: '1000000',
  };
}

/** Started, once running, victims of the chaos; until then out of its reach. */
async function start(member: Member): Promise<void> {
  const env = await commonEnv();
  if (member.kind === 'web') {
    const web = await startService(serviceEnv({ ...env, PORT: String(member.port), ADMIN_TOKEN, BACKGROUND_WORK: 'false' }));
    spawned.push(web.child);
    member.process = web;
    return;
  }
  const worker = startWorker(env);
  spawned.push(worker.child);
  await vi.waitFor(() => expect(worker.output(), worker.output()).toContain('worker started: '), { timeout: 60_000, interval: 100 });
  member.process = worker;
}

/** SIGKILL to the whole process group: npm and the node process it runs die at once, mid-work. */
async function kill(member: Member): Promise<void> {
  const pid = member.process?.child.pid;
  member.process = undefined;
  if (pid === undefined) return;
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
  await vi.waitFor(() => expect(groupAlive(pid)).toBe(false), { timeout: 10_000, interval: 20 });
}

const liveOrigins = () => members.flatMap((member) => (member.kind === 'web' && member.process ? [`http://127.0.0.1:${member.port}`] : []));

/** Every web instance is down for a moment: wait a little rather than spin. */
const idle = () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 100));

/** One call to a random running instance; undefined when it was killed under the call (or none runs). */
async function call(method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const origins = liveOrigins();
  if (origins.length === 0) return idle();
  try {
    return await callService(pick(origins), key, method, route, body, headers);
  } catch {
    counts.unanswered += 1;
    return undefined;
  }
}

/** A card for a payment: mostly 4242…, a quarter of the time a card whose payment test mode disputes at once. */
const someCard = () => (random() < 0.25 ? pick(Object.values(DISPUTE_CARDS)) : CARDS.approved);

/** A customer pays on the hosted page of a random instance: true when the payment was acknowledged (sent on to the merchant's page). */
async function payOnce(url: string, card: string): Promise<boolean> {
  const origins = liveOrigins();
  if (origins.length === 0) {
    await idle();
    return false;
  }
  const link = new URL(url);
  try {
    const paid = await fetch(`${pick(origins)}${link.pathname}/pay${link.search}`, {
      method: 'POST',
      body: new URLSearchParams({ card_number: card, expiry: '12/34', cvc: '123' }),
      redirect: 'manual',
    });
    return paid.status === 303 && (paid.headers.get('location') ?? '').startsWith(THANKS);
  } catch {
    counts.unanswered += 1;
    return false;
  }
}

const operations: Record<string, (priceId: string) => Promise<void>> = {
  async payment(priceId) {
    const session = await call('POST', '/api/v1/checkout/sessions', { price_id: priceId, quantity: 1, customer_email: 'payer@example.com', success_url: THANKS });
    if (session?.status !== 201) return;
    const card = someCard();
    if (await payOnce(session.body.url, card)) {
      acknowledgedSessions.push(session.body.id);
      if (card !== CARDS.approved) disputedSessions.push(session.body.id);
      counts.payments += 1;
    }
  },
  async subscription() {
    const checkout = await call('POST', '/api/v1/subscriptions', { ...PLAN, success_url: THANKS });
    if (checkout?.status !== 201) return;
    if (await payOnce(checkout.body.url, someCard())) counts.subscriptions += 1;
  },
  async refund() {
    const orderId = paidOrders.shift();
    if (!orderId) return;
    const refund = await call('POST', '/api/v1/refunds', { order_id: orderId, amount: 100 });
    if (refund?.status === 201) counts.refunds += 1;
  },
  async payout() {
    const idempotencyKey = `chaos-payout-${payoutsByKey.size + 1}`;
    const named = new Set<string>();
    payoutsByKey.set(idempotencyKey, named);
    const movesBefore = clockMoves.started;
    const moving = clockMoves.inFlight > 0;
    // Sent twice to random instances, as a client retries a call cut off: one payout at most.
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await call('POST', '/api/v1/payouts', {}, { 'idempotency-key': idempotencyKey });
      if (answer?.status === 201) named.add(answer.body.id);
    }
    if (moving || clockMoves.started !== movesBefore) expiredKeys.add(idempotencyKey);
    if (named.size > 0) counts.payouts += 1;
  },
  async renewal() {
    clockMoves.started += 1;
    clockMoves.inFlight += 1;
    const moved = await call('POST', '/api/v1/test_helpers/advance_clock', { seconds: 32 * 24 * 3600 });
    clockMoves.inFlight -= 1;
    if (moved?.status === 200) counts.renewalMoves += 1;
  },
};

describe('three web instances and two workers on one PostgreSQL, killed and restarted at random', () => {
  beforeAll(async () => {
    admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
    databaseName = `chaos_${randomBase62(12).toLowerCase()}`;
    await admin.unsafe(`create database "${databaseName}"`);
    const url = new URL(SERVER_URL);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
    sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    receiver = await startReceiver();
    for (let index = 0; index < 3; index++) members.push({ kind: 'web', port: await freePort() });
    members.push({ kind: 'worker' }, { kind: 'worker' });
    // The first start applies the migrations; the others find them applied.
    await start(members[0]!);
    await Promise.all(members.slice(1).map(start));
    const origin = liveOrigins()[0]!;
    const stores = adminClient(origin, ADMIN_TOKEN).store;
    key = (await stores.create.mutate({ name: 'Chaos', subscriptions: true })).keys.sk_test;
    otherKey = (await stores.create.mutate({ name: 'Chaos limits' })).keys.sk_test;
    const endpoint = await callService(origin, key, 'POST', '/api/v1/webhook_endpoints', { url: receiver.url });
    expect(endpoint.status).toBe(201);
    endpointSecret = endpoint.body.secret;
  }, 5 * START_TIMEOUT_MS);

  afterAll(async () => {
    // Whatever failed: no process of this file outlives it.
    for (const child of spawned) if (child.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
    await receiver?.close();
    await sql?.end({ timeout: 5 });
    if (admin) {
      await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
      await admin.end({ timeout: 5 });
    }
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }, 60_000);

  it('a rate limit is one count across the instances: of 4 product writes at each of 3, exactly the limit pass', async () => {
    const origins = liveOrigins();
    const answers = await Promise.all(
      origins.flatMap((origin) => Array.from({ length: 4 }, () => callService(origin, otherKey, 'POST', '/api/v1/products', { name: 'Limited', amount: 500, sku: uniqueSku() }))),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(PRODUCT_WRITES).fill(201), ...Array(12 - PRODUCT_WRITES).fill(429)]);
  }, 60_000);

  it(
    'under SIGKILLs every few seconds: acknowledged payments recorded once, nothing charged, refunded or paid out twice, every event delivered, no row left leased',
    async () => {
      const product = await callService(liveOrigins()[0]!, key, 'POST', '/api/v1/products', { name: 'Chaos licence', amount: 2500, sku: uniqueSku() });
      expect(product.status).toBe(201);
      const priceId: string = product.body.price_id;

      const deadline = Date.now() + CHAOS_MS;
      // A victim starts again in the background: the next kill may come while it still starts.
      const restarts: Promise<void>[] = [];
      const chaos = (async () => {
        while (Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS * (0.5 + random())));
          const running = members.filter((member) => member.process);
          if (running.length === 0) continue;
          const victim = pick(running);
          await kill(victim);
          counts.killed += 1;
          restarts.push(start(victim));
        }
      })();
      const customers = Array.from({ length: 3 }, async () => {
        while (Date.now() < deadline) {
          const kind = pick(['payment', 'payment', 'subscription', 'refund', 'payout', 'renewal'] as const);
          await operations[kind]!(priceId);
          // Orders of acknowledged payments become refundable once read back.
          if (kind === 'payment' && acknowledgedSessions.length > paidOrders.length) {
            const [lastSession] = await sql<{ order_id: string | null }[]>`select order_id from checkout_sessions where id = ${acknowledgedSessions.at(-1)!}`;
            if (lastSession?.order_id) paidOrders.push(lastSession.order_id);
          }
        }
      });
      await Promise.all([chaos, ...customers]);
      await Promise.all(restarts);

      // Every event written so far reaches the endpoint: leases of killed workers run out and the others send.
      await vi.waitFor(
        async () => {
          const [open] = await sql<{ count: number }[]>`select count(*)::int as count from webhook_deliveries where status <> 'succeeded'`;
          expect(open!.count).toBe(0);
        },
        { timeout: 60_000, interval: 250 },
      );
      const [events] = await sql<{ ids: string[] }[]>`select coalesce(array_agg(event_id), '{}') as ids from webhook_deliveries`;
      const verifier = new Webhook(endpointSecret);
      // Each delivery as its receiver judged it on arrival: signed with the endpoint's secret, and its
      // timestamp within the tolerance then (`verify` would judge it against now, minutes later in a long run).
      const received = receiver.received.map((webhook) => {
        const id = webhook.headers['webhook-id']!;
        const timestamp = Number(webhook.headers['webhook-timestamp']);
        expect(webhook.headers['webhook-signature']!.split(' ')).toContain(verifier.sign(id, new Date(timestamp * 1000), webhook.body));
        expect(Math.abs(webhook.receivedAt / 1000 - timestamp)).toBeLessThanOrEqual(300);
        return (JSON.parse(webhook.body) as { id: string }).id;
      });
      const missing = events!.ids.filter((id) => !received.includes(id));
      expect(missing).toEqual([]);
      const duplicates = received.length - new Set(received).size;

      // Every acknowledged payment: its session complete with its order, one charge at the gateway.
      const recorded = await sql<{ id: string; status: string; order_id: string | null; charges: number }[]>`
      select s.id, s.status, s.order_id,
        (select count(*)::int from payment_attempts a join simulator_charges c on c.idempotency_key = a.idempotency_key
          where a.checkout_session_id = s.id and c.status = 'succeeded') as charges
      from checkout_sessions s where s.id in ${sql(acknowledgedSessions.length > 0 ? acknowledgedSessions : [''])}`;
      expect(recorded).toHaveLength(acknowledgedSessions.length);
      for (const session of recorded) expect(session, session.id).toMatchObject({ status: 'complete', order_id: expect.any(String), charges: 1 });
      // Every acknowledged payment with a dispute card was disputed in full before its page answered.
      const disputed = await sql<{ id: string; amount: number | null; total: number }[]>`
      select s.id, d.amount, o.amount_total as total from checkout_sessions s join orders o on o.id = s.order_id left join disputes d on d.id = o.dispute_id
      where s.id in ${sql(disputedSessions.length > 0 ? disputedSessions : [''])}`;
      expect(disputed).toHaveLength(disputedSessions.length);
      for (const session of disputed) expect(session.amount, session.id).toBe(session.total);

      // Nothing taken twice: at most one successful charge per session and per subscription cycle,
      // and every charge and refund at the gateway belongs to one of our rows.
      const twiceForSession = await sql`select a.checkout_session_id from payment_attempts a join simulator_charges c on c.idempotency_key = a.idempotency_key
      where c.status = 'succeeded' group by 1 having count(*) > 1`;
      const twiceForCycle = await sql`select s.subscription_id, s.cycle from subscription_charges s join simulator_charges c on c.idempotency_key = s.idempotency_key
      where c.status = 'succeeded' group by 1, 2 having count(*) > 1`;
      const strayCharges = await sql`select c.idempotency_key from simulator_charges c where not exists (select 1 from payment_attempts a where a.idempotency_key = c.idempotency_key)
      and not exists (select 1 from subscription_charges s where s.idempotency_key = c.idempotency_key)`;
      const strayRefunds = await sql`select f.idempotency_key from simulator_refunds f where not exists (select 1 from refunds r where 'refund:' || r.id || ':1' = f.idempotency_key)`;
      const overRefunded = await sql`select f.payment_id from simulator_refunds f join simulator_charges c on c.payment_id = f.payment_id
      where f.status = 'succeeded' group by f.payment_id, c.amount having sum(f.amount) > c.amount`;
      expect({ twiceForSession, twiceForCycle, strayCharges, strayRefunds, overRefunded }).toEqual({ twiceForSession: [], twiceForCycle: [], strayCharges: [], strayRefunds: [], overRefunded: [] });

      // A graceful stop gives back every lease it holds; a killed process's ran out long ago.
      for (const member of members) {
        if (member.kind === 'web') expect(await stopService(member.process!)).toBe(0);
        else expect(await stopWorker(member.process!)).toBe(0);
        member.process = undefined;
      }
      const [leases] = await sql<{ held: number; left: number }[]>`
      select count(*) filter (where leased_until > now())::int as held, count(*) filter (where leased_until <= now())::int as left
      from (select leased_until from payment_attempts union all select leased_until from subscription_charges union all select leased_until from refunds) as leased`;
      expect(leases!.held).toBe(0);

      // One payout per Idempotency-Key while it lives, whichever instances answered; each one recorded.
      const [payoutIds] = await sql<{ ids: string[] }[]>`select coalesce(array_agg(id), '{}') as ids from payouts`;
      for (const [idempotencyKey, named] of payoutsByKey) {
        expect(named.size, idempotencyKey).toBeLessThanOrEqual(expiredKeys.has(idempotencyKey) ? 2 : 1);
        for (const id of named) expect(payoutIds!.ids).toContain(id);
      }

      // The ledger follows from the documents, whatever was killed half-way: no entry paid out twice.
      const ledger = await openDatabase({ url: databaseUrl });
      let verification: Awaited<ReturnType<typeof verifyLedger>>;
      try {
        verification = await verifyLedger(ledger.db, new Date());
      } finally {
        await ledger.close();
      }
      expect(verification).toMatchObject({ ok: true });

      const [gateway] = await sql<{ charges: number; recurring: number; refunds: number }[]>`
      select (select count(*)::int from simulator_charges where kind = 'charge') as charges,
        (select count(*)::int from simulator_charges where kind = 'recurring') as recurring,
        (select count(*)::int from simulator_refunds) as refunds`;
      console.log(
        `chaos (seed ${SEED}, ${CHAOS_MS / 1000} s): ${counts.killed} processes killed; acknowledged: ${counts.payments} payments, ${counts.subscriptions} subscriptions, ` +
          `${counts.refunds} refunds, ${disputedSessions.length} payments disputed at once, ${counts.payouts} payouts asked for (${expiredKeys.size} of ${payoutsByKey.size} keys sent across a clock move), ${counts.renewalMoves} clock moves; ${payoutIds!.ids.length} payouts made; ${counts.unanswered} calls cut off; at the gateway: ${gateway!.charges} charges, ` +
          `${gateway!.recurring} recurring charges, ${gateway!.refunds} refunds; ${received.length} deliveries of ${events!.ids.length} events, ${duplicates} duplicates; ` +
          `${leases!.left} leases left to expire by killed processes; ledger:verify ${JSON.stringify(verification)}`,
      );
      expect(counts.killed).toBeGreaterThan(0);
      expect(counts.payments).toBeGreaterThan(0);
    },
    CHAOS_MS + 10 * START_TIMEOUT_MS,
  );
});
