import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import './dashboard.css';

export const metadata: Metadata = {
  title: 'Dashboard',
  robots: { index: false, follow: false, nocache: true },
  // Accept links carry their token in the path: it never leaves the origin. (Not no-referrer:
  // Chromium then posts forms with `Origin: null`, which the Origin check refuses.)
  referrer: 'same-origin',
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default function DashboardLayout({ children }: { children: ReactNode }) {
  return children;
}
