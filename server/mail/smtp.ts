/**
 * Sending e-mail by SMTP (`SMTP_URL`, e.g. `smtp://user:pass@mail.example.com:587`, or
 * `smtps://…` for implicit TLS) with nodemailer: one pooled connection set per process. Bounded
 * timeouts, so an SMTP server that hangs costs a failed send, never a stuck caller.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { DEFAULT_EMAIL_FROM, type Config } from '../config';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const SMTP_TIMEOUT_MS = 10_000;

const transports = new Map<string, Transporter>();

function transportFor(url: string): Transporter {
  let transport = transports.get(url);
  if (!transport) {
    transport = nodemailer.createTransport({
      url,
      pool: true,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    transports.set(url, transport);
  }
  return transport;
}

/** Whether this service sends e-mail at all. */
export function smtpConfigured(config: Config): config is Config & { smtpUrl: string } {
  return config.smtpUrl !== undefined;
}

export async function sendMail(config: Config & { smtpUrl: string }, mail: OutgoingMail): Promise<void> {
  await transportFor(config.smtpUrl).sendMail({ from: config.emailFrom ?? DEFAULT_EMAIL_FROM, ...mail });
}
