import { randomBytes } from 'node:crypto';
import type { ReactNode } from 'react';
import type { DashboardMode } from '../access';

/**
 * A form posting to a dashboard action: it carries the mode of the page it is on and, for actions
 * that must act once, an idempotency key made for this rendering (a double submit acts once).
 */
export function ActionForm({
  action,
  mode,
  idempotent,
  className,
  children,
  label,
}: {
  action: string;
  mode: DashboardMode;
  idempotent?: boolean;
  className?: string;
  children: ReactNode;
  label?: string;
}) {
  return (
    <form method="post" action={`/dashboard/act/${action}`} className={className} aria-label={label}>
      <input type="hidden" name="mode" value={mode} />
      {idempotent && <input type="hidden" name="idempotency_key" value={randomBytes(16).toString('hex')} />}
      {children}
    </form>
  );
}
