import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { recordEvent, type EventType } from '@/server/webhooks/events';
import { randomBase62 } from '@/server/ids';
import type { TestApi } from '../support/server';

/** What a real receiver got: the raw body and the headers, as `standardwebhooks` wants them. */
export interface ReceivedWebhook {
  body: string;
  headers: Record<string, string>;
  /** When it arrived (epoch ms): a check of its timestamp made later is made against this. */
  receivedAt: number;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** The status of each next answer, in order; 200 once the list is used up. */
  answers: number[];
  /** When set, decides every answer instead of `answers` (e.g. by the event in the body). */
  respond?: (webhook: ReceivedWebhook) => number;
  /** The webhooks answered with a 2xx, in order: what the merchant's handler acknowledged. */
  acknowledged: ReceivedWebhook[];
  /** Answers only after this many ms (timeouts). */
  delayMs: number;
  /** When set, answers only once it resolves (a receiver that is still working). */
  gate?: Promise<void>;
  close(): Promise<void>;
}

function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
}

/** A real HTTP receiver on 127.0.0.1 (node:http), like a merchant's webhook handler. */
export async function startReceiver(): Promise<Receiver> {
  const receiver = { received: [] as ReceivedWebhook[], acknowledged: [] as ReceivedWebhook[], answers: [] as number[], delayMs: 0 } as Receiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const webhook = { body: Buffer.concat(chunks).toString('utf8'), headers: plainHeaders(req.headers), receivedAt: Date.now() };
      receiver.received.push(webhook);
      const status = receiver.respond ? receiver.respond(webhook) : (receiver.answers.shift() ?? 200);
      const answer = () => {
        if (res.destroyed) return;
        if (status >= 200 && status < 300) receiver.acknowledged.push(webhook);
        res.writeHead(status, { 'content-type': 'text/plain', location: 'http://127.0.0.1:9/elsewhere' }).end('ok');
      };
      if (receiver.gate) void receiver.gate.then(answer);
      else if (receiver.delayMs > 0) setTimeout(answer, receiver.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/webhooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A subscription-shaped object: events are written by the subscriptions code, here by hand. */
export function subscriptionLike(overrides: Record<string, unknown> = {}) {
  return { id: `sub_test_${randomBase62(24)}`, object: 'subscription', status: 'active', metadata: { order_ref: 'A-17', plan: 'gold' }, ...overrides };
}

/** Writes an event to the outbox in a transaction, as a state change would (server/webhooks/events.ts). */
export function writeEvent(api: TestApi, store: { id: string }, input: { type?: EventType; object?: Record<string, unknown> & { id: string }; livemode?: boolean; now?: Date; wallNow?: Date }) {
  return api.services.db.transaction((tx) =>
    recordEvent(tx, {
      storeId: store.id,
      livemode: input.livemode ?? false,
      type: input.type ?? 'subscription.updated',
      object: input.object ?? subscriptionLike(),
      now: input.now ?? api.clock.now(),
      wallNow: input.wallNow ?? api.clock.now(),
    }),
  );
}

/** POST /webhook_endpoints with the test key; fails the test unless 201. */
export async function createEndpoint(api: TestApi, key: string, body: Record<string, unknown>) {
  const response = await api.request('POST', '/api/v1/webhook_endpoints', { key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; secret: string; url: string };
}
