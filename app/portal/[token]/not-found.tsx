import { Notice } from '../../checkout/parts';

/**
 * A link that stopped resolving between proxy.ts's check and the page's own (a revocation in
 * that instant). proxy.ts answers every other unknown, expired or revoked link with its own 404
 * page (server/portal/responses.ts); this one Next draws only with client-side JavaScript.
 */
export default function PortalLinkInvalid() {
  return (
    <main id="main" className="co-main" aria-labelledby="notice-heading">
      <Notice title="This link is no longer valid" tone="info">
        <p>Ask the shop for a new link to see your orders and subscriptions.</p>
      </Notice>
    </main>
  );
}
