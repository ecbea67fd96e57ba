import { pdfFileSchema } from '../invoices/schemas';
import { createRouter, secretKeyProcedure } from '../trpc';
import { disputeEvidencePdf } from './evidence';
import { disputeListSchema, disputeSchema, listDisputesInput, retrieveDisputeInput, updateDisputeInput } from './schemas';
import { getDispute, listDisputes, updateDispute } from './service';

const TAGS = ['Disputes'];

export const disputesRouter = createRouter({
  // GET /api/v1/disputes: this store's disputes in this environment, newest first.
  list: secretKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/disputes',
        tags: TAGS,
        summary: 'List disputes',
        protect: true,
      },
      errors: ['resource_missing'],
    })
    .input(listDisputesInput)
    .output(disputeListSchema)
    .query(({ ctx, input }) => listDisputes(ctx.db, ctx.subject, input)),

  // GET /api/v1/disputes/{id}: a dispute of this store and environment.
  retrieve: secretKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/disputes/{id}',
        tags: TAGS,
        summary: 'Retrieve a dispute',
        protect: true,
      },
    })
    .input(retrieveDisputeInput)
    .output(disputeSchema)
    .query(({ ctx, input }) => getDispute(ctx.db, ctx.subject, input.id)),

  // POST /api/v1/disputes/{id}: evidence saved, and submitted when asked.
  update: secretKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/disputes/{id}',
        tags: TAGS,
        summary: 'Save or submit dispute evidence',
        description:
          'Each evidence field sent replaces the stored one (null clears it). `submit: true` submits the evidence as it then stands: the dispute goes `under_review` and `evidence_submitted_at` is set. Only while `needs_response` and before `evidence_due_by`: else 409 `dispute_not_editable`. Submitting with every field empty is 400 `parameter_invalid` on `evidence`. At the deadline, saved evidence is submitted; without any, the dispute is lost.',
        protect: true,
      },
      errors: ['dispute_not_editable'],
    })
    .input(updateDisputeInput)
    .output(disputeSchema)
    .mutation(({ ctx, input }) =>
      updateDispute(
        {
          db: ctx.db,
          clock: ctx.clock,
          wallClock: ctx.wallClock,
          actor: ctx.actor,
        },
        ctx.subject,
        input,
      ),
    ),

  // GET /api/v1/disputes/{id}/evidence.pdf: everything the store can show the card network, as a PDF.
  retrieveEvidence: secretKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/disputes/{id}/evidence.pdf',
        tags: TAGS,
        summary: 'Download a dispute’s evidence pack as PDF',
        description:
          'In English, in any status: the dispute; the order (lines, amounts, payment time, card brand and last 4, invoice and credit note numbers, refunds, withdrawal); the withdrawal waiver with its wording; the customer’s e-mail, name, VAT ID, and IP address and user agent at payment (`erased` 540 days after the payment); each download and license key validation; the e-mails sent to the customer; the evidence text. Times in UTC. Answers `application/pdf` over REST; over /api/trpc, the same file in base64.',
        protect: true,
      },
      file: 'application/pdf',
    })
    .input(retrieveDisputeInput)
    .output(pdfFileSchema)
    .query(({ ctx, input }) => disputeEvidencePdf(ctx, ctx.subject, input.id)),
});
