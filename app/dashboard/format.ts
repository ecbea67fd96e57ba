/** How the dashboard writes money and times. */
const euros = new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' });

/** Integer cents as euros, `€24.50`. */
export const money = (cents: number) => euros.format(cents / 100);

/** Epoch seconds as `2026-11-25 21:40 UTC`: the store's clock is UTC. */
export const utcTime = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
