/** The one source of "now" (DEVELOPERS.md); tests inject their own. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
