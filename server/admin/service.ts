import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '@/db/client';
import { balanceTransactions, disputes, orders, stores } from '@/db/schema';
import { newBalanceTransactionId, recordAdjustment } from '../balance/ledger';
import { getBalanceTransaction } from '../balance/service';
import type { BalanceTransaction } from '../balance/schemas';
import { verifyLedger, type LedgerVerification } from '../balance/verify';
import { storeClock } from '../clock';
import { parseFeePercent } from '../config';
import { createIdempotently } from '../kit/idempotency';
import { recordAudit, type AuditEntry, type OperatorActor } from '../audit/service';
import { mailLinkInBackground } from '../users/link-mail';
import type { Context } from '../context';
import { ApiError } from '../errors';
import { customerPageUrlProblem } from '../kit/fields';
import { disputeEvidencePdf } from '../disputes/evidence';
import { closeDispute, createDispute, disputeView, listEveryDispute, locateInAnyStore } from '../disputes/service';
import type { PdfFile } from '../invoices/schemas';
import type { Dispute } from '../disputes/schemas';
import { digestsEqual, sha256Hex } from '../ids';
import { attachFile, attachLicense } from '../products/operator-service';
import { exportPendingPayouts, readPayoutExport, type PayoutExport } from '../payouts/export';
import type { Payout } from '../payouts/schemas';
import { changePayoutStatus, payoutView, type PayoutChange } from '../payouts/service';
import type { Product } from '../products/schemas';
import { KEY_TYPES, rollStoreKeys } from '../keys/service';
import { createStore, listStores, lockStore, updateStore, type StoreView } from '../stores/service';
import { listCancellations, type CancellationRecord } from '../subscriptions/cancellation';
import { LOST_DISPUTE_EFFECTS } from '../subscriptions/service';
import { acceptLinkUrl, createResetLink, inviteUser, normalizeEmail } from '../users/service';
import { clearTwoFactor } from '../users/two-factor';
import { ossReport } from '../vat/oss-report';
import type { OssReport } from '../vat/oss-report-format';
import type {
  adjustLedgerInput,
  closeDisputeInput,
  disputeEvidenceInput,
  createDisputeInput,
  createStoreInput,
  listDisputesInput,
  inviteUserInput,
  listCancellationsInput,
  ossReportInput,
  payoutExportSchema,
  resetUserInput,
  rollKeysInput,
  updateStoreInput,
  Store,
  verifyLedgerInput,
} from './schemas';

/** `Authorization: Bearer <token>`; anything else counts as no token. */
function presentedToken(headers: Headers): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get('authorization') ?? '');
  return match?.[1];
}

/**
 * Checks the operator token. Digests of equal length are compared in constant time, so neither
 * the token's length nor its prefix leaks through timing. Every refusal is audited, like every
 * authentication failure.
 */
export async function verifyAdminRequest(ctx: Context): Promise<boolean> {
  const presented = presentedToken(ctx.request.headers);
  const expected = ctx.config.adminToken;
  const ok = presented !== undefined && expected !== undefined && digestsEqual(sha256Hex(presented), sha256Hex(expected));
  if (!ok) {
    await recordAudit(ctx.db, {
      action: 'admin.auth_failed',
      code: presented === undefined ? 'admin_token_missing' : 'admin_token_invalid',
      ip: ctx.request.ip,
      method: ctx.request.method,
      path: ctx.request.path,
    });
  }
  return ok;
}

/** The operator as the actor of a domain service, which audits its own change with where the request came from. */
const operatorActor = (ctx: Context): OperatorActor => ({ kind: 'operator', request: { ip: ctx.request.ip, method: ctx.request.method, path: ctx.request.path } });

/** Operator changes are audited in the same transaction as the change itself. */
function auditOperatorAction(tx: Executor, ctx: Context, entry: Pick<AuditEntry, 'action' | 'storeId' | 'details'>) {
  return recordAudit(tx, { ...entry, ip: ctx.request.ip, method: ctx.request.method, path: ctx.request.path });
}

export function createStoreAsOperator(ctx: Context, input: z.infer<typeof createStoreInput>) {
  return ctx.db.transaction(async (tx) => {
    const store = await createStore(tx, input);
    await auditOperatorAction(tx, ctx, { action: 'admin.store.create', storeId: store.id, details: { flags: store.flags, tax_mode: store.tax_mode } });
    return store;
  });
}

/** The admin input's name for each link, as the CLI's flag names it too. */
const STORE_LINKS = { logoUrl: '--logo-url', termsUrl: '--terms-url', privacyUrl: '--privacy-url' } as const;

/** The store as the operator sees it: its fee rates as they apply, the environment's defaults where it has none. */
function operatorStoreView(ctx: Context, { feeRates, ...view }: StoreView): Store {
  const defaults = ctx.config.ledger.defaultFees;
  return { ...view, fees: { percent: (feeRates.basisPoints ?? defaults.basisPoints) / 100, fixed: feeRates.fixed ?? defaults.fixed } };
}

export async function updateStoreAsOperator(ctx: Context, input: z.infer<typeof updateStoreInput>): Promise<Store> {
  const { id, feePercent, feeFixed, ...requested } = input;
  const changes: Parameters<typeof updateStore>[2] = { ...requested };
  // The schema accepted both texts: exact integers from here on.
  if (feePercent !== undefined) changes.feeBasisPoints = parseFeePercent(feePercent)!;
  if (feeFixed !== undefined) changes.feeFixed = Number(feeFixed);
  for (const [key, flag] of Object.entries(STORE_LINKS) as [keyof typeof STORE_LINKS, string][]) {
    const value = requested[key];
    if (value === undefined) continue;
    if (value === '') {
      changes[key] = null;
      continue;
    }
    const problem = customerPageUrlProblem(value, ctx.config.publicBaseUrl);
    if (problem) throw new ApiError('parameter_invalid', `${key} (${flag}) ${problem}, or "" to remove it.`, { param: key });
  }
  try {
    return await ctx.db.transaction(async (tx) => {
      const store = await updateStore(tx, id, changes);
      await auditOperatorAction(tx, ctx, { action: 'admin.store.update', storeId: store.id, details: { changes } });
      return operatorStoreView(ctx, store);
    });
  } catch (error) {
    // The public wording hides which id was asked for; the operator is told.
    if (error instanceof ApiError && error.code === 'resource_missing') throw new ApiError('resource_missing', `No store with id '${id}'.`, { param: 'id' });
    throw error;
  }
}

export function attachLicenseAsOperator(ctx: Context, id: string): Promise<Product> {
  return ctx.db.transaction(async (tx) => {
    const product = await attachLicense({ db: tx, clock: ctx.clock }, id);
    await auditOperatorAction(tx, ctx, { action: 'admin.product.attach_license', details: { product: id } });
    return product;
  });
}

/** The url itself stays out of the audit trail, as out of every read. */
export function attachFileAsOperator(ctx: Context, id: string, url: string): Promise<Product> {
  return ctx.db.transaction(async (tx) => {
    const product = await attachFile({ db: tx, clock: ctx.clock }, id, url);
    await auditOperatorAction(tx, ctx, { action: 'admin.product.attach_file', details: { product: id } });
    return product;
  });
}

/**
 * The operator's invitation gives access at once (a pending one of the person is accepted); its
 * link is printed for the operator to hand over. Links follow the wall clock (ctx.clock here); the
 * audit trail names the person, never the link.
 */
export async function inviteUserAsOperator(ctx: Context, input: z.infer<typeof inviteUserInput>) {
  const { user, storeName, token } = await ctx.db.transaction(async (tx) => {
    const invitation = await inviteUser({ db: tx, clock: ctx.clock }, { storeId: input.store, email: input.email, role: input.role, accepted: true });
    await auditOperatorAction(tx, ctx, { action: 'admin.user.invite', storeId: invitation.user.store, details: { email: invitation.user.email, role: invitation.user.role } });
    return invitation;
  });
  const url = acceptLinkUrl(ctx.config.publicBaseUrl, token);
  mailLinkInBackground(ctx.config, { purpose: 'invite', to: user.email, url, storeName, role: user.role });
  return { user, url };
}

/** A reset link; with `clearTwoFactor`, the person's two-factor is turned off too, audited apart. */
export async function resetUserAsOperator(ctx: Context, input: z.infer<typeof resetUserInput>) {
  const email = normalizeEmail(input.email);
  const token = await ctx.db.transaction(async (tx) => {
    const created = await createResetLink({ db: tx, clock: ctx.clock }, email);
    await auditOperatorAction(tx, ctx, { action: 'admin.user.reset', details: { email } });
    if (input.clearTwoFactor) {
      await clearTwoFactor(tx, created.userId);
      await auditOperatorAction(tx, ctx, { action: 'admin.user.clear_two_factor', details: { email } });
    }
    return created.token;
  });
  const url = acceptLinkUrl(ctx.config.publicBaseUrl, token);
  mailLinkInBackground(ctx.config, { purpose: 'reset', to: email, url });
  return input.clearTwoFactor ? { url, two_factor_cleared: true as const } : { url };
}

export async function listStoresAsOperator(ctx: Context) {
  return { object: 'list' as const, data: (await listStores(ctx.db)).map((store) => operatorStoreView(ctx, store)) };
}

/** New keys for a store; the audit entry names the types and hints, never a key. */
export function rollKeysAsOperator(ctx: Context, input: z.infer<typeof rollKeysInput>) {
  return ctx.db.transaction(async (tx) => {
    if (!(await lockStore(tx, input.store))) throw new ApiError('resource_missing', `No store with id '${input.store}'.`, { param: 'store' });
    const types = input.type ? [input.type] : KEY_TYPES.map((slot) => slot.type);
    const rolled = await rollStoreKeys(tx, ctx.clock.now(), input.store, types, input.expiresIn);
    await auditOperatorAction(tx, ctx, { action: 'admin.keys.roll', storeId: input.store, details: { types, old_keys_expire_at: rolled.oldKeysExpireAt } });
    return { id: input.store, keys: rolled.keys, old_keys_expire_at: rolled.oldKeysExpireAt };
  });
}

const ADJUST_OPERATION = 'ledger.adjust';

/**
 * An operator's correction of a store's balance in one environment: an `adjustment` entry at the
 * store's clock, audited with it. With an idempotency key a retry records it once (the same
 * request answers the first entry; another request under the key is refused).
 */
export async function adjustLedgerAsOperator(ctx: Context, input: z.infer<typeof adjustLedgerInput>): Promise<BalanceTransaction> {
  const [store] = await ctx.db.select({ offset: stores.testClockOffsetSeconds }).from(stores).where(eq(stores.id, input.store));
  if (!store) throw new ApiError('resource_missing', `No store with id '${input.store}'.`, { param: 'store' });
  const scope = { storeId: input.store, livemode: input.env === 'live' };
  const clock = storeClock(ctx.clock, { livemode: scope.livemode, testClockOffsetSeconds: store.offset });
  const now = clock.now();
  const id = newBalanceTransactionId(scope.livemode);
  const { result } = await createIdempotently({
    db: ctx.db,
    scope,
    operation: ADJUST_OPERATION,
    request: input.idempotencyKey === undefined ? undefined : { key: input.idempotencyKey, body: { amount: input.amount, reason: input.reason }, replayed: false },
    now,
    resourceId: id,
    create: (executor) =>
      executor.transaction(async (tx) => {
        const entry = await recordAdjustment(tx, scope, { id, amount: input.amount, reason: input.reason, now });
        await auditOperatorAction(tx, ctx, { action: 'admin.ledger.adjust', storeId: input.store, details: { livemode: scope.livemode, entry: entry.id, amount: input.amount, reason: input.reason } });
        return entry;
      }),
    replay: async (id) => {
      const [entry] = await ctx.db.select().from(balanceTransactions).where(eq(balanceTransactions.id, id));
      return entry!;
    },
  });
  return getBalanceTransaction({ db: ctx.db, clock }, scope, result.id);
}

/** `payouts:mark-paid`, `payouts:mark-failed`, `payouts:cancel`: the change audited with it; a wrong status changes nothing. */
export async function changePayoutAsOperator(ctx: Context, id: string, change: PayoutChange): Promise<Payout> {
  return ctx.db.transaction(async (tx) => {
    const payout = await changePayoutStatus(tx, id, change, ctx.clock);
    if (!payout) throw new ApiError('resource_missing', `No payout with id '${id}'.`, { param: 'id' });
    await auditOperatorAction(tx, ctx, { action: `admin.payout.${change.to}`, storeId: payout.storeId, details: { livemode: payout.livemode, payout: id, ...change } });
    return payoutView(payout);
  });
}

function payoutExportView(exported: PayoutExport): z.infer<typeof payoutExportSchema> {
  return {
    message_id: exported.messageId,
    execution_date: exported.executionDate,
    count: exported.payouts.length,
    amount: exported.payouts.reduce((sum, payout) => sum + payout.amount, 0),
    payouts: exported.payouts.map((payout) => payout.id),
    document: exported.document,
  };
}

/** `payouts:export --date`: the file made and its payouts sent, audited per store in the same transaction. */
export function exportPayoutsAsOperator(ctx: Context, executionDate: string) {
  return ctx.db.transaction(async (tx) => {
    const exported = await exportPendingPayouts(tx, { executionDate, operator: ctx.config.operator, now: ctx.clock.now() });
    const idsByStore = new Map<string, string[]>();
    for (const payout of exported.payouts) idsByStore.set(payout.storeId, [...(idsByStore.get(payout.storeId) ?? []), payout.id]);
    for (const [storeId, payouts] of idsByStore) {
      await auditOperatorAction(tx, ctx, { action: 'admin.payout.export', storeId, details: { livemode: true, message_id: exported.messageId, execution_date: executionDate, payouts } });
    }
    return payoutExportView(exported);
  });
}

/** `payouts:export --message-id`: a read, not audited. */
export async function readPayoutExportAsOperator(ctx: Context, messageId: string) {
  return payoutExportView(await readPayoutExport(ctx.db, messageId));
}

/** `ledger:verify`: one consistent snapshot of the database, however much is written meanwhile. */
export function verifyLedgerAsOperator(ctx: Context, input: z.infer<typeof verifyLedgerInput>): Promise<LedgerVerification> {
  return ctx.db.transaction((tx) => verifyLedger(tx, ctx.clock.now(), input.store), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

/** `disputes:create`: a dispute the acquirer reported, of an order of any store and environment (its id says which). */
export async function createDisputeAsOperator(ctx: Context, input: z.infer<typeof createDisputeInput>): Promise<Dispute> {
  const found = await locateInAnyStore(ctx.db, orders, input.order, ctx.clock);
  if (!found) throw new ApiError('resource_missing', `No order with id '${input.order}'.`, { param: 'order' });
  const request = { reason: input.reason, amount: input.amount, evidenceDueBy: input.evidenceDueBy === undefined ? undefined : new Date(input.evidenceDueBy * 1000) };
  const dispute = await createDispute(ctx.db, found.scope, input.order, request, { fee: ctx.config.ledger.disputeFee, times: found.times, actor: operatorActor(ctx) });
  return disputeView(dispute);
}

/** `disputes:close`: the acquirer's outcome of an open dispute of any store; a closed one is refused. */
export async function closeDisputeAsOperator(ctx: Context, input: z.infer<typeof closeDisputeInput>): Promise<Dispute> {
  const found = await locateInAnyStore(ctx.db, disputes, input.id, ctx.clock);
  if (!found) throw new ApiError('resource_missing', `No dispute with id '${input.id}'.`, { param: 'id' });
  const dispute = await closeDispute(ctx.db, found.scope, input.id, input.outcome, { effects: LOST_DISPUTE_EFFECTS, times: found.times, actor: operatorActor(ctx) });
  return disputeView(dispute);
}

/** `disputes:evidence`: a dispute's evidence pack, of any store, on its store's clock; a read, not audited. */
export async function disputeEvidenceAsOperator(ctx: Context, input: z.infer<typeof disputeEvidenceInput>): Promise<PdfFile> {
  const found = await locateInAnyStore(ctx.db, disputes, input.id, ctx.clock);
  if (!found) throw new ApiError('resource_missing', `No dispute with id '${input.id}'.`, { param: 'id' });
  return disputeEvidencePdf({ db: ctx.db, clock: { now: () => found.times.now }, config: ctx.config }, found.scope, input.id);
}

/** `disputes:list`: a read, not audited. */
export async function listDisputesAsOperator(ctx: Context, input: z.infer<typeof listDisputesInput>) {
  return { object: 'list' as const, data: (await listEveryDispute(ctx.db, input.status)).map(disputeView) };
}

/** `cancellation:list`: every declaration made on the cancel page, matched or not, newest first; a read, not audited. */
export async function listCancellationsAsOperator(ctx: Context, input: z.infer<typeof listCancellationsInput>): Promise<CancellationRecord[]> {
  return listCancellations(ctx.db, { email: input.email });
}

/** `tax:oss-report`: a read, not audited; an unknown store is named rather than reported empty. */
export async function ossReportAsOperator(ctx: Context, input: z.infer<typeof ossReportInput>): Promise<OssReport> {
  if (input.store !== undefined) {
    const [store] = await ctx.db.select({ id: stores.id }).from(stores).where(eq(stores.id, input.store));
    if (!store) throw new ApiError('resource_missing', `No store with id '${input.store}'.`, { param: 'store' });
  }
  return ossReport(ctx.db, ctx, { quarter: input.quarter, livemode: input.livemode ?? true, storeId: input.store });
}
