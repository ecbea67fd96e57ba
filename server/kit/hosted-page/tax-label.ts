/** How a page names an order's tax: the rates of its taxed lines (ascending, each once), and whether the prices contain it. */
export interface TaxLabel {
  rates: number[];
  inclusive: boolean;
}

export function taxLabelOf(lines: readonly { amountTax: number; taxRate: number | null; taxInclusive: boolean }[]): TaxLabel {
  const taxed = lines.filter((line) => line.amountTax > 0);
  return {
    rates: [...new Set(taxed.flatMap((line) => (line.taxRate === null ? [] : [line.taxRate])))].sort((a, b) => a - b),
    inclusive: taxed.length > 0 && taxed.every((line) => line.taxInclusive),
  };
}
