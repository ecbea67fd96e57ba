import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { paymentAttempts } from '@/db/schema';
import { forEachLeased, type LeasedPass } from '@/server/kit/lease';
import { insertSession, newStore, usePayments } from '../payments/support';

/** Leases (server/kit/lease.ts), on payment attempts: any leased table behaves the same. */
const fx = usePayments();

/** Open attempts of one fresh session: their ids. */
async function openAttempts(count: number): Promise<string[]> {
  const store = await newStore(fx);
  const { sessionId } = await insertSession(fx, store);
  const now = fx.clock.now();
  const ids = Array.from({ length: count }, (_, index) => `pa_test_lease${index}${sessionId.slice(-12)}`);
  await fx.db.insert(paymentAttempts).values(
    ids.map((id, index) => ({
      id,
      checkoutSessionId: sessionId,
      storeId: store.id,
      livemode: false,
      idempotencyKey: `charge:${sessionId}:${index + 1}`,
      amount: 1999,
      status: 'unknown' as const,
      createdAt: now,
      updatedAt: now,
    })),
  );
  return ids;
}

const passOver = (ids: string[], limit = 100): LeasedPass => ({ where: inArray(paymentAttempts.id, ids), orderBy: [], limit, now: () => fx.clock.now(), leaseMs: 60_000 });
const leaseOf = async (id: string) => (await fx.db.select({ leasedUntil: paymentAttempts.leasedUntil }).from(paymentAttempts).where(eq(paymentAttempts.id, id)))[0]!.leasedUntil;

describe('forEachLeased', () => {
  it('passes running at once never work on one row together, each takes every row once, and every lease is given back', async () => {
    const ids = await openAttempts(6);
    const inWork = new Set<string>();
    const overlaps: string[] = [];
    const passes = [1, 2, 3].map(() => {
      const worked: string[] = [];
      const work = async (row: { id: string }) => {
        if (inWork.has(row.id)) overlaps.push(row.id);
        inWork.add(row.id);
        worked.push(row.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inWork.delete(row.id);
        return true;
      };
      return { worked, done: forEachLeased(fx.db, paymentAttempts, passOver(ids), work) };
    });
    await Promise.all(passes.map((pass) => pass.done));
    expect(overlaps).toEqual([]);
    for (const pass of passes) expect(new Set(pass.worked).size).toBe(pass.worked.length);
    expect(new Set(passes.flatMap((pass) => pass.worked))).toEqual(new Set(ids));
    for (const id of ids) expect(await leaseOf(id)).toBeNull();
  });

  it('a row leased by a process that died is passed over until its lease runs out, then taken again', async () => {
    const [id] = await openAttempts(1);
    await fx.db
      .update(paymentAttempts)
      .set({ leasedUntil: new Date(fx.clock.now().getTime() + 60_000) })
      .where(eq(paymentAttempts.id, id!));
    const worked: string[] = [];
    const work = async (row: { id: string }) => {
      worked.push(row.id);
      return false;
    };
    expect(await forEachLeased(fx.db, paymentAttempts, passOver([id!]), work)).toBe(0);
    expect(worked).toEqual([]);
    fx.clock.advance(60);
    await forEachLeased(fx.db, paymentAttempts, passOver([id!]), work);
    expect(worked).toEqual([id]);
    expect(await leaseOf(id!)).toBeNull();
  });

  it('a failing row gives its lease back, and the failure ends the pass', async () => {
    const ids = await openAttempts(2);
    const pass = forEachLeased(fx.db, paymentAttempts, passOver(ids), async () => {
      throw new Error('the database went away');
    });
    await expect(pass).rejects.toThrow('the database went away');
    for (const id of ids) expect(await leaseOf(id)).toBeNull();
  });

  it('takes at most `limit` rows in a pass, and each once', async () => {
    const ids = await openAttempts(3);
    const worked: string[] = [];
    const work = async (row: { id: string }) => {
      worked.push(row.id);
      return true;
    };
    expect(await forEachLeased(fx.db, paymentAttempts, passOver(ids, 2), work)).toBe(2);
    expect(new Set(worked).size).toBe(2);
  });
});
