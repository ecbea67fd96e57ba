/**
 * The way to the cancel page (`/cancel`), beside the one to withdraw, on every hosted page, in
 * every e-mail about a subscription and in the portal. Where one subscription is meant, its id
 * prefills the form; German e-mails and pages open the form in German.
 */
import type { DocumentLanguage } from '@/db/schema';

export const CANCEL_LINK_TEXT: Record<DocumentLanguage, string> = { en: 'Cancel contracts here', de: 'Verträge hier kündigen' };

/** `/cancel`, `/cancel?number=<sub id>`, `…&lang=de`; `origin` (PUBLIC_BASE_URL) for a link that leaves the site, as in an e-mail. */
export function cancelPageUrl({ subscriptionId, language = 'en', origin = '' }: { subscriptionId?: string | null; language?: DocumentLanguage; origin?: string } = {}): string {
  const query = new URLSearchParams();
  if (subscriptionId) query.set('number', subscriptionId);
  if (language !== 'en') query.set('lang', language);
  const search = query.toString();
  return `${origin}/cancel${search ? `?${search}` : ''}`;
}
