import { getAppServices } from '@/server/app';
import { singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { openDraft } from '@/server/orders/withdrawals/hosted';
import { DeclarationHeading } from '../../_declaration/parts';
import { WithdrawShell } from '../parts';

export const dynamic = 'force-dynamic';

/** GET /withdraw/confirm?draft: step two, the details shown back with the button that sends the declaration. */
export default async function ConfirmWithdrawalPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sealed = singleParam((await searchParams).draft);
  const services = await getAppServices();
  const draft = openDraft(services.config, sealed, Math.floor(services.clock.now().getTime() / 1000));
  if (draft.state !== 'open') {
    return (
      <WithdrawShell operator={services.config.operator}>
        <DeclarationHeading>{draft.state === 'expired' ? 'This form has expired' : 'Nothing to confirm'}</DeclarationHeading>
        <p>Nothing was sent. Please fill in the withdrawal form again.</p>
        <p>
          <a className="co-link" href="/withdraw">
            Start again
          </a>
        </p>
      </WithdrawShell>
    );
  }
  const { form } = draft;
  return (
    <WithdrawShell operator={services.config.operator}>
      <DeclarationHeading>Confirm your withdrawal</DeclarationHeading>
      <p>Please check your details. Your withdrawal is declared when you confirm.</p>
      <dl className="co-facts co-withdraw-facts">
        <dt>Order number</dt>
        <dd>
          <code>{form.orderId}</code>
        </dd>
        <dt>Email</dt>
        <dd>{form.email}</dd>
        <dt>Name</dt>
        <dd>{form.name}</dd>
        <dt>Reason</dt>
        <dd>{form.reason === '' ? 'None given' : form.reason}</dd>
      </dl>
      <form method="post" action="/withdraw/declare" className="co-form">
        <input type="hidden" name="draft" value={sealed} />
        <button type="submit" className="co-button co-pay-button">
          Confirm withdrawal
        </button>
      </form>
      <p className="co-cancel">
        <a className="co-link" href={`/withdraw?draft=${encodeURIComponent(sealed!)}`}>
          Change details
        </a>
      </p>
    </WithdrawShell>
  );
}
