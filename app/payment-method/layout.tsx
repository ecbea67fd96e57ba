import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import '../checkout/checkout.css';

export const metadata: Metadata = {
  title: 'Update your payment method',
  // The link is a credential (it carries a signature): keep it out of every index and archive.
  robots: { index: false, follow: false, nocache: true },
  referrer: 'no-referrer',
};

/** The update-payment-method page shares the checkout's look (app/checkout/checkout.css). */
export default function PaymentMethodLayout({ children }: { children: ReactNode }) {
  return <div className="co">{children}</div>;
}
