/** Every dashboard action by the name its form posts to (`/dashboard/act/<name>`). */
import * as apiKeys from '../api-keys/actions';
import * as balance from '../balance/actions';
import * as coupons from '../coupons/actions';
import * as customers from '../customers/actions';
import * as disputes from '../disputes/actions';
import * as orders from '../orders/actions';
import * as products from '../products/actions';
import * as settings from '../settings/actions';
import * as twoFactor from '../settings/two-factor-actions';
import * as subscriptions from '../subscriptions/actions';
import * as testClock from '../test-clock/actions';
import * as webhooks from '../webhooks/actions';
import type { DashboardActionDefinition } from './dispatch';

export const DASHBOARD_ACTIONS: Record<string, DashboardActionDefinition> = {
  refund: orders.refund,
  'advance-clock': testClock.advanceClock,
  'create-portal-link': customers.createPortalLink,
  'revoke-portal-link': customers.revokePortalLink,
  'delete-customer': customers.deleteCustomer,
  'cancel-subscription': subscriptions.cancelSubscription,
  'update-subscription-metadata': subscriptions.updateSubscriptionMetadata,
  'store-rename': settings.renameStore,
  'bank-account-save': settings.saveBankAccount,
  'payout-schedule': settings.changeSchedule,
  'store-language': settings.changeLanguage,
  'team-invite': settings.inviteTeamMember,
  'team-role': settings.changeTeamRole,
  'team-remove': settings.removeTeamMember,
  'password-change': settings.changeOwnPassword,
  'sign-out-everywhere': settings.signOutEverywhereAction,
  'api-key-create': apiKeys.apiKeyCreate,
  'api-key-roll': apiKeys.apiKeyRoll,
  'api-key-revoke': apiKeys.apiKeyRevoke,
  'two-factor-start': twoFactor.twoFactorStart,
  'two-factor-confirm': twoFactor.twoFactorConfirm,
  'two-factor-disable': twoFactor.twoFactorDisable,
  'two-factor-backup-codes': twoFactor.twoFactorBackupCodes,
  'product-create': products.productCreate,
  'product-update': products.productUpdate,
  'product-delete': products.productDelete,
  'coupon-create': coupons.couponCreate,
  'coupon-delete': coupons.couponDelete,
  'promotion-code-create': coupons.promotionCodeCreate,
  'promotion-code-active': coupons.promotionCodeActive,
  'webhook-create': webhooks.webhookCreate,
  'webhook-update': webhooks.webhookUpdate,
  'webhook-disable': webhooks.webhookDisable,
  'webhook-roll-secret': webhooks.webhookRollSecret,
  'event-resend': webhooks.eventResend,
  payout: balance.payOut,
  'dispute-evidence': disputes.disputeEvidence,
};
