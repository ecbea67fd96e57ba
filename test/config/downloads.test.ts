import { describe, expect, it } from 'vitest';
import { loadConfig } from '@/server/config';

describe('config: DOWNLOAD_LIMIT', () => {
  it('20 downloads per order line by default; the variable overrides it; zero or a fraction is refused at start', () => {
    expect(loadConfig({}).downloadLimit).toBe(20);
    expect(loadConfig({ DOWNLOAD_LIMIT: '5' }).downloadLimit).toBe(5);
    expect(() => loadConfig({ DOWNLOAD_LIMIT: '0' })).toThrow(/DOWNLOAD_LIMIT/);
    expect(() => loadConfig({ DOWNLOAD_LIMIT: '2.5' })).toThrow(/DOWNLOAD_LIMIT/);
  });
});
