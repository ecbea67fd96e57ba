import type { ReactElement } from 'react';
import type { MailView } from './layout';

/** A customer e-mail: its subject line and its body, in the view's language, from what was stored for it. */
export interface MailTemplate<Data> {
  subject(view: MailView, data: Data): string;
  Email(props: { view: MailView; data: Data }): ReactElement;
}
