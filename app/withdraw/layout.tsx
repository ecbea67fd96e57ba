import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import '../checkout/checkout.css';

export const metadata: Metadata = {
  title: 'Withdraw from a contract',
  robots: { index: false, follow: false, nocache: true },
  // Not no-referrer: under it Chromium sends `Origin: null` with the forms' posts, which the Origin check refuses.
  referrer: 'same-origin',
};

/** The withdrawal pages share the hosted checkout's look (app/checkout/checkout.css, scoped under .co). */
export default function WithdrawLayout({ children }: { children: ReactNode }) {
  return <div className="co">{children}</div>;
}
