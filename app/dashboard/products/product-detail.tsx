import type { ReactNode } from 'react';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import type { Product } from '@/server/products/schemas';
import { getProduct } from '@/server/products/service';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { PRODUCT_MESSAGES, ProductFields, TAX_CATEGORY_LABELS } from './product-form';
import { priceLabel } from './products-list';
import '../developer-pages.css';
import { FactList } from '../card';

const SAVED: Record<string, string> = { created: 'Product created.', updated: 'Product saved.' };

function Summary({ product }: { product: Product }) {
  const rows: [string, ReactNode][] = [
    ['Price', priceLabel(product)],
    ['Price id', <span className="dash-mono">{product.price_id}</span>],
    ['SKU', <span className="dash-mono">{product.sku}</span>],
    ['Type', product.type],
    ['Tax rate', product.tax_rate === null ? 'none' : `${product.tax_rate} %${product.tax_inclusive ? ' (included)' : ''}`],
    ['Tax category', TAX_CATEGORY_LABELS[product.tax_category]],
    ['Status', `${product.price.active ? 'active' : 'inactive'}, ${product.show_in_store ? 'shown in store' : 'hidden from store'}`],
    ['License keys', product.has_license ? 'yes' : 'no'],
    ['Created', utcTime(product.created)],
    ['Updated', utcTime(product.updated)],
  ];
  return <FactList rows={rows} />;
}

/** One product of the store and mode; anything else is this page's 404. */
export async function ProductPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/products');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const { error, saved } = await searchParams;
  const { db } = await getAppServices();
  const product = await getProduct({ db }, { storeId: current.storeId, livemode: mode === 'live' }, id).catch((failure: unknown) => {
    if (failure instanceof ApiError && failure.code === 'resource_missing') notFound();
    throw failure;
  });
  const editable = can(current.role, 'products');
  const message = typeof error === 'string' ? (PRODUCT_MESSAGES[error] ?? 'The product could not be changed.') : undefined;
  return (
    <DashboardShell access={access} mode={mode} path="/products">
      <p className="dash-back">
        <a href={`${dashboardBase(mode)}/products`}>← Products</a>
      </p>
      <section className="dash-card">
        <h1>{product.name}</h1>
        <p className="dash-muted dash-mono">{product.id}</p>
        {typeof saved === 'string' && SAVED[saved] && (
          <p className="dash-notice" role="status">
            {SAVED[saved]}
          </p>
        )}
        {product.description && <p>{product.description}</p>}
        <Summary product={product} />
      </section>
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      {editable && (
        <section className="dash-card" aria-labelledby="product-edit">
          <h2 id="product-edit">Edit</h2>
          <ActionForm action="product-update" mode={mode} className="dash-form" label="Edit product">
            <input type="hidden" name="product_id" value={product.id} />
            <ProductFields product={product} />
            <button type="submit" className="dash-narrow">
              Save product
            </button>
          </ActionForm>
        </section>
      )}
      {editable && (
        <section className="dash-card" aria-labelledby="product-delete">
          <h2 id="product-delete">Delete</h2>
          <ActionForm action="product-delete" mode={mode} className="dash-form dash-narrow" label="Delete product">
            <input type="hidden" name="product_id" value={product.id} />
            <label className="dash-check">
              <input type="checkbox" name="confirm" value="yes" required /> Yes, delete this product
            </label>
            {product.has_license && (
              <label className="dash-check">
                <input type="checkbox" name="force" value="yes" /> Also revoke its license keys
              </label>
            )}
            <button type="submit" className="dash-danger">
              Delete product
            </button>
          </ActionForm>
        </section>
      )}
    </DashboardShell>
  );
}
