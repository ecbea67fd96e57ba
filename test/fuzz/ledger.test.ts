import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAYOUT_SCHEDULES, type PayoutSchedule } from '@/db/schema';
import { changePayoutSchedule } from '@/server/balance/service';
import { saveBankAccount } from '@/server/bank-accounts/service';
import { verifyLedger } from '@/server/balance/verify';
import { scopeClock } from '@/server/dashboard/service';
import { openDispute } from '@/server/disputes/service';
import { changePayoutStatus } from '@/server/payouts/service';
import { updateStore } from '@/server/stores/service';
import { createProduct } from '../support/api';
import { actingAs, person } from '../support/dashboard';
import { listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { advanceClock, DAY } from '../billing/support';
import { payCheckout } from '../invoices/support';
import { DISPUTE_CARDS } from '../disputes/support';
import { balanceOf, newStore } from '../balance/support';

/**
 * The ledger under random sequences of payments, partial refunds, fee changes, test-clock moves
 * (which also make the scheduled payouts and decide the disputes whose deadline they pass),
 * payouts asked for, payouts failing, bank accounts saved (ending a failure's hold, or holding
 * payouts 7 days after a change), and disputes: opened by a payment with a dispute card or by the
 * acquirer on any paid order (in full or in part), answered with evidence that wins, loses or
 * neither, and submitted. Each sequence runs in a store of its own: after every step the balance
 * is the sum of the entries; every fee is the store's rate at payment, rounded half up and capped
 * at the net; the hold is the one the steps call for; each dispute has the status its evidence and
 * the clock call for, and the entries of that status (a lost one its credit note for the amount,
 * with the VAT given back at opening); a disputed order is refunded only once its dispute is won;
 * a payout takes the whole available balance and settles entries summing to it; and at the end
 * `ledger:verify`'s checks, recomputed from the documents, find nothing wrong.
 *
 * Each sequence's store has a random payout schedule; a weekly or monthly one pays out as the
 * clock passes its dates.
 *
 * `npm test` runs a fixed seed and few sequences; `npm run fuzz` (FUZZ_RUNS, FUZZ_SEED) runs
 * one sequence for every 5 of its requests.
 */
const RUNS = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 150) / 5));
const SEED = process.env.FUZZ_SEED === 'random' ? undefined : Number(process.env.FUZZ_SEED ?? 20261129);

const api = useTestApi();

const EVIDENCE_FIELDS = ['customer_communication', 'product_description', 'uncategorized_text'] as const;
/** What an evidence field is set to: the texts test mode decides by, a neutral one, or cleared. */
const EVIDENCE_TEXTS = ['winning_evidence: the download log', 'losing_evidence', 'Delivered by e-mail', null] as const;
const WINNING = EVIDENCE_TEXTS[0];

type Step =
  | { kind: 'pay'; amount: number; taxRate: number; card: 'approved' | keyof typeof DISPUTE_CARDS }
  | { kind: 'dispute'; order: number; share: number | null }
  | { kind: 'evidence'; dispute: number; anyDispute: boolean; field: (typeof EVIDENCE_FIELDS)[number]; text: (typeof EVIDENCE_TEXTS)[number]; submit: boolean }
  | { kind: 'refund'; order: number; share: number }
  | { kind: 'fees'; basisPoints: number; fixed: number }
  | { kind: 'clock'; seconds: number }
  | { kind: 'payout' }
  | { kind: 'fail_payout' }
  | { kind: 'save_account'; change: boolean };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      amount: fc.integer({ min: 1, max: 200_000 }),
      taxRate: fc.constantFrom(0, 7, 19),
      card: fc.constantFrom('approved' as const, 'approved' as const, 'approved' as const, 'fraudulent' as const, 'productNotReceived' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dispute' as const), order: fc.nat(), share: fc.option(fc.double({ min: 0.01, max: 1, noNaN: true }), { nil: null }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('evidence' as const),
      dispute: fc.nat(),
      // Mostly an open dispute; sometimes any, a closed one included.
      anyDispute: fc.constantFrom(false, false, false, true),
      field: fc.constantFrom(...EVIDENCE_FIELDS),
      text: fc.constantFrom(WINNING, ...EVIDENCE_TEXTS),
      submit: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), order: fc.nat(), share: fc.double({ min: 0.01, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fees' as const), basisPoints: fc.integer({ min: 0, max: 10_000 }), fixed: fc.integer({ min: 0, max: 500 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('clock' as const), seconds: fc.integer({ min: 1, max: 10 * DAY }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'payout' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fail_payout' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('save_account' as const), change: fc.boolean() }) },
);

/** Two accounts a sequence switches between; a save without a change keeps the one saved. */
const ACCOUNTS = ['DE89370400440532013000', 'GB82WEST12345698765432'];
const HOLD_AFTER_CHANGE = 7 * DAY;
/** A test dispute's deadline after its opening. */
const DISPUTE_DAYS = 7 * DAY;

interface Entry {
  id: string;
  type: string;
  amount: number;
  source: { type: string; id: string } | null;
  status: 'pending' | 'available';
  payout_id: string | null;
}

/** Every entry of the store, however many pages. */
async function allEntries(key: string, query = ''): Promise<Entry[]> {
  const entries: Entry[] = [];
  let after = '';
  for (;;) {
    const page = await listOf(api, '/api/v1/balance_transactions', key, `limit=100${query}${after}`);
    expect(page.status).toBe(200);
    entries.push(...page.body.data);
    if (!page.body.has_more) return entries;
    after = `&starting_after=${page.body.data.at(-1).id}`;
  }
}

const sum = (entries: { amount: number }[]) => entries.reduce((total, entry) => total + entry.amount, 0);

type Evidence = Record<(typeof EVIDENCE_FIELDS)[number], string | null>;
const NO_EVIDENCE: Evidence = { customer_communication: null, product_description: null, uncategorized_text: null };

/** A dispute as the sequence expects it to be. */
interface ExpectedDispute {
  id: string;
  orderId: string;
  amount: number;
  /** The invoice's whole VAT when the dispute took the whole order, none of it refunded: its `tax` entry gives all of it back. */
  wholeInvoiceTax: number | null;
  /** Epoch seconds on the store's clock. */
  dueBy: number;
  status: 'needs_response' | 'under_review' | 'won' | 'lost';
  evidence: Evidence;
}

/** Test mode's outcome at the deadline: won when a field says `winning_evidence` and none `losing_evidence`. */
function outcomeOf(evidence: Evidence): 'won' | 'lost' {
  const texts = Object.values(evidence).filter((text): text is string => text !== null);
  return texts.some((text) => text.includes('winning_evidence')) && !texts.some((text) => text.includes('losing_evidence')) ? 'won' : 'lost';
}

/** A dispute's entries as its status calls for (newest first within a type): the amount, the VAT given back, the fee; when won, both returned. */
function expectDisputeEntries(dispute: ExpectedDispute, entries: Entry[], fee: number) {
  const own = entries.filter((entry) => entry.source?.type === 'dispute' && entry.source.id === dispute.id);
  const of = (type: string) => own.filter((entry) => entry.type === type).map((entry) => entry.amount);
  const won = dispute.status === 'won';
  const taxes = of('tax');
  const given = taxes.at(-1)!;
  expect(own.every((entry) => entry.status === 'available')).toBe(true);
  expect(of('dispute')).toEqual([-dispute.amount]);
  expect(of('dispute_fee')).toEqual([-fee]);
  expect(of('dispute_reversal')).toEqual(won ? [dispute.amount] : []);
  // toEqual tells -0 from 0: no VAT is taken back as 0.
  expect(taxes).toEqual(won ? [given === 0 ? 0 : -given, given] : [given]);
  expect(given).toBeGreaterThanOrEqual(0);
  expect(given).toBeLessThanOrEqual(dispute.amount);
  if (dispute.wholeInvoiceTax !== null) expect(given).toBe(dispute.wholeInvoiceTax);
  expect(own).toHaveLength(won ? 5 : 3);
}

/** The fee computed here from the rates the sequence set, independently of the service. */
const expectedFee = (total: number, tax: number, rates: { basisPoints: number; fixed: number }) => Math.min(Math.floor((total * rates.basisPoints + 5000) / 10_000) + rates.fixed, total - tax);

async function runSequence(schedule: PayoutSchedule, steps: Step[]) {
  const store = await newStore(api);
  const scope = { storeId: store.id, livemode: false };
  // Per action, as each dashboard request reads the store's clock afresh.
  const owner = () => actingAs(api.services, scope, person({ email: 'owner@example.com', ip: '203.0.113.9', path: '/dashboard/test/settings' }));
  await changePayoutSchedule(await owner(), scope, schedule);
  const key = store.key;
  const defaults = api.services.config.ledger.defaultFees;
  let rates = { basisPoints: defaults.basisPoints, fixed: defaults.fixed };
  const disputeFee = api.services.config.ledger.disputeFee;
  const paid: { id: string; total: number; tax: number; refundable: number; dispute?: ExpectedDispute }[] = [];
  const disputes: ExpectedDispute[] = [];
  const madePayouts: string[] = [];
  let failed = false;
  /** The store's clock, in epoch seconds: the test clock moves only when a step moves it. */
  let now = Math.floor(api.clock.now().getTime() / 1000);
  let account: string | undefined;
  /** Payouts wait until then after a change of the bank account. */
  let changedUntil = 0;

  for (const step of steps) {
    if (step.kind === 'pay') {
      const product = await createProduct(api, key, { name: 'Ebook', amount: step.amount, tax_rate: step.taxRate });
      const order = await payCheckout(api, key, { price_id: product.price_id }, step.card === 'approved' ? {} : { card_number: DISPUTE_CARDS[step.card] });
      const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key })).body;
      const fee = (await allEntries(key, `&source_id=${order.id}&type=fee`))[0]!;
      expect(fee.amount).toBe(-expectedFee(order.amount_total, invoice.amount_tax, rates));
      const expected = { id: order.id, total: order.amount_total, tax: invoice.amount_tax, refundable: order.amount_total };
      paid.push(expected);
      if (step.card === 'approved') {
        expect(order.dispute_id).toBeNull();
      } else {
        // Disputed in full before the page answered.
        const dispute = {
          id: order.dispute_id,
          orderId: order.id,
          amount: order.amount_total,
          wholeInvoiceTax: invoice.amount_tax,
          dueBy: now + DISPUTE_DAYS,
          status: 'needs_response' as const,
          evidence: NO_EVIDENCE,
        };
        Object.assign(expected, { dispute });
        disputes.push(dispute);
      }
    } else if (step.kind === 'dispute') {
      const undisputed = paid.filter((candidate) => candidate.refundable > 0 && !candidate.dispute);
      const order = undisputed[step.order % Math.max(undisputed.length, 1)];
      if (!order) continue;
      const amount = step.share === null ? undefined : Math.max(1, Math.floor(order.refundable * step.share));
      const times = { now: (await scopeClock(api.services, scope)).now(), wallNow: api.clock.now() };
      const row = await api.services.db.transaction((tx) => openDispute(tx, scope, order.id, { reason: 'general', amount }, { fee: disputeFee, times }));
      expect(row.amount).toBe(amount ?? order.refundable);
      order.dispute = {
        id: row.id,
        orderId: order.id,
        amount: row.amount,
        wholeInvoiceTax: row.amount === order.total ? order.tax : null,
        dueBy: now + DISPUTE_DAYS,
        status: 'needs_response',
        evidence: NO_EVIDENCE,
      };
      disputes.push(order.dispute);
    } else if (step.kind === 'evidence') {
      const open = disputes.filter((candidate) => candidate.status === 'needs_response');
      const pool = step.anyDispute || open.length === 0 ? disputes : open;
      const dispute = pool[step.dispute % Math.max(pool.length, 1)];
      if (!dispute) continue;
      const response = await api.request('POST', `/api/v1/disputes/${dispute.id}`, { key, body: { evidence: { [step.field]: step.text }, ...(step.submit ? { submit: true } : {}) } });
      const evidence = { ...dispute.evidence, [step.field]: step.text };
      if (dispute.status !== 'needs_response' || now >= dispute.dueBy) {
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('dispute_not_editable');
      } else if (step.submit && Object.values(evidence).every((text) => text === null)) {
        expect(response.status).toBe(400);
        expect(response.body.error).toMatchObject({ code: 'parameter_invalid', param: 'evidence' });
      } else {
        expect(response.status).toBe(200);
        dispute.evidence = evidence;
        if (step.submit) dispute.status = 'under_review';
      }
    } else if (step.kind === 'refund') {
      const refundable = paid.filter((candidate) => candidate.refundable > 0);
      const order = refundable[step.order % Math.max(refundable.length, 1)];
      if (!order) continue;
      const amount = Math.max(1, Math.floor(order.refundable * step.share));
      const refund = await api.request('POST', '/api/v1/refunds', { key, body: { order_id: order.id, amount } });
      if (order.dispute && order.dispute.status !== 'won') {
        expect(refund.status).toBe(409);
        expect(refund.body.error.code).toBe('order_disputed');
      } else {
        expect(refund.status).toBe(201);
        order.refundable -= amount;
      }
    } else if (step.kind === 'fees') {
      await updateStore(api.services.db, store.id, { feeBasisPoints: step.basisPoints, feeFixed: step.fixed });
      rates = { basisPoints: step.basisPoints, fixed: step.fixed };
    } else if (step.kind === 'clock') {
      now = await advanceClock(api, key, step.seconds);
      // The move decides every dispute whose deadline it passed; saved evidence is submitted first.
      for (const dispute of disputes) {
        if ((dispute.status === 'needs_response' || dispute.status === 'under_review') && dispute.dueBy <= now) dispute.status = outcomeOf(dispute.evidence);
      }
    } else if (step.kind === 'payout') {
      const before = await balanceOf(api, key);
      const response = await api.request('POST', '/api/v1/payouts', { key, body: {} });
      if (failed || now < changedUntil) {
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('payouts_held');
      } else if (before.available < api.services.config.ledger.payoutMinimum) {
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('balance_insufficient');
      } else {
        expect(response.status).toBe(201);
        expect(response.body.amount).toBe(before.available);
        expect((await balanceOf(api, key)).available).toBe(0);
      }
    } else if (step.kind === 'save_account') {
      const next = step.change || account === undefined ? ACCOUNTS.find((candidate) => candidate !== account)! : account;
      // A second passes, as between a bank's report and an owner's save: a save ends a failure's hold only when it comes after it.
      api.clock.set(new Date(api.clock.now().getTime() + 1000));
      now += 1;
      await saveBankAccount(await owner(), scope, { iban: next, accountHolder: 'Property store' });
      if (next !== account) changedUntil = now + HOLD_AFTER_CHANGE;
      account = next;
      failed = false;
    } else {
      const latest = (await listOf(api, '/api/v1/payouts', key, 'limit=1')).body.data[0];
      if (latest?.status !== 'paid') continue;
      await api.services.db.transaction((tx) => changePayoutStatus(tx, latest.id, { to: 'failed', reason: 'bank_rejected' }, api.clock));
      failed = true;
    }

    // After every step: the balance is the sum of the entries, split by what can be paid out.
    const entries = await allEntries(key);
    const balance = await balanceOf(api, key);
    expect(balance.available + balance.pending).toBe(sum(entries));
    expect(balance.available).toBe(sum(entries.filter((entry) => entry.status === 'available' && entry.payout_id === null && entry.type !== 'payout')));
    const hold = failed ? { reason: 'payout_failed', until: null } : now < changedUntil ? { reason: 'destination_changed', until: changedUntil } : null;
    expect(balance.payout_hold).toEqual(hold);
    // Each dispute is as its evidence and the clock call for, with the entries of its status.
    if (disputes.length > 0) {
      const listed = (await listOf(api, '/api/v1/disputes', key, 'limit=100')).body.data as ExpectedDispute[];
      const shown = (dispute: Pick<ExpectedDispute, 'id' | 'amount' | 'status' | 'evidence'>) => [dispute.id, dispute.amount, dispute.status, dispute.evidence];
      expect(listed.map(shown).sort()).toEqual(disputes.map(shown).sort());
      for (const dispute of disputes) expectDisputeEntries(dispute, entries, disputeFee);
    }
  }

  // A lost dispute, and only a lost one, has its credit note: the amount, with the VAT given back at opening.
  for (const dispute of disputes) {
    const notes = (await listOf(api, '/api/v1/credit_notes', key, `order_id=${dispute.orderId}&limit=100`)).body.data.filter((note: { dispute_id: string | null }) => note.dispute_id === dispute.id);
    const given = (await allEntries(key, `&source_id=${dispute.id}&type=tax`)).at(-1)!.amount;
    expect(notes.map((note: { reason: string; amount_total: number; amount_tax: number }) => [note.reason, note.amount_total, note.amount_tax])).toEqual(
      dispute.status === 'lost' ? [['dispute_lost', dispute.amount, given]] : [],
    );
  }

  // Every payout, asked for or scheduled, settled entries summing to its amount, each entry once.
  const payouts = (await listOf(api, '/api/v1/payouts', key, 'limit=100')).body.data as { id: string; amount: number }[];
  const settled = new Set<string>();
  for (const payout of payouts) {
    madePayouts.push(payout.id);
    const entries = await allEntries(key, `&payout_id=${payout.id}`);
    expect(sum(entries)).toBe(payout.amount);
    for (const entry of entries) {
      expect(settled.has(entry.id)).toBe(false);
      settled.add(entry.id);
    }
  }
  const verified = await verifyLedger(api.services.db, api.clock.now(), store.id);
  expect(verified).toMatchObject({ ok: true });
  expect(verified.checked.payouts).toBe(madePayouts.length);
  expect(verified.checked.disputes).toBe(disputes.length);
}

describe('the ledger under random sequences', () => {
  it(
    'stays the sum of its entries, charges each fee at the rate of its payment, pays out each entry once, and ledger:verify agrees',
    async () => {
      await fc.assert(fc.asyncProperty(fc.constantFrom(...PAYOUT_SCHEDULES), fc.array(stepArbitrary, { minLength: 1, maxLength: 14 }), runSequence), {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        endOnFailure: true,
      });
    },
    RUNS * 60_000,
  );
});
