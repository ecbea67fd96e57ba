import { TAX_CATEGORIES, type TaxCategory } from '@/db/schema';
import { PRICE_INTERVALS, PRODUCT_TYPES, type Product } from '@/server/products/schemas';

const centsAsEuros = (cents: number) => (cents / 100).toFixed(2);

/** The tax categories as a person reads them; the form sends the codes. */
export const TAX_CATEGORY_LABELS: Record<TaxCategory, string> = { standard: 'Standard', ebook: 'E-book', enewspaper: 'E-newspaper' };

/** The fields of the create and the edit form, as the API's product takes them (prices in EUR). */
export function ProductFields({ product }: { product?: Product }) {
  return (
    <div className="dash-form-grid">
      <div className="dash-span">
        <label htmlFor="product-name">Name</label>
        <input id="product-name" name="name" required maxLength={255} defaultValue={product?.name} />
      </div>
      <div className="dash-span">
        <label htmlFor="product-description">Description</label>
        <textarea id="product-description" name="description" rows={3} maxLength={2000} defaultValue={product?.description ?? ''} />
      </div>
      <div>
        <label htmlFor="product-price">Price</label>
        <input
          id="product-price"
          name="price"
          inputMode="decimal"
          required
          pattern="\d{1,9}(\.\d{1,2})?"
          defaultValue={product ? centsAsEuros(product.amount) : ''}
          aria-describedby="product-price-hint"
        />
        <p id="product-price-hint" className="dash-muted">
          Currency: EUR (every price is in euros).
        </p>
      </div>
      <div>
        <label htmlFor="product-type">Type</label>
        <select id="product-type" name="type" defaultValue={product?.type ?? 'digital'}>
          {PRODUCT_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="product-mode">Billing</label>
        <select id="product-mode" name="billing" defaultValue={product?.price.mode ?? 'one_time'}>
          <option value="one_time">one-time</option>
          <option value="recurring">recurring</option>
        </select>
      </div>
      <div>
        <label htmlFor="product-interval">Interval</label>
        <select id="product-interval" name="interval" defaultValue={product?.price.interval ?? 'month'} aria-describedby="product-interval-hint">
          {PRICE_INTERVALS.map((interval) => (
            <option key={interval} value={interval}>
              {interval}
            </option>
          ))}
        </select>
        <p id="product-interval-hint" className="dash-muted">
          Recurring prices only.
        </p>
      </div>
      <div>
        <label htmlFor="product-interval-count">Interval count</label>
        <input id="product-interval-count" name="interval_count" inputMode="numeric" pattern="\d{1,3}" defaultValue={String(product?.price.interval_count ?? 1)} />
      </div>
      <div>
        <label htmlFor="product-tax-rate">Tax rate (%)</label>
        <input id="product-tax-rate" name="tax_rate" inputMode="numeric" pattern="\d{1,3}" defaultValue={product?.tax_rate === null || product === undefined ? '' : String(product.tax_rate)} />
      </div>
      <div>
        <label htmlFor="product-tax-category">Tax category</label>
        <select id="product-tax-category" name="tax_category" defaultValue={product?.tax_category ?? 'standard'} aria-describedby="product-tax-category-hint">
          {TAX_CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {TAX_CATEGORY_LABELS[category]}
            </option>
          ))}
        </select>
        <p id="product-tax-category-hint" className="dash-muted">
          Which VAT rate of the buyer’s country applies, in stores taxing by the buyer’s country.
        </p>
      </div>
      <div>
        <label htmlFor="product-sku">SKU</label>
        <input id="product-sku" name="sku" maxLength={64} defaultValue={product?.sku ?? ''} placeholder={product ? undefined : 'generated when empty'} />
      </div>
      <div className="dash-span">
        <label className="dash-check">
          <input type="checkbox" name="tax_inclusive" value="yes" defaultChecked={product?.tax_inclusive ?? false} /> Price includes tax
        </label>
        <label className="dash-check">
          <input type="checkbox" name="show_in_store" value="yes" defaultChecked={product?.show_in_store ?? true} /> Show in store
        </label>
        <label className="dash-check">
          <input type="checkbox" name="active" value="yes" defaultChecked={product?.price.active ?? true} /> Active (can be sold)
        </label>
      </div>
    </div>
  );
}

/** What each refusal code of the product actions means to the person. */
export const PRODUCT_MESSAGES: Record<string, string> = {
  form_expired: 'This form has expired: reload the page and try again.',
  invalid_name: 'Enter a name of 1 to 255 characters.',
  invalid_price: 'Enter a price in euros with at most two decimals, e.g. 19.99 (at most 999999.99).',
  invalid_description: 'The description is at most 2000 characters.',
  invalid_type: 'Choose a type from the list.',
  invalid_sku: 'The SKU is 3 to 64 letters, digits, “.”, “_” or “-”.',
  invalid_tax_rate: 'The tax rate is a whole percentage from 0 to 100, or empty for none.',
  invalid_tax_category: 'Choose a tax category from the list.',
  invalid_interval: 'Choose an interval from the list for a recurring price.',
  invalid_interval_count: 'The interval count is a whole number from 1 to 365.',
  sku_unavailable: 'This SKU is not available. Choose another one.',
  product_limit_reached: 'This store has reached its product limit in this mode. Delete products you no longer sell.',
  idempotency_key_reused: 'This form was already used for another product. Reload the page to create another.',
  confirm_delete: 'Tick “Yes, delete this product” to delete it.',
  product_has_active_subscriptions: 'This product cannot be deleted: it has subscriptions that are pending, active, past due or suspended. Cancel them first.',
  product_has_licenses: 'This product cannot be deleted: license keys were sold with it. Tick “Also revoke its license keys” to revoke them and delete the product.',
  resource_missing: 'This product no longer exists.',
};
