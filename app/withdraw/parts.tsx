import type { ReactNode } from 'react';
import type { OperatorConfig } from '@/server/config';
import type { WithdrawalField } from '@/server/orders/withdrawals/hosted';
import { DeclarationShell } from '../_declaration/parts';

const FOOTER = (operator: OperatorConfig) => `Purchases are sold by ${operator.legalName} as merchant of record on behalf of the store. A withdrawal declared here reaches both.`;

/** The frame of every /withdraw page. */
export function WithdrawShell({ operator, children }: { operator: OperatorConfig; children: ReactNode }) {
  return (
    <DeclarationShell site="Withdrawal from a contract" footer={FOOTER(operator)}>
      {children}
    </DeclarationShell>
  );
}

/** How the alert above the form names the field to correct. */
export const FIELD_LABELS: Record<WithdrawalField, string> = { orderId: 'order number', email: 'email address', name: 'name', reason: 'reason' };
