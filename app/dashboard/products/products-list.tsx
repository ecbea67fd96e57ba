import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { listProductsInput, PRICE_MODES, PRODUCT_TYPES, type Product, type ProductList } from '@/server/products/schemas';
import { listProducts } from '@/server/products/service';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { money, utcTime } from '../format';
import { listQueryString, queryText, type SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { PRODUCT_MESSAGES, ProductFields } from './product-form';
import '../developer-pages.css';

const PAGE_SIZE = 25;

/** `€9.00 / 2 months` for a recurring price, `€9.00` for a one-time one. */
export function priceLabel(product: Product): string {
  const { interval, interval_count: count } = product.price;
  if (product.price.mode !== 'recurring' || interval === null) return money(product.amount);
  return `${money(product.amount)} / ${count === 1 || count === null ? interval : `${count} ${interval}s`}`;
}

/** The list's filters as the URL carries them: the API list's own (type, billing, storefront, exact SKU). */
function readProductsQuery(params: SearchParams) {
  const form = { type: queryText(params, 'type'), mode: queryText(params, 'mode'), storefront: queryText(params, 'storefront'), sku: queryText(params, 'sku') };
  const parsed = listProductsInput.safeParse({
    limit: PAGE_SIZE,
    type: form.type === '' || form.type === 'all' ? undefined : form.type,
    mode: form.mode === '' || form.mode === 'all' ? undefined : form.mode,
    show_in_store: form.storefront === 'shown' ? 'true' : form.storefront === 'hidden' ? 'false' : undefined,
    sku: form.sku === '' ? undefined : form.sku,
    starting_after: queryText(params, 'starting_after') || undefined,
  });
  return { form, query: parsed.success ? parsed.data : undefined };
}

function Filters({ base, form }: { base: string; form: ReturnType<typeof readProductsQuery>['form'] }) {
  const select = (id: string, name: string, label: string, value: string, options: readonly string[]) => (
    <div className="dash-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value || 'all'}>
        <option value="all">all</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <form method="get" action={`${base}/products`} className="dash-filters" role="search">
      <div className="dash-field dash-field-wide">
        <label htmlFor="products-sku">SKU</label>
        <input id="products-sku" name="sku" type="search" defaultValue={form.sku} placeholder="exact SKU" maxLength={64} />
      </div>
      {select('products-type', 'type', 'Type', form.type, PRODUCT_TYPES)}
      {select('products-mode', 'mode', 'Billing', form.mode, PRICE_MODES)}
      {select('products-storefront', 'storefront', 'Storefront', form.storefront, ['shown', 'hidden'])}
      <button type="submit">Apply</button>
    </form>
  );
}

function ProductsTable({ base, list }: { base: string; list: ProductList }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">SKU</th>
            <th scope="col">Type</th>
            <th scope="col" className="dash-num">
              Price
            </th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {list.data.map((product) => (
            <tr key={product.id}>
              <td data-label="Product">
                <a href={`${base}/products/${product.id}`}>{product.name}</a>
              </td>
              <td data-label="SKU" className="dash-mono">
                {product.sku}
              </td>
              <td data-label="Type">{product.type}</td>
              <td className="dash-num dash-nowrap" data-label="Price">
                {priceLabel(product)}
              </td>
              <td data-label="Status">
                {product.price.active ? 'active' : 'inactive'}
                {product.show_in_store ? '' : ', hidden'}
              </td>
              <td className="dash-nowrap" data-label="Created">
                {utcTime(product.created)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The store's products of one mode, newest first, 25 a page; and, for the `products` right, the create form. */
export async function ProductsPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/products');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const { db } = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const { form, query } = readProductsQuery(searchParams);
  const list = query
    ? await listProducts({ db }, scope, query).catch((error: unknown) => {
        // A cursor of another store, mode or list: the page does not exist.
        if (error instanceof ApiError && error.code === 'resource_missing') notFound();
        throw error;
      })
    : undefined;
  const error = queryText(searchParams, 'error');
  const deleted = queryText(searchParams, 'deleted');
  const filtered = Object.values(form).some((value) => value !== '' && value !== 'all');
  return (
    <DashboardShell access={access} mode={mode} path="/products">
      <section className="dash-card">
        <h1>Products</h1>
        {deleted && (
          <p className="dash-notice" role="status">
            Product <span className="dash-mono">{deleted}</span> deleted.
          </p>
        )}
        <Filters base={base} form={form} />
        {!query && (
          <p role="alert" className="dash-alert">
            Choose the filters from their lists; a SKU is typed exactly.
          </p>
        )}
        {list && list.data.length === 0 && <p className="dash-muted">{filtered || searchParams.starting_after ? 'No products match these filters.' : 'No products yet.'}</p>}
        {list && list.data.length > 0 && <ProductsTable base={base} list={list} />}
        {list?.has_more && (
          <p className="dash-pager">
            <a href={`${base}/products${listQueryString(form, { starting_after: list.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
      {can(current.role, 'products') && (
        <section className="dash-card" aria-labelledby="product-create">
          <h2 id="product-create">New product</h2>
          {error && (
            <p role="alert" className="dash-alert">
              {PRODUCT_MESSAGES[error] ?? 'The product could not be created.'}
            </p>
          )}
          <ActionForm action="product-create" mode={mode} idempotent className="dash-form" label="New product">
            <ProductFields />
            <button type="submit" className="dash-narrow">
              Create product
            </button>
          </ActionForm>
        </section>
      )}
    </DashboardShell>
  );
}
