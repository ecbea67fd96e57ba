import type { ReactNode } from 'react';
import type { DocumentLanguage } from '@/db/schema';
import { formattersFor, isoDate } from '@/server/kit/locale';

/** The footer's ways to the two declarations, in the page's language (the withdrawal form is English only). */
const FOOTER_LINKS: Record<DocumentLanguage, { cancel: string; cancelHref: string }> = {
  en: { cancel: 'Cancel contracts here', cancelHref: '/cancel' },
  de: { cancel: 'Verträge hier kündigen', cancelHref: '/cancel?lang=de' },
};

/**
 * Header, the main landmark and a footer saying who sells: the frame of every page where a
 * customer declares something without logging in (/withdraw, /cancel).
 */
export function DeclarationShell({ site, footer, language = 'en', children }: { site: string; footer: string; language?: DocumentLanguage; children: ReactNode }) {
  const links = FOOTER_LINKS[language];
  return (
    <>
      <a className="co-skip" href="#main">
        {language === 'de' ? 'Zum Inhalt springen' : 'Skip to content'}
      </a>
      <header className="co-header">
        <div className="co-header-inner">
          <p className="co-merchant">{site}</p>
        </div>
      </header>
      <main id="main" className="co-main">
        <section className="co-card co-withdraw" aria-labelledby="declaration-heading">
          {children}
        </section>
      </main>
      <footer className="co-footer">
        <p>{footer}</p>
        <p className="co-withdraw-link">
          <a className="co-link" href="/withdraw" lang={language === 'en' ? undefined : 'en'}>
            Withdraw from contract here
          </a>
        </p>
        <p className="co-withdraw-link">
          <a className="co-link" href={links.cancelHref}>
            {links.cancel}
          </a>
        </p>
      </footer>
    </>
  );
}

/** The one page heading, which the section is named by. */
export function DeclarationHeading({ children }: { children: ReactNode }) {
  return (
    <h1 id="declaration-heading" className="co-h1">
      {children}
    </h1>
  );
}

const LOCALES: Record<DocumentLanguage, string> = { en: 'en-IE', de: 'de-DE' };

/** Dates and times as a page in `language` writes them ("26 November 2026", "26. November 2026"). */
export const formattersIn = (language: DocumentLanguage) => formattersFor(LOCALES[language]);

/** When a declaration was received: "26 November 2026 at 14:05 UTC" or "26. November 2026 um 14:05 UTC", machine-readable in its datetime attribute. */
export function ReceivedTime({ at, language = 'en' }: { at: number; language?: DocumentLanguage }) {
  return <time dateTime={isoDate(at)}>{formattersIn(language).dateTime(at)} UTC</time>;
}
