import type { Metadata } from 'next';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { pageLanguage } from '@/server/kit/language';
import { CANCEL_TEXTS } from './texts';
import '../checkout/checkout.css';

export async function generateMetadata(): Promise<Metadata> {
  return {
    title: CANCEL_TEXTS[pageLanguage(await headers())].title,
    robots: { index: false, follow: false, nocache: true },
    // Not no-referrer: under it Chromium sends `Origin: null` with the forms' posts, which the Origin check refuses.
    referrer: 'same-origin',
  };
}

/** The cancellation pages share the hosted checkout's look (app/checkout/checkout.css, scoped under .co). */
export default function CancelLayout({ children }: { children: ReactNode }) {
  return <div className="co">{children}</div>;
}
