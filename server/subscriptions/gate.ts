import { ApiError } from '../errors';
import { gatedSecretKeyProcedure } from '../trpc';

/**
 * Creating, cancelling and changing plans are switched off platform-wide unless
 * SUBSCRIPTIONS_ENABLED (503), and per store by its `subscriptions` flag (403), in test and live
 * alike. Checked right after the key, before any lookup or validation of the request.
 */
export const gatedProcedure = gatedSecretKeyProcedure((ctx, subject) => {
  if (!ctx.config.subscriptionsEnabled) {
    throw new ApiError(
      'feature_unavailable',
      'Creating and cancelling subscriptions is currently unavailable on this platform. The operator turns it on by starting the service with SUBSCRIPTIONS_ENABLED=true.',
    );
  }
  if (!subject.flags.subscriptions) {
    throw new ApiError(
      'capability_disabled',
      `Subscriptions are not enabled for this account. The operator turns them on with "npm run admin -- store:update --id ${subject.storeId} --subscriptions true".`,
    );
  }
});
