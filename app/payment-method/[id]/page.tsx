import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { getAppServices } from '@/server/app';
import { hostedLinkFromQuery, singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { pageLanguage } from '@/server/kit/language';
import { cardUpdateOutcome, loadPaymentMethodPage, paymentMethodHandoff, type PaymentMethodPage } from '@/server/subscriptions/payment-method';
import { PaymentMethodScreen } from './parts';
import { PAYMENT_METHOD_TEXTS } from './texts';

// Every view reads the subscription and the store's clock at request time.
export const dynamic = 'force-dynamic';

type PageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

/** Loaded by proxy.ts for this request (loaded here only when it was not: a HEAD); once per request, for the title and the page. */
const paymentMethodPage = cache(async (id: string, expires: string | undefined, signature: string | undefined): Promise<PaymentMethodPage> => {
  const services = await getAppServices();
  return paymentMethodHandoff.take(await headers()) ?? (await loadPaymentMethodPage(services, { id, expires, signature }));
});

async function pageOf({ params, searchParams }: PageProps) {
  const link = hostedLinkFromQuery((await params).id, await searchParams);
  return { link, page: await paymentMethodPage(link.id, link.expires, link.signature) };
}

export async function generateMetadata(props: PageProps): Promise<Metadata> {
  const { page } = await pageOf(props);
  if (page.state === 'invalid') return {};
  return { title: PAYMENT_METHOD_TEXTS[pageLanguage(await headers())].title(page.view.planName, page.view.storeName) };
}

/**
 * GET /payment-method/{id}?expires&signature&lang: a new card for one subscription, and after a
 * post what became of it (`outcome`), in the language proxy.ts chose.
 */
export default async function UpdatePaymentMethodPage(props: PageProps) {
  const { link, page } = await pageOf(props);
  if (page.state === 'invalid') notFound();
  const query = await props.searchParams;
  const services = await getAppServices();
  const outcome = await cardUpdateOutcome(services, page.view.id, singleParam(query.outcome));
  return (
    <PaymentMethodScreen
      view={page.view}
      outcome={outcome}
      error={singleParam(query.error)}
      // Verified by loadPaymentMethodPage: both are present.
      link={{ expires: link.expires!, signature: link.signature! }}
      operator={services.config.operator}
      language={pageLanguage(await headers())}
    />
  );
}
