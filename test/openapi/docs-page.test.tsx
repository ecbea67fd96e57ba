import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DocsDomain, DocsIndex } from '@/app/docs/api-reference';
import { referenceOf, searchReference } from '@/app/docs/reference';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { HTTP_METHODS } from '@/server/openapi/types';

const document = buildOpenApiDocument('https://pay.example.test');
const reference = referenceOf(document);
const index = renderToStaticMarkup(<DocsIndex reference={reference} />);
const pages = Object.fromEntries(reference.domains.map((domain) => [domain.slug, renderToStaticMarkup(<DocsDomain reference={reference} domain={domain} />)]));

/** The HTML of one operation's article, found by its request line. */
function operationHtml(html: string, method: string, path: string): string {
  const found = html
    .split('<article')
    .slice(1)
    .find((article) => article.includes(`>${method}</span> <code>${path}</code>`));
  if (!found) throw new Error(`no operation ${method} ${path} on the page`);
  return found;
}

/** What a `<pre>` shows, entities decoded. */
function codeBlocks(html: string): string[] {
  return [...html.matchAll(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((match) =>
    match[1]!
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  );
}

describe('/docs: the overview', () => {
  it('has landmarks, one h1, a search form that works without script, and says the base URL and how to authenticate', () => {
    expect(index.match(/<h1[ >]/g)).toHaveLength(1);
    for (const landmark of ['<header', '<nav', '<main', '<footer', 'role="search"']) expect(index).toContain(landmark);
    expect(index).toContain('<form class="docs-search" role="search" action="/docs" method="get">');
    expect(index).toMatch(/<input id="docs-search-query" type="search"[^>]* name="q" value=""\/>/);
    expect(index).toContain('<code>https://pay.example.test/api/v1</code>');
    expect(index).toContain('Authorization: Bearer sk_test_… or sk_live_…');
    expect(index).toContain('id="errors"');
    expect(index).toContain('&quot;code&quot;: &quot;parameter_invalid&quot;');
  });

  it('links a page of each of the 17 domains, and every operation on it', () => {
    expect(reference.domains.map((domain) => domain.slug)).toEqual([
      'products',
      'checkout-sessions',
      'test-helpers',
      'orders',
      'customers',
      'licenses',
      'refunds',
      'webhooks',
      'subscriptions',
      'portal',
      'events',
      'invoices',
      'balance',
      'payouts',
      'disputes',
      'coupons',
      'promotion-codes',
    ]);
    for (const domain of reference.domains) {
      expect(index).toContain(`href="/docs/${domain.slug}"`);
      for (const operation of domain.operations) expect(index).toContain(`href="/docs/${domain.slug}#${operation.id}"`);
    }
  });
});

describe('/docs/<domain>', () => {
  it('each of the 71 operations is on one page, with a curl request and its example answer', () => {
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) => HTTP_METHODS.filter((method) => item[method]).map((method) => ({ method, path })));
    expect(operations).toHaveLength(71);
    for (const { method, path } of operations) {
      const found = Object.values(pages).filter((html) => html.includes(`>${method.toUpperCase()}</span> <code>/api/v1${path}</code>`));
      expect(found, `${method} ${path}`).toHaveLength(1);
      const [request, response] = codeBlocks(operationHtml(found[0]!, method.toUpperCase(), `/api/v1${path}`));
      expect(request, `${method} ${path}`).toMatch(/^curl /);
      // A PDF download answers a file: no JSON sample to show.
      if (/[/.]pdf$/.test(path)) expect(response, `${method} ${path}`).toBeUndefined();
      else expect(JSON.parse(response!), `${method} ${path}`).toEqual(expect.any(Object));
    }
  });

  it('POST /api/v1/products: body fields, an example, responses and errors', () => {
    const create = operationHtml(pages.products!, 'POST', '/api/v1/products');
    expect(create).toContain('Create a product');
    for (const field of ['name', 'amount', 'description', 'sku', 'images', 'tax_rate', 'mode', 'interval', 'interval_count', 'active']) {
      expect(create).toContain(`<code>${field}</code>`);
    }
    // name and amount are required, with their rules.
    expect(create).toMatch(/<code>name<\/code><\/th><td data-label="Type"><div>string<\/div><\/td><td data-label="Required"><div><strong>required<\/strong>/);
    expect(create).toMatch(/<code>amount<\/code><\/th><td data-label="Type"><div>integer<\/div><\/td><td data-label="Required"><div><strong>required<\/strong>/);
    expect(create).toContain('1–255 characters');
    expect(create).toContain('<code>digital</code>, <code>physical</code>');
    expect(create).toContain('>201</span>');
    expect(create).toContain('href="/docs/products#schema-Product"');
    expect(create).toContain('<code>sku_unavailable</code>');
    expect(create).toContain('<code>Retry-After</code>');
    const [request, response] = codeBlocks(create);
    expect(request).toBe(
      [
        'curl https://pay.example.test/api/v1/products \\',
        '  -H "Authorization: Bearer $SK" \\',
        "  -H 'Content-Type: application/json' \\",
        "  -H 'Idempotency-Key: order-1042' \\",
        "  -d '{",
        '  "name": "Ebook: Payments in practice",',
        '  "amount": 1999,',
        '  "tax_rate": 19,',
        '  "description": "A practical guide to taking payments online."',
        "}'",
      ].join('\n'),
    );
    expect(JSON.parse(response!)).toMatchObject({ id: 'prod_test_iOu2y96F3aIFDX1oRMJXBlZg', object: 'product', amount: 1999, tax_rate: 19 });
    expect(create).toContain('Example response: 201');
  });

  it('path parameters, the methods curl needs spelled out, and the publishable key where the browser calls', () => {
    const retrieve = operationHtml(pages.products!, 'GET', '/api/v1/products/{id}');
    expect(retrieve).toContain('<code>id</code></th><td data-label="In"><div>path</div></td>');
    expect(codeBlocks(retrieve)[0]).toBe('curl https://pay.example.test/api/v1/products/prod_test_iOu2y96F3aIFDX1oRMJXBlZg \\\n  -H "Authorization: Bearer $SK"');
    expect(codeBlocks(operationHtml(pages.products!, 'DELETE', '/api/v1/products/{id}'))[0]).toMatch(/^curl -X DELETE https:\/\/pay\.example\.test\/api\/v1\/products\/prod_test_/);
    const expire = codeBlocks(operationHtml(pages['checkout-sessions']!, 'POST', '/api/v1/checkout/sessions/{id}/expire'));
    expect(expire[0]).toBe(
      'curl -X POST https://pay.example.test/api/v1/checkout/sessions/cs_test_kDJVzVeVFgFldAPhN4vfhymI/expire \\\n  -H "Authorization: Bearer $SK" \\\n  -H \'Content-Type: application/json\'',
    );
    expect(JSON.parse(expire[1]!)).toMatchObject({ status: 'expired', url: null });
    const confirm = codeBlocks(operationHtml(pages['checkout-sessions']!, 'POST', '/api/v1/checkout/sessions/{id}/confirm'));
    expect(confirm[0]).toContain('-H "Authorization: Bearer $PK"');
  });

  it('the checkout session body: the fields of each mode, then those of every mode; the example answer is the open session with its secret', () => {
    const create = operationHtml(pages['checkout-sessions']!, 'POST', '/api/v1/checkout/sessions');
    const headings = [...create.matchAll(/<h5>([^<]+)<\/h5>/g)].map((match) => match[1]);
    expect(headings).toEqual(['Price mode', 'Line items mode', 'Amount mode', 'Fields of every mode']);
    expect(create).toContain('Exactly one of <code>price_id</code>, <code>line_items</code> or <code>amount</code>');
    const modes = create.split('<h5>').slice(1);
    expect(modes[0]).toContain('<code>price_id</code>');
    expect(modes[0]).not.toContain('<code>success_url</code>');
    expect(modes[2]).toContain('<code>description</code>');
    expect(modes[3]).toContain('<code>success_url</code>');
    const [request, response] = codeBlocks(create);
    expect(request).toContain('"price_id": "price_test_mbYeAdz5bRAOdqeMx2irLX54"');
    expect(request).toContain('"cancel_url": "https://shop.example.com/cart"');
    expect(JSON.parse(response!)).toMatchObject({ status: 'open', client_secret: expect.stringMatching(/^cs_test_\w+_secret_\w+$/), url: expect.stringContaining('/checkout/cs_test_') });
  });

  it('every table cell names its column, so tables stack into cards on a narrow screen', () => {
    for (const html of [index, ...Object.values(pages)]) {
      expect(html.match(/<td(?![^>]*data-label)[^>]*>/g)).toBeNull();
      expect(html).toContain('<td data-label=');
    }
  });

  it('every link to an object lands on the page that shows it', () => {
    const anchors = new Map([['/docs', index], ...Object.entries(pages).map(([slug, html]) => [`/docs/${slug}`, html] as const)]);
    let links = 0;
    for (const html of anchors.values()) {
      for (const [, page, id] of html.matchAll(/href="(\/docs(?:\/[a-z-]+)?)#(schema-[A-Za-z]+)"/g)) {
        links++;
        expect(anchors.get(page!), `${page}#${id}`).toContain(`id="${id}"`);
      }
    }
    expect(links).toBeGreaterThan(100);
    // Each object once: on the page of the first domain that answers it.
    const shown = Object.values(pages).flatMap((html) => [...html.matchAll(/<article id="(schema-[A-Za-z]+)"/g)].map((match) => match[1]));
    expect(new Set(shown).size).toBe(shown.length);
    expect(shown).toHaveLength(Object.keys(document.components?.schemas ?? {}).length - 1);
    expect(pages.products).toContain('id="schema-Product"');
    expect(pages.events).toContain('id="schema-OrderPaidEvent"');
    expect(index).toContain('id="schema-Error"');
  });
});

describe('/docs?q=: search', () => {
  it('finds operations, objects, fields and error codes, every word of the query', () => {
    const hits = searchReference(reference, 'client_secret');
    expect(hits).toContainEqual(expect.objectContaining({ kind: 'field', title: '`client_secret` of `CheckoutSession`', href: '/docs/checkout-sessions#schema-CheckoutSession' }));
    expect(searchReference(reference, 'refund create')).toContainEqual(expect.objectContaining({ kind: 'operation', title: '`POST /api/v1/refunds`', href: '/docs/refunds#refunds-create' }));
    expect(searchReference(reference, 'subscription_pending')).toContainEqual({ kind: 'error code', title: '`subscription_pending`', detail: 'HTTP 409', href: '/docs#errors' });
    expect(searchReference(reference, 'success_url checkout')).toContainEqual(
      expect.objectContaining({ kind: 'field', title: '`success_url` of `POST /api/v1/checkout/sessions`', href: '/docs/checkout-sessions#checkout-create' }),
    );
    expect(searchReference(reference, 'LicenseKeyValidation').map((hit) => hit.kind)).toEqual(['object']);
    expect(searchReference(reference, 'nothing-by-this-name')).toEqual([]);
    expect(searchReference(reference, '   ')).toEqual([]);
  });

  it('shows the results on /docs, with links, above the overview', () => {
    const html = renderToStaticMarkup(<DocsIndex reference={reference} query="price_mode_unsupported" />);
    expect(html).toContain('1 result for “price_mode_unsupported”');
    expect(html).toContain('value="price_mode_unsupported"');
    expect(html).toMatch(/<a href="\/docs#errors"><code>price_mode_unsupported<\/code><\/a> — HTTP 400/);
    expect(html.indexOf('id="search-results"')).toBeLessThan(html.indexOf('id="introduction"'));
    expect(renderToStaticMarkup(<DocsIndex reference={reference} query="zzz" />)).toContain('Nothing found for “zzz”');
  });
});
