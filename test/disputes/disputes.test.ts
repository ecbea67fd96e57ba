import { describe, expect, it } from 'vitest';
import { verifyLedger } from '@/server/balance/verify';
import { advanceClock, DAY } from '../billing/support';
import { storeWithTeam, testEmails } from '../bank-accounts/support';
import { balanceOf, entriesOf } from '../balance/support';
import { epoch, expectError, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { eventsOf } from '../subscriptions/support';
import { DISPUTE_CARDS, DISPUTE_ID, DISPUTES, disputeOf, paidWith } from './support';

/** Disputes through HTTP: opened by the test cards, answered with evidence, decided at the deadline. */
const api = useTestApi();

/** A store of its own at T0 and an order of it paid with a dispute card: its dispute as the API reads it. */
async function disputedOrder(name: string, card: string) {
  api.clock.set(T0);
  const store = await storeWithTeam(api, { name, taxCalculation: true });
  const order = await paidWith(api, store.key, card);
  return { store, order, dispute: await disputeOf(api, store.key, order.id) };
}

const ledgerOk = async (storeId: string) => expect(await verifyLedger(api.services.db, api.clock.now(), storeId)).toMatchObject({ ok: true });

describe('a payment with a dispute card', () => {
  it('is disputed in full at once: the dispute, its entries, the event, the e-mail to owners and admins, and refunds refused', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, {
      name: 'Disputed Books',
      taxCalculation: true,
    });
    const order = await paidWith(api, store.key, DISPUTE_CARDS.fraudulent);
    expect(order).toMatchObject({
      status: 'paid',
      amount_total: 1190,
      amount_tax: 190,
      dispute_id: expect.stringMatching(DISPUTE_ID),
    });
    const dispute = await disputeOf(api, store.key, order.id);
    expect(dispute).toEqual({
      id: order.dispute_id,
      object: 'dispute',
      order_id: order.id,
      amount: 1190,
      currency: 'eur',
      reason: 'fraudulent',
      status: 'needs_response',
      evidence_due_by: epoch(T0) + 7 * DAY,
      evidence: {
        customer_communication: null,
        product_description: null,
        uncategorized_text: null,
      },
      evidence_submitted_at: null,
      created: epoch(T0),
      livemode: false,
    });
    const entries = await entriesOf(api, store.key, dispute.id);
    expect(
      entries.map((entry: { type: string; amount: number; description: string; source: unknown; available_on: number; status: string }) => [
        entry.type,
        entry.amount,
        entry.description,
        entry.available_on,
        entry.status,
      ]),
    ).toEqual([
      ['dispute_fee', -1500, `Dispute fee ${dispute.id}`, epoch(T0), 'available'],
      ['tax', 190, `VAT dispute ${dispute.id}`, epoch(T0), 'available'],
      ['dispute', -1190, `Dispute ${dispute.id}`, epoch(T0), 'available'],
    ]);
    // The payment's net (1190 − 190 − 110 fee) is pending; the dispute took 1190 − 190 + 1500 at once.
    expect(await balanceOf(api, store.key)).toMatchObject({
      pending: 890,
      available: -2500,
    });
    expect((await eventsOf(api.services.db, dispute.id)).map((event) => [event.type, event.data.object])).toEqual([['dispute.created', dispute]]);
    const mails = await testEmails(api, store.key, 'dispute_created');
    expect(mails.map((mail: { to: string }) => mail.to).sort()).toEqual([...store.owners, store.admin].sort());
    expect(mails[0]).toMatchObject({
      subject: `A payment of Disputed Books was disputed: order ${order.id}`,
      related: { order_id: order.id, dispute_id: dispute.id },
    });
    expectError(
      await api.request('POST', '/api/v1/refunds', {
        key: store.key,
        body: { order_id: order.id },
      }),
      409,
      'order_disputed',
    );
    await ledgerOk(store.id);
  });

  it('with evidence containing winning_evidence, is won when the test clock passes the deadline: the amount and VAT back, the fee kept', async () => {
    const { store, order, dispute } = await disputedOrder('Winning Books', DISPUTE_CARDS.productNotReceived);
    expect(dispute.reason).toBe('product_not_received');
    const saved = await api.request('POST', `${DISPUTES}/${dispute.id}`, {
      key: store.key,
      body: {
        evidence: {
          product_description: 'Delivered by download: winning_evidence',
        },
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      status: 'needs_response',
      evidence: {
        product_description: 'Delivered by download: winning_evidence',
        customer_communication: null,
      },
    });
    await advanceClock(api, store.key, 7 * DAY);
    const won = (await api.request('GET', `${DISPUTES}/${dispute.id}`, { key: store.key })).body;
    expect(won).toMatchObject({
      status: 'won',
      evidence_submitted_at: dispute.evidence_due_by,
    });
    expect((await eventsOf(api.services.db, dispute.id)).map((event) => [event.type, event.data.object.status])).toEqual([
      ['dispute.created', 'needs_response'],
      ['dispute.updated', 'needs_response'],
      ['dispute.updated', 'under_review'],
      ['dispute.closed', 'won'],
    ]);
    const entries = await entriesOf(api, store.key, dispute.id);
    expect(entries.slice(0, 2).map((entry: { type: string; amount: number; description: string }) => [entry.type, entry.amount, entry.description])).toEqual([
      ['tax', -190, `VAT dispute won ${dispute.id}`],
      ['dispute_reversal', 1190, `Dispute won ${dispute.id}`],
    ]);
    // Won: the order can be refunded again.
    expect(
      (
        await api.request('POST', '/api/v1/refunds', {
          key: store.key,
          body: { order_id: order.id, amount: 100 },
        })
      ).status,
    ).toBe(201);
    await ledgerOk(store.id);
  });

  it('without evidence, is lost at the deadline: a credit note for the amount, reason dispute_lost; refunds stay refused', async () => {
    const { store, order, dispute } = await disputedOrder('Losing Books', DISPUTE_CARDS.fraudulent);
    await advanceClock(api, store.key, 7 * DAY);
    expect(
      (
        await api.request('GET', `${DISPUTES}/${dispute.id}`, {
          key: store.key,
        })
      ).body,
    ).toMatchObject({ status: 'lost', evidence_submitted_at: null });
    const notes = (
      await api.request('GET', `/api/v1/credit_notes?order_id=${order.id}`, {
        key: store.key,
      })
    ).body.data;
    expect(notes).toEqual([
      expect.objectContaining({
        refund_id: null,
        dispute_id: dispute.id,
        reason: 'dispute_lost',
        amount_total: 1190,
        amount_tax: 190,
      }),
    ]);
    expectError(
      await api.request('POST', '/api/v1/refunds', {
        key: store.key,
        body: { order_id: order.id },
      }),
      409,
      'order_disputed',
    );
    expectError(
      await api.request('POST', `${DISPUTES}/${dispute.id}`, {
        key: store.key,
        body: { submit: true },
      }),
      409,
      'dispute_not_editable',
    );
    await ledgerOk(store.id);
  });
});

describe('the dispute_created e-mail', () => {
  it('goes to the owners and the admin in the store’s language, with the deadline and a link to the order', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Buchladen Kai', language: 'de', taxCalculation: true });
    const order = await paidWith(api, store.key, DISPUTE_CARDS.productNotReceived);
    const mails = await testEmails(api, store.key, 'dispute_created');
    expect(mails).toHaveLength(3);
    expect(mails[0]).toMatchObject({ language: 'de', subject: `Eine Zahlung von Buchladen Kai wurde zurückgebucht: Bestellung ${order.id}`, attachments: [], created: epoch(T0) });
    const dispute = await disputeOf(api, store.key, order.id);
    expect(mails[0].related).toEqual({ order_id: order.id, subscription_id: null, invoice_id: null, credit_note_id: null, payout_id: null, dispute_id: dispute.id });
    expect(mails[0].text).toBe(
      [
        'Buchladen Kai',
        '',
        '',
        'Eine Zahlung wurde beanstandet',
        '',
        `Der Karteninhaber hat die Bestellung ${order.id} bei seinem Kartenaussteller beanstandet (der Karteninhaber gibt an, das Bezahlte nicht erhalten zu haben). Das Kartennetz hat 11,90\u00a0€ zurückgebucht.`,
        '',
        'Der Betrag und eine Rückbuchungsgebühr von 15,00\u00a0€ werden jetzt von Ihrem Guthaben abgezogen. Wird die Beanstandung gewonnen, kommt der Betrag zurück; die Gebühr bleibt.',
        '',
        `Beanstandung         ${dispute.id}`,
        `Bestellung           ${order.id}`,
        'Betrag               11,90\u00a0€',
        'Rückbuchungsgebühr   15,00\u00a0€',
        'Grund                der Karteninhaber gibt an, das Bezahlte nicht erhalten zu haben',
        'Antworten bis        8. März 2026 um 12:00 UTC',
        '',
        'Was zu tun ist: Öffnen Sie die Bestellung, beschreiben Sie, was verkauft und wie es geliefert wurde, fügen Sie hinzu, was der Kunde geschrieben hat, und reichen Sie die Nachweise bis 8. März 2026 um 12:00 UTC ein. Ohne Nachweise bis dahin ist die Beanstandung verloren, die Bestellung wird gutgeschrieben, und ihre Lizenzschlüssel, Downloads und ihr Abonnement enden.',
        '',
        `Bestellung öffnen http://localhost:3000/dashboard/test/orders/${order.id}`,
        '',
        '----------------------------------------',
        '',
        'Sie erhalten diese E-Mail als Inhaber oder Administrator von Buchladen Kai.',
      ].join('\n') + mails[0].text.slice(mails[0].text.indexOf('\n\nExample Payments GmbH')),
    );
  });
});
