import type { Metadata } from 'next';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { pageLanguage } from '@/server/kit/language';

export const metadata: Metadata = {
  title: 'Payments service',
  description: 'Hosted checkout, subscriptions and customer portal, as merchant of record.',
};

/** `<html lang>`: English, or the language proxy.ts chose for a page written in the customer's language. */
export default async function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang={pageLanguage(await headers())}>
      <body>{children}</body>
    </html>
  );
}
