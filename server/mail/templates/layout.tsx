/**
 * What every e-mail shares: the store's name on top, a heading, the body, a table of details, and
 * the footer: to a customer it names the seller of record with the link to withdraw (and, about a
 * subscription, the one to cancel it); to the
 * store's members, why they receive it. Inline styles only, in tables (what mail clients render
 * alike).
 */
import { Body, Container, Head, Heading, Hr, Html, Link, Preview, Text } from '@react-email/components';
import type { ReactNode } from 'react';
import type { DocumentLanguage } from '@/db/schema';
import type { OperatorConfig } from '../../config';
import { CANCEL_LINK_TEXT } from '../../kit/hosted-page/cancel-link';
import type { Formatters } from '../../kit/locale';

/** What a template sees besides its own data. */
export interface MailView {
  language: DocumentLanguage;
  format: Formatters;
  storeName: string;
  operator: OperatorConfig;
  /** `<PUBLIC_BASE_URL>/withdraw`. */
  withdrawUrl: string;
  /** `<PUBLIC_BASE_URL>/cancel?number=<sub id>` (German: `&lang=de`) when the e-mail is about a subscription. */
  cancelUrl: string | null;
  /** The dashboard in the e-mail's mode (`…/dashboard` or `…/dashboard/test`), for the store's members. */
  dashboardUrl: string;
  orderId: string | null;
  subscriptionId: string | null;
  /** Names of the files attached (an invoice, a credit note). */
  attachments: string[];
}

const FOOTER = {
  en: {
    soldBy: (operator: string, store: string) => `Merchant of record: sold by ${operator} on behalf of ${store}.`,
    vatId: 'VAT ID',
    questions: 'Questions about this e-mail? Write to',
    demo: 'These seller details are demo values of a test installation.',
    withdraw: 'Withdraw from contract here',
    orderNumber: 'Order number',
    subscription: 'Subscription',
    owner: (store: string) => `You receive this e-mail as an owner of ${store}.`,
    owner_or_admin: (store: string) => `You receive this e-mail as an owner or admin of ${store}.`,
  },
  de: {
    soldBy: (operator: string, store: string) => `Verkäufer: verkauft von ${operator} im Auftrag von ${store}.`,
    vatId: 'USt-IdNr.',
    questions: 'Fragen zu dieser E-Mail? Schreiben Sie an',
    demo: 'Diese Verkäuferangaben sind Demowerte einer Testinstallation.',
    withdraw: 'Vertrag hier widerrufen',
    orderNumber: 'Bestellnummer',
    subscription: 'Abonnement',
    owner: (store: string) => `Sie erhalten diese E-Mail als Inhaber von ${store}.`,
    owner_or_admin: (store: string) => `Sie erhalten diese E-Mail als Inhaber oder Administrator von ${store}.`,
  },
} as const satisfies Record<DocumentLanguage, unknown>;

const colors = { text: '#1f2933', muted: '#616e7c', line: '#e4e7eb', accent: '#1d4ed8', page: '#f5f7fa' };

const styles = {
  body: { backgroundColor: colors.page, fontFamily: 'Helvetica, Arial, sans-serif', color: colors.text, margin: 0, padding: '24px 0' },
  container: { backgroundColor: '#ffffff', border: `1px solid ${colors.line}`, borderRadius: '6px', maxWidth: '560px' },
  // On a block inside the container: padding on the container's table would widen it past a phone's screen.
  content: { padding: '28px 24px' },
  store: { fontSize: '14px', fontWeight: 600, color: colors.muted, margin: '0 0 8px' },
  heading: { fontSize: '22px', lineHeight: '28px', margin: '0 0 16px' },
  paragraph: { fontSize: '15px', lineHeight: '22px', margin: '0 0 14px' },
  label: { fontSize: '14px', lineHeight: '20px', color: colors.muted, padding: '6px 0', verticalAlign: 'top' },
  value: { fontSize: '14px', lineHeight: '20px', padding: '6px 0 6px 12px', textAlign: 'right' as const, verticalAlign: 'top', overflowWrap: 'anywhere' as const },
  strong: { fontWeight: 700 },
  details: { borderTop: `1px solid ${colors.line}`, borderBottom: `1px solid ${colors.line}`, margin: '8px 0 20px', borderCollapse: 'collapse' as const },
  hr: { borderColor: colors.line, margin: '24px 0' },
  footer: { fontSize: '12px', lineHeight: '18px', color: colors.muted, margin: '0 0 6px' },
  link: { color: colors.accent, textDecoration: 'underline' },
  withdraw: { fontSize: '13px', lineHeight: '20px', margin: '12px 0 0' },
  cancel: { fontSize: '13px', lineHeight: '20px', margin: '4px 0 0' },
};

export function Paragraph({ children }: { children: ReactNode }) {
  return <Text style={styles.paragraph}>{children}</Text>;
}

/** A paragraph that is one link, such as where to act on what the e-mail says. */
export function LinkParagraph({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Text style={styles.paragraph}>
      <Link href={href} style={styles.link}>
        {children}
      </Link>
    </Text>
  );
}

/** One row of a details table: a label on the left, its value on the right. */
export interface Detail {
  label: string;
  value: string;
  strong?: boolean;
}

/** A plain table (one per list, rows of two cells), so the text part lines the values up beside their labels. */
export function Details({ rows }: { rows: Detail[] }) {
  return (
    <table className="details" role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={styles.details}>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index}>
            <td style={row.strong ? { ...styles.label, ...styles.strong, color: colors.text } : styles.label}>{row.label}</td>
            <td style={row.strong ? { ...styles.value, ...styles.strong } : styles.value}>{row.value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The order or subscription the e-mail is about, as the customer quotes it (the withdrawal form asks the order number). */
export function referenceRows(view: MailView): Detail[] {
  const words = FOOTER[view.language];
  const rows: Detail[] = [];
  if (view.orderId) rows.push({ label: words.orderNumber, value: view.orderId });
  if (view.subscriptionId) rows.push({ label: words.subscription, value: view.subscriptionId });
  return rows;
}

/** Who reads it: a customer of the store, or the members of the store's roles it goes to. */
export type MailAudience = 'customer' | 'owner' | 'owner_or_admin';

export function EmailLayout({ view, preview, heading, audience = 'customer', children }: { view: MailView; preview: string; heading: string; audience?: MailAudience; children: ReactNode }) {
  const words = FOOTER[view.language];
  const { operator } = view;
  return (
    <Html lang={view.language}>
      <Head />
      <Preview>{preview}</Preview>
      <Body style={styles.body}>
        <Container style={styles.container}>
          <div style={styles.content}>
            <Text style={styles.store}>{view.storeName}</Text>
            <Heading as="h1" style={styles.heading}>
              {heading}
            </Heading>
            {children}
            <Hr style={styles.hr} />
            <Text style={styles.footer}>{audience === 'customer' ? words.soldBy(operator.legalName, view.storeName) : words[audience](view.storeName)}</Text>
            <Text style={styles.footer}>
              {operator.legalName}, {operator.address}. {words.vatId}: {operator.vatId}.
            </Text>
            <Text style={styles.footer}>
              {words.questions}{' '}
              <Link href={`mailto:${operator.email}`} style={styles.link}>
                {operator.email}
              </Link>
              .
            </Text>
            {operator.isDemo ? <Text style={styles.footer}>{words.demo}</Text> : null}
            {audience === 'customer' ? (
              <Text style={styles.withdraw}>
                <Link href={view.withdrawUrl} style={styles.link}>
                  {words.withdraw}
                </Link>
              </Text>
            ) : null}
            {audience === 'customer' && view.cancelUrl ? (
              <Text style={styles.cancel}>
                <Link href={view.cancelUrl} style={styles.link}>
                  {CANCEL_LINK_TEXT[view.language]}
                </Link>
              </Text>
            ) : null}
          </div>
        </Container>
      </Body>
    </Html>
  );
}
