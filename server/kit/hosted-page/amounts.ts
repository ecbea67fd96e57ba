/** One format for every amount on the hosted pages: EUR in Irish English ("€1,234.50"). */
const EUR = new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' });

export function formatEur(cents: number): string {
  return EUR.format(cents / 100);
}
