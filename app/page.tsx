/** The service's front page: where a newcomer goes next, each with what they will find there. */
const PLACES: readonly { href: string; label: string; what: string }[] = [
  { href: '/demo', label: 'Demo shop', what: 'a small storefront on the demo store: buy with a test card and follow the hosted checkout end to end.' },
  { href: '/dashboard', label: 'Dashboard', what: 'your orders, customers, products, subscriptions, webhooks, API keys and team (test data under Test mode).' },
  { href: '/docs', label: 'API reference', what: 'every endpoint with its fields and errors, generated from the OpenAPI document.' },
  { href: '/api/v1/openapi.json', label: 'OpenAPI document', what: 'the same reference as OpenAPI 3.1, for generating a client.' },
];

export default function HomePage() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: '40rem', margin: '4rem auto', padding: '0 1rem', lineHeight: 1.5 }}>
      <h1>Payments service</h1>
      <p>Catalog, hosted checkout, subscriptions, webhooks and a customer portal, with the platform as merchant of record.</p>
      <ul>
        {PLACES.map((place) => (
          <li key={place.href}>
            <a href={place.href}>{place.label}</a>: {place.what}
          </li>
        ))}
      </ul>
    </main>
  );
}
