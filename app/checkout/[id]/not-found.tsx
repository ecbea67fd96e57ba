import { CheckoutShell, Notice } from '../parts';

/**
 * A link whose id, expiry or signature was changed, or that never existed. proxy.ts answers
 * those with its own 404 page (server/kit/hosted-page/invalid-link.ts) before this route renders;
 * this stays for the page's own notFound() when it loads the session itself (a HEAD, which
 * proxy.ts does not check), where Next draws it only with client-side JavaScript.
 */
export default function CheckoutLinkInvalid() {
  return (
    <CheckoutShell>
      <Notice title="This checkout link is not valid" tone="error">
        <p>The link may have been copied incompletely or changed. Nothing was charged.</p>
        <p>Go back to the shop and start the checkout again to get a new link.</p>
      </Notice>
    </CheckoutShell>
  );
}
