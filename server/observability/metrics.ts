import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics, served by GET /metrics (scripts/serve.ts). The front and
 * Next's build of the server code each load this module (server/host/published.ts says why there
 * are two copies), so the metrics live on globalThis: what either copy counts, one registry shows.
 */
function createMetrics() {
  const registry = new Registry();
  // Process metrics, among them process_resident_memory_bytes and nodejs_eventloop_lag_seconds.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request’s arrival to the end of its answer, by method and route template.',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    payments: new Counter({
      name: 'payments_total',
      help: 'Checkout payment attempts settled, by outcome.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts finished, by outcome.',
      labelNames: ['outcome'] as const,
      registers,
    }),
  };
}

const METRICS = Symbol.for('payments-service:metrics');
const holder = globalThis as typeof globalThis & { [METRICS]?: ReturnType<typeof createMetrics> };
const metrics = (holder[METRICS] ??= createMetrics());

/** One answered request; `route` is a template (`/api/v1/products/{id}`), never a raw path. */
export function countRequest(method: string, route: string, status: number, seconds: number): void {
  metrics.httpRequests.inc({ method, route, status: String(status) });
  metrics.httpDuration.observe({ method, route }, seconds);
}

export type PaymentOutcome = 'succeeded' | 'declined' | 'requires_action' | 'abandoned';

export function countPayment(outcome: PaymentOutcome): void {
  metrics.payments.inc({ outcome });
}

/** `retrying`: the attempt failed and another is scheduled; `failed`: the last one failed. */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

export function countWebhookDelivery(outcome: DeliveryOutcome): void {
  metrics.webhookDeliveries.inc({ outcome });
}

export const METRICS_CONTENT_TYPE = metrics.registry.contentType;

export function metricsText(): Promise<string> {
  return metrics.registry.metrics();
}
