export default function HomePage() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: '40rem', margin: '4rem auto', padding: '0 1rem', lineHeight: 1.5 }}>
      <h1>Payments service</h1>
      <p>Catalog, hosted checkout, subscriptions, webhooks and a customer portal, with the platform as merchant of record.</p>
      <ul>
        <li>
          <a href="/docs">API reference</a>
        </li>
        <li>
          <a href="/api/v1/openapi.json">OpenAPI document</a>
        </li>
      </ul>
    </main>
  );
}
