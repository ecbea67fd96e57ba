import { createRouter, secretKeyProcedure } from '../trpc';
import { licenseValidationSchema, validateLicenseInput } from './schemas';
import { validateLicenseKey } from './service';

export const licensesRouter = createRouter({
  // POST /api/v1/licenses/validate: whether a license key is issued and unrevoked; never 404.
  validate: secretKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/licenses/validate',
        tags: ['Licenses'],
        summary: 'Validate a license key',
        description: 'Answers 200 with `valid: false` for unknown, revoked, foreign and other-mode keys.',
        protect: true,
      },
    })
    .input(validateLicenseInput)
    .output(licenseValidationSchema)
    .mutation(({ ctx, input }) => validateLicenseKey(ctx, ctx.subject, input.key)),
});
