import type { ReactNode } from 'react';
import './demo.css';

export const metadata = { title: 'Demo merchant', robots: { index: false } };

/** A merchant's pages using the browser client library, served by the service for show. */
export default function DemoLayout({ children }: { children: ReactNode }) {
  return <main className="demo">{children}</main>;
}
