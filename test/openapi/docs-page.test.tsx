import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiReference } from '@/app/docs/api-reference';
import { buildOpenApiDocument } from '@/server/openapi/document';

const html = renderToStaticMarkup(<ApiReference document={buildOpenApiDocument('https://pay.example.test')} />);

/** The HTML of one operation's article, found by its request line. */
function operationHtml(method: string, path: string): string {
  const articles = html.split('<article').slice(1);
  const found = articles.find((article) => article.includes(`>${method}</span> <code>${path}</code>`));
  if (!found) throw new Error(`no operation ${method} ${path} on the page`);
  return found;
}

describe('/docs API reference', () => {
  it('has landmarks, one h1, and says the base URL and how to authenticate', () => {
    expect(html.match(/<h1[ >]/g)).toHaveLength(1);
    for (const landmark of ['<header', '<nav', '<main', '<footer']) expect(html).toContain(landmark);
    expect(html).toContain('<code>https://pay.example.test/api/v1</code>');
    expect(html).toContain('Authorization: Bearer sk_test_… or sk_live_…');
  });

  it('lists POST /api/v1/products with its body fields, responses and errors', () => {
    const create = operationHtml('POST', '/api/v1/products');
    expect(create).toContain('Create a product');
    for (const field of ['name', 'amount', 'description', 'sku', 'images', 'tax_rate', 'mode', 'interval', 'interval_count', 'active']) {
      expect(create).toContain(`<code>${field}</code>`);
    }
    // name and amount are required, with their rules.
    expect(create).toMatch(/<code>name<\/code><\/th><td>string<\/td><td><strong>required<\/strong>/);
    expect(create).toMatch(/<code>amount<\/code><\/th><td>integer<\/td><td><strong>required<\/strong>/);
    expect(create).toContain('1–255 characters');
    expect(create).toContain('<code>digital</code>, <code>physical</code>');
    expect(create).toContain('>201</span>');
    expect(create).toContain('href="#schema-Product"');
    expect(create).toContain('<code>sku_unavailable</code>');
    expect(create).toContain('<code>Retry-After</code>');
  });

  it('shows path parameters and links every object', () => {
    expect(operationHtml('GET', '/api/v1/products/{id}')).toContain('<code>id</code></th><td>path</td>');
    expect(html).toContain('id="schema-Product"');
    expect(html).toContain('id="schema-Error"');
  });
});
