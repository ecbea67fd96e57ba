import { EVIDENCE_FIELDS, updateDisputeInput } from '@/server/disputes/schemas';
import { updateDispute } from '@/server/disputes/service';
import { dashboardBase } from '../access';
import { withError, type DashboardActionDefinition, type FormFields } from '../act/dispatch';
import { refusalCode } from '../act/refusal';

/** The order page's codes for the dispute service's refusals. */
const EVIDENCE_REFUSALS: Record<string, string> = { dispute_not_editable: 'dispute_not_editable', parameter_invalid: 'evidence_missing', resource_missing: 'dispute_missing' };

/** A textarea's text as the API stores it: its line breaks as `\n` (browsers post CRLF), and nothing but spaces as no evidence. */
function evidenceText(form: FormFields, field: string): string | null {
  const text = form.text(field).replace(/\r\n?/g, '\n');
  return text.trim() === '' ? null : text;
}

/**
 * Saves the evidence form's three fields as they stand (an emptied field clears), and with
 * `Submit evidence` submits them for review, which must be confirmed: submitted evidence can no
 * longer change. A save repeated changes nothing, and a submit repeated is refused, so the form
 * needs no key of its own.
 */
export const disputeEvidence: DashboardActionDefinition = {
  right: 'disputes',
  async run({ form, mode, scope, acting }) {
    const detail = `${dashboardBase(mode)}/orders/${encodeURIComponent(form.text('order_id'))}`;
    const submit = form.text('intent') === 'submit';
    if (submit && form.text('confirm') !== 'yes') return withError(detail, 'confirm_submit');
    const parsed = updateDisputeInput.safeParse({
      id: form.text('dispute_id'),
      evidence: Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, evidenceText(form, field)])),
      submit,
    });
    if (!parsed.success) return withError(detail, parsed.error.issues[0]?.path[0] === 'evidence' ? 'evidence_too_long' : 'dispute_missing');
    return updateDispute(await acting(detail), scope, parsed.data).then(
      () => `${detail}?saved=${submit ? 'evidence_submitted' : 'evidence_saved'}`,
      (error: unknown) => withError(detail, refusalCode(error, EVIDENCE_REFUSALS)),
    );
  },
};
