import { CheckoutShell, Notice } from '../parts';

/** A link whose id, expiry or signature was changed, or that never existed: the same page for all. */
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
