/**
 * Invitation and password-reset links by e-mail, when the service has SMTP. The link is the
 * credential: it goes into the message and nowhere else (no outbox row, no log line), and it is
 * sent after the transaction that made it has committed. A slow or refusing SMTP server delays
 * nothing: the send runs in the background and a failure is logged without the link; the
 * operator still has the link printed. An invitation of someone who has a password carries no
 * credential: it asks them to sign in and answer it (`join`).
 */
import type { Config } from '../config';
import { sendMail, smtpConfigured, type OutgoingMail } from '../mail/smtp';
import { log } from '../observability/log';

export type LinkMail = { to: string; url: string } & ({ purpose: 'invite' | 'join'; storeName: string; role: string } | { purpose: 'reset' });

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function linkMessage(mail: LinkMail): OutgoingMail {
  const lines =
    mail.purpose === 'reset'
      ? { subject: 'Set a new dashboard password', intro: 'A new password was requested for your dashboard account.', action: 'Set a new password' }
      : {
          subject: `You are invited to ${mail.storeName}`,
          intro: `You have been invited to the dashboard of ${mail.storeName} as ${mail.role}.`,
          action: mail.purpose === 'invite' ? 'Set your password and sign in' : 'Sign in to accept or decline the invitation',
        };
  const unexpected = 'If you did not expect this e-mail, ignore it.';
  const validity = mail.purpose === 'join' ? unexpected : `The link works once, within 24 hours. ${unexpected}`;
  return {
    to: mail.to,
    subject: lines.subject,
    text: `${lines.intro}\n\n${lines.action}:\n${mail.url}\n\n${validity}\n`,
    html: `<p>${escapeHtml(lines.intro)}</p><p><a href="${escapeHtml(mail.url)}">${escapeHtml(lines.action)}</a></p><p>${escapeHtml(validity)}</p>`,
  };
}

/** Starts the send and answers whether one was started (false without SMTP). */
export function mailLinkInBackground(config: Config, mail: LinkMail): boolean {
  if (!smtpConfigured(config)) return false;
  sendMail(config, linkMessage(mail)).catch((error: unknown) => {
    log.error(`The ${mail.purpose === 'reset' ? 'password reset' : 'invitation'} e-mail to ${mail.to} was not sent: ${error instanceof Error ? error.message : String(error)}`);
  });
  return true;
}
