/**
 * The curl request /docs shows for each operation, run as a reader would paste it (with `$SK`
 * and `$PK` set) against the service: it is answered as the example answer says, field for field,
 * or, where it names an object of the examples' story that this store does not have, with the
 * refusal of an unknown object: 404 `resource_missing` (the embedded confirm: 401
 * `invalid_client_secret`, which does not tell whether the session exists).
 */
import { execFile } from 'node:child_process';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { operationExample } from '@/app/docs/examples';
import { referenceOf } from '@/app/docs/reference';
import { stores } from '@/db/schema';
import { newBalanceTransactionId, recordAdjustment } from '@/server/balance/ledger';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });

function runCurl(command: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-euo', 'pipefail', '-c', `${command} -s -w '\\n%{http_code}'`], { env: { ...process.env, SK: store.key, PK: store.keys.pk_test }, timeout: 30_000 }, (error, stdout) => {
      if (error) return reject(error);
      const newline = stdout.lastIndexOf('\n');
      resolve({ status: Number(stdout.slice(newline + 1)), body: JSON.parse(stdout.slice(0, newline)) });
    });
  });
}

describe('the example requests of /docs', () => {
  it('each one, run with curl, is answered as its example answer, or refused as naming an object this store lacks', async () => {
    const reference = referenceOf(buildOpenApiDocument(api.baseUrl));
    // A balance to pay out when the payout example asks, not before (advance_clock's example
    // passes a Monday).
    await api.services.db.update(stores).set({ payoutScheduleTest: 'manual' }).where(eq(stores.id, store.id));
    const now = api.clock.now();
    await recordAdjustment(api.services.db, { storeId: store.id, livemode: false }, { id: newBalanceTransactionId(false), amount: 1519, reason: 'Opening balance', now });
    const answered: string[] = [];
    for (const domain of reference.domains) {
      for (const entry of domain.operations) {
        const example = operationExample(reference.document, reference.serverUrl, entry);
        const { status, body } = await runCurl(example.curl);
        const name = `${entry.method.toUpperCase()} ${entry.fullPath}`;
        if (status === 404 || status === 401) {
          expect(body.error.code, name).toBe(status === 404 ? 'resource_missing' : 'invalid_client_secret');
          continue;
        }
        expect(String(status), `${name}: ${JSON.stringify(body)}`).toBe(example.status);
        // The same fields, in the same order.
        expect(Object.keys(body), name).toEqual(Object.keys(JSON.parse(example.response!)));
        answered.push(name);
      }
    }
    // Those whose example needs no object of the story, or makes its own.
    expect(answered.sort()).toEqual(
      [
        'GET /api/v1/balance',
        'GET /api/v1/balance_transactions',
        'GET /api/v1/checkout/sessions',
        'GET /api/v1/coupons',
        'GET /api/v1/credit_notes',
        'GET /api/v1/customers',
        'GET /api/v1/disputes',
        'GET /api/v1/events',
        'GET /api/v1/invoices',
        'GET /api/v1/orders',
        'GET /api/v1/payouts',
        'GET /api/v1/portal/sessions',
        'GET /api/v1/products',
        'GET /api/v1/promotion_codes',
        'GET /api/v1/refunds',
        'GET /api/v1/subscriptions',
        'GET /api/v1/test_helpers/emails',
        'GET /api/v1/webhook_endpoints',
        'POST /api/v1/coupons',
        'POST /api/v1/licenses/validate',
        'POST /api/v1/payouts',
        'POST /api/v1/products',
        'POST /api/v1/subscriptions',
        'POST /api/v1/test_helpers/advance_clock',
        'POST /api/v1/webhook_endpoints',
      ].sort(),
    );
  }, 120_000);
});
