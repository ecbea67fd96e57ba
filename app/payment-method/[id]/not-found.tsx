import { headers } from 'next/headers';
import { pageLanguage } from '@/server/kit/language';
import { PAYMENT_METHOD_LINK_NOTICE } from '@/server/subscriptions/payment-method';
import { CheckoutShell, Notice } from '../../checkout/parts';

/** The page's own notFound() when it loads the link itself (a HEAD); proxy.ts answers invalid links itself, with the same words. */
export default async function PaymentMethodLinkInvalid() {
  const language = pageLanguage(await headers());
  const notice = PAYMENT_METHOD_LINK_NOTICE[language];
  return (
    <CheckoutShell language={language}>
      <Notice title={notice.title} tone="error">
        {notice.paragraphs.map((paragraph) => (
          <p key={paragraph}>{paragraph}</p>
        ))}
      </Notice>
    </CheckoutShell>
  );
}
