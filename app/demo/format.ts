const EUR = new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' });

export const formatCents = (cents: number) => EUR.format(cents / 100);
