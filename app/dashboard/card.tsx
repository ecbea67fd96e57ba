import type { ReactNode } from 'react';

/** The signed-out pages: one narrow card in the middle. */
export function SignedOutCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="dash-auth">
      <p className="dash-brand">Payments dashboard</p>
      <section className="dash-card">
        <h1>{title}</h1>
        {children}
      </section>
    </main>
  );
}

/** An object's facts, label beside value: the top of every detail page. */
export function FactList({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="dash-facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
