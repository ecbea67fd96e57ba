import type { ReactNode } from 'react';
import type { DocumentLanguage } from '@/db/schema';
import { formattersFor, isoDate } from '@/server/kit/locale';
import { ContractLinks } from '../checkout/parts';

/**
 * Header, the main landmark and a footer saying who sells: the frame of every page where a
 * customer declares something without logging in (/withdraw, /cancel).
 */
export function DeclarationShell({ site, footer, language = 'en', children }: { site: string; footer: string; language?: DocumentLanguage; children: ReactNode }) {
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
        <ContractLinks language={language} />
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
