import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { singleParam } from '@/server/kit/hosted-page/request';
import { loadHostedReceipt } from '@/server/checkout/hosted/receipt';
import { paidRedirectUrl } from '@/server/kit/links';
import { CheckoutShell, formatEur, Notice, OrderSummary } from '../../parts';

export const dynamic = 'force-dynamic';

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

const DATE = new Intl.DateTimeFormat('en-IE', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** GET /checkout/{id}/receipt?signature: what was paid, with the card's last 4 and any license keys. */
export default async function ReceiptPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { id } = await params;
  const { signature } = await searchParams;
  const services = await getAppServices();
  const result = await loadHostedReceipt(services, { id, signature: singleParam(signature) });
  if (result.state === 'invalid') notFound();
  if (result.state === 'unpaid') {
    return (
      <CheckoutShell storeName={result.storeName}>
        <Notice title="No payment yet" tone="info">
          <p>This checkout has not been paid, so there is no receipt.</p>
        </Notice>
      </CheckoutShell>
    );
  }

  const { receipt } = result;
  const card = receipt.cardLast4 ? `${BRANDS[receipt.cardBrand ?? ''] ?? 'Card'} ending in ${receipt.cardLast4}` : undefined;
  return (
    <CheckoutShell storeName={receipt.storeName} livemode={receipt.livemode}>
      <div className="co-receipt">
        <section className="co-card" aria-labelledby="receipt-heading">
          <h1 id="receipt-heading" className="co-h1">
            <span className="co-h1-label">Payment received — thank you</span>
            <span className="co-amount">{formatEur(receipt.amountTotal)}</span>
          </h1>
          <dl className="co-facts">
            <dt>Paid to</dt>
            <dd>{receipt.storeName}</dd>
            {receipt.paidAt ? (
              <>
                <dt>Date</dt>
                <dd>{DATE.format(new Date(receipt.paidAt * 1000))} UTC</dd>
              </>
            ) : null}
            {card ? (
              <>
                <dt>Card</dt>
                <dd>{card}</dd>
              </>
            ) : null}
            {receipt.customerEmail ? (
              <>
                <dt>Email</dt>
                <dd>{receipt.customerEmail}</dd>
              </>
            ) : null}
            <dt>Order</dt>
            <dd>
              <code>{receipt.orderId}</code>
            </dd>
            {receipt.amountRefunded > 0 ? (
              <>
                <dt>Refunded</dt>
                <dd>{formatEur(receipt.amountRefunded)}</dd>
              </>
            ) : null}
          </dl>
        </section>
        <OrderSummary amounts={receipt} heading="Items" headingId="items-heading" totalLabel="Total paid" />
        {receipt.licenseKeys.length > 0 ? (
          <section className="co-card" aria-labelledby="keys-heading">
            <h2 id="keys-heading" className="co-h2">
              License {receipt.licenseKeys.length === 1 ? 'key' : 'keys'}
            </h2>
            <ul className="co-keys">
              {receipt.licenseKeys.map((key) => (
                <li key={key}>
                  <code>{key}</code>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {receipt.successUrl ? (
          <p>
            {/* With session_id, as after paying: the merchant's page looks the order up by it. */}
            <a className="co-link" href={paidRedirectUrl(services.config, { id: receipt.sessionId, successUrl: receipt.successUrl })}>
              Return to {receipt.storeName}
            </a>
          </p>
        ) : null}
      </div>
    </CheckoutShell>
  );
}
