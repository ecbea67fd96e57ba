import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { getAppServices } from '@/server/app';
import { singleParam } from '@/server/kit/hosted-page/request';
import { hostedReceiptHandoff, loadHostedReceipt, type HostedReceiptResult } from '@/server/checkout/hosted/receipt';
import { paidRedirectUrl } from '@/server/kit/links';
import { cardText, CheckoutShell, DownloadLinks, Notice, OrderSummary, SellerLine } from '../../parts';
import { formatEur } from '@/server/kit/hosted-page/amounts';

export const dynamic = 'force-dynamic';

const DATE = new Intl.DateTimeFormat('en-IE', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

type PageProps = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Loaded by proxy.ts for this request (here only when it was not: a HEAD); once per request, for the title and the page. */
const hostedReceipt = cache(async (id: string, signature: string | undefined): Promise<HostedReceiptResult> => {
  return hostedReceiptHandoff.take(await headers()) ?? (await loadHostedReceipt(await getAppServices(), { id, signature }));
});

async function hostedReceiptOf({ params, searchParams }: PageProps) {
  return hostedReceipt((await params).id, singleParam((await searchParams).signature));
}

/** The tab names the store and the amount. */
export async function generateMetadata(props: PageProps): Promise<Metadata> {
  const result = await hostedReceiptOf(props);
  if (result.state === 'paid') return { title: `Receipt: ${formatEur(result.receipt.amountTotal)} paid to ${result.receipt.storeName}` };
  return result.state === 'unpaid' ? { title: `No payment yet · ${result.storeName}` } : {};
}

/**
 * GET /checkout/{id}/receipt?signature: what was paid, with the card's last 4, any license keys and
 * download links, and what was refunded (a refund in full takes the keys and links away).
 */
export default async function ReceiptPage(props: PageProps) {
  const result = await hostedReceiptOf(props);
  const services = await getAppServices();
  const { operator } = services.config;
  if (result.state === 'invalid') notFound();
  if (result.state === 'unpaid') {
    return (
      <CheckoutShell store={{ name: result.storeName, links: result.storeLinks }} operator={operator}>
        <Notice title="No payment yet" tone="info">
          <p>This checkout has not been paid, so there is no receipt.</p>
        </Notice>
      </CheckoutShell>
    );
  }

  const { receipt } = result;
  const card = receipt.cardLast4 ? cardText(receipt.cardBrand, receipt.cardLast4) : undefined;
  const refundedInFull = receipt.amountRefunded >= receipt.amountTotal;
  return (
    // No test mode banner: a receipt takes no card, and its test-card list would only distract.
    <CheckoutShell store={{ name: receipt.storeName, links: receipt.storeLinks }} operator={operator}>
      <div className="co-receipt">
        <section className="co-card" aria-labelledby="receipt-heading">
          <h1 id="receipt-heading" className="co-h1">
            <span className="co-h1-label">{refundedInFull ? 'Payment refunded' : 'Payment received — thank you'}</span>
            <span className="co-amount">{formatEur(receipt.amountTotal)}</span>
          </h1>
          <SellerLine operator={operator} storeName={receipt.storeName} />
          <dl className="co-facts">
            {receipt.livemode ? null : (
              <>
                <dt>Mode</dt>
                <dd>Test payment: no real money moved</dd>
              </>
            )}
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
                <dd>{refundedInFull ? `${formatEur(receipt.amountRefunded)} (the whole payment)` : formatEur(receipt.amountRefunded)}</dd>
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
        {receipt.downloads.length > 0 ? (
          <section className="co-card" aria-labelledby="downloads-heading">
            <h2 id="downloads-heading" className="co-h2">
              Downloads
            </h2>
            <DownloadLinks downloads={receipt.downloads} className="co-keys" />
            <p className="co-hint co-downloads-hint">Each link works for 24 hours: open this receipt again for new ones.</p>
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
