import path from 'node:path';
import { ibanProblem, normalizeIban } from './kit/iban';
import { loadRateTable, type RateTable } from './kit/vat-rates';

export interface RateLimitConfig {
  /** Requests per IP per window, on every API request, before authentication. */
  perIp: number;
  /** Requests per API key per window. */
  perKey: number;
  /** Product create/update/delete per key per window, stricter than `perKey`. */
  productWritesPerKey: number;
  /**
   * Portal page lookups per IP per window; loadConfig always sets it, a config built by
   * hand without it gets DEFAULT_PORTAL_PER_IP.
   */
  portalPerIp?: number;
  windowSeconds: number;
  /** Dashboard sign-in attempts per IP and per e-mail within `signInWindowSeconds`; defaults below when unset. */
  signInPerIp?: number;
  signInPerEmail?: number;
  signInWindowSeconds?: number;
  /** Posts of the /withdraw forms per IP within `withdrawWindowSeconds` (two per withdrawal); defaults below when unset. */
  withdrawPerIp?: number;
  withdrawWindowSeconds?: number;
  /** Posts of the /cancel forms per IP within `cancelWindowSeconds` (two per cancellation); defaults below when unset. */
  cancelPerIp?: number;
  cancelWindowSeconds?: number;
  /** "Forgot password?" requests per IP and per e-mail within `resetWindowSeconds`; defaults below when unset. */
  resetPerIp?: number;
  resetPerEmail?: number;
  resetWindowSeconds?: number;
  /** Dashboard invitations per store and per inviting person within `inviteWindowSeconds` (the operator's are not limited). */
  invitesPerStore?: number;
  invitesPerInviter?: number;
  inviteWindowSeconds?: number;
  /** Declined card attempts per IP within `payWindowSeconds` (every attempt: ten times as many); defaults below when unset. */
  payPerIp?: number;
  payWindowSeconds?: number;
}

export const DEFAULT_PORTAL_PER_IP = 20;
export const DEFAULT_EMAIL_FROM = 'Payments <no-reply@localhost>';
export const DEFAULT_SIGN_IN_LIMITS = { perIp: 30, perEmail: 10, windowSeconds: 15 * 60 };
export const DEFAULT_WITHDRAW_LIMITS = { perIp: 20, windowSeconds: 15 * 60 };
export const DEFAULT_CANCEL_LIMITS = { perIp: 20, windowSeconds: 15 * 60 };
export const DEFAULT_RESET_LIMITS = { perIp: 10, perEmail: 3, windowSeconds: 60 * 60 };
export const DEFAULT_INVITE_LIMITS = { perStore: 20, perInviter: 10, windowSeconds: 60 * 60 };
/**
 * Card testing shows as declines: a customer pays in one or two tries, a household or office
 * behind one address makes a few payments, while a tester's cards are declined by the hundred. So
 * declined attempts are counted (`perIp`), and every attempt only against a bound ten times as
 * high, which no shop's customers behind one address reach in ten minutes.
 */
export const DEFAULT_PAY_LIMITS = { perIp: 50, attemptsPerDecline: 10, windowSeconds: 10 * 60 };

/** A background pass's lease on a row (server/kit/lease.ts): longer than one row's work, two gateway calls at their default timeout (15 s), and the writes. */
export const DEFAULT_LEASE_MS = 60_000;

/**
 * The operator: the company that sells in its own name on the stores' behalf, named as the seller
 * on hosted pages, invoices and e-mails. Unset variables fall back to demo values marked "(demo)"
 * (the address on the reserved .example domain), so a local start works and nobody mistakes its
 * documents for real ones.
 */
export interface OperatorConfig {
  legalName: string;
  address: string;
  vatId: string;
  email: string;
  /** True when any of the four came from the demo values. */
  isDemo: boolean;
  /** OPERATOR_IBAN (no spaces, upper case): the account payouts are sent from; unset, none can be exported. No demo value: money never leaves a made-up account. */
  iban?: string;
  /** OPERATOR_BIC: the bank of that account. */
  bic?: string;
}

export const DEMO_OPERATOR = {
  legalName: 'Example Payments GmbH (demo)',
  address: 'Musterstraße 1, 10115 Berlin, Germany (demo)',
  vatId: 'DE123456789 (demo)',
  email: 'billing@payments.example',
} as const;

function loadOperator(env: Record<string, string | undefined>): OperatorConfig {
  const given = {
    legalName: env.OPERATOR_LEGAL_NAME?.trim(),
    address: env.OPERATOR_ADDRESS?.trim(),
    vatId: env.OPERATOR_VAT_ID?.trim(),
    email: env.OPERATOR_EMAIL?.trim(),
  };
  return {
    legalName: given.legalName || DEMO_OPERATOR.legalName,
    address: given.address || DEMO_OPERATOR.address,
    vatId: given.vatId || DEMO_OPERATOR.vatId,
    email: given.email || DEMO_OPERATOR.email,
    isDemo: Object.values(given).some((value) => !value),
    iban: ibanSetting(env.OPERATOR_IBAN, 'OPERATOR_IBAN'),
    bic: bicSetting(env.OPERATOR_BIC, 'OPERATOR_BIC'),
  };
}

/** The operator's account must be one a SEPA transfer can be sent from, as a store's must. */
function ibanSetting(value: string | undefined, name: string): string | undefined {
  if (!value?.trim()) return undefined;
  const iban = normalizeIban(value);
  const problem = ibanProblem(iban);
  if (problem) throw new Error(`${name} must be an IBAN (country, check digits, account number; spaces allowed): the IBAN ${problem}, got "${value}"`);
  return iban;
}

/** A BIC (ISO 9362): bank, country, location, and an optional branch. */
function bicSetting(value: string | undefined, name: string): string | undefined {
  const bic = value?.trim().toUpperCase();
  if (!bic) return undefined;
  if (!/^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)) throw new Error(`${name} must be a BIC of 8 or 11 letters and digits, got "${value}"`);
  return bic;
}

export interface VatLookupConfig {
  /** VIES_ENABLED: look buyers' VAT IDs up at the EU's VIES service besides checking their format. */
  enabled: boolean;
  /** VIES_BASE_URL: the VIES REST API's root, overridable for tests. */
  baseUrl: string;
  /** VIES_TIMEOUT_MS: after this VIES counts as unavailable, and the payment goes on. */
  timeoutMs: number;
}

/**
 * The operator's fee rates: a percentage with at most two decimals, kept as an integer of
 * hundredths of a percent (basis points: 500 = 5%, 250 = 2.5%), and a fixed part in cents.
 * Integers only, so the fee of an amount is exact.
 */
export interface FeeRates {
  basisPoints: number;
  /** Cents. */
  fixed: number;
}

/** 100%. */
export const MAX_FEE_BASIS_POINTS = 10_000;

/** `5`, `2.5`, `12.34` as basis points: 0–100 with at most two decimals; undefined for anything else. */
export function parseFeePercent(text: string): number | undefined {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const basisPoints = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return basisPoints <= MAX_FEE_BASIS_POINTS ? basisPoints : undefined;
}

/** The merchant's money: the operator's fee, and when collected money can be paid out. */
export interface LedgerConfig {
  /** PLATFORM_FEE_PERCENT (default 5) and PLATFORM_FEE_FIXED (cents, default 50): the rates of a store that has none of its own. */
  defaultFees: FeeRates;
  /** PAYOUT_HOLD_DAYS (default 7): a payment can be paid out this many days after it was collected. */
  payoutHoldDays: number;
  /** PAYOUT_MINIMUM (cents, default 1000): no payout below it. */
  payoutMinimum: number;
  /** DISPUTE_FEE (cents, default 1500): charged to the store when a dispute of its sale opens, won or lost. */
  disputeFee: number;
}

export interface Config {
  port: number;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  pgliteDir: string;
  subscriptionsEnabled: boolean;
  /** BACKGROUND_WORK (default true): run background tasks in this process; false when `npm run worker` runs them. */
  backgroundWork: boolean;
  adminToken: string | undefined;
  /** Signs hosted-page links and derives client secrets; generated into DATA_DIR when unset (server/bootstrap.ts). */
  authSecret: string | undefined;
  rateLimits: RateLimitConfig;
  /** At most this many products per store and environment. */
  maxProductsPerStore: number;
  /** Webhook endpoints a store may have at once per environment: each event is sent to every one. */
  maxWebhookEndpointsPerStore: number;
  /** The live-mode acquirer (server/gateway/live.ts); test mode always uses the simulator. */
  gateway: GatewayConfig;
  /** WEBHOOK_DELIVERY_INTERVAL_MS (default 1000): how often the delivery worker looks for due webhooks. */
  webhookDeliveryIntervalMs: number;
  /**
   * WEBHOOKS_ALLOW_PRIVATE: test-mode webhooks may go to loopback and private addresses. By
   * default only when PUBLIC_BASE_URL is unset or on localhost (a laptop's `npm start`); cloud
   * metadata addresses are refused whatever it says, and live mode sends to public addresses only.
   */
  webhooksAllowPrivate: boolean;
  /**
   * BACKGROUND_LEASE_MS (default 60000): how long a background pass holds a row it works on
   * (server/kit/lease.ts), so how long a killed process keeps it from the others. Keep it well
   * above two gateway timeouts.
   */
  backgroundLeaseMs: number;
  /** SMTP_URL: where e-mail is sent; unset, nothing is e-mailed (links are printed instead). */
  smtpUrl?: string;
  /** EMAIL_FROM: the sender of every e-mail. */
  emailFrom?: string;
  /** SMTP_SEND_TEST_MODE (default false): test-mode customer e-mails are sent by SMTP too, not only kept in the store's outbox. */
  smtpSendTestMode: boolean;
  /** METRICS_TOKEN: the bearer token GET /metrics asks for; unset, /metrics is not served. */
  metricsToken?: string;
  /** MAX_IN_FLIGHT (default 64, on PGlite 16): requests one instance serves at once, never refused; more wait their turn. */
  maxInFlight: number;
  /**
   * QUEUE_TIMEOUT_MS (default 2000, on PGlite 300): the longest a request waits for its turn. One
   * that cannot expect its turn within it is refused at once with 503 service_busy (server/host/front.ts).
   */
  queueTimeoutMs: number;
  /** OPERATOR_LEGAL_NAME, OPERATOR_ADDRESS, OPERATOR_VAT_ID, OPERATOR_EMAIL; OPERATOR_IBAN, OPERATOR_BIC. */
  operator: OperatorConfig;
  vatLookup: VatLookupConfig;
  /** DOWNLOAD_LIMIT (default 20): downloads served per order line of a product with a file; more are refused. */
  downloadLimit: number;
  ledger: LedgerConfig;
  /** TAX_RATES_FILE: the operator's VAT rate table (.csv or .json); unset, the shipped server/vat/rates.csv. */
  taxRates: RateTable;
}

export interface GatewayConfig {
  /** GATEWAY_SECRET_KEY: the acquirer's secret API key; live payments fail closed without it. */
  secretKey: string | undefined;
  /** GATEWAY_BASE_URL: the acquirer's API origin, overridable for tests. */
  baseUrl: string;
  /** GATEWAY_TIMEOUT_MS: after this the outcome of a call is unknown (payment_outcome_unknown). */
  timeoutMs: number;
}

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return parsed;
}

function nonNegativeInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value)) throw new Error(`${name} must be a whole number, 0 or more, got "${value}"`);
  return Number(value);
}

function feePercentSetting(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const basisPoints = parseFeePercent(value);
  if (basisPoints === undefined) throw new Error(`${name} must be a percentage from 0 to 100 with at most two decimals, got "${value}"`);
  return basisPoints;
}

function booleanSetting(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

/** Whether the service is reached on this machine only: PUBLIC_BASE_URL unset, localhost or a loopback address. */
function servedLocally(publicBaseUrl: string | undefined): boolean {
  if (!publicBaseUrl) return true;
  let host: string;
  try {
    host = new URL(publicBaseUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Embedded PGlite computes on the process's one thread: every request queued ahead of another adds
 * its whole cost to that one's wait, so the embedded bound is tighter.
 */
const IN_FLIGHT_DEFAULTS = { postgres: { maxInFlight: 64, queueTimeoutMs: 2000 }, pglite: { maxInFlight: 16, queueTimeoutMs: 300 } };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const port = positiveInt(env.PORT, 3000, 'PORT');
  // turbopackIgnore: these are run-time locations, not files for the build to trace.
  const dataDir = path.resolve(/* turbopackIgnore: true */ env.DATA_DIR || '.data');
  const bound = IN_FLIGHT_DEFAULTS[env.DATABASE_URL ? 'postgres' : 'pglite'];
  return {
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    pgliteDir: path.resolve(/* turbopackIgnore: true */ env.PGLITE_DIR || path.join(dataDir, 'pglite')),
    subscriptionsEnabled: env.SUBSCRIPTIONS_ENABLED === 'true' || env.SUBSCRIPTIONS_ENABLED === '1',
    backgroundWork: env.BACKGROUND_WORK !== 'false' && env.BACKGROUND_WORK !== '0',
    adminToken: env.ADMIN_TOKEN || undefined,
    authSecret: env.AUTH_SECRET || undefined,
    rateLimits: {
      perIp: positiveInt(env.RATE_LIMIT_PER_IP, 200, 'RATE_LIMIT_PER_IP'),
      perKey: positiveInt(env.RATE_LIMIT_PER_KEY, 100, 'RATE_LIMIT_PER_KEY'),
      productWritesPerKey: positiveInt(env.RATE_LIMIT_PRODUCT_WRITES_PER_KEY, 25, 'RATE_LIMIT_PRODUCT_WRITES_PER_KEY'),
      portalPerIp: positiveInt(env.RATE_LIMIT_PORTAL_PER_IP, DEFAULT_PORTAL_PER_IP, 'RATE_LIMIT_PORTAL_PER_IP'),
      windowSeconds: positiveInt(env.RATE_LIMIT_WINDOW_SECONDS, 1, 'RATE_LIMIT_WINDOW_SECONDS'),
      signInPerIp: positiveInt(env.RATE_LIMIT_SIGN_IN_PER_IP, DEFAULT_SIGN_IN_LIMITS.perIp, 'RATE_LIMIT_SIGN_IN_PER_IP'),
      signInPerEmail: positiveInt(env.RATE_LIMIT_SIGN_IN_PER_EMAIL, DEFAULT_SIGN_IN_LIMITS.perEmail, 'RATE_LIMIT_SIGN_IN_PER_EMAIL'),
      signInWindowSeconds: DEFAULT_SIGN_IN_LIMITS.windowSeconds,
      withdrawPerIp: positiveInt(env.RATE_LIMIT_WITHDRAW_PER_IP, DEFAULT_WITHDRAW_LIMITS.perIp, 'RATE_LIMIT_WITHDRAW_PER_IP'),
      withdrawWindowSeconds: DEFAULT_WITHDRAW_LIMITS.windowSeconds,
      cancelPerIp: positiveInt(env.RATE_LIMIT_CANCEL_PER_IP, DEFAULT_CANCEL_LIMITS.perIp, 'RATE_LIMIT_CANCEL_PER_IP'),
      cancelWindowSeconds: DEFAULT_CANCEL_LIMITS.windowSeconds,
      resetPerIp: positiveInt(env.RATE_LIMIT_RESET_PER_IP, DEFAULT_RESET_LIMITS.perIp, 'RATE_LIMIT_RESET_PER_IP'),
      resetPerEmail: positiveInt(env.RATE_LIMIT_RESET_PER_EMAIL, DEFAULT_RESET_LIMITS.perEmail, 'RATE_LIMIT_RESET_PER_EMAIL'),
      resetWindowSeconds: DEFAULT_RESET_LIMITS.windowSeconds,
      invitesPerStore: positiveInt(env.RATE_LIMIT_INVITES_PER_STORE, DEFAULT_INVITE_LIMITS.perStore, 'RATE_LIMIT_INVITES_PER_STORE'),
      invitesPerInviter: positiveInt(env.RATE_LIMIT_INVITES_PER_INVITER, DEFAULT_INVITE_LIMITS.perInviter, 'RATE_LIMIT_INVITES_PER_INVITER'),
      inviteWindowSeconds: DEFAULT_INVITE_LIMITS.windowSeconds,
      payPerIp: positiveInt(env.RATE_LIMIT_PAY_PER_IP, DEFAULT_PAY_LIMITS.perIp, 'RATE_LIMIT_PAY_PER_IP'),
      payWindowSeconds: DEFAULT_PAY_LIMITS.windowSeconds,
    },
    maxProductsPerStore: positiveInt(env.MAX_PRODUCTS_PER_STORE, 10_000, 'MAX_PRODUCTS_PER_STORE'),
    maxWebhookEndpointsPerStore: positiveInt(env.MAX_WEBHOOK_ENDPOINTS_PER_STORE, 100, 'MAX_WEBHOOK_ENDPOINTS_PER_STORE'),
    gateway: {
      secretKey: env.GATEWAY_SECRET_KEY || undefined,
      baseUrl: (env.GATEWAY_BASE_URL || 'https://api.stripe.com').replace(/\/+$/, ''),
      timeoutMs: positiveInt(env.GATEWAY_TIMEOUT_MS, 15_000, 'GATEWAY_TIMEOUT_MS'),
    },
    webhookDeliveryIntervalMs: positiveInt(env.WEBHOOK_DELIVERY_INTERVAL_MS, 1000, 'WEBHOOK_DELIVERY_INTERVAL_MS'),
    webhooksAllowPrivate: booleanSetting(env.WEBHOOKS_ALLOW_PRIVATE, servedLocally(env.PUBLIC_BASE_URL), 'WEBHOOKS_ALLOW_PRIVATE'),
    backgroundLeaseMs: positiveInt(env.BACKGROUND_LEASE_MS, DEFAULT_LEASE_MS, 'BACKGROUND_LEASE_MS'),
    smtpUrl: env.SMTP_URL || undefined,
    emailFrom: env.EMAIL_FROM || DEFAULT_EMAIL_FROM,
    smtpSendTestMode: env.SMTP_SEND_TEST_MODE === 'true' || env.SMTP_SEND_TEST_MODE === '1',
    metricsToken: env.METRICS_TOKEN || undefined,
    maxInFlight: positiveInt(env.MAX_IN_FLIGHT, bound.maxInFlight, 'MAX_IN_FLIGHT'),
    queueTimeoutMs: positiveInt(env.QUEUE_TIMEOUT_MS, bound.queueTimeoutMs, 'QUEUE_TIMEOUT_MS'),
    operator: loadOperator(env),
    vatLookup: {
      enabled: env.VIES_ENABLED === 'true' || env.VIES_ENABLED === '1',
      baseUrl: (env.VIES_BASE_URL || 'https://ec.europa.eu/taxation_customs/vies/rest-api').replace(/\/+$/, ''),
      timeoutMs: positiveInt(env.VIES_TIMEOUT_MS, 5000, 'VIES_TIMEOUT_MS'),
    },
    downloadLimit: positiveInt(env.DOWNLOAD_LIMIT, 20, 'DOWNLOAD_LIMIT'),
    ledger: {
      defaultFees: {
        basisPoints: feePercentSetting(env.PLATFORM_FEE_PERCENT, 500, 'PLATFORM_FEE_PERCENT'),
        fixed: nonNegativeInt(env.PLATFORM_FEE_FIXED, 50, 'PLATFORM_FEE_FIXED'),
      },
      payoutHoldDays: nonNegativeInt(env.PAYOUT_HOLD_DAYS, 7, 'PAYOUT_HOLD_DAYS'),
      payoutMinimum: positiveInt(env.PAYOUT_MINIMUM, 1000, 'PAYOUT_MINIMUM'),
      disputeFee: nonNegativeInt(env.DISPUTE_FEE, 1500, 'DISPUTE_FEE'),
    },
    taxRates: loadRateTable(env.TAX_RATES_FILE?.trim() || undefined),
  };
}
