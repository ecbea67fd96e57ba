import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './checkout.css';

export const metadata: Metadata = {
  title: 'Checkout',
  // The link is a credential (it carries a signature): keep it out of every index and archive.
  robots: { index: false, follow: false, nocache: true },
  referrer: 'no-referrer',
};

/** Every hosted checkout page: one centred column, readable on a phone, no third-party assets. */
export default function CheckoutLayout({ children }: { children: ReactNode }) {
  return <div className="co">{children}</div>;
}
