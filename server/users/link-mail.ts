/**
 * Invitation and password-reset links by e-mail, when the service has SMTP. The link is the
 * credential: it goes into the message and nowhere else (no outbox row, no log line), and it is
 * sent after the transaction that made it has committed. A slow or refusing SMTP server delays
 * nothing: the send runs in the background and a failure is logged without the link; whoever
 * asked still has the link printed or shown.
 */
import type { Config } from '../config';
import { sendMail, smtpConfigured, type OutgoingMail } from '../mail/smtp';
import { log } from '../observability/log';

export type LinkMail = { to: string; url: string } & ({ purpose: 'invite'; storeName: string; role: string } | { purpose: 'reset' });

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function linkMessage(mail: LinkMail): OutgoingMail {
  const lines =
    mail.purpose === 'invite'
      ? { subject: `You are invited to ${mail.storeName}`, intro: `You have been invited to the dashboard of ${mail.storeName} as ${mail.role}.`, action: 'Set your password and sign in' }
      : { subject: 'Set a new dashboard password', intro: 'A new password was requested for your dashboard account.', action: 'Set a new password' };
  const validity = 'The link works once, within 24 hours. If you did not expect this e-mail, ignore it.';
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
    log.error(`The ${mail.purpose === 'invite' ? 'invitation' : 'password reset'} e-mail to ${mail.to} was not sent: ${error instanceof Error ? error.message : String(error)}`);
  });
  return true;
}
