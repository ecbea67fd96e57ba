import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { checkoutSessions, customers, licenseKeys, orders, paymentAttempts, stores } from '@/db/schema';
import { receiptSignatureValid, receiptUrl } from '@/server/kit/links';
import { payCheckoutSession } from '@/server/payments/service';
import { CARDS, chargesOf, expectPaymentError, insertProduct, insertSession, newStore, PUBLIC_BASE_URL, T0, usePayments, validCard } from './support';

const fx = usePayments();

const sessionRow = async (id: string) => (await fx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)))[0]!;
const orderRow = async (id: string) => (await fx.db.select().from(orders).where(eq(orders.id, id)))[0]!;
const attemptsOf = (sessionId: string) => fx.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, sessionId));

describe('approved payment', () => {
  it('4242: session complete/paid, order paid, customer, one license key per licensed line, attempt succeeded', async () => {
    const store = await newStore(fx);
    const licensed = await insertProduct(fx, store, { hasLicense: true });
    const plain = await insertProduct(fx, store);
    const { sessionId, orderId, lineIds } = await insertSession(fx, store, {
      customerEmail: 'Buyer@Example.COM',
      successUrl: 'https://shop.example/thanks?ref=mail#top',
      lines: [
        { productId: licensed, hasLicense: true, quantity: 3, unitAmount: 1000 },
        { productId: plain, hasLicense: false, quantity: 1, unitAmount: 500 },
      ],
    });

    const result = await payCheckoutSession(fx, { sessionId, card: validCard() });
    expect(result).toEqual({ status: 'paid', redirectUrl: `https://shop.example/thanks?ref=mail&session_id=${sessionId}#top` });

    const [charge] = await chargesOf(fx, sessionId);
    expect(charge).toMatchObject({ idempotencyKey: `charge:${sessionId}:1`, kind: 'charge', status: 'succeeded', amount: 3500, brand: 'visa', last4: '4242' });
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);

    const [customer] = await fx.db.select().from(customers).where(eq(customers.storeId, store.id));
    expect(customer).toEqual({ id: expect.stringMatching(/^cus_test_[0-9A-Za-z]{24}$/), storeId: store.id, livemode: false, email: 'buyer@example.com', name: null, createdAt: T0, deletedAt: null });

    const session = await sessionRow(sessionId);
    expect(session).toMatchObject({ status: 'complete', paymentStatus: 'paid', completedAt: T0, customerId: customer!.id, attemptCount: 1, failureCode: null });

    expect(await orderRow(orderId)).toMatchObject({
      status: 'paid',
      paidAt: T0,
      customerId: customer!.id,
      customerEmail: 'buyer@example.com',
      cardBrand: 'visa',
      cardLast4: '4242',
      gatewayPaymentId: charge!.paymentId,
      amountTotal: 3500,
      amountRefunded: 0,
    });

    expect(await attemptsOf(sessionId)).toEqual([
      {
        id: expect.stringMatching(/^pa_test_[0-9A-Za-z]{24}$/),
        checkoutSessionId: sessionId,
        storeId: store.id,
        livemode: false,
        idempotencyKey: `charge:${sessionId}:1`,
        amount: 3500,
        status: 'succeeded',
        failureCode: null,
        cardBrand: 'visa',
        cardLast4: '4242',
        gatewayPaymentId: charge!.paymentId,
        createdAt: T0,
        updatedAt: T0,
        leasedUntil: null,
        redemptionHeld: false,
      },
    ]);

    const keys = await fx.db.select().from(licenseKeys).where(eq(licenseKeys.orderId, orderId));
    expect(keys).toEqual([
      {
        id: expect.stringMatching(/^lic_test_/),
        storeId: store.id,
        livemode: false,
        productId: licensed,
        orderId,
        orderLineId: lineIds[0],
        key: expect.stringMatching(/^LK-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}$/),
        createdAt: T0,
        revokedAt: null,
      },
    ]);
  });

  it('without success_url the customer goes to the signed receipt page on the service origin', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { successUrl: null });
    const result = await payCheckoutSession(fx, { sessionId, card: validCard() });
    expect(result.status).toBe('paid');
    expect(result.redirectUrl).toBe(receiptUrl(fx.config, sessionId));
    const url = new URL(result.redirectUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${PUBLIC_BASE_URL}/checkout/${sessionId}/receipt`);
    const signature = url.searchParams.get('signature') ?? undefined;
    expect(receiptSignatureValid(fx.config, sessionId, signature)).toBe(true);
    expect(receiptSignatureValid(fx.config, sessionId, `${signature}x`)).toBe(false);
    expect(receiptSignatureValid(fx.config, sessionId, undefined)).toBe(false);
    expect(receiptSignatureValid(fx.config, 'cs_test_other', signature)).toBe(false);
  });

  it('store clock: completed_at and paid_at read the store test clock', async () => {
    const store = await newStore(fx);
    await fx.db.update(stores).set({ testClockOffsetSeconds: 3600 }).where(eq(stores.id, store.id));
    const { sessionId, orderId } = await insertSession(fx, store, { expiresInSeconds: 2 * 3600 });
    await payCheckoutSession(fx, { sessionId, card: validCard() });
    const later = new Date(T0.getTime() + 3600 * 1000);
    expect((await sessionRow(sessionId)).completedAt).toEqual(later);
    expect((await orderRow(orderId)).paidAt).toEqual(later);
    // Attempts record real (wall-clock) time: they measure gateway calls.
    expect((await attemptsOf(sessionId))[0]!.createdAt).toEqual(T0);
  });

  it('a paid session refuses another payment: 409 session_already_complete, no second charge', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    await payCheckoutSession(fx, { sessionId, card: validCard() });
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'session_already_complete', 409);
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
  });
});

describe('declined payment', () => {
  it('4000…0002: 402 card_declined; payment_status failed, status stays open; further attempts 409 session_payment_failed', async () => {
    const store = await newStore(fx);
    const { sessionId, orderId } = await insertSession(fx, store);
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard(CARDS.declined) }), 'card_declined', 402);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'failed', failureCode: 'card_declined', completedAt: null, customerId: null, attemptCount: 1 });
    expect(await orderRow(orderId)).toMatchObject({ status: 'pending', paidAt: null, customerId: null, cardBrand: null, cardLast4: null, gatewayPaymentId: null });
    const [attempt] = await attemptsOf(sessionId);
    expect(attempt).toMatchObject({ status: 'declined', failureCode: 'card_declined', cardBrand: 'visa', cardLast4: '0002', gatewayPaymentId: expect.stringMatching(/^sim_pay_/) });

    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'session_payment_failed', 409);
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
    expect(await fx.db.select().from(customers).where(eq(customers.storeId, store.id))).toEqual([]);
  });

  it('another Luhn-valid number: 400 unsupported_test_card, the session stays payable', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard(CARDS.unsupported) }), 'unsupported_test_card', 400);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid', failureCode: null, attemptCount: 1 });
    expect((await attemptsOf(sessionId))[0]).toMatchObject({ status: 'declined', failureCode: 'unsupported_test_card', cardBrand: 'mastercard', cardLast4: '4444' });
    expect(await payCheckoutSession(fx, { sessionId, card: validCard() })).toMatchObject({ status: 'paid' });
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid', attemptCount: 2 });
  });
});

describe('local validation: no attempt consumed, no gateway call', () => {
  const cases: Array<[string, { number?: string; expiry?: string; cvc?: string }, string, string]> = [
    ['Luhn-invalid number', { number: '4242 4242 4242 4241' }, 'invalid_card_number', 'card_number'],
    ['letters in the number', { number: '4242 4242 4242 424a' }, 'invalid_card_number', 'card_number'],
    ['11 digits', { number: '42424242424' }, 'invalid_card_number', 'card_number'],
    ['20 digits', { number: '42424242424242424242' }, 'invalid_card_number', 'card_number'],
    ['month 13', { expiry: '13/30' }, 'invalid_expiry', 'expiry'],
    ['month 00', { expiry: '00/30' }, 'invalid_expiry', 'expiry'],
    ['three-digit year', { expiry: '12/030' }, 'invalid_expiry', 'expiry'],
    ['one-digit month without a separator (130)', { expiry: '130' }, 'invalid_expiry', 'expiry'],
    ['five digits', { expiry: '12030' }, 'invalid_expiry', 'expiry'],
    ['two separators', { expiry: '12//30' }, 'invalid_expiry', 'expiry'],
    ['letters', { expiry: 'Dec 30' }, 'invalid_expiry', 'expiry'],
    ['past month (store clock at 2026-06)', { expiry: '05/26' }, 'expired_card', 'expiry'],
    ['past year, MM/YYYY', { expiry: '12/2025' }, 'expired_card', 'expiry'],
    ['2-digit CVC', { cvc: '12' }, 'invalid_cvc', 'cvc'],
    ['4-digit CVC on Visa', { cvc: '1234' }, 'invalid_cvc', 'cvc'],
    ['5-digit CVC on Amex', { number: '3782 822463 10005', cvc: '12345' }, 'invalid_cvc', 'cvc'],
  ];
  for (const [name, card, code, param] of cases) {
    it(`${name} → 402 ${code}`, async () => {
      const store = await newStore(fx);
      const { sessionId } = await insertSession(fx, store);
      await expectPaymentError(payCheckoutSession(fx, { sessionId, card: { ...validCard(), ...card } }), code, 402, { param });
      expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid', attemptCount: 0 });
      expect(await attemptsOf(sessionId)).toEqual([]);
      expect(await chargesOf(fx, sessionId)).toEqual([]);
    });
  }

  it('accepted forms: spaces in the number; expiry as people type it (MM/YY, MM/YYYY, 1230, 12 30, 12-30, 122030, 1/30); the current month; 4-digit Amex CVC', async () => {
    const store = await newStore(fx);
    const expiries = ['12/30', '12 / 30', '12/2030', '1230', '12 30', '12-30', '122030', '1/30', ' 06/26 '];
    for (const card of [validCard(), { number: '4242424242424242', expiry: '06/2026', cvc: '999' }, ...expiries.map((expiry) => ({ ...validCard(), expiry }))]) {
      const { sessionId } = await insertSession(fx, store);
      expect((await payCheckoutSession(fx, { sessionId, card })).status).toBe('paid');
    }
    // Valid locally; then the simulator decides (Amex is no test card).
    const { sessionId } = await insertSession(fx, store);
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: { number: '378282246310005', expiry: '06/26', cvc: '1234' } }), 'unsupported_test_card', 400);
    // Test mode's "any 3-digit CVC" holds for Amex too.
    const { sessionId: amexThreeDigits } = await insertSession(fx, store);
    await expectPaymentError(payCheckoutSession(fx, { sessionId: amexThreeDigits, card: { number: '378282246310005', expiry: '06/26', cvc: '123' } }), 'unsupported_test_card', 400);
  });

  it('expiry reads the store test clock: a card valid by wall time is expired once the clock passes its month', async () => {
    const store = await newStore(fx);
    await fx.db
      .update(stores)
      .set({ testClockOffsetSeconds: 30 * 24 * 3600 })
      .where(eq(stores.id, store.id));
    const { sessionId } = await insertSession(fx, store, { expiresInSeconds: 31 * 24 * 3600 });
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: { ...validCard(), expiry: '06/26' } }), 'expired_card', 402, { param: 'expiry' });
  });

  it('a session without customer_email needs a valid email', async () => {
    const store = await newStore(fx);
    const { sessionId, orderId } = await insertSession(fx, store, { customerEmail: null });
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'parameter_invalid', 400, { param: 'email' });
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard(), email: 'not-an-email' }), 'parameter_invalid', 400, { param: 'email' });
    expect(await attemptsOf(sessionId)).toEqual([]);
    await payCheckoutSession(fx, { sessionId, card: validCard(), email: 'New@Example.com' });
    const [customer] = await fx.db.select().from(customers).where(eq(customers.storeId, store.id));
    expect(customer!.email).toBe('new@example.com');
    expect(await orderRow(orderId)).toMatchObject({ customerEmail: 'new@example.com', customerId: customer!.id });
    // The paid session carries the address too, for whoever fulfils from it.
    const [session] = await fx.db.select({ customerEmail: checkoutSessions.customerEmail }).from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
    expect(session!.customerEmail).toBe('new@example.com');
  });

  it('a declined attempt leaves the session without the typed address: the next attempt may give another', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { customerEmail: null });
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard(CARDS.declined), email: 'first@example.com' }), 'card_declined', 402);
    const [session] = await fx.db.select({ customerEmail: checkoutSessions.customerEmail }).from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
    expect(session!.customerEmail).toBeNull();
  });
});

describe('session state', () => {
  it('past expires_at by the store clock: 400 session_expired, and the session is persisted expired', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { expiresInSeconds: 1800 });
    await fx.db.update(stores).set({ testClockOffsetSeconds: 1800 }).where(eq(stores.id, store.id));
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'session_expired', 400);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'expired', paymentStatus: 'unpaid', attemptCount: 0 });
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'session_expired', 400);
    expect(await chargesOf(fx, sessionId)).toEqual([]);
  });

  it('an unknown session id: 404 resource_missing', async () => {
    await expectPaymentError(payCheckoutSession(fx, { sessionId: 'cs_test_doesnotexist', card: validCard() }), 'resource_missing', 404, { param: 'id' });
  });
});

describe('customers', () => {
  it('matched by email case-insensitively across sessions of one store and environment; not across stores', async () => {
    const store = await newStore(fx);
    const first = await insertSession(fx, store, { customerEmail: 'Ada@Example.com' });
    const second = await insertSession(fx, store, { customerEmail: null });
    await payCheckoutSession(fx, { sessionId: first.sessionId, card: validCard() });
    await payCheckoutSession(fx, { sessionId: second.sessionId, card: validCard(), email: 'ADA@example.COM' });
    const rows = await fx.db.select().from(customers).where(eq(customers.storeId, store.id));
    expect(rows).toHaveLength(1);
    expect((await orderRow(first.orderId)).customerId).toBe(rows[0]!.id);
    expect((await orderRow(second.orderId)).customerId).toBe(rows[0]!.id);

    const other = await newStore(fx);
    const third = await insertSession(fx, other, { customerEmail: 'ada@example.com' });
    await payCheckoutSession(fx, { sessionId: third.sessionId, card: validCard() });
    expect((await orderRow(third.orderId)).customerId).not.toBe(rows[0]!.id);
  });

  it('two sessions of one new customer completing at once create one customer', async () => {
    const store = await newStore(fx);
    const a = await insertSession(fx, store, { customerEmail: 'race@example.com' });
    const b = await insertSession(fx, store, { customerEmail: 'RACE@example.com' });
    await Promise.all([payCheckoutSession(fx, { sessionId: a.sessionId, card: validCard() }), payCheckoutSession(fx, { sessionId: b.sessionId, card: validCard() })]);
    const rows = await fx.db
      .select()
      .from(customers)
      .where(and(eq(customers.storeId, store.id), eq(customers.email, 'race@example.com')));
    expect(rows).toHaveLength(1);
  });
});

describe('card data is never stored', () => {
  it('no table holds a full card number after approvals, declines and errors', async () => {
    const store = await newStore(fx);
    for (const number of [CARDS.approved, CARDS.declined, CARDS.unsupported]) {
      const { sessionId } = await insertSession(fx, store);
      await payCheckoutSession(fx, { sessionId, card: validCard(number) }).catch(() => undefined);
    }
    const tables = (await fx.database.db.execute<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    )) as unknown as { rows?: Array<{ table_name: string }> } & Array<{ table_name: string }>;
    const names = (tables.rows ?? tables).map((row) => row.table_name);
    expect(names).toContain('payment_attempts');
    for (const name of names) {
      const rows = (await fx.database.db.execute(`select * from "${name}"`)) as unknown as { rows?: unknown[] } & unknown[];
      const dump = JSON.stringify(rows.rows ?? rows);
      for (const number of [CARDS.approved, CARDS.declined, CARDS.unsupported]) {
        expect(dump, name).not.toContain(number.replace(/ /g, ''));
      }
    }
  });
});
