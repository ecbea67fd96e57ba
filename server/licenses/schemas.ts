/**
 * The public contract of license key validation. Validation always answers 200 with
 * `valid`: an unknown key, another store's, the other environment's and a revoked one are all
 * `valid: false`, never 404, so a merchant's server has one shape to check.
 */
import { z } from 'zod';
import { EXAMPLE } from '../kit/examples';

export const LICENSE_KEY_STATUSES = ['active', 'revoked', 'not_found'] as const;

export const validateLicenseInput = z
  .strictObject({
    key: z.string().min(1).max(64).describe('The license key as the customer typed it, `LK-XXXXX-XXXXX-XXXXX-XXXXX`; surrounding spaces and case are ignored.'),
  })
  .meta({ examples: [{ key: EXAMPLE.licenseKey }] });
export type ValidateLicenseInput = z.infer<typeof validateLicenseInput>;

export const licenseValidationSchema = z
  .object({
    object: z.literal('license_key_validation'),
    livemode: z.boolean(),
    valid: z.boolean().describe('True only for an issued, unrevoked key of this store and mode.'),
    key: z.string().describe('The key as looked up: trimmed and upper-cased.'),
    status: z
      .enum(LICENSE_KEY_STATUSES)
      .describe(
        'Why `valid` is what it is: `active`; `revoked` (its order was refunded in full, or its product force-deleted); `not_found`, which is also the answer for another store’s or the other mode’s keys.',
      ),
    reason: z.enum(['revoked', 'not_found']).nullable().describe('Why the key is not valid (`revoked` or `not_found`, as `status`); null when it is valid.'),
    product_id: z.string().nullable().describe('Null when not found, or once the product has been deleted.'),
    order_id: z.string().nullable(),
    created: z.number().int().nullable().describe('When the key was issued; null when not found.'),
    revoked_at: z.number().int().nullable(),
  })
  .meta({
    id: 'LicenseKeyValidation',
    examples: [
      {
        object: 'license_key_validation',
        livemode: false,
        valid: true,
        key: EXAMPLE.licenseKey,
        status: 'active',
        reason: null,
        product_id: EXAMPLE.productId,
        order_id: EXAMPLE.orderId,
        created: EXAMPLE.created + 9,
        revoked_at: null,
      },
    ],
  });
export type LicenseValidation = z.infer<typeof licenseValidationSchema>;
