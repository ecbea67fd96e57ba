import { z } from 'zod';
import { CANCELLATION_TIMINGS, DISPUTE_REASONS, DISPUTE_STATUSES, DOCUMENT_LANGUAGES, MEMBER_ROLES, PAYOUT_FAILURE_REASONS, TAX_MODES } from '@/db/schema';
import { balanceTransactionSchema } from '../balance/schemas';
import { parseFeePercent } from '../config';
import { disputeSchema } from '../disputes/schemas';
import { isAbsoluteHttpUrl, isEmailAddress, MAX_EMAIL_LENGTH } from '../kit/fields';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../kit/idempotency';
import { KEY_TYPES, type KeyType } from '../keys/service';
import { taxEvidenceField } from '../kit/taxation-schemas';
import { QUARTER_PATTERN } from '../vat/oss-report-format';

/** A roll's grace period is at most 30 days: an old key is meant to be retired. */
const MAX_KEY_GRACE_SECONDS = 30 * 24 * 60 * 60;

/**
 * The operator's admin router. Inputs are camelCase tRPC arguments; outputs are the
 * same JSON the public API uses (snake_case flags), as explicit allowlists.
 */

const storeId = z.string().min(1).max(255).describe('The store id, `acct_…`.');
const taxMode = z.enum(TAX_MODES).describe("Whose VAT rate applies: the product's `tax_rate` (`product_rate`, the default) or the buyer's member state's (`buyer_country`).");
const productId = z.string().min(1).max(255).describe('The product id, `prod_…`, of any store.');

export const createStoreInput = z.strictObject({
  name: z.string().trim().min(1).max(255),
  amountMode: z.boolean().optional(),
  taxCalculation: z.boolean().optional(),
  subscriptions: z.boolean().optional(),
  taxMode: taxMode.optional(),
});

const storeFlagChanges = {
  suspended: z.boolean().optional(),
  liveApi: z.boolean().optional(),
  amountMode: z.boolean().optional(),
  taxCalculation: z.boolean().optional(),
  subscriptions: z.boolean().optional(),
  taxMode: taxMode.optional(),
};

/** Shown on the store's hosted pages; `""` removes one. Checked by the admin service (customerPageUrlProblem), which knows the service's own scheme and says what is wrong. */
const storeLink = (what: string) => z.string().trim().optional().describe(`${what}: an absolute URL, or "" to remove it.`);

/** Fee rates as the operator types them, exact: a decimal text, never a float. */
const feeChanges = {
  feePercent: z
    .string()
    .refine((text) => parseFeePercent(text) !== undefined, 'must be a percentage from 0 to 100 with at most two decimals, such as 5 or 2.5')
    .optional()
    .describe('The percentage of each payment the operator keeps, from orders paid afterwards.'),
  feeFixed: z
    .string()
    .regex(/^\d{1,7}$/, 'must be a whole number of cents, 0 or more, such as 50')
    .optional()
    .describe('The cents the operator keeps of each payment besides the percentage.'),
};

const storeChanges = {
  ...storeFlagChanges,
  ...feeChanges,
  name: z.string().trim().min(1).max(255).optional(),
  logoUrl: storeLink("The store's logo, shown on its hosted pages"),
  termsUrl: storeLink("The store's terms, linked from its hosted pages"),
  privacyUrl: storeLink("The store's privacy policy, linked from its hosted pages"),
  language: z.enum(DOCUMENT_LANGUAGES).optional().describe("The language of the store members' e-mails and payout statements."),
};

export const updateStoreInput = z
  .strictObject({ id: storeId, ...storeChanges })
  .refine((input) => Object.keys(storeChanges).some((change) => input[change as keyof typeof storeChanges] !== undefined), {
    message: 'Give at least one change: suspended, liveApi, amountMode, taxCalculation, subscriptions, taxMode, feePercent, feeFixed, name, logoUrl, termsUrl, privacyUrl or language.',
  });

export const attachLicenseInput = z.strictObject({ id: productId });

export const attachFileInput = z.strictObject({
  id: productId,
  url: z.string().refine(isAbsoluteHttpUrl, 'must be an absolute http(s) URL'),
});

export const storeSchema = z.object({
  id: z.string(),
  name: z.string(),
  flags: z.object({
    suspended: z.boolean(),
    live_api: z.boolean(),
    amount_mode: z.boolean(),
    tax_calculation: z.boolean(),
    subscriptions: z.boolean(),
  }),
  tax_mode: taxMode,
  logo_url: z.string().nullable(),
  terms_url: z.string().nullable(),
  privacy_url: z.string().nullable(),
  language: z.enum(DOCUMENT_LANGUAGES).describe("Of the members' e-mails and payout statements (`en` until set)."),
  fees: z.object({
    percent: z.number().describe('Percent of each payment, at most two decimals (PLATFORM_FEE_PERCENT until set).'),
    fixed: z.number().int().describe('Cents of each payment (PLATFORM_FEE_FIXED until set).'),
  }),
  created: z.number().int(),
});
export type Store = z.infer<typeof storeSchema>;

/** The only answer that ever carries the raw keys: they are stored as hashes. Fields in the order the CLI prints them. */
export const createdStoreSchema = z.object({
  id: storeSchema.shape.id,
  name: storeSchema.shape.name,
  keys: z.object({ sk_test: z.string(), pk_test: z.string(), sk_live: z.string(), pk_live: z.string() }),
  flags: storeSchema.shape.flags,
  tax_mode: storeSchema.shape.tax_mode,
  created: storeSchema.shape.created,
});

const email = z.string().trim().min(1).max(MAX_EMAIL_LENGTH).describe("The person's e-mail address (case does not matter).");

export const inviteUserInput = z.strictObject({ store: storeId, email, role: z.enum(MEMBER_ROLES) });

export const resetUserInput = z.strictObject({
  email,
  clearTwoFactor: z.boolean().optional().describe("Also turn off the person's two-factor (its secret and backup codes), for someone who lost it."),
});

/** The link is the only credential: shown this once. */
export const invitedUserSchema = z.object({
  user: z.object({ email: z.string(), role: z.enum(MEMBER_ROLES), store: z.string() }),
  url: z.string(),
});

export const resetLinkSchema = z.object({ url: z.string(), two_factor_cleared: z.literal(true).optional() });

export const storeListSchema = z.object({ object: z.literal('list'), data: z.array(storeSchema) });

export const rollKeysInput = z.strictObject({
  store: storeId,
  type: z
    .enum(KEY_TYPES.map((slot) => slot.type) as [KeyType, ...KeyType[]])
    .optional()
    .describe('One type of key; all four when omitted.'),
  expiresIn: z.number().int().min(1).max(MAX_KEY_GRACE_SECONDS).optional().describe('Seconds the old keys keep working; without it they stop at once.'),
});

/** The new keys are shown this once. */
export const rolledKeysSchema = z.object({
  id: z.string(),
  keys: z.object({ sk_test: z.string().optional(), pk_test: z.string().optional(), sk_live: z.string().optional(), pk_live: z.string().optional() }),
  old_keys_expire_at: z.number().int().nullable(),
});

export const adjustLedgerInput = z.strictObject({
  store: storeId,
  env: z.enum(['live', 'test']),
  amount: z
    .number()
    .int()
    .min(-2_147_483_648)
    .max(2_147_483_647)
    .refine((amount) => amount !== 0, 'must not be 0')
    .describe('Signed cents, from the store’s side.'),
  reason: z.string().trim().min(1).max(500).describe('Why: the entry’s description.'),
  idempotencyKey: z.string().min(1).max(IDEMPOTENCY_KEY_MAX_LENGTH).optional().describe('Makes a retry record the adjustment once.'),
});

export const adjustedEntrySchema = balanceTransactionSchema;

export const verifyLedgerInput = z.strictObject({ store: storeId.optional() });

const payoutId = z.string().min(1).max(255).describe('The payout id, `po_…`.');

export const markPayoutPaidInput = z.strictObject({ id: payoutId });
export const markPayoutFailedInput = z.strictObject({ id: payoutId, reason: z.enum(PAYOUT_FAILURE_REASONS).describe('Why the bank returned it.') });
export const cancelPayoutInput = z.strictObject({ id: payoutId });

/** A day of the calendar as `YYYY-MM-DD` (2026-02-30 is none). */
const calendarDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((text) => {
    const day = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text);
  }, 'must be a day of the calendar');

export const exportPayoutsInput = z.strictObject({ date: calendarDay.describe('The execution date the bank is asked for: today (UTC) or later.') });
export const readPayoutExportInput = z.strictObject({ messageId: z.string().min(1).max(35).describe("The file's message id, `PAYOUTS-<YYYYMMDD>-<n>`.") });

export const payoutExportSchema = z.object({
  message_id: z.string().nullable().describe('Null when no payout was pending: then no file was made.'),
  execution_date: z.string(),
  count: z.number().int(),
  amount: z.number().int().describe('The sum of the payouts, in cents.'),
  payouts: z.array(z.string()).describe("The payout ids, in the file's order."),
  document: z.string().nullable().describe('The pain.001 file, exactly as recorded.'),
});

export const createDisputeInput = z.strictObject({
  order: z.string().min(1).max(255).describe('The order disputed, `ord_live_…` or `ord_test_…`, of any store.'),
  reason: z.enum(DISPUTE_REASONS).describe('Why the cardholder disputed it, as the acquirer reports.'),
  amount: z.number().int().optional().describe('Cents taken back; default and at most: what remains unrefunded.'),
  evidenceDueBy: z.number().int().min(1).max(253_402_300_799).optional().describe("Epoch seconds: the acquirer's deadline for evidence; default 7 days after opening."),
});

const disputeId = z.string().min(1).max(255).describe('The dispute id, `dp_…`.');

export const closeDisputeInput = z.strictObject({ id: disputeId, outcome: z.enum(['won', 'lost']).describe("The acquirer's decision.") });

export const listDisputesInput = z.strictObject({ status: z.enum(DISPUTE_STATUSES).optional() });

export const disputeEvidenceInput = z.strictObject({ id: disputeId });

export const disputeListSchema = z.object({ object: z.literal('list'), data: z.array(disputeSchema) });

const mismatchSchema = z.object({
  check: z.enum(['order_entries', 'refund_entries', 'dispute_entries', 'payout_entries', 'balance']),
  store: z.string(),
  livemode: z.boolean(),
  object_id: z.string(),
  expected: z.record(z.string(), z.unknown()),
  actual: z.record(z.string(), z.unknown()),
});

const checkedSchema = z.object({
  stores: z.number().int(),
  orders: z.number().int(),
  refunds: z.number().int(),
  disputes: z.number().int(),
  payouts: z.number().int(),
  balance_transactions: z.number().int(),
});

export const ledgerVerificationSchema = z.union([
  z.object({ ok: z.literal(true), checked: checkedSchema }),
  z.object({ ok: z.literal(false), checked: checkedSchema, mismatches: z.array(mismatchSchema) }),
]);

export const listCancellationsInput = z.strictObject({
  email: z.string().trim().max(MAX_EMAIL_LENGTH).refine(isEmailAddress, 'must be an e-mail address').optional().describe('Only the declarations typed with this address (case does not matter).'),
});

export const cancellationRecordSchema = z.object({
  id: z.string().describe('`cxl_…`'),
  declared_at: z.number().int().describe('When it was received (epoch seconds, wall clock).'),
  email: z.string(),
  number: z.string().nullable().describe('The subscription or invoice number typed, if any.'),
  name: z.string(),
  reason: z.string().nullable(),
  cancel_at: z.enum(CANCELLATION_TIMINGS),
  language: z.enum(DOCUMENT_LANGUAGES),
  subscriptions: z.array(z.string()).describe('The subscriptions it matched, `sub_…`; empty when none.'),
});

export const cancellationListSchema = z.array(cancellationRecordSchema);

export const ossReportInput = z.strictObject({
  quarter: z.string().regex(QUARTER_PATTERN, 'must be a quarter as YYYY-Qn, n from 1 to 4, such as 2026-Q3').describe('The calendar quarter (UTC).'),
  livemode: z.boolean().optional().describe('Test mode’s sales with false; live by default.'),
  store: storeId.optional().describe('One store’s sales; every store’s by default.'),
});

const cents = z.number().int();

/** The One-Stop-Shop return data of a quarter, amounts in cents. */
export const ossReportSchema = z.object({
  object: z.literal('oss_report'),
  quarter: z.string(),
  livemode: z.boolean(),
  store: z.string().nullable(),
  operator_country: z.string().nullable().describe('The member state of OPERATOR_VAT_ID; null for none (every member state is then reported).'),
  currency: z.literal('eur'),
  period: z.object({ start: z.number().int(), end: z.number().int() }).describe('Epoch seconds: the quarter’s first second and the next quarter’s.'),
  supplies: z.array(
    z.object({
      country: z.string(),
      rate_type: z.enum(['standard', 'reduced']),
      rate: z.number(),
      amount_net: cents,
      amount_tax: cents,
    }),
  ),
  corrections: z.array(z.object({ country: z.string(), quarter: z.string(), amount_net: cents, amount_tax: cents })),
  amount_tax_due: cents,
  evidence_conflicts: z.array(
    z.object({
      order_id: z.string(),
      subscription_id: z.string().nullable(),
      tax_country: z.string().nullable(),
      tax_evidence: taxEvidenceField,
      paid_at: z.number().int(),
    }),
  ),
});
