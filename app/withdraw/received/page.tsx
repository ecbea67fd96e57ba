import { getAppServices } from '@/server/app';
import { singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { openReceipt } from '@/server/orders/withdrawals/hosted';
import { DeclarationHeading, ReceivedTime } from '../../_declaration/parts';
import { WithdrawShell } from '../parts';

export const dynamic = 'force-dynamic';

/**
 * GET /withdraw/received?receipt: the answer to every declaration, recorded or not, so it never
 * tells whether the order exists or the address matched.
 */
export default async function WithdrawalReceivedPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { config } = await getAppServices();
  const receipt = openReceipt(config, singleParam((await searchParams).receipt));
  if (!receipt) {
    return (
      <WithdrawShell operator={config.operator}>
        <DeclarationHeading>Nothing to show</DeclarationHeading>
        <p>This link does not show a withdrawal. To withdraw from a contract, fill in the withdrawal form.</p>
        <p>
          <a className="co-link" href="/withdraw">
            Withdraw from contract here
          </a>
        </p>
      </WithdrawShell>
    );
  }
  return (
    <WithdrawShell operator={config.operator}>
      <DeclarationHeading>Withdrawal received</DeclarationHeading>
      <dl className="co-facts co-withdraw-facts">
        <dt>Order number</dt>
        <dd>
          <code>{receipt.orderId}</code>
        </dd>
        <dt>Received</dt>
        <dd>
          <ReceivedTime at={receipt.declaredAt} />
        </dd>
      </dl>
      <p>When the order number and e-mail address belong to an order, your withdrawal is recorded and a confirmation is sent to that address. Your payment is then refunded within 14 days.</p>
      <p>Keep this page, or note its date and time, as proof of when you withdrew.</p>
    </WithdrawShell>
  );
}
