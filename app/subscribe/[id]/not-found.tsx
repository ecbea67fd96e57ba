import { CheckoutShell, Notice } from '../../checkout/parts';

/** The page's own notFound() when it loads the checkout itself (a HEAD); proxy.ts answers tampered links itself. */
export default function SubscribeLinkInvalid() {
  return (
    <CheckoutShell>
      <Notice title="This checkout link is not valid" tone="error">
        <p>The link may have been copied incompletely or changed. Nothing was charged.</p>
      </Notice>
    </CheckoutShell>
  );
}
