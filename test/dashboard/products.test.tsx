import { and, eq } from 'drizzle-orm';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FormFields } from '@/app/dashboard/act/dispatch';
import { DASHBOARD_ACTIONS } from '@/app/dashboard/act/registry';
import { PRODUCT_MESSAGES, ProductFields } from '@/app/dashboard/products/product-form';
import { auditEvents } from '@/db/schema';
import { ApiError } from '@/server/errors';
import { createProduct, deleteProduct, getProduct, listProducts, productDeps, updateProduct } from '@/server/products/service';
import type { Scope } from '@/server/kit/scope';
import { insertLicenseKey, readLicenseKey } from '../products/support';
import { actingAs, formKey, person } from '../support/dashboard';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

const api = useTestApi();
const store = useTestStore(api);
const scope = () => ({ storeId: store.id, livemode: false });
const actor = person({ email: 'dev@example.com', ip: '203.0.113.7', path: '/dashboard/test/products' }, 'developer');
const deps = async (on: Scope) => productDeps(await actingAs(api.services, on, actor));

const audits = (action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, action)));
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof ApiError ? error.code : error),
  );

describe('dashboard products', () => {
  it('7 a create form posted twice creates one product, audited once with user:<email>', async () => {
    const key = 'b'.repeat(32);
    const input = { name: 'Tide tables', amount: 1250, mode: 'recurring' as const, interval: 'month' as const, tax_rate: 20 };
    const first = await createProduct(await deps(scope()), scope(), input, formKey(key, input));
    const again = await createProduct(await deps(scope()), scope(), input, formKey(key, input));
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({ name: 'Tide tables', amount: 1250, tax_rate: 20, price: { mode: 'recurring', interval: 'month', interval_count: 1 } });
    expect((await listProducts(api.services, scope(), { limit: 10 })).data.map((product) => product.id)).toEqual([first.id]);
    const created = await audits('product.create');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ keyHint: 'user:dev@example.com', livemode: false, ip: actor.ip, method: 'POST', path: actor.path, details: { product: first.id } });
    // Another product under the same key: the API's refusal, nothing created.
    expect(await refusal(createProduct(await deps(scope()), scope(), { ...input, name: 'Other' }, formKey(key, { ...input, name: 'Other' })))).toBe('idempotency_key_reused');
  });

  it('7 an edit goes through the API rules and is audited; a refused edit leaves no entry', async () => {
    const product = await createProduct(await deps(scope()), scope(), { name: 'Chart', amount: 900 }, formKey('c'.repeat(32), { name: 'Chart', amount: 900 }));
    const updated = await updateProduct(await deps(scope()), scope(), product.id, { name: 'Sea chart', amount: 1100, show_in_store: false });
    expect(updated).toMatchObject({ name: 'Sea chart', amount: 1100, show_in_store: false });
    expect((await audits('product.update'))[0]).toMatchObject({ keyHint: 'user:dev@example.com', details: { product: product.id, fields: ['name', 'amount', 'show_in_store'] } });
    expect(await refusal(updateProduct(await deps(scope()), scope(), product.id, { mode: 'recurring' }))).toBe('parameter_invalid');
    expect(await audits('product.update')).toHaveLength(1);
    // Another mode's product is missing here.
    expect(await refusal(updateProduct(await deps({ storeId: store.id, livemode: true }), { storeId: store.id, livemode: true }, product.id, { name: 'x' }))).toBe('resource_missing');
  });

  it('7 a sold product (license keys) is refused until forced; the refusal changes nothing and is not audited', async () => {
    const product = await createProduct(await deps(scope()), scope(), { name: 'Licensed app', amount: 4900 }, formKey('d'.repeat(32), { name: 'Licensed app', amount: 4900 }));
    const license = await insertLicenseKey(api, store, product.id);
    expect(await refusal(deleteProduct(await deps(scope()), scope(), product.id, { force: false }))).toBe('product_has_licenses');
    await expect(getProduct(api.services, scope(), product.id)).resolves.toMatchObject({ id: product.id });
    expect(await audits('product.delete')).toHaveLength(0);
    await expect(deleteProduct(await deps(scope()), scope(), product.id, { force: true })).resolves.toEqual({ id: product.id, object: 'product', deleted: true, livemode: false });
    expect((await readLicenseKey(api, license)).revokedAt).not.toBeNull();
    expect(await audits('product.delete')).toMatchObject([{ keyHint: 'user:dev@example.com', details: { product: product.id, force: true } }]);
  });
});

/** A product form posted by the developer, as the dispatch hands it to the action: the path it answers 303 with. */
function postProductForm(action: 'product-create' | 'product-update', fields: Record<string, string>) {
  const data = new FormData();
  for (const [name, value] of Object.entries({ mode: 'test', ...fields })) data.append(name, value);
  const path = `/dashboard/act/${action}`;
  return DASHBOARD_ACTIONS[action]!.run({
    form: new FormFields(data),
    services: api.services,
    mode: 'test',
    scope: scope(),
    membership: { storeId: store.id, storeName: 'Tide Books', role: 'developer' },
    actor: { ...actor, path },
    userId: actor.userId,
    acting: (page) => actingAs(api.services, scope(), { ...actor, path: page }),
  });
}

/** Every field of the product form as a browser posts it (checkboxes ticked send `yes`). */
const formFields = (fields: Record<string, string> = {}) => ({
  name: 'Tide atlas',
  price: '19.99',
  description: '',
  type: 'digital',
  billing: 'one_time',
  interval: 'month',
  interval_count: '1',
  tax_rate: '',
  tax_category: 'standard',
  sku: '',
  show_in_store: 'yes',
  active: 'yes',
  ...fields,
});

/** The `Tax category` select of the form: its options (value, label) and the selected one. */
function taxCategorySelect(html: string) {
  const select = /<label for="product-tax-category">Tax category<\/label><select id="product-tax-category" name="tax_category"[^>]*>(.*?)<\/select>/.exec(html)?.[1] ?? '';
  const options = [...select.matchAll(/<option value="(\w+)"( selected="")?>([^<]*)<\/option>/g)];
  return { options: options.map((option) => [option[1], option[3]]), selected: options.filter((option) => option[2]).map((option) => option[1]) };
}

describe('dashboard products: tax category', () => {
  const choices = [
    ['standard', 'Standard'],
    ['ebook', 'E-book'],
    ['enewspaper', 'E-newspaper'],
  ];

  it('the create form offers Standard, E-book and E-newspaper, Standard chosen; the edit form chooses the product’s', async () => {
    expect(taxCategorySelect(renderToStaticMarkup(<ProductFields />))).toEqual({ options: choices, selected: ['standard'] });
    const product = await createProduct(await deps(scope()), scope(), { name: 'Gazette', amount: 500, tax_category: 'enewspaper' }, formKey('e'.repeat(32), { name: 'Gazette' }));
    expect(taxCategorySelect(renderToStaticMarkup(<ProductFields product={product} />))).toEqual({ options: choices, selected: ['enewspaper'] });
  });

  it('create and edit save the chosen category; another value is refused with its message and changes nothing', async () => {
    const created = await postProductForm('product-create', formFields({ idempotency_key: 'f'.repeat(32), tax_category: 'ebook' }));
    expect(created).toMatch(/^\/dashboard\/test\/products\/prod_test_\w+\?saved=created$/);
    const id = created.split('/').at(-1)!.split('?')[0]!;
    expect(await getProduct(api.services, scope(), id)).toMatchObject({ name: 'Tide atlas', amount: 1999, tax_category: 'ebook' });

    expect(await postProductForm('product-update', formFields({ product_id: id, tax_category: 'enewspaper' }))).toBe(`/dashboard/test/products/${id}?saved=updated`);
    const updated = await getProduct(api.services, scope(), id);
    expect(updated.tax_category).toBe('enewspaper');

    for (const value of ['reduced', '']) {
      expect(await postProductForm('product-update', formFields({ product_id: id, tax_category: value }))).toBe(`/dashboard/test/products/${id}?error=invalid_tax_category`);
    }
    expect(await getProduct(api.services, scope(), id)).toEqual(updated);
    expect(await postProductForm('product-create', formFields({ idempotency_key: 'a1'.repeat(16), name: 'Refused', tax_category: 'reduced' }))).toBe(
      '/dashboard/test/products?error=invalid_tax_category',
    );
    expect((await listProducts(api.services, scope(), { limit: 100 })).data.map((product) => product.name)).not.toContain('Refused');
    expect(PRODUCT_MESSAGES.invalid_tax_category).toBe('Choose a tax category from the list.');
  });
});
