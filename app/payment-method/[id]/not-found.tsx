import { CheckoutShell, Notice } from '../../checkout/parts';

/** The page's own notFound() when it loads the link itself (a HEAD); proxy.ts answers invalid links itself. */
export default function PaymentMethodLinkInvalid() {
  return (
    <CheckoutShell>
      <Notice title="This link is not valid" tone="error">
        <p>The link may have expired, been copied incompletely or changed. Nothing was charged.</p>
      </Notice>
    </CheckoutShell>
  );
}
