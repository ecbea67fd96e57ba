import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import '../checkout/checkout.css';
import './portal.css';

export const metadata: Metadata = {
  title: 'Your payment history',
  // The link is a credential; keep the page out of every index and archive.
  robots: 'noindex, noarchive',
  referrer: 'no-referrer',
};

/** The portal shares the hosted checkout's look (app/checkout/checkout.css, scoped under .co). */
export default function PortalLayout({ children }: { children: ReactNode }) {
  return <div className="co pt">{children}</div>;
}
