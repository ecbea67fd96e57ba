import { createServer, type AddressInfo, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emails } from '@/db/schema';
import { loadConfig, type Config } from '@/server/config';
import { MAX_ATTEMPTS, sendDueEmails, type MailDeliveryDeps } from '@/server/mail/delivery';
import { enqueueEmail, orderReceipt } from '@/server/mail/outbox';
import { T0 } from '../support/api';
import { createStore } from '../support/factories';
import { freePort } from '../support/production-server';
import { useTestApi } from '../support/server';
import { listEmails, payOrder, PUBLIC_BASE_URL } from './support';

/**
 * The send pass against a local SMTP server started by the test: headers, language and both
 * parts; a stable Message-ID across retries; backoff against a refusing server; a hanging one
 * that holds up neither payments nor requests; leases between passes.
 */

/** What the local server does with the next message it is handed: take it, refuse it (451), or read it and never answer. */
type Behaviour = 'accept' | 'refuse' | 'hang';

const received: ParsedMail[] = [];
const behaviours: Behaviour[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', async () => {
      received.push(await simpleParser(Buffer.concat(chunks)));
      const behaviour = behaviours.shift() ?? 'accept';
      if (behaviour === 'accept') callback();
      if (behaviour === 'refuse') callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }));
    });
  },
});

const OPERATOR = { legalName: 'Harbour Commerce Ltd', address: '1 Quay Street, Dublin, Ireland', vatId: 'IE1234567T', email: 'help@harbour.example', isDemo: false };
const overrides: Partial<Config> = {
  publicBaseUrl: PUBLIC_BASE_URL,
  emailFrom: 'Harbour Commerce <receipts@harbour.example>',
  smtpSendTestMode: true,
  operator: OPERATOR,
};

// Before useTestApi's own hook, which reads the overrides.
beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  overrides.smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

const api = useTestApi(overrides);
// The pass sends every store's e-mails: each test starts with an empty outbox.
beforeEach(async () => {
  api.clock.set(T0);
  received.length = 0;
  behaviours.length = 0;
  await api.services.db.delete(emails);
});

/** The pass as the background task runs it, with short SMTP timeouts (a hung answer fails within a second). */
const deps = (config: Partial<Config> = {}): MailDeliveryDeps => ({ db: api.services.db, clock: api.clock, config: { ...api.services.config, ...config }, smtpTimeoutMs: 1000 });

async function newStore() {
  const store = await createStore(api.services, { name: 'Harbour Books' });
  return { id: store.id, key: store.keys.sk_test };
}

const rowOf = async (id: string) => (await api.services.db.select().from(emails).where(eq(emails.id, id)))[0]!;

describe('sending by SMTP', () => {
  it('a German receipt: From, To, Reply-To, Subject, Message-ID and Content-Language, a German text and HTML part, as listed', async () => {
    const store = await newStore();
    const { orderId } = await payOrder(api, store.key, { email: 'pat@example.com', acceptLanguage: 'de-DE,de;q=0.9' });
    const [listed] = await listEmails(api, store.key);
    expect(await sendDueEmails(deps())).toBe(1);
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect(mail.from?.value).toEqual([{ address: 'receipts@harbour.example', name: 'Harbour Commerce' }]);
    expect(mail.to).toMatchObject({ value: [{ address: 'pat@example.com', name: '' }] });
    expect(mail.replyTo?.value).toEqual([{ address: 'help@harbour.example', name: '' }]);
    expect(mail.subject).toBe(`Ihre Zahlungsbestätigung von Harbour Books, Bestellung ${orderId}`);
    expect(mail.messageId).toBe(`<${listed.id}@pay.example.test>`);
    expect(mail.headers.get('content-language')).toBe('de');
    // The text and HTML parts beside the invoice attached.
    expect(mail.headers.get('content-type')).toMatchObject({ value: 'multipart/mixed' });
    expect(mail.text).toBe(listed.text);
    expect(mail.text).toContain('Verkäufer: verkauft von Harbour Commerce Ltd im Auftrag von Harbour Books.');
    expect(mail.text).toContain('Harbour Commerce Ltd, 1 Quay Street, Dublin, Ireland. USt-IdNr.: IE1234567T.');
    expect(mail.text).not.toContain('Demowerte');
    expect(mail.text).toContain(`Vertrag hier widerrufen ${PUBLIC_BASE_URL}/withdraw`);
    expect(mail.html).toBe(listed.html);
    expect(mail.attachments.map((file) => [file.filename, file.contentType, file.size])).toEqual(
      listed.attachments.map((file: { filename: string; content_type: string; size: number }) => [file.filename, file.content_type, file.size]),
    );

    const row = await rowOf(listed.id);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, lastError: null, sentAt: T0, leasedUntil: null });
    // Sent once: the next pass finds nothing due.
    expect(await sendDueEmails(deps())).toBe(0);
    expect(received).toHaveLength(1);
  });

  it('a message the server took without answering is sent again with the same Message-ID (at least once)', async () => {
    const store = await newStore();
    await payOrder(api, store.key);
    const [listed] = await listEmails(api, store.key);
    behaviours.push('hang');
    expect(await sendDueEmails(deps())).toBe(0);
    expect(await rowOf(listed.id)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date(T0.getTime() + 60_000) });
    api.clock.advance(60);
    expect(await sendDueEmails(deps())).toBe(1);
    expect(received.map((mail) => mail.messageId)).toEqual([`<${listed.id}@pay.example.test>`, `<${listed.id}@pay.example.test>`]);
    expect(received[1]!.text).toBe(received[0]!.text);
    expect(await rowOf(listed.id)).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
  });

  it('a refusing server: the payment goes through, the e-mail waits 1 min, then 5 min, and goes out with its Message-ID once the server takes it', async () => {
    const store = await newStore();
    const refusing = deps({ smtpUrl: `smtp://127.0.0.1:${await freePort()}` });
    const { sessionId } = await payOrder(api, store.key);
    const session = await api.request('GET', `/api/v1/checkout/sessions/${sessionId}`, { key: store.key });
    expect(session.body).toMatchObject({ status: 'complete', payment_status: 'paid' });
    const [listed] = await listEmails(api, store.key);

    expect(await sendDueEmails(refusing)).toBe(0);
    expect(await rowOf(listed.id)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date(T0.getTime() + 60_000), lastError: expect.stringContaining('ECONNREFUSED') });
    api.clock.advance(59);
    expect(await sendDueEmails(refusing)).toBe(0);
    expect((await rowOf(listed.id)).attempts).toBe(1);
    api.clock.advance(1);
    expect(await sendDueEmails(refusing)).toBe(0);
    expect(await rowOf(listed.id)).toMatchObject({ attempts: 2, nextAttemptAt: new Date(T0.getTime() + 60_000 + 300_000) });

    // The same server refusing with 451: a third attempt, 15 min on.
    api.clock.advance(300);
    behaviours.push('refuse');
    expect(await sendDueEmails(deps())).toBe(0);
    expect(await rowOf(listed.id)).toMatchObject({ attempts: 3, lastError: expect.stringContaining('451'), nextAttemptAt: new Date(T0.getTime() + 360_000 + 900_000) });
    api.clock.advance(900);
    expect(await sendDueEmails(deps())).toBe(1);
    expect(received.map((mail) => mail.messageId)).toEqual([`<${listed.id}@pay.example.test>`, `<${listed.id}@pay.example.test>`]);
    expect(await rowOf(listed.id)).toMatchObject({ status: 'sent', attempts: 4 });
  });

  it('after the last retry the e-mail is given up: failed, never sent again', async () => {
    const store = await newStore();
    await payOrder(api, store.key);
    const [listed] = await listEmails(api, store.key);
    await api.services.db
      .update(emails)
      .set({ attempts: MAX_ATTEMPTS - 1 })
      .where(eq(emails.id, listed.id));
    expect(await sendDueEmails(deps({ smtpUrl: `smtp://127.0.0.1:${await freePort()}` }))).toBe(0);
    expect(await rowOf(listed.id)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
    api.clock.advance(7 * 24 * 3600);
    expect(await sendDueEmails(deps())).toBe(0);
    expect(received).toEqual([]);
  });

  it('a hanging server: payments and requests are answered while the send waits on it', async () => {
    const store = await newStore();
    await payOrder(api, store.key);
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      let settled = false;
      const pass = sendDueEmails({ ...deps({ smtpUrl: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}` }), smtpTimeoutMs: 60_000 }).finally(() => (settled = true));
      await expect.poll(() => sockets.length).toBe(1);

      // A payment through the hosted page and reads of the API, while the send is stuck.
      const { sessionId } = await payOrder(api, store.key, { email: 'second@example.com' });
      const session = await api.request('GET', `/api/v1/checkout/sessions/${sessionId}`, { key: store.key });
      expect(session.body.payment_status).toBe('paid');
      expect((await listEmails(api, store.key)).map((email) => email.to)).toEqual(expect.arrayContaining(['pat@example.com', 'second@example.com']));
      expect(settled).toBe(false);

      // The server goes away: the send fails (nodemailer's pool would try a new connection, refused now).
      const closed = new Promise<void>((resolve) => silent.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      expect(await pass).toBe(0);
      await closed;
    } finally {
      if (silent.listening) silent.close();
    }
  });
});

describe('who sends what', () => {
  it('test-mode e-mails stay in the outbox unless SMTP_SEND_TEST_MODE; live-mode ones are sent; nothing without SMTP_URL', async () => {
    const store = await newStore();
    await payOrder(api, store.key, { email: 'test@example.com' });
    await api.services.db.transaction((tx) =>
      enqueueEmail(
        tx,
        orderReceipt(
          { storeId: store.id, livemode: true, id: 'ord_live_000000000000000000000001', customerEmail: 'live@example.com', language: 'en' },
          { lines: [{ description: 'Field guide', quantity: 1, amountSubtotal: 1999 }], amountSubtotal: 1999, amountTax: 0, amountTotal: 1999, card: { brand: 'visa', last4: '4242' } },
          { now: T0, wallNow: T0 },
        ),
      ),
    );
    expect(await sendDueEmails(deps({ smtpUrl: undefined }))).toBe(0);
    expect(await sendDueEmails(deps({ smtpSendTestMode: false }))).toBe(1);
    expect(received.map((mail) => mail.to)).toMatchObject([{ text: 'live@example.com' }]);
    expect(received[0]!.messageId).toMatch(/^<em_live_[0-9A-Za-z]{24}@pay\.example\.test>$/);
    const [kept] = await listEmails(api, store.key);
    expect(await rowOf(kept.id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await sendDueEmails(deps())).toBe(1);
    expect(received.map((mail) => mail.messageId)).toEqual([expect.any(String), `<${kept.id}@pay.example.test>`]);
  });

  it('two passes at once send each e-mail once; one leased by a process that died waits for its lease to run out', async () => {
    const store = await newStore();
    for (const email of ['one@example.com', 'two@example.com', 'three@example.com']) await payOrder(api, store.key, { email });
    const listed = await listEmails(api, store.key);
    await api.services.db
      .update(emails)
      .set({ leasedUntil: new Date(T0.getTime() + 60_000) })
      .where(eq(emails.id, listed[0].id));

    const [first, second] = await Promise.all([sendDueEmails(deps()), sendDueEmails(deps())]);
    expect(first + second).toBe(2);
    expect(received.map((mail) => mail.messageId).sort()).toEqual([listed[1].id, listed[2].id].map((id) => `<${id}@pay.example.test>`).sort());

    api.clock.advance(60);
    expect(await sendDueEmails(deps())).toBe(1);
    expect(received.at(-1)!.messageId).toBe(`<${listed[0].id}@pay.example.test>`);
  });

  it("a receipt carries the order's invoice as a PDF, named by its number", async () => {
    const store = await newStore();
    const { orderId } = await payOrder(api, store.key, { acceptLanguage: 'de' });
    const order = (await api.request('GET', `/api/v1/orders/${orderId}`, { key: store.key })).body;
    const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key: store.key })).body;
    expect(await sendDueEmails(deps())).toBe(1);
    const [mail] = received;
    expect(mail!.attachments.map((file) => [file.filename, file.contentType, file.content.subarray(0, 5).toString()])).toEqual([[`${invoice.number}.pdf`, 'application/pdf', '%PDF-']]);
    expect(mail!.text).toContain(`Ihre Rechnung ist beigefügt (${invoice.number}.pdf).`);
    expect(mail!.headers.get('content-type')).toMatchObject({ value: 'multipart/mixed' });
  });
});

it('the configuration: SMTP_SEND_TEST_MODE', () => {
  expect(loadConfig({}).smtpSendTestMode).toBe(false);
  expect(loadConfig({ SMTP_SEND_TEST_MODE: 'true' }).smtpSendTestMode).toBe(true);
});
