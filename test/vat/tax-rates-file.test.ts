import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { updateSessionBilling } from '@/server/checkout/buyer-tax';
import { loadConfig } from '@/server/config';
import { EU_MEMBER_STATES } from '@/server/kit/countries';
import { createProduct } from '../support/api';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

/**
 * The operator's TAX_RATES_FILE is the table the service taxes with: a .json table where Germany's
 * standard rate is 16 makes a session of a German buyer 16 %, where the shipped table says 19.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'tax-rates-file-'));
const file = path.join(dir, 'operator-rates.json');
writeFileSync(
  file,
  JSON.stringify([
    ...EU_MEMBER_STATES.filter((country) => country !== 'DE').map((country) => ({ country, category: 'standard', rate: 20, valid_from: '2020-01-01' })),
    { country: 'DE', category: 'standard', rate: 16, valid_from: '2020-07-01' },
    { country: 'DE', category: 'ebook', rate: 5, valid_from: '2020-07-01' },
  ]),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const api = useTestApi({ taxRates: loadConfig({ TAX_RATES_FILE: file }).taxRates });
const store = useTestStore(api, { taxMode: 'buyer_country' });

const billing = (country: string) => ({ country, name: '', company: '', line1: '', postalCode: '', city: '', vatId: '' });

async function sessionFor(body: Record<string, unknown>, country: string) {
  const product = await createProduct(api, store.key, { amount: 1999, ...body });
  const created = await api.request('POST', '/api/v1/checkout/sessions', { key: store.key, body: { price_id: product.price_id } });
  expect(created.status).toBe(201);
  expect(await updateSessionBilling(api.services, created.body.id, billing(country))).toMatchObject({ kind: 'taxed' });
  const read = await api.request('GET', `/api/v1/checkout/sessions/${created.body.id}`, { key: store.key });
  expect(read.status).toBe(200);
  return read.body;
}

describe('TAX_RATES_FILE replaces the shipped rates', () => {
  it('a German buyer pays the file’s 16 % on 1999 cents: 320 VAT, 2319 in all', async () => {
    expect(await sessionFor({}, 'DE')).toMatchObject({ amount_subtotal: 1999, amount_tax: 320, amount_total: 2319 });
  });

  it('an e-book at the file’s 5 %, and another member state at its rate from the file', async () => {
    expect(await sessionFor({ tax_category: 'ebook' }, 'DE')).toMatchObject({ amount_subtotal: 1999, amount_tax: 100, amount_total: 2099 });
    expect(await sessionFor({ tax_category: 'ebook' }, 'FR')).toMatchObject({ amount_subtotal: 1999, amount_tax: 400, amount_total: 2399 });
  });
});
