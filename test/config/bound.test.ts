import { describe, expect, it } from 'vitest';
import { loadConfig } from '@/server/config';

describe('config: the bound on requests in flight', () => {
  it('embedded PGlite (no DATABASE_URL) defaults to 16 at once and a 300 ms queue budget; PostgreSQL to 64 and 2 s; both variables override either', () => {
    expect(loadConfig({})).toMatchObject({ maxInFlight: 16, queueTimeoutMs: 300 });
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/db' })).toMatchObject({ maxInFlight: 64, queueTimeoutMs: 2000 });
    expect(loadConfig({ MAX_IN_FLIGHT: '100', QUEUE_TIMEOUT_MS: '5000' })).toMatchObject({ maxInFlight: 100, queueTimeoutMs: 5000 });
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/db', MAX_IN_FLIGHT: '8', QUEUE_TIMEOUT_MS: '250' })).toMatchObject({ maxInFlight: 8, queueTimeoutMs: 250 });
    expect(() => loadConfig({ QUEUE_TIMEOUT_MS: '0' })).toThrow(/QUEUE_TIMEOUT_MS/);
  });
});
