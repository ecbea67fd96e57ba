/** Every dashboard action by the name its form posts to (`/dashboard/act/<name>`). */
import * as orders from '../orders/actions';
import * as products from '../products/actions';
import * as webhooks from '../webhooks/actions';
import type { DashboardActionDefinition } from './dispatch';

export const DASHBOARD_ACTIONS: Record<string, DashboardActionDefinition> = {
  refund: orders.refund,
  'product-create': products.productCreate,
  'product-update': products.productUpdate,
  'product-delete': products.productDelete,
  'webhook-create': webhooks.webhookCreate,
  'webhook-update': webhooks.webhookUpdate,
  'webhook-disable': webhooks.webhookDisable,
  'webhook-roll-secret': webhooks.webhookRollSecret,
  'event-resend': webhooks.eventResend,
};
