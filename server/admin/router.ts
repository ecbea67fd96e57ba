import { TRPCError } from '@trpc/server';
import { ApiError } from '../errors';
import { refuseUnsafeText } from '../kit/text-input';
import { disputeSchema } from '../disputes/schemas';
import { pdfFileSchema } from '../invoices/schemas';
import { payoutSchema } from '../payouts/schemas';
import { productSchema } from '../products/schemas';
import { createRouter, publicProcedure, trpcErrorCode } from '../trpc';
import {
  adjustedEntrySchema,
  adjustLedgerInput,
  attachFileInput,
  attachLicenseInput,
  cancelPayoutInput,
  closeDisputeInput,
  createDisputeInput,
  disputeListSchema,
  listDisputesInput,
  disputeEvidenceInput,
  createdStoreSchema,
  createStoreInput,
  exportPayoutsInput,
  invitedUserSchema,
  inviteUserInput,
  markPayoutFailedInput,
  markPayoutPaidInput,
  payoutExportSchema,
  readPayoutExportInput,
  resetLinkSchema,
  resetUserInput,
  rolledKeysSchema,
  rollKeysInput,
  storeListSchema,
  storeSchema,
  updateStoreInput,
  ledgerVerificationSchema,
  cancellationListSchema,
  listCancellationsInput,
  ossReportInput,
  ossReportSchema,
  verifyLedgerInput,
} from './schemas';
import {
  adjustLedgerAsOperator,
  attachFileAsOperator,
  attachLicenseAsOperator,
  changePayoutAsOperator,
  closeDisputeAsOperator,
  createDisputeAsOperator,
  listDisputesAsOperator,
  disputeEvidenceAsOperator,
  createStoreAsOperator,
  exportPayoutsAsOperator,
  inviteUserAsOperator,
  listStoresAsOperator,
  listCancellationsAsOperator,
  ossReportAsOperator,
  readPayoutExportAsOperator,
  resetUserAsOperator,
  rollKeysAsOperator,
  updateStoreAsOperator,
  verifyAdminRequest,
  verifyLedgerAsOperator,
} from './service';

/** Domain errors (e.g. resource_missing) keep their message and get the matching tRPC code. */
const operatorError = (cause: ApiError) => new TRPCError({ code: trpcErrorCode(cause.status), message: cause.message, cause });

/**
 * Operator-only procedures. No OpenAPI meta, so they never appear in the public document.
 * The per-IP limit comes first so that unauthenticated callers cannot flood the audit table.
 */
const adminProcedure = publicProcedure.use(async ({ ctx, next, getRawInput }) => {
  await ctx.rateLimits.consume('ip', ctx.request.ip).catch((error: unknown) => {
    if (error instanceof ApiError) throw operatorError(error);
    throw error;
  });
  if (!(await verifyAdminRequest(ctx))) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Send the operator token as `Authorization: Bearer <ADMIN_TOKEN>`.' });
  }
  const input = await getRawInput();
  try {
    refuseUnsafeText(input);
  } catch (error) {
    throw error instanceof ApiError ? operatorError(error) : error;
  }
  const result = await next();
  if (!result.ok && result.error.cause instanceof ApiError) throw operatorError(result.error.cause);
  return result;
});

export const adminRouter = createRouter({
  store: createRouter({
    // store.create: a store with its four keys, returned this once.
    create: adminProcedure
      .input(createStoreInput)
      .output(createdStoreSchema)
      .mutation(({ ctx, input }) => createStoreAsOperator(ctx, input)),

    // store.update: switch flags; authentication reads them on the next request.
    update: adminProcedure
      .input(updateStoreInput)
      .output(storeSchema)
      .mutation(({ ctx, input }) => updateStoreAsOperator(ctx, input)),

    // store.list: every store with its flags, never a key.
    list: adminProcedure.output(storeListSchema).query(({ ctx }) => listStoresAsOperator(ctx)),
  }),
  keys: createRouter({
    // keys.roll: new keys for a lost or leaked one; the old ones stop now or after a grace period.
    roll: adminProcedure
      .input(rollKeysInput)
      .output(rolledKeysSchema)
      .mutation(({ ctx, input }) => rollKeysAsOperator(ctx, input)),
  }),
  product: createRouter({
    // product.attachLicense: paid lines of this product issue license keys from now on.
    attachLicense: adminProcedure
      .input(attachLicenseInput)
      .output(productSchema)
      .mutation(({ ctx, input }) => attachLicenseAsOperator(ctx, input.id)),

    // product.attachFile: set the delivery file; the url is never returned.
    attachFile: adminProcedure
      .input(attachFileInput)
      .output(productSchema)
      .mutation(({ ctx, input }) => attachFileAsOperator(ctx, input.id, input.url)),
  }),
  ledger: createRouter({
    // ledger.adjust: an audited correction of a store's balance in one environment.
    adjust: adminProcedure
      .input(adjustLedgerInput)
      .output(adjustedEntrySchema)
      .mutation(({ ctx, input }) => adjustLedgerAsOperator(ctx, input)),

    // ledger.verify: the ledger recomputed from the documents it follows from; mismatches named.
    verify: adminProcedure
      .input(verifyLedgerInput)
      .output(ledgerVerificationSchema)
      .query(({ ctx, input }) => verifyLedgerAsOperator(ctx, input)),
  }),
  payout: createRouter({
    // payout.markPaid: the bank confirmed an in_transit payout.
    markPaid: adminProcedure
      .input(markPayoutPaidInput)
      .output(payoutSchema)
      .mutation(({ ctx, input }) => changePayoutAsOperator(ctx, input.id, { to: 'paid' })),

    // payout.markFailed: the bank returned a payout; its amount goes back to the balance, payouts are held.
    markFailed: adminProcedure
      .input(markPayoutFailedInput)
      .output(payoutSchema)
      .mutation(({ ctx, input }) => changePayoutAsOperator(ctx, input.id, { to: 'failed', reason: input.reason })),

    // payout.cancel: a pending payout is not sent; its amount goes back to the balance.
    cancel: adminProcedure
      .input(cancelPayoutInput)
      .output(payoutSchema)
      .mutation(({ ctx, input }) => changePayoutAsOperator(ctx, input.id, { to: 'canceled' })),

    // payout.export: every pending live payout in one SEPA file for the bank; they turn in_transit.
    export: adminProcedure
      .input(exportPayoutsInput)
      .output(payoutExportSchema)
      .mutation(({ ctx, input }) => exportPayoutsAsOperator(ctx, input.date)),

    // payout.readExport: a file made before, byte for byte.
    readExport: adminProcedure
      .input(readPayoutExportInput)
      .output(payoutExportSchema)
      .query(({ ctx, input }) => readPayoutExportAsOperator(ctx, input.messageId)),
  }),
  dispute: createRouter({
    // dispute.create: the acquirer reported a dispute of an order; its money is taken back at once.
    create: adminProcedure
      .input(createDisputeInput)
      .output(disputeSchema)
      .mutation(({ ctx, input }) => createDisputeAsOperator(ctx, input)),

    // dispute.close: the acquirer decided an open dispute.
    close: adminProcedure
      .input(closeDisputeInput)
      .output(disputeSchema)
      .mutation(({ ctx, input }) => closeDisputeAsOperator(ctx, input)),

    // dispute.list: every store's disputes, newest first.
    list: adminProcedure
      .input(listDisputesInput)
      .output(disputeListSchema)
      .query(({ ctx, input }) => listDisputesAsOperator(ctx, input)),

    // dispute.evidence: a dispute's evidence pack, as the store's API gives it.
    evidence: adminProcedure
      .input(disputeEvidenceInput)
      .output(pdfFileSchema)
      .query(({ ctx, input }) => disputeEvidenceAsOperator(ctx, input)),
  }),
  cancellation: createRouter({
    // cancellation.list: the declarations of the cancel page, matched or not, newest first.
    list: adminProcedure
      .input(listCancellationsInput)
      .output(cancellationListSchema)
      .query(({ ctx, input }) => listCancellationsAsOperator(ctx, input)),
  }),
  tax: createRouter({
    // tax.ossReport: a quarter's One-Stop-Shop return data: supplies per member state and rate, corrections, conflicting evidence.
    ossReport: adminProcedure
      .input(ossReportInput)
      .output(ossReportSchema)
      .query(({ ctx, input }) => ossReportAsOperator(ctx, input)),
  }),
  user: createRouter({
    // user.invite: adds the person to the store and prints a one-time link.
    invite: adminProcedure
      .input(inviteUserInput)
      .output(invitedUserSchema)
      .mutation(({ ctx, input }) => inviteUserAsOperator(ctx, input)),

    // user.reset: a one-time link to set a new password; optionally turns two-factor off.
    reset: adminProcedure
      .input(resetUserInput)
      .output(resetLinkSchema)
      .mutation(({ ctx, input }) => resetUserAsOperator(ctx, input)),
  }),
});

export type AdminRouter = typeof adminRouter;
