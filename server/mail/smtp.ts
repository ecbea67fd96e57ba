/**
 * Sending e-mail by SMTP (`SMTP_URL`, e.g. `smtp://user:pass@mail.example.com:587`, or
 * `smtps://…` for implicit TLS) with nodemailer: one pooled connection set per process. Bounded
 * timeouts, so an SMTP server that hangs costs a failed send, never a stuck caller.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import { DEFAULT_EMAIL_FROM, type Config } from '../config';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<id@host>`: the same on every retry of one e-mail, so receivers can tell a repeat. */
  messageId?: string;
  replyTo?: string;
  /** `Content-Language`: the language the e-mail is written in. */
  language?: string;
  attachments?: { filename: string; contentType: string; content: Buffer }[];
}

/** Each of connecting, the server's greeting and any silence on the socket. */
export const SMTP_TIMEOUT_MS = 10_000;

const transports = new Map<string, Transporter>();

function transportFor(url: string, timeoutMs: number): Transporter {
  const key = `${timeoutMs} ${url}`;
  let transport = transports.get(key);
  if (!transport) {
    // The URL parsed here: given as `url`, nodemailer would take it alone and drop the options beside it.
    transport = nodemailer.createTransport({
      ...parseConnectionUrl(url),
      pool: true,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    transports.set(key, transport);
  }
  return transport;
}

/** Whether this service sends e-mail at all. */
export function smtpConfigured<C extends Pick<Config, 'smtpUrl'>>(config: C): config is C & { smtpUrl: string } {
  return config.smtpUrl !== undefined;
}

export async function sendMail(config: Pick<Config, 'emailFrom'> & { smtpUrl: string }, mail: OutgoingMail, timeoutMs = SMTP_TIMEOUT_MS): Promise<void> {
  const { language, ...message } = mail;
  await transportFor(config.smtpUrl, timeoutMs).sendMail({ from: config.emailFrom ?? DEFAULT_EMAIL_FROM, ...message, ...(language ? { headers: { 'Content-Language': language } } : {}) });
}
