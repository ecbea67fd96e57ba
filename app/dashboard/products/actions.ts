import type { z } from 'zod';
import { parseEuros } from '@/server/dashboard/orders';
import { ApiError } from '@/server/errors';
import { createProductInput, updateProductInput } from '@/server/products/schemas';
import { createProduct, deleteProduct, productDeps, updateProduct } from '@/server/products/service';
import { dashboardBase } from '../access';
import { FORM_KEY, formRequest, withError, type DashboardActionDefinition, type FormFields } from '../act/dispatch';

/** The product form's fields as the API takes them; a field the form leaves empty is not sent, or sent as null where null means "none". */
function productFields(form: FormFields) {
  // `billing`, as `mode` is the form's live or test mode.
  const recurring = form.text('billing') === 'recurring';
  const description = form.text('description').trim();
  const taxRate = form.text('tax_rate').trim();
  const sku = form.text('sku').trim();
  return {
    name: form.text('name'),
    amount: parseEuros(form.text('price')) ?? Number.NaN,
    description: description === '' ? null : description,
    type: form.text('type'),
    ...(sku === '' ? {} : { sku }),
    show_in_store: form.text('show_in_store') === 'yes',
    tax_rate: taxRate === '' ? null : /^\d{1,3}$/.test(taxRate) ? Number(taxRate) : Number.NaN,
    tax_inclusive: form.text('tax_inclusive') === 'yes',
    tax_category: form.text('tax_category'),
    mode: recurring ? 'recurring' : 'one_time',
    ...(recurring ? { interval: form.text('interval'), interval_count: /^\d{1,3}$/.test(form.text('interval_count')) ? Number(form.text('interval_count')) : Number.NaN } : {}),
    active: form.text('active') === 'yes',
  };
}

/** The field a refused form is blamed on: its error code on the page. */
function invalidField(error: z.ZodError): string {
  const field = String(error.issues[0]?.path[0] ?? 'form');
  return field === 'amount' ? 'invalid_price' : `invalid_${field}`;
}

/** The page's code for a refusal of the product services; undefined for anything else. */
function productErrorCode(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'parameter_invalid' && error.param) return `invalid_${error.param}`;
  if (['sku_unavailable', 'product_limit_reached', 'product_has_active_subscriptions', 'product_has_licenses', 'idempotency_key_reused', 'resource_missing'].includes(error.code)) return error.code;
  return undefined;
}

/** Runs a service call; a refusal it knows becomes `?error=<code>` on `failurePath`. */
async function orRefusal(work: Promise<string>, failurePath: string): Promise<string> {
  return work.catch((error: unknown) => {
    const code = productErrorCode(error);
    if (code === undefined) throw error;
    return withError(failurePath, code);
  });
}

/** Creates a product once per rendering of the form, then shows it. */
export const productCreate: DashboardActionDefinition = {
  right: 'products',
  async run({ form, mode, scope, acting }) {
    const list = `${dashboardBase(mode)}/products`;
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(list, 'form_expired');
    const parsed = createProductInput.safeParse(productFields(form));
    if (!parsed.success) return withError(list, invalidField(parsed.error));
    return orRefusal(
      createProduct(productDeps(await acting(list)), scope, parsed.data, formRequest(key, parsed.data)).then((product) => `${list}/${product.id}?saved=created`),
      list,
    );
  },
};

/** Saves every field of the edit form (the whole product restated). */
export const productUpdate: DashboardActionDefinition = {
  right: 'products',
  async run({ form, mode, scope, acting }) {
    const id = form.text('product_id');
    const detail = `${dashboardBase(mode)}/products/${encodeURIComponent(id)}`;
    const parsed = updateProductInput.safeParse({ id, ...productFields(form) });
    if (!parsed.success) return withError(detail, invalidField(parsed.error));
    const { id: _id, ...changes } = parsed.data;
    return orRefusal(
      updateProduct(productDeps(await acting(detail)), scope, id, changes).then(() => `${detail}?saved=updated`),
      detail,
    );
  },
};

/** Deletes a product once confirmed; the API's guards (subscriptions, license keys) refuse with their reason. */
export const productDelete: DashboardActionDefinition = {
  right: 'products',
  async run({ form, mode, scope, acting }) {
    const id = form.text('product_id');
    const list = `${dashboardBase(mode)}/products`;
    const detail = `${list}/${encodeURIComponent(id)}`;
    if (form.text('confirm') !== 'yes') return withError(detail, 'confirm_delete');
    return orRefusal(
      deleteProduct(await acting(detail), scope, id, { force: form.text('force') === 'yes' }).then(() => `${list}?deleted=${encodeURIComponent(id)}`),
      detail,
    );
  },
};
