import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { simulatorCharges, simulatorRecurring, simulatorRefunds } from '@/db/schema';
import { createSimulatorGateway } from '@/server/gateway/simulator';
import type { CardInput, ChargeRequest } from '@/server/gateway/types';
import { randomBase62 } from '@/server/ids';
import { usePayments } from '../payments/support';

const fx = usePayments();
const gateway = () => fx.gateways.test;

const card = (number: string): CardInput => ({ number, expMonth: 12, expYear: 2030, cvc: '123' });
const request = (number: string, extra: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `charge:cs_test_${randomBase62(24)}:1`,
  amount: 1999,
  description: 'Store order',
  card: card(number),
  returnUrl: 'https://pay.example.test/return',
  ...extra,
});
const ledger = (key: string) => fx.db.select().from(simulatorCharges).where(eq(simulatorCharges.idempotencyKey, key));

describe('test cards', () => {
  it('4242 4242 4242 4242 is approved, with brand and last 4 from the number', async () => {
    const req = request('4242424242424242');
    const result = await gateway().charge(req);
    expect(result).toEqual({ status: 'succeeded', paymentId: expect.stringMatching(/^sim_pay_[0-9A-Za-z]{24}$/), brand: 'visa', last4: '4242' });
    const rows = await ledger(req.idempotencyKey);
    expect(rows).toEqual([
      {
        idempotencyKey: req.idempotencyKey,
        paymentId: (result as { paymentId: string }).paymentId,
        kind: 'charge',
        status: 'succeeded',
        failureCode: null,
        amount: 1999,
        description: 'Store order',
        brand: 'visa',
        last4: '4242',
        recurringId: null,
        createdAt: fx.clock.now(),
      },
    ]);
  });

  it('4000 0000 0000 0002 is declined with card_declined', async () => {
    const result = await gateway().charge(request('4000000000000002'));
    expect(result).toEqual({ status: 'declined', code: 'card_declined', paymentId: expect.stringMatching(/^sim_pay_/), brand: 'visa', last4: '0002' });
  });

  it('another Luhn-valid number gives unsupported_test_card', async () => {
    expect(await gateway().charge(request('5555555555554444'))).toEqual({
      status: 'declined',
      code: 'unsupported_test_card',
      paymentId: expect.stringMatching(/^sim_pay_/),
      brand: 'mastercard',
      last4: '4444',
    });
    expect(await gateway().charge(request('378282246310005'))).toMatchObject({ status: 'declined', code: 'unsupported_test_card', brand: 'amex', last4: '0005' });
  });

  it('4000 0000 0000 0341: first charge approved, every later recurring charge declined', async () => {
    const first = await gateway().charge(request('4000000000000341', { recurring: true }));
    expect(first).toEqual({ status: 'succeeded', paymentId: expect.any(String), brand: 'visa', last4: '0341', recurringId: expect.stringMatching(/^sim_rec_/) });
    const recurringId = (first as { recurringId: string }).recurringId;
    for (const n of [1, 2, 3]) {
      const result = await gateway().chargeRecurring({ idempotencyKey: `recurring:${recurringId}:${n}`, recurringId, amount: 999, description: 'Plan' });
      expect(result).toEqual({ status: 'declined', code: 'card_declined', paymentId: expect.any(String), brand: 'visa', last4: '0341' });
    }
  });

  it('4000 0000 0000 3063: first approved, first recurring declined, every later one approved', async () => {
    const first = await gateway().charge(request('4000000000003063', { recurring: true }));
    expect(first.status).toBe('succeeded');
    const recurringId = (first as { recurringId: string }).recurringId;
    const outcomes = [];
    for (const n of [1, 2, 3]) {
      const result = await gateway().chargeRecurring({ idempotencyKey: `recurring:${recurringId}:${n}`, recurringId, amount: 999, description: 'Plan' });
      outcomes.push(result.status);
    }
    expect(outcomes).toEqual(['declined', 'succeeded', 'succeeded']);
    // A replay of the declined first recurring charge answers the same, and charges nothing new.
    const replay = await gateway().chargeRecurring({ idempotencyKey: `recurring:${recurringId}:1`, recurringId, amount: 999, description: 'Plan' });
    expect(replay.status).toBe('declined');
    const rows = await fx.db.select().from(simulatorCharges).where(eq(simulatorCharges.recurringId, recurringId));
    expect(rows.map((row) => [row.kind, row.status])).toEqual(
      expect.arrayContaining([
        ['charge', 'succeeded'],
        ['recurring', 'declined'],
        ['recurring', 'succeeded'],
        ['recurring', 'succeeded'],
      ]),
    );
    expect(rows).toHaveLength(4);
  });

  it('4242 recurring contracts keep approving; a cancelled contract declines', async () => {
    const first = await gateway().charge(request('4242424242424242', { recurring: true }));
    const recurringId = (first as { recurringId: string }).recurringId;
    const [contract] = await fx.db.select().from(simulatorRecurring).where(eq(simulatorRecurring.id, recurringId));
    expect(contract).toEqual({ id: recurringId, scenario: 'approve', brand: 'visa', last4: '4242', createdAt: fx.clock.now(), canceledAt: null });
    expect((await gateway().chargeRecurring({ idempotencyKey: `r:${recurringId}:1`, recurringId, amount: 500, description: 'Plan' })).status).toBe('succeeded');
    await gateway().cancelRecurring(recurringId);
    expect((await gateway().chargeRecurring({ idempotencyKey: `r:${recurringId}:2`, recurringId, amount: 500, description: 'Plan' })).status).toBe('declined');
  });
});

describe('idempotency and the ledger', () => {
  it('the same key answers the same result and charges once, even when calls race', async () => {
    const req = request('4242424242424242');
    const results = await Promise.all([gateway().charge(req), gateway().charge(req), gateway().charge(req)]);
    expect(new Set(results.map((r) => (r as { paymentId: string }).paymentId)).size).toBe(1);
    expect(await ledger(req.idempotencyKey)).toHaveLength(1);
    // Another instance on the same database (a restart) answers the same.
    const again = await createSimulatorGateway({ db: fx.db, clock: fx.clock }).charge(req);
    expect(again).toEqual(results[0]);
  });

  it('retrieveCharge returns the charge under a key, and null when none was made', async () => {
    const req = request('4000000000000002');
    expect(await gateway().retrieveCharge(req.idempotencyKey, { sentAt: new Date() })).toBeNull();
    const result = await gateway().charge(req);
    expect(await gateway().retrieveCharge(req.idempotencyKey, { sentAt: new Date() })).toEqual(result);
  });

  it('cancelCharge: a simulated charge is always decided, so it answers the charge (or null for an unknown id)', async () => {
    const result = (await gateway().charge(request('4242424242424242'))) as { paymentId: string };
    expect(await gateway().cancelCharge(result.paymentId)).toEqual(result);
    expect(await gateway().cancelCharge('sim_pay_unknown')).toBeNull();
  });

  it('never stores the card number', async () => {
    const req = request('4242424242424242');
    await gateway().charge(req);
    const dump = JSON.stringify(await fx.db.select().from(simulatorCharges));
    expect(dump).not.toContain('4242424242424242');
  });
});

describe('refunds', () => {
  it('full or partial up to what was charged; more fails; the same key replays', async () => {
    const charged = await gateway().charge(request('4242424242424242', { amount: 1000 }));
    const paymentId = (charged as { paymentId: string }).paymentId;
    const first = await gateway().refund({ idempotencyKey: `refund:${paymentId}:1`, paymentId, amount: 600 });
    expect(first).toEqual({ refundId: expect.stringMatching(/^sim_re_/), status: 'succeeded' });
    expect(await gateway().refund({ idempotencyKey: `refund:${paymentId}:1`, paymentId, amount: 600 })).toEqual(first);
    expect((await gateway().refund({ idempotencyKey: `refund:${paymentId}:2`, paymentId, amount: 401 })).status).toBe('failed');
    expect((await gateway().refund({ idempotencyKey: `refund:${paymentId}:3`, paymentId, amount: 400 })).status).toBe('succeeded');
    const rows = await fx.db.select().from(simulatorRefunds).where(eq(simulatorRefunds.paymentId, paymentId));
    expect(rows.map((row) => [row.amount, row.status])).toEqual(
      expect.arrayContaining([
        [600, 'succeeded'],
        [401, 'failed'],
        [400, 'succeeded'],
      ]),
    );
  });

  it('retrieveRefund answers the refund made under a key, and null when none was', async () => {
    const charged = (await gateway().charge(request('4242424242424242', { amount: 1000 }))) as { paymentId: string };
    const lookup = { idempotencyKey: `refund:${charged.paymentId}:1`, paymentId: charged.paymentId };
    expect(await gateway().retrieveRefund(lookup)).toBeNull();
    const made = await gateway().refund({ ...lookup, amount: 300 });
    expect(await gateway().retrieveRefund(lookup)).toEqual(made);
  });

  it('racing refunds on one payment never exceed the charge', async () => {
    const charged = await gateway().charge(request('4242424242424242', { amount: 1000 }));
    const paymentId = (charged as { paymentId: string }).paymentId;
    const results = await Promise.all([1, 2, 3].map((n) => gateway().refund({ idempotencyKey: `refund:${paymentId}:${n}`, paymentId, amount: 400 })));
    expect(results.filter((r) => r.status === 'succeeded')).toHaveLength(2);
  });

  it('a declined or unknown payment cannot be refunded', async () => {
    const declined = await gateway().charge(request('4000000000000002'));
    const paymentId = (declined as { paymentId: string }).paymentId;
    expect((await gateway().refund({ idempotencyKey: `refund:${paymentId}:1`, paymentId, amount: 100 })).status).toBe('failed');
    expect((await gateway().refund({ idempotencyKey: 'refund:sim_pay_unknown:1', paymentId: 'sim_pay_unknown', amount: 100 })).status).toBe('failed');
  });
});
