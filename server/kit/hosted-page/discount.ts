/** A discount as a hosted page's order summary shows it (checkout sessions and subscription checkouts alike). */
export interface SummaryDiscount {
  /** The code as the store wrote it, or the coupon's name: the row reads `Discount (<label>)`. */
  label: string;
  /** Cents taken off before tax. */
  amount: number;
  /** A code the customer typed, which they may take off again. */
  removable: boolean;
}

/** `Discount (SUMMER25)`. */
export function discountRowLabel(label: string): string {
  return `Discount (${label})`;
}

/** The promotion code form's field names: the code typed (`Apply`), or `Remove`. */
export const PROMOTION_CODE_FIELDS = { code: 'promotion_code', remove: 'remove' } as const;
