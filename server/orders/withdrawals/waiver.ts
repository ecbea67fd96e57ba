/**
 * The wording of the waiver of the right of withdrawal, by version. An order keeps the version its
 * customer agreed to, so the exact sentences can be shown again later (on an invoice, in a
 * dispute): a change of wording is a new version here, never an edit of an old one.
 */

/** Both sentences, each the label of its own checkbox; only both together make a waiver. */
export interface WaiverText {
  deliveryConsent: string;
  acknowledgement: string;
}

export const WAIVER_TEXTS = {
  'withdrawal-waiver-en-v1': {
    deliveryConsent: 'I agree that delivery starts before the withdrawal period ends',
    acknowledgement: 'I acknowledge that I thereby lose my right of withdrawal',
  },
} as const satisfies Record<string, WaiverText>;

export type WaiverTextVersion = keyof typeof WAIVER_TEXTS;

/** The version the hosted checkout shows now. */
export const CURRENT_WAIVER_VERSION: WaiverTextVersion = 'withdrawal-waiver-en-v1';

/** The checkout form's field names of the two checkboxes. */
export const WAIVER_FIELDS = { deliveryConsent: 'withdrawal_delivery_consent', acknowledgement: 'withdrawal_waiver_acknowledged' } as const;

/** The wording of a stored version (undefined for one this build does not know). */
export function waiverText(version: string): WaiverText | undefined {
  return Object.hasOwn(WAIVER_TEXTS, version) ? WAIVER_TEXTS[version as WaiverTextVersion] : undefined;
}
