import { and, asc, eq } from 'drizzle-orm';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FormFields } from '@/app/dashboard/act/dispatch';
import { DASHBOARD_ACTIONS } from '@/app/dashboard/act/registry';
import { DisputeSection } from '@/app/dashboard/disputes/dispute-section';
import { readDisputesQuery } from '@/app/dashboard/disputes/query';
import { disputeColumns } from '@/app/dashboard/disputes/status';
import { ListTable } from '@/app/dashboard/list-table';
import { auditEvents, MEMBER_ROLES, type MemberRole } from '@/db/schema';
import { scopeClock } from '@/server/dashboard/service';
import { listDisputes, openDispute, readDispute } from '@/server/disputes/service';
import type { ApiError } from '@/server/errors';
import type { Scope } from '@/server/kit/scope';
import { DAY } from '../billing/support';
import { newStore } from '../balance/support';
import { seedInvoicedOrder } from '../invoices/support';
import { epoch, T0 } from '../support/api';
import { actingAs, person } from '../support/dashboard';
import { useTestApi } from '../support/server';
import { eventsOf } from '../subscriptions/support';
import { DISPUTE_CARDS, disputeOf, paidWith } from '../disputes/support';

/**
 * The dashboard's disputes: the Disputes list as its page reads it, the order page's Dispute
 * section as each role sees it, and the evidence form's action with the fields a browser posts.
 */
const api = useTestApi();

type Store = Awaited<ReturnType<typeof newStore>>;
const scopeOf = (store: Store, livemode = false): Scope => ({ storeId: store.id, livemode });
const evidenceAction = DASHBOARD_ACTIONS['dispute-evidence']!;

/** The evidence form posted by a person of `role` in `mode`, as the dispatch hands it to the action: the path it answers 303 with. */
async function postEvidence(store: Store, fields: Record<string, string>, options: { role?: MemberRole; mode?: 'test' | 'live' } = {}) {
  const { role = 'support', mode = 'test' } = options;
  const scope = scopeOf(store, mode === 'live');
  const data = new FormData();
  for (const [name, value] of Object.entries({ mode, ...fields })) data.append(name, value);
  const actor = person({ email: `${role}@example.com`, ip: '203.0.113.9', path: '/dashboard/act/dispute-evidence' }, role);
  return evidenceAction.run({
    form: new FormFields(data),
    services: api.services,
    mode,
    scope,
    membership: { storeId: store.id, storeName: 'Disputed Books', role },
    actor,
    userId: actor.userId,
    acting: (page) => actingAs(api.services, scope, { ...actor, path: page }),
  });
}

/** The order page's Dispute section as `role` sees it now, with the page's query. */
async function sectionHtml(store: Store, disputeId: string, role: MemberRole, query: { error?: string; saved?: string } = {}, livemode = false) {
  const scope = scopeOf(store, livemode);
  const row = await readDispute(api.services.db, scope, disputeId);
  const now = (await scopeClock(api.services, scope)).now();
  return renderToStaticMarkup(<DisputeSection row={row} now={now} role={role} mode={livemode ? 'live' : 'test'} error={query.error ?? ''} saved={query.saved ?? ''} />);
}

const alertOf = (html: string) => /<p role="alert"[^>]*>(.*?)<\/p>/.exec(html)?.[1];
const noticeOf = (html: string) => /<p class="dash-notice" role="status">(.*?)<\/p>/.exec(html)?.[1];
const textareas = (html: string) => [...html.matchAll(/<textarea id="evidence-(\w+)" name="(\w+)"[^>]*>([\s\S]*?)<\/textarea>/g)].map((match) => [match[1], match[2], match[3]]);

/** A live order of the store, paid and invoiced, disputed as the operator records an acquirer's dispute. */
async function liveDispute(store: Store) {
  const { order } = await seedInvoicedOrder(api, store, { livemode: true });
  const times = { now: api.clock.now(), wallNow: api.clock.now() };
  return api.services.db.transaction((tx) => openDispute(tx, scopeOf(store, true), order.id, { reason: 'duplicate' }, { fee: api.services.config.ledger.disputeFee, times }));
}

const disputeAudits = (storeId: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, storeId), eq(auditEvents.action, 'dispute.update')))
    .orderBy(asc(auditEvents.id));

describe('dashboard disputes: the list query', () => {
  it('a status or all; anything else is a message', () => {
    expect(readDisputesQuery({ status: 'under_review' })).toEqual({ form: { status: 'under_review' }, filters: { status: 'under_review' } });
    expect(readDisputesQuery({ status: 'all' })).toEqual({ form: { status: 'all' }, filters: {} });
    expect(readDisputesQuery({})).toEqual({ form: { status: '' }, filters: {} });
    expect(readDisputesQuery({ status: 'paid' })).toEqual({ form: { status: 'paid' }, filters: {}, problem: 'Choose a status from the list.' });
    expect(readDisputesQuery({ status: ['won', 'lost'] }).filters).toEqual({});
  });
});

describe('dashboard disputes: the list', () => {
  it('newest first, each linking to its order with its deadline while it waits for evidence; filtered by status, a page at a time; this store and mode only', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const other = await newStore(api);
    const first = await paidWith(api, store.key, DISPUTE_CARDS.fraudulent);
    api.clock.advance(60);
    const second = await paidWith(api, store.key, DISPUTE_CARDS.productNotReceived, 2000);
    await paidWith(api, store.key, '4242 4242 4242 4242');
    const elsewhere = await paidWith(api, other.key, DISPUTE_CARDS.fraudulent);
    const live = await liveDispute(store);
    const list = (on: Scope, query: Record<string, string> = {}, page: { limit?: number; starting_after?: string } = {}) =>
      listDisputes(api.services.db, on, { ...readDisputesQuery(query).filters, limit: page.limit ?? 25, starting_after: page.starting_after });
    const ids = async (on: Scope, query: Record<string, string> = {}) => (await list(on, query)).data.map((dispute) => dispute.id);

    expect(await ids(scopeOf(store))).toEqual([second.dispute_id, first.dispute_id]);
    expect(await ids(scopeOf(store, true))).toEqual([live.id]);
    expect(await ids(scopeOf(other))).toEqual([elsewhere.dispute_id]);
    expect(await ids(scopeOf(other, true))).toEqual([]);

    const html = renderToStaticMarkup(<ListTable columns={disputeColumns('/dashboard/test')} rows={(await list(scopeOf(store))).data} />);
    const rows = html.split('<tr>').slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(`<a href="/dashboard/test/orders/${second.id}" class="dash-mono">${second.id}</a>`);
    expect(rows[0]).toContain('2026-03-01 12:01 UTC');
    expect(rows[0]).toContain('Product not received');
    expect(rows[0]).toContain('<span class="dash-status" data-status="needs_response">needs_response</span>');
    expect(rows[0]).toContain('Respond by <span class="dash-nowrap">2026-03-08 12:01 UTC</span>');
    expect(rows[0]).toContain('€23.80');
    expect(rows[1]).toContain(`<a href="/dashboard/test/orders/${first.id}" class="dash-mono">${first.id}</a>`);
    expect(rows[1]).toContain('Fraudulent');
    expect(rows[1]).toContain('Respond by <span class="dash-nowrap">2026-03-08 12:00 UTC</span>');
    expect(rows[1]).toContain('€11.90');

    // Evidence submitted: under review, with no deadline left to meet.
    expect(await postEvidence(store, { dispute_id: first.dispute_id, order_id: first.id, product_description: 'An e-book, downloaded twice.', intent: 'submit', confirm: 'yes' })).toBe(
      `/dashboard/test/orders/${first.id}?saved=evidence_submitted`,
    );
    expect(await ids(scopeOf(store), { status: 'under_review' })).toEqual([first.dispute_id]);
    expect(await ids(scopeOf(store), { status: 'needs_response' })).toEqual([second.dispute_id]);
    expect(await ids(scopeOf(store), { status: 'won' })).toEqual([]);
    expect(await ids(scopeOf(store), { status: 'all' })).toEqual([second.dispute_id, first.dispute_id]);
    const reviewed = renderToStaticMarkup(<ListTable columns={disputeColumns('/dashboard/test')} rows={(await list(scopeOf(store), { status: 'under_review' })).data} />);
    expect(reviewed).toContain('<span class="dash-status" data-status="under_review">under_review</span>');
    expect(reviewed).not.toContain('Respond by');

    // Pages of one, the cursor a dispute of this list only.
    const page = await list(scopeOf(store), {}, { limit: 1 });
    expect([page.data.map((dispute) => dispute.id), page.has_more]).toEqual([[second.dispute_id], true]);
    const next = await list(scopeOf(store), {}, { limit: 1, starting_after: page.data[0]!.id });
    expect([next.data.map((dispute) => dispute.id), next.has_more]).toEqual([[first.dispute_id], false]);
    for (const cursor of [elsewhere.dispute_id, live.id]) {
      const refused = (await list(scopeOf(store), {}, { starting_after: cursor }).catch((error: unknown) => error)) as ApiError;
      expect([refused.code, refused.param]).toEqual(['resource_missing', 'starting_after']);
    }
  });
});

describe('dashboard disputes: the order page’s Dispute section', () => {
  it('every role sees the dispute and its deadline; support, admin and owner alone get the evidence pack and the form', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const order = await paidWith(api, store.key, DISPUTE_CARDS.fraudulent);
    const dispute = await disputeOf(api, store.key, order.id);
    const pack = `<a class="dash-button-link" href="/dashboard/test/disputes/${dispute.id}/evidence.pdf">Download evidence pack</a>`;
    const answering: Record<MemberRole, boolean> = { owner: true, admin: true, support: true, developer: false, viewer: false };
    for (const role of MEMBER_ROLES) {
      const html = await sectionHtml(store, dispute.id, role);
      expect(html, role).toContain('<h2 id="order-dispute">Dispute</h2>');
      expect(html, role).toContain('<dt>Status</dt><dd><span class="dash-status" data-status="needs_response">needs_response</span>');
      expect(html, role).toContain('Respond by <span class="dash-nowrap">2026-03-08 12:00 UTC</span>');
      expect(html, role).toContain('<dt>Reason</dt><dd>Fraudulent</dd>');
      expect(html, role).toContain('<dt>Amount</dt><dd>€11.90</dd>');
      expect(html, role).toContain('<dt>Opened</dt><dd>2026-03-01 12:00 UTC</dd>');
      expect(html, role).toContain('<dt>Evidence submitted</dt><dd>—</dd>');
      expect(html.includes(pack), role).toBe(answering[role]);
      expect(html.includes('<form class="dash-form dash-evidence-form" aria-label="Dispute evidence" action="/dashboard/act/dispute-evidence" method="post">'), role).toBe(answering[role]);
      if (!answering[role]) {
        expect(html, role).toContain('<dt>Customer communication</dt><dd>—</dd><');
        continue;
      }
      expect(textareas(html), role).toEqual([
        ['customer_communication', 'customer_communication', ''],
        ['product_description', 'product_description', ''],
        ['uncategorized_text', 'uncategorized_text', ''],
      ]);
      for (const [field, label] of [
        ['customer_communication', 'Customer communication'],
        ['product_description', 'Product description'],
        ['uncategorized_text', 'Additional information'],
      ]) {
        expect(html, role).toContain(`<label for="evidence-${field}">${label}</label>`);
      }
      expect(html, role).toContain('<input type="hidden" name="mode" value="test"/>');
      expect(html, role).toContain(`<input type="hidden" name="dispute_id" value="${dispute.id}"/>`);
      expect(html, role).toContain(`<input type="hidden" name="order_id" value="${order.id}"/>`);
      expect(html, role).toContain(
        '<label class="dash-check"><input type="checkbox" required="" name="confirm" value="yes"/> I confirm this evidence is complete: it cannot be changed after submitting</label>',
      );
      expect(html, role).toContain('<button type="submit" value="save" class="dash-secondary" formNoValidate="" name="intent">Save evidence</button>');
      expect(html, role).toContain('<button type="submit" value="submit" name="intent">Submit evidence</button>');
    }
  });

  it('saved and submitted through the form’s action: the evidence as typed, the notices, the audit entries with the person; then read-only', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const order = await paidWith(api, store.key, DISPUTE_CARDS.productNotReceived);
    const dispute = await disputeOf(api, store.key, order.id);
    const page = `/dashboard/test/orders/${order.id}`;
    const fields = { dispute_id: dispute.id, order_id: order.id };
    const typed = {
      customer_communication: 'They wrote on 1 March:\r\n“Thanks, it arrived.”',
      product_description: 'An e-book <PDF>, downloaded twice.',
      uncategorized_text: '   ',
    };

    // Save: what was typed, its line breaks as \n; a blank field is no evidence.
    expect(await postEvidence(store, { ...fields, ...typed, intent: 'save' })).toBe(`${page}?saved=evidence_saved`);
    const saved = await disputeOf(api, store.key, order.id);
    expect(saved).toEqual({
      ...dispute,
      evidence: { customer_communication: 'They wrote on 1 March:\n“Thanks, it arrived.”', product_description: 'An e-book <PDF>, downloaded twice.', uncategorized_text: null },
    });
    const afterSave = await sectionHtml(store, dispute.id, 'support', { saved: 'evidence_saved' });
    expect(noticeOf(afterSave)).toBe('Evidence saved. Submit it before the deadline; what is saved then is submitted for you.');
    expect(textareas(afterSave).map(([field, , text]) => [field, text])).toEqual([
      ['customer_communication', 'They wrote on 1 March:\n“Thanks, it arrived.”'],
      ['product_description', 'An e-book &lt;PDF&gt;, downloaded twice.'],
      ['uncategorized_text', ''],
    ]);

    // Submit without the confirmation: refused, nothing changed.
    expect(await postEvidence(store, { ...fields, ...typed, intent: 'submit' })).toBe(`${page}?error=confirm_submit`);
    expect(alertOf(await sectionHtml(store, dispute.id, 'support', { error: 'confirm_submit' }))).toBe(
      'Tick “I confirm this evidence is complete: it cannot be changed after submitting” to submit the evidence.',
    );
    expect(await disputeOf(api, store.key, order.id)).toEqual(saved);

    // Submit, confirmed, by an admin, with one more field: under review from now on.
    api.clock.advance(3600);
    expect(await postEvidence(store, { ...fields, ...typed, uncategorized_text: 'Order 42.', intent: 'submit', confirm: 'yes' }, { role: 'admin' })).toBe(`${page}?saved=evidence_submitted`);
    const submitted = await disputeOf(api, store.key, order.id);
    expect(submitted).toEqual({ ...saved, status: 'under_review', evidence: { ...saved.evidence, uncategorized_text: 'Order 42.' }, evidence_submitted_at: epoch(T0) + 3600 });
    expect((await eventsOf(api.services.db, dispute.id)).map((event) => [event.type, event.data.object.status])).toEqual([
      ['dispute.created', 'needs_response'],
      ['dispute.updated', 'needs_response'],
      ['dispute.updated', 'under_review'],
    ]);
    expect(
      (await disputeAudits(store.id)).map((entry) => ({ keyHint: entry.keyHint, livemode: entry.livemode, ip: entry.ip, method: entry.method, path: entry.path, details: entry.details })),
    ).toEqual([
      {
        keyHint: 'user:support@example.com',
        livemode: false,
        ip: '203.0.113.9',
        method: 'POST',
        path: page,
        details: { dispute: dispute.id, order: order.id, evidence_fields: ['customer_communication', 'product_description', 'uncategorized_text'], submitted: false },
      },
      {
        keyHint: 'user:admin@example.com',
        livemode: false,
        ip: '203.0.113.9',
        method: 'POST',
        path: page,
        details: { dispute: dispute.id, order: order.id, evidence_fields: ['customer_communication', 'product_description', 'uncategorized_text'], submitted: true },
      },
    ]);

    // Submitted: the evidence read-only for everyone, the pack still there; a further save refused in the service's words.
    const done = await sectionHtml(store, dispute.id, 'owner', { saved: 'evidence_submitted' });
    expect(noticeOf(done)).toBe('Evidence submitted: the dispute is under review.');
    expect(done).not.toContain('<form');
    expect(done).not.toContain('Respond by');
    expect(done).toContain('<dt>Evidence submitted</dt><dd>2026-03-01 13:00 UTC</dd>');
    expect(done).toContain('<dt>Customer communication</dt><dd>They wrote on 1 March:\n“Thanks, it arrived.”</dd>');
    expect(done).toContain('<dt>Additional information</dt><dd>Order 42.</dd>');
    expect(done).toContain(`href="/dashboard/test/disputes/${dispute.id}/evidence.pdf">Download evidence pack</a>`);
    expect(await postEvidence(store, { ...fields, ...typed, intent: 'save' }, { role: 'owner' })).toBe(`${page}?error=dispute_not_editable`);
    expect(alertOf(await sectionHtml(store, dispute.id, 'owner', { error: 'dispute_not_editable' }))).toBe(`Dispute ${dispute.id} is under_review: its evidence can no longer change.`);
    expect(await disputeOf(api, store.key, order.id)).toEqual(submitted);
    expect(await disputeAudits(store.id)).toHaveLength(2);
  });

  it('refused: submitting no evidence, a field too long, another store’s or mode’s dispute, and anything after the deadline', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const other = await newStore(api);
    const order = await paidWith(api, store.key, DISPUTE_CARDS.fraudulent);
    const dispute = await disputeOf(api, store.key, order.id);
    const foreign = await paidWith(api, other.key, DISPUTE_CARDS.fraudulent);
    const live = await liveDispute(store);
    const page = `/dashboard/test/orders/${order.id}`;
    const fields = { dispute_id: dispute.id, order_id: order.id };
    const empty = { customer_communication: '', product_description: ' ', uncategorized_text: '' };

    expect(await postEvidence(store, { ...fields, ...empty, intent: 'submit', confirm: 'yes' })).toBe(`${page}?error=evidence_missing`);
    expect(alertOf(await sectionHtml(store, dispute.id, 'support', { error: 'evidence_missing' }))).toBe('There is no evidence to submit: give at least one evidence field first.');
    expect(await postEvidence(store, { ...fields, ...empty, product_description: 'x'.repeat(20_001), intent: 'save' })).toBe(`${page}?error=evidence_too_long`);
    expect(alertOf(await sectionHtml(store, dispute.id, 'support', { error: 'evidence_too_long' }))).toBe('Each evidence field holds at most 20,000 characters.');
    expect(await disputeOf(api, store.key, order.id)).toEqual(dispute);

    // Another store's dispute, and a live one from a test-mode form: unknown here, untouched.
    expect(await postEvidence(store, { dispute_id: foreign.dispute_id, order_id: foreign.id, ...empty, product_description: 'Mine now', intent: 'save' })).toBe(
      `/dashboard/test/orders/${foreign.id}?error=dispute_missing`,
    );
    expect((await disputeOf(api, other.key, foreign.id)).evidence.product_description).toBeNull();
    expect(await postEvidence(store, { dispute_id: live.id, order_id: live.orderId, ...empty, product_description: 'Wrong mode', intent: 'save' })).toBe(
      `/dashboard/test/orders/${live.orderId}?error=dispute_missing`,
    );
    expect(await disputeAudits(store.id)).toEqual([]);

    // The live dispute from a live-mode form: saved there, audited in live mode.
    expect(await postEvidence(store, { dispute_id: live.id, order_id: live.orderId, ...empty, product_description: 'Sent by courier.', intent: 'save' }, { mode: 'live', role: 'owner' })).toBe(
      `/dashboard/orders/${live.orderId}?saved=evidence_saved`,
    );
    expect((await readDispute(api.services.db, scopeOf(store, true), live.id)).evidenceProductDescription).toBe('Sent by courier.');
    expect((await disputeAudits(store.id)).map((entry) => [entry.livemode, entry.keyHint, entry.path])).toEqual([[true, 'user:owner@example.com', `/dashboard/orders/${live.orderId}`]]);
    expect(await sectionHtml(store, live.id, 'owner', {}, true)).toContain(`href="/dashboard/disputes/${live.id}/evidence.pdf">Download evidence pack</a>`);

    // The deadline passed on the store's clock (before the deadline pass decides it): the form is gone and a save refused.
    api.clock.advance(7 * DAY);
    const late = await sectionHtml(store, dispute.id, 'support', { error: 'dispute_not_editable' });
    expect(late).not.toContain('<form');
    expect(late).toContain('<dt>Customer communication</dt><dd>—</dd>');
    expect(alertOf(late)).toBe(`The deadline of dispute ${dispute.id} has passed: its evidence can no longer change.`);
    expect(await postEvidence(store, { ...fields, ...empty, product_description: 'Too late', intent: 'save' })).toBe(`${page}?error=dispute_not_editable`);
    expect(await disputeOf(api, store.key, order.id)).toEqual(dispute);
  });

  it('the evidence form’s action needs the disputes right', () => {
    expect(evidenceAction.right).toBe('disputes');
  });
});
