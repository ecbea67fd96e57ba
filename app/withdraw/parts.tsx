import type { ReactNode } from 'react';
import type { OperatorConfig } from '@/server/config';
import type { WithdrawalField } from '@/server/orders/withdrawals/hosted';
import { ContractLinks } from '../checkout/parts';

/** Header, the main landmark and a footer saying who sells: the frame of every /withdraw page. */
export function WithdrawShell({ operator, children }: { operator: OperatorConfig; children: ReactNode }) {
  return (
    <>
      <a className="co-skip" href="#main">
        Skip to content
      </a>
      <header className="co-header">
        <div className="co-header-inner">
          <p className="co-merchant">Withdrawal from a contract</p>
        </div>
      </header>
      <main id="main" className="co-main">
        <section className="co-card co-withdraw" aria-labelledby="withdraw-heading">
          {children}
        </section>
      </main>
      <footer className="co-footer">
        <p>Purchases are sold by {operator.legalName} as merchant of record on behalf of the store. A withdrawal declared here reaches both.</p>
        <ContractLinks withdraw={false} />
      </footer>
    </>
  );
}

/** The one page heading, which the section is named by. */
export function WithdrawHeading({ children }: { children: ReactNode }) {
  return (
    <h1 id="withdraw-heading" className="co-h1">
      {children}
    </h1>
  );
}

/** How the alert above the form names the field to correct. */
export const FIELD_LABELS: Record<WithdrawalField, string> = { orderId: 'order number', email: 'email address', name: 'name', reason: 'reason' };

const DATE = new Intl.DateTimeFormat('en-IE', { dateStyle: 'long', timeZone: 'UTC' });
const TIME = new Intl.DateTimeFormat('en-IE', { timeStyle: 'short', timeZone: 'UTC' });

/** "26 November 2026 at 14:05 UTC", machine-readable in its datetime attribute. */
export function DateTime({ at }: { at: number }) {
  const date = new Date(at * 1000);
  return (
    <time dateTime={date.toISOString()}>
      {DATE.format(date)} at {TIME.format(date)} UTC
    </time>
  );
}
