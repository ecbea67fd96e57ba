const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

/** A card brand as the gateway names it (`visa`), as people read it (`Visa`); `Card` for one we do not know. */
export function cardBrandName(brand: string | null): string {
  return BRANDS[brand ?? ''] ?? 'Card';
}
