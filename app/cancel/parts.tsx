import type { ReactNode } from 'react';
import type { DocumentLanguage } from '@/db/schema';
import type { OperatorConfig } from '@/server/config';
import { DeclarationShell } from '../_declaration/parts';
import { CANCEL_TEXTS } from './texts';

/** The frame of every /cancel page, in its language. */
export function CancelShell({ operator, language, children }: { operator: OperatorConfig; language: DocumentLanguage; children: ReactNode }) {
  const text = CANCEL_TEXTS[language];
  return (
    <DeclarationShell site={text.site} footer={text.footer(operator)} language={language}>
      {children}
    </DeclarationShell>
  );
}
