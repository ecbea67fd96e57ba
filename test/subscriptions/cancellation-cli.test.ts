import { describe, expect, it } from 'vitest';
import { declareCancellation, type CancellationDeclaration } from '@/server/subscriptions/cancellation';
import { expectFailure, useAdminCli } from '../support/admin-cli';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';

/**
 * `npm run admin -- cancellation:list [--email EMAIL]` as a process: every declaration of the
 * cancel page, matched or not, newest first, as the operator's proof of what was declared and when.
 */
const api = useTestApi();
const { runCli, runCliProcess } = useAdminCli(api);

const CUSTOMER = { kind: 'customer', request: { ip: '203.0.113.9', method: 'POST', path: '/cancel/declare' } } as const;

async function declareAt(seconds: number, declaration: Partial<CancellationDeclaration> & { email: string }) {
  api.clock.set(new Date(T0.getTime() + seconds * 1000));
  return declareCancellation(api.services, { number: null, name: 'Ada Lovelace', reason: null, cancelAt: 'period_end', language: 'en', ...declaration }, CUSTOMER);
}

/** Success: exit 0, nothing on stderr, one JSON array on stdout. */
function expectArray(result: { code: number | null; stdout: string; stderr: string }): any[] {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const parsed = JSON.parse(result.stdout);
  expect(Array.isArray(parsed)).toBe(true);
  return parsed;
}

describe('npm run admin -- cancellation:list', { timeout: 150_000 }, () => {
  it('--email: that address’s declarations in any case, matched or not, newest first, every field', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const subscription = await createSubscription(api.services, store.id, { customerEmail: 'list@example.com' });
    const first = await declareAt(0, { email: 'List@Example.com', reason: 'Too expensive', cancelAt: 'asap', language: 'de' });
    const second = await declareAt(60, { email: 'list@example.com', number: 'sub_test_nomatch', name: 'A. L.' });
    await declareAt(120, { email: 'someone-else@example.com' });

    expect(expectArray(await runCli(['cancellation:list', '--email', 'LIST@example.com']))).toEqual([
      { id: second.id, declared_at: epoch(T0) + 60, email: 'list@example.com', number: 'sub_test_nomatch', name: 'A. L.', reason: null, cancel_at: 'period_end', language: 'en', subscriptions: [] },
      {
        id: first.id,
        declared_at: epoch(T0),
        email: 'List@Example.com',
        number: null,
        name: 'Ada Lovelace',
        reason: 'Too expensive',
        cancel_at: 'asap',
        language: 'de',
        subscriptions: [subscription.id],
      },
    ]);
  });

  it('without --email: every address’s declarations, newest first', async () => {
    const older = await declareAt(3600, { email: 'older@example.com' });
    const newer = await declareAt(7200, { email: 'newer@example.com' });
    const listed = expectArray(await runCli(['cancellation:list']));
    expect(listed.slice(0, 2).map((record) => [record.id, record.email])).toEqual([
      [newer.id, 'newer@example.com'],
      [older.id, 'older@example.com'],
    ]);
    for (const record of listed) expect(record.id).toMatch(/^cxl_[0-9A-Za-z]{24}$/);
    expect(listed.map((record) => record.declared_at)).toEqual(listed.map((record) => record.declared_at).sort((a, b) => b - a));
  });

  it('a --email that is no address: exit 2, parameter_invalid, nothing asked of the service', async () => {
    expectFailure(await runCliProcess(['cancellation:list', '--email', 'not-an-address']), 2, /^Error: parameter_invalid: --email takes an e-mail address, not "not-an-address"\.\n$/);
  });
});
