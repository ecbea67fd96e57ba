import { CheckoutShell, Notice } from '../../checkout/parts';

/** A link gone between proxy.ts's check and the page's read; proxy.ts answers tampered links itself. */
export default function SubscribeLinkInvalid() {
  return (
    <CheckoutShell>
      <Notice title="This checkout link is not valid" tone="error">
        <p>The link may have been copied incompletely or changed. Nothing was charged.</p>
      </Notice>
    </CheckoutShell>
  );
}
